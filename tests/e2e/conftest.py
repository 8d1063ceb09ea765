"""Real servers for end-to-end tests: ASGI server processes on free ports, on the test database."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

from durak_site.processes import asgi_command
from tests.conftest import ROOT, subprocess_env, test_database_url


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env() -> dict[str, str]:
    """The child's settings: this run's test database, jobs run in the server process itself
    (no worker is needed to finish a game), and the same channel layer as the tests."""
    env = subprocess_env(CELERY_TASK_ALWAYS_EAGER="1", DJANGO_DEBUG="1")
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    if settings.USES_POSTGRES:
        env["DATABASE_URL"] = test_database_url()
    else:
        env.pop("DATABASE_URL", None)
        env["DURAK_SQLITE_PATH"] = str(connection.settings_dict["NAME"])
    return env


@contextmanager
def asgi_server(env: dict[str, str] | None = None, timeout: float = 40) -> Iterator[str]:
    """The project's ASGI server process (``durak_site.processes``); yields its ``host:port``."""
    port = free_port()
    log_path = ROOT / f".pytest-asgi-{port}.log"
    log = log_path.open("w")
    server = subprocess.Popen(
        asgi_command(sys.executable, "127.0.0.1", port),
        cwd=ROOT,
        env=env or server_env(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the ASGI server died: see {log_path}")
            try:
                urllib.request.urlopen(f"http://{address}/healthz", timeout=2).close()
                break
            except urllib.error.HTTPError:
                break  # it answers (503 when a part is down is still an answer)
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the ASGI server did not start: see {log_path}") from None
                time.sleep(0.1)
        yield address
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        log_path.unlink(missing_ok=True)
