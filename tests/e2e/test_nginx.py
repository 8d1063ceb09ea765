"""Production behind nginx: the documented site file (``deploy/nginx/durak.conf``) run by Debian's
nginx in front of a production server that trusts it (``DURAK_TRUSTED_PROXIES=127.0.0.1``,
``DJANGO_BEHIND_TLS_PROXY=1``, the HTTPS redirect on).

nginx runs as a child of the test (not a daemon), with its own prefix and configuration in a
temporary folder and a certificate made for the run, on free loopback ports; only the ports, the
upstream's port, the static folder and the certificate of the file are swapped. Through it: a page,
the API, a table's socket, the static files (nginx's own answers), the plain-HTTP side, the size
limit; and the address the lockout and the throttles see is the one nginx forwards (the peer it
saw), whatever ``X-Forwarded-For`` the client sent.
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from pytest_django import DjangoDbBlocker
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from durak_site.processes import free_port
from tests.builders import LiveTable
from tests.conftest import ROOT
from tests.e2e.conftest import asgi_server
from tests.e2e.production import production_env, static_root
from tests.site.test_accounts import PASSWORD
from tests.site.test_trusted_proxies import (
    LIMITS,
    NAME_LIMIT,
    PAIR_LIMIT,
    account,
    call,
    documentation_address,
    log_in,
    loopback_address,
    read_players,
)

NGINX = Path("/usr/sbin/nginx")
OPENSSL = shutil.which("openssl")
SITE_FILE = ROOT / "deploy" / "nginx" / "durak.conf"
HOST = "durak.example"

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.skipif(
        not NGINX.exists(),
        reason="Debian's nginx is not installed (apt-get install nginx-light; .ci/run does)",
    ),
    pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed (.ci/run installs it)"),
]
__all__ = ["static_root"]  # the module's fixture, imported to apply here


@dataclass(frozen=True)
class Edge:
    """nginx in front of a production server."""

    tls_port: int
    plain_port: int
    app: str  # the server's own host:port
    tls: ssl.SSLContext
    folder: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.tls_port}"

    @property
    def server_log(self) -> Path:
        """The server's output (``tests.e2e.conftest.asgi_server``): its access log too."""
        return ROOT / f".pytest-asgi-{self.app.rsplit(':', 1)[1]}.log"

    @property
    def host(self) -> str:
        """The Host a browser sends to the site on this port."""
        return f"{HOST}:{self.tls_port}"


def site_config(app_port: int, tls_port: int, plain_port: int, static: Path, folder: Path) -> str:
    """``deploy/nginx/durak.conf`` with this run's ports, folder and certificate: each swapped
    text must be in the file, so that the test cannot drift from the documented configuration."""
    text = SITE_FILE.read_text()
    swaps = {
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{app_port};",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{tls_port} ssl http2;",
        "listen [::]:443 ssl http2;": "",
        "listen 80;": f"listen 127.0.0.1:{plain_port};",
        "listen [::]:80;": "",
        "/etc/letsencrypt/live/durak.example/fullchain.pem": str(folder / "cert.pem"),
        "/etc/letsencrypt/live/durak.example/privkey.pem": str(folder / "key.pem"),
        "alias /srv/durak/staticfiles/;": f"alias {static}/;",
    }
    for old, new in swaps.items():
        assert old in text, f"{SITE_FILE} no longer has {old!r}"
        text = text.replace(old, new)
    return text


def main_config(folder: Path) -> str:
    """An nginx.conf of the run's own: in the foreground, everything under ``folder``, the site
    file included as Debian's nginx.conf includes conf.d/."""
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    # (As root nginx would run its workers as nobody, who cannot read the test's folders.)
    user = "user root;\n" if os.geteuid() == 0 else ""
    return f"""{user}daemon off;
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {folder / "access.log"};
{temp}
    uwsgi_temp_path {folder / "uwsgi"};
    scgi_temp_path {folder / "scgi"};
    include {folder / "durak.conf"};
}}
"""


