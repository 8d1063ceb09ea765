"""Production as it starts and answers: a real ASGI server process with ``DJANGO_DEBUG=0``.

It refuses to start without its collected static files (instead of answering every page with a
500), serves its pages with their hashed static files (WhiteNoise), sends the security headers,
answers ``HEAD``, keeps no secret of a URL in its log; and ``python -m durak_site.serve`` is
production's start.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pytest_django import DjangoDbBlocker
from websockets.sync.client import connect
from websockets.typing import Origin

from durak_site.processes import asgi_command, free_port
from durak_site.startup import static_files_problem
from tests.builders import LiveTable, start_live_table
from tests.conftest import ROOT, subprocess_env
from tests.e2e.conftest import server_env
from tests.e2e.production import PRODUCTION, production_env

pytestmark = pytest.mark.django_db(transaction=True)


def request(
    address: str, method: str, path: str, headers: dict[str, str] | None = None
) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection(address, timeout=20)
    conn.request(method, path, headers=headers or {})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


# --- start ----------------------------------------------------------------------------------------


def test_without_collected_static_files_the_server_refuses_to_start(
    tmp_path: Path, django_db_blocker: DjangoDbBlocker
) -> None:
    # given production's settings and a STATIC_ROOT where collectstatic has not run
    with django_db_blocker.unblock():
        env = production_env(tmp_path)
    # when the server starts, it stops at once, saying what to do (not a 500 on every page)
    started = time.monotonic()
    done = subprocess.run(
        asgi_command(sys.executable, "127.0.0.1", free_port()),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "no static files manifest" in done.stderr and "collectstatic" in done.stderr
    assert time.monotonic() - started < 30


def test_static_files_missing_from_the_manifest_are_a_problem(static_root: Path) -> None:
    from whitenoise.storage import CompressedManifestStaticFilesStorage  # noqa: PLC0415

    assert static_files_problem(CompressedManifestStaticFilesStorage(location=static_root)) is None
    # given a manifest collected before js/table.js existed
    stale = static_root.parent / "stale"
    stale.mkdir(exist_ok=True)
    manifest = json.loads((static_root / "staticfiles.json").read_text())
    del manifest["paths"]["js/table.js"]
    (stale / "staticfiles.json").write_text(json.dumps(manifest))
    problem = static_files_problem(CompressedManifestStaticFilesStorage(location=stale))
    assert problem is not None and "js/table.js" in problem and "collectstatic" in problem


# --- pages ----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("eager_jobs")
def test_pages_and_their_static_files_are_served(production: tuple[str, Path]) -> None:
    address, _log = production
    live = start_live_table()
    conn = http.client.HTTPConnection(address, timeout=20)
    conn.request("GET", f"/tables/{live.table.pk}/")
    response = conn.getresponse()
    html = response.read().decode()
    assert response.status == 200
    script = re.search(r'src="(/static/js/table\.[0-9a-f]{12}\.js)"', html)
    assert script, "the page names its script by its hashed name (the manifest)"
    conn.request("GET", script[1])
    static = conn.getresponse()
    body = static.read()
    assert static.status == 200 and b"WebSocket" in body
    assert "immutable" in (static.getheader("Cache-Control") or "")
    for path in ("/", "/api/v1/docs/", "/api/v1/redoc/", "/healthz", "/accounts/login/"):
        conn.request("GET", path)
        answer = conn.getresponse()
        answer.read()
        assert answer.status == 200, path
    conn.close()


def test_every_page_sends_the_security_headers(production: tuple[str, Path]) -> None:
    address, _log = production
    for path in ("/", "/accounts/login/", "/api/v1/docs/", "/no-such-page/"):
        headers = request(address, "GET", path).headers
        csp = headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives["script-src"].split()[0] == "'self'", path
        assert "'unsafe-inline'" not in directives["script-src"]
        assert "'unsafe-eval'" not in csp
        assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "same-origin"
        # (Swagger UI's page opens OAuth2 pop-ups, so drf-spectacular relaxes it there)
        opener = "unsafe-none" if path == "/api/v1/docs/" else "same-origin"
        assert headers["Cross-Origin-Opener-Policy"] == opener
        assert "camera=()" in headers["Permissions-Policy"]
    # an inline script runs only with the nonce of its own answer
    docs = request(address, "GET", "/api/v1/docs/")
    assert re.search(r"'nonce-[A-Za-z0-9+/=]{16,}'", docs.headers["Content-Security-Policy"])


def test_embeds_may_be_framed_by_other_sites(production: tuple[str, Path]) -> None:
    address, _log = production
    headers = request(address, "GET", "/embed/tournaments/no-such-event/standings/").headers
    assert "X-Frame-Options" not in headers
    # no frame-ancestors at all: "*" would refuse a local file's page (CSP3: network schemes only)
    assert "frame-ancestors" not in headers["Content-Security-Policy"]


@pytest.mark.usefixtures("eager_jobs")
def test_head_is_answered_as_get_without_a_body(production: tuple[str, Path]) -> None:
    address, _log = production
    live = start_live_table()
    for path in ("/", "/healthz", f"/tables/{live.table.pk}/", f"/games/{live.game.pk}/verify"):
        got, head = request(address, "GET", path), request(address, "HEAD", path)
        assert head.status == got.status != 405, path
        assert head.headers["Content-Type"] == got.headers["Content-Type"], path


@pytest.mark.usefixtures("eager_jobs")
def test_a_private_table_is_404_to_outsiders_as_a_missing_one(
    production: tuple[str, Path],
) -> None:
    address, _log = production
    live = start_live_table(is_public=False)
    hidden = request(address, "GET", f"/tables/{live.table.pk}/")
    missing = request(address, "GET", f"/tables/{live.table.pk + 1000}/")
    assert hidden.status == missing.status == 404
    assert "Location" not in hidden.headers


# --- logs -----------------------------------------------------------------------------------------


def test_no_secret_of_a_url_reaches_the_log(
    production: tuple[str, Path], live_table: LiveTable
) -> None:
    address, log = production
    secrets = [f"SeCrEt{n}x{os.getpid()}" for n in range(5)]
    origin = f"http://{address}"
    request(address, "GET", f"/healthz?token={secrets[0]}&x=1")
    request(address, "GET", f"/api/v1/tournaments/?api_key={secrets[1]}")
    request(address, "GET", f"/accounts/password-reset/MQ/{secrets[2]}/")
    for query in (f"token={secrets[3]}", f"ticket={secrets[4]}"):
        url = f"ws://{address}/ws/tables/{live_table.table.pk}/?{query}"
        with connect(url, origin=Origin(origin), open_timeout=10) as sock:
            assert json.loads(sock.recv(timeout=10))["code"] == "authentication_failed"
    time.sleep(0.5)  # the log is written by the server process
    text = log.read_text()
    assert "[redacted]" in text and "/healthz?token=[redacted]&x=1" in text
    for secret in secrets:
        assert secret not in text, secret


# --- the production start -------------------------------------------------------------------------


def serve_env(**extra: str) -> dict[str, str]:
    env = subprocess_env(**{**PRODUCTION, **extra})
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    return env


def test_serve_refuses_development_settings_and_a_missing_broker() -> None:
    debug = subprocess.run(
        [sys.executable, "-m", "durak_site.serve"],
        cwd=ROOT,
        env=serve_env(DJANGO_DEBUG="1"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert debug.returncode != 0 and "DJANGO_DEBUG=0" in debug.stderr
    env = serve_env()
    env.pop("REDIS_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    no_broker = subprocess.run(
        [sys.executable, "-m", "durak_site.serve"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert no_broker.returncode != 0 and "REDIS_URL" in no_broker.stderr


@pytest.mark.real_stack
@pytest.mark.slow
def test_serve_collects_the_static_files_starts_everything_and_stops_it(
    tmp_path: Path, django_db_blocker: DjangoDbBlocker
) -> None:
    with django_db_blocker.unblock():
        database = server_env()["DATABASE_URL"]
    port = free_port()
    env = serve_env(DATABASE_URL=database, DURAK_STATIC_ROOT=str(tmp_path / "static"))
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        serve = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "durak_site.serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                "2",
                "--concurrency",
                "1",
                "--beat-schedule",
                str(tmp_path / "beat"),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 120
            while "serving on" not in log_path.read_text():
                assert serve.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.5)
            assert (tmp_path / "static" / "staticfiles.json").exists()
            health = request(f"127.0.0.1:{port}", "GET", "/healthz")
            assert health.status == 200
            page = request(f"127.0.0.1:{port}", "GET", "/")
            assert page.status == 200
        finally:
            serve.send_signal(signal.SIGTERM)
            code = serve.wait(timeout=60)
    text = log_path.read_text()
    assert code == 0, text
    for name in ("worker", "beat", "asgi"):
        assert f"{name} started" in text
    assert "check --deploy" in text and "collectstatic" in text
    assert "no proxy is trusted (DURAK_TRUSTED_PROXIES)" in text  # the server's default
