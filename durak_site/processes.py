"""The command lines of the service's processes, in one place for ``dev.py``, the tests and the
benchmarks: the ASGI server, the Celery worker and beat. Standard library only (``dev.py`` runs
outside the virtual environment).

The ASGI server is uvicorn with uvloop, httptools and uvicorn's ``websockets-sansio`` WebSocket
protocol (the ``websockets`` package's sans-I/O core on uvicorn's own transport): not uvicorn's
legacy ``websockets`` protocol, which is deprecated and warns at every start, and not ``wsproto``,
which would be one more dependency. A server start prints no deprecation warning. uvicorn was
chosen over daphne on the live-table load benchmark (``python -m bench.live_tables``), and a
change of server or protocol here is judged on it. WebSocket compression is off: a state message
is about 1 KB, and deflating every frame was one of the server's largest costs per message. Any
number of these processes can serve side by side on the Redis channel layer.

Proxy headers: uvicorn believes ``X-Forwarded-For`` and ``X-Forwarded-Proto`` only from the
addresses of ``DURAK_TRUSTED_PROXIES`` (:func:`trusted_proxies_in`), and from nobody when that
is empty, the default. Left to itself it believes them from 127.0.0.1, so that any client of a
server reached on its loopback address (or through a proxy that passes the client's header
along) could name its own address: a new one per request is a new client to the login lockout
and the API's throttles. The ASGI scope's ``client`` is then the one address the application takes
(``durak_site.clientaddr``).
"""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

ASGI_APP = "durak_site.server:application"
#: The largest WebSocket message the server reads (bytes): a client message is at most 4 KiB
#: (``games.consumers``), which answers anything up to this with ``too_large``; a bigger frame
#: is closed by uvicorn with 1009 before it is buffered whole (its default is 16 MiB).
WS_MAX_SIZE = 65536
#: The reverse proxies whose forwarded headers the server believes (:func:`trusted_proxies_in`).
TRUSTED_PROXIES = "DURAK_TRUSTED_PROXIES"


def trusted_proxies_in(environ: Mapping[str, str] = os.environ) -> list[str]:
    """``DURAK_TRUSTED_PROXIES`` of ``environ``: comma-separated IP addresses and networks
    (``127.0.0.1``, ``10.0.0.0/8``, ``::1``), in their normal form; empty when unset. Anything
    else (a host name, ``*``, a network with host bits set) is a ``ValueError`` naming the
    variable: uvicorn would take it as a literal that no address ever matches, or as everyone.

    >>> trusted_proxies_in({"DURAK_TRUSTED_PROXIES": " 127.0.0.1, 10.0.0.0/8,::1"})
    ['127.0.0.1', '10.0.0.0/8', '::1']
    """
    found = []
    for item in (environ.get(TRUSTED_PROXIES) or "").split(","):
        if not (item := item.strip()):
            continue
        try:
            if "/" in item:
                found.append(str(ipaddress.ip_network(item)))
            else:
                found.append(str(ipaddress.ip_address(item)))
        except ValueError:
            raise ValueError(
                f"{TRUSTED_PROXIES}: {item!r} is not an IP address or network "
                "(such as 127.0.0.1 or 10.0.0.0/8)"
            ) from None
    return found


def asgi_command(
    python: str | Path,
    host: str,
    port: int,
    *,
    quiet: bool = False,
    workers: int = 1,
    trusted_proxies: Sequence[str] = (),
) -> list[str]:
    """``uvicorn`` serving the project at ``host:port`` (``quiet``: warnings only, no access
    log; ``workers``: that many server processes on the one port; ``trusted_proxies``: the
    addresses whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` it believes, none by default:
    give it :func:`trusted_proxies_in` the server's environment)."""
    command = [
        str(python),
        "-m",
        "uvicorn",
        ASGI_APP,
        "--host",
        host,
        "--port",
        str(port),
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--ws",
        "websockets-sansio",
        "--ws-per-message-deflate",
        "false",
        "--ws-max-size",
        str(WS_MAX_SIZE),
        "--lifespan",
        "off",  # Django's ASGI handler has no lifespan events
    ]
    if trusted_proxies:
        command += ["--proxy-headers", "--forwarded-allow-ips", ",".join(trusted_proxies)]
    else:
        command += ["--no-proxy-headers"]
    if quiet:
        command += ["--no-access-log", "--log-level", "warning"]
    if workers > 1:
        command += ["--workers", str(workers)]
    return command