def make_certificate(folder: Path) -> None:
    assert OPENSSL is not None
    subprocess.run(
        [
            OPENSSL,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN={HOST}",
            "-addext",
            f"subjectAltName=DNS:{HOST}",
            "-keyout",
            str(folder / "key.pem"),
            "-out",
            str(folder / "cert.pem"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )


def client_tls(folder: Path) -> ssl.SSLContext:
    """A client that trusts the run's certificate (the connection is to 127.0.0.1: the name in
    the certificate is the site's, checked where a socket names it)."""
    context = ssl.create_default_context(cafile=str(folder / "cert.pem"))
    context.check_hostname = False
    return context


@contextmanager
def nginx(folder: Path, ports: tuple[int, ...]) -> Iterator[None]:
    """Debian's nginx on ``folder/nginx.conf`` until the block ends, answering on ``ports``."""
    log = (folder / "nginx.out").open("w")
    proc = subprocess.Popen(
        [str(NGINX), "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", "stderr"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        for port in ports:
            while True:
                if proc.poll() is not None:
                    raise AssertionError(f"nginx stopped: {(folder / 'nginx.out').read_text()}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "nginx did not start listening"
                    time.sleep(0.1)
        yield
    finally:
        proc.terminate()  # nginx's fast shutdown
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def edge(
    static_root: Path,
    tmp_path_factory: pytest.TempPathFactory,
    django_db_setup: None,
    django_db_blocker: DjangoDbBlocker,
) -> Iterator[Edge]:
    with django_db_blocker.unblock():
        env = production_env(static_root)
    env.update(LIMITS)
    env.pop("DJANGO_SECURE_SSL_REDIRECT")  # production's default: on
    env.update(
        DJANGO_ALLOWED_HOSTS=HOST,
        DJANGO_BEHIND_TLS_PROXY="1",
        DURAK_TRUSTED_PROXIES="127.0.0.1",
    )
    folder = tmp_path_factory.mktemp("nginx")
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / kind).mkdir()
    make_certificate(folder)
    tls_port, plain_port = free_port(), free_port()
    with asgi_server(env) as app:
        app_port = int(app.rsplit(":", 1)[1])
        site = site_config(app_port, tls_port, plain_port, static_root, folder)
        (folder / "durak.conf").write_text(site)
        (folder / "nginx.conf").write_text(main_config(folder))
        with nginx(folder, (tls_port, plain_port)):
            yield Edge(tls_port, plain_port, app, client_tls(folder), folder)


# --- what nginx serves and passes on -------------------------------------------------------------


def test_pages_the_api_and_static_files_through_nginx(edge: Edge, static_root: Path) -> None:
    # a page: over TLS at nginx, so the service (HTTPS redirect on) answers it, with its headers
    page = call(edge.address, "GET", "/", tls=edge.tls, host=edge.host)
    assert page.status == 200
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "max-age=" in page.headers["Strict-Transport-Security"]
    # its hashed static files come from nginx (its Cache-Control, not WhiteNoise's), compressed
    named = re.findall(r'(?:src|href)="/static/([^"]+\.[0-9a-f]{12}\.(?:js|css))"', page.text())
    assert named, "the page names its static files by their hashed names"
    for name in named:
        answer = call(
            edge.address,
            "GET",
            f"/static/{name}",
            tls=edge.tls,
            host=edge.host,
            headers={"Accept-Encoding": "gzip"},
        )
        assert answer.status == 200, name
        assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert answer.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(answer.body) == (static_root / name).read_bytes()
    plain = call(edge.address, "GET", "/static/admin/css/base.css", tls=edge.tls, host=edge.host)
    assert plain.status == 200 and plain.headers["Cache-Control"] == "public, max-age=3600"
    assert plain.headers["X-Content-Type-Options"] == "nosniff"
    missing = call(edge.address, "GET", "/static/no-such.js", tls=edge.tls, host=edge.host)
    assert missing.status == 404
    # the API
    api = call(
        edge.address,
        "GET",
        "/api/v1/players/",
        tls=edge.tls,
        host=edge.host,
        headers={"Accept": "application/json"},
    )
    assert api.status == 200 and "results" in api.json()


def socket_at(edge: Edge, path: str, origin: str) -> ClientConnection:
    """A WebSocket through nginx, addressed to the site's name (the connection to 127.0.0.1)."""
    sock = socket.create_connection(("127.0.0.1", edge.tls_port), timeout=10)
    return connect(
        f"wss://{edge.host}{path}",
        sock=sock,
        ssl=edge.tls,
        server_hostname=HOST,
        origin=Origin(origin),
        open_timeout=10,
    )


def test_a_table_socket_through_nginx(edge: Edge, live_table: LiveTable) -> None:
    path = f"/ws/tables/{live_table.table.pk}/"
    with socket_at(edge, path, f"https://{edge.host}") as live:
        state = json.loads(live.recv(timeout=10))
        assert state["type"] == "state" and state["role"] == "spectator"
        # the socket stays up across nginx's proxying (a second message on request)
        live.send(json.dumps({"type": "sync", "id": "edge-1"}))
        assert json.loads(live.recv(timeout=10))["type"] == "state"
    # the scheme came from nginx: a page of the plain-HTTP origin is another origin
    with socket_at(edge, path, f"http://{edge.host}") as foreign:
        refused = json.loads(foreign.recv(timeout=10))
        assert refused["code"] == "forbidden"


def test_plain_http_moves_to_https_except_the_probe(edge: Edge) -> None:
    plain = f"127.0.0.1:{edge.plain_port}"
    moved = call(plain, "GET", "/tournaments/?page=2", host=HOST)
    assert moved.status == 301
    assert moved.headers["Location"] == f"https://{HOST}/tournaments/?page=2"
    assert call(plain, "GET", "/healthz", host=HOST).status == 200


def test_nginx_refuses_a_body_over_the_limit(edge: Edge) -> None:
    conn = http.client.HTTPSConnection("127.0.0.1", edge.tls_port, timeout=10, context=edge.tls)
    try:
        conn.putrequest("POST", "/api/v1/socket-tickets/", skip_host=True)
        conn.putheader("Host", edge.host)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(3 * 1024 * 1024))
        conn.endheaders()
        answer = conn.getresponse()
        assert answer.status == 413
    finally:
        conn.close()


# --- the client's address ------------------------------------------------------------------------


def test_the_lockout_and_the_throttles_see_the_address_nginx_saw(edge: Edge) -> None:
    account("masha")
    # given a client of nginx that names a new X-Forwarded-For at each try
    client = loopback_address()
    codes = [
        log_in(
            edge.address,
            "masha",
            source=client,
            forwarded_for=documentation_address(n),
            tls=edge.tls,
            host=edge.host,
        ).status
        for n in range(PAIR_LIMIT)
    ]
    # then nginx's word is the address (the peer it saw), and the pair locks after the limit
    assert codes == [200] * (PAIR_LIMIT - 1) + [429]
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {client}
    assert (
        log_in(edge.address, "masha", PASSWORD, source=client, tls=edge.tls, host=edge.host).status
        == 429
    )
    # the same for the API's anonymous rate (3 a minute here)
    reader = loopback_address()
    reads = [
        read_players(
            edge.address,
            source=reader,
            forwarded_for=documentation_address(n),
            tls=edge.tls,
            host=edge.host,
        )
        for n in range(4)
    ]
    assert reads == [200, 200, 200, 429]
    # while another client of nginx is counted apart
    assert (
        read_players(edge.address, source=loopback_address(), tls=edge.tls, host=edge.host) == 200
    )
    # and the server's access log names the clients, not nginx and not what they claimed
    time.sleep(0.5)  # written by the server process
    log = edge.server_log.read_text()
    assert f"{client}:" in log and f"{reader}:" in log
    assert "2001:db8:" not in log


def test_guesses_from_many_clients_of_nginx_lock_the_name(edge: Edge) -> None:
    account("masha")
    codes = [
        log_in(
            edge.address, "masha", source=loopback_address(), tls=edge.tls, host=edge.host
        ).status
        for _ in range(NAME_LIMIT)
    ]
    assert codes == [200] * (NAME_LIMIT - 1) + [429]
    locked = log_in(
        edge.address, "masha", PASSWORD, source=loopback_address(), tls=edge.tls, host=edge.host
    )
    assert locked.status == 429 and locked.json()["code"] == "login_locked_out"
    time.sleep(0.5)
    says = f"'masha' locked out by name after {NAME_LIMIT} failures from {NAME_LIMIT} addresses"
    assert says in edge.server_log.read_text()


def test_straight_to_the_server_a_client_is_not_the_proxy(edge: Edge) -> None:
    # the server trusts 127.0.0.1 (nginx); a connection from elsewhere forwards for nobody: its
    # claim to have come over TLS is not believed (HTTPS redirect), nor its address
    forged = {"X-Forwarded-Proto": "https", "X-Forwarded-For": documentation_address(0)}
    client = loopback_address()
    page = call(edge.app, "GET", "/", source=client, headers=forged, host=HOST)
    assert page.status == 301 and page.headers["Location"] == f"https://{HOST}/"
    # from nginx's address the same headers are the proxy's word
    proxied = call(edge.app, "GET", "/", headers=forged, host=HOST)
    assert proxied.status == 200