def collectstatic_command(python: str | Path) -> list[str]:
    """``manage.py collectstatic``: production's static files and the manifest that its pages
    name them through (run it with production's settings, ``DJANGO_DEBUG=0``: a production
    server refuses to start without them, ``durak_site.server``)."""
    return [str(python), "manage.py", "collectstatic", "--noinput", "-v", "0"]


def worker_prefix(python: str | Path) -> list[str]:
    return [str(python), "-m", "celery", "-A", "durak_site"]


def worker_command(
    python: str | Path,
    *,
    queue: str | None = None,
    name: str | None = None,
    solo: bool = False,
    loglevel: str = "info",
) -> list[str]:
    """A Celery worker of the project (``queue``: only that queue; ``solo``: one process, for
    tests and benchmarks that start and stop it)."""
    command = [*worker_prefix(python), "worker", "-l", loglevel]
    if queue:
        command += ["-Q", queue]
    if name:
        command += ["-n", name]
    if solo:
        command += ["--pool", "solo", "--without-gossip", "--without-mingle"]
    return command


def beat_command(python: str | Path, schedule: str | Path) -> list[str]:
    """Celery beat, the periodic jobs of ``durak_site.celery``."""
    return [*worker_prefix(python), "beat", "-l", "info", "--schedule", str(schedule)]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_serving(address: str, proc: subprocess.Popen[bytes], timeout: float, log: str) -> None:
    """Wait until the server ``proc`` at ``address`` answers ``/healthz`` (503, a part down, is
    an answer too); ``RuntimeError`` naming ``log`` if it dies or does not start in time."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the server at {address} died at start: see {log}")
        try:
            urllib.request.urlopen(f"http://{address}/healthz", timeout=2).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server at {address} did not start: see {log}") from None
            time.sleep(0.1)


# --- running several processes as one service (dev.py stack, durak_site.serve) ---------------


def watch(
    running: dict[str, subprocess.Popen[bytes]],
    until: subprocess.Popen[bytes] | None = None,
    say: Callable[[str], None] = print,
) -> int:
    """Wait until ``until`` exits (its exit code) or, without it, until any process exits; a
    process other than ``until`` that exits is an error."""
    while True:
        if until is not None and until.poll() is not None:
            return until.returncode
        for name, proc in running.items():
            if proc is not until and proc.poll() is not None:
                say(f"{name} exited with {proc.returncode}; stopping the others")
                return proc.returncode or 1
        time.sleep(0.5)


def stop(
    procs: Iterable[subprocess.Popen[bytes]],
    grace: float = 15.0,
    say: Callable[[str], None] = print,
) -> None:
    """SIGTERM to each process, up to ``grace`` seconds for all to exit, then SIGKILL to
    whatever is left in their process groups (a killed worker's pool processes included)."""
    procs = list(procs)
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"pid {proc.pid} did not stop in {grace:.0f} s: killing it")
    for proc in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left in it
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def collector_tuned() -> None:
    """Tune the cycle collector of a long-running process (a server's, a worker's): everything
    alive after start-up moved out of its sight (``gc.freeze``), and collections less often, so
    that a full pass over everything the process holds (Django, the URL and model registries, a
    server's consumers, a worker's kept standings) neither stalls a server's sockets nor costs
    a worker's jobs. Reference cycles are still collected, in larger batches
    (``docs/performance.md``)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 1000)
