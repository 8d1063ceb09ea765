"""Which proxies the ASGI server believes (``DURAK_TRUSTED_PROXIES``), on real server processes.

A server that trusts no proxy (the default) takes the connection's own address whatever
``X-Forwarded-For`` says: a client naming a new address per request is still one client to the
login lockout and the API's throttles. A server that trusts 127.0.0.1 takes the address that a
request from there forwards, and still ignores the header on a connection from anywhere else.
(The connections come from addresses of the loopback range chosen per run, so that the shared
cache's throttle counts of one run never meet another's.)
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import random
import secrets
import ssl
import string
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User
from pytest_django import DjangoDbBlocker

from tests.e2e.conftest import asgi_server, server_env
from tests.site.test_accounts import PASSWORD, member

pytestmark = pytest.mark.django_db(transaction=True)

PAIR_LIMIT = 5
NAME_LIMIT = 8
#: The servers' settings: a low anonymous rate to reach, and a lock by name below the default.
LIMITS = {
    "DURAK_API_RATE_ANON": "3/min",
    "DURAK_LOGIN_FAILURE_LIMIT": str(PAIR_LIMIT),
    "DURAK_LOGIN_USERNAME_FAILURE_LIMIT": str(NAME_LIMIT),
    "DURAK_LOGIN_COOLOFF_MINUTES": "15",
}


@dataclass(frozen=True)
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def text(self) -> str:
        return self.body.decode()

    def json(self) -> dict[str, object]:
        loaded: dict[str, object] = json.loads(self.body)
        return loaded


def call(
    address: str,
    method: str,
    path: str,
    *,
    source: str = "127.0.0.1",
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    tls: ssl.SSLContext | None = None,
    host: str | None = None,
) -> Answer:
    """One request to ``host:port`` on a connection from the local address ``source`` (over TLS
    with ``tls``; ``host``: the Host header, else the address)."""
    ip, port = address.rsplit(":", 1)
    conn: http.client.HTTPConnection
    if tls is None:
        conn = http.client.HTTPConnection(ip, int(port), timeout=30, source_address=(source, 0))
    else:
        conn = http.client.HTTPSConnection(
            ip, int(port), timeout=30, source_address=(source, 0), context=tls
        )
    headers = dict(headers or {})
    if host is not None:
        headers["Host"] = host
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        conn.close()


def log_in(
    address: str,
    username: str,
    password: str = "wrong",
    *,
    source: str = "127.0.0.1",
    forwarded_for: str | None = None,
    tls: ssl.SSLContext | None = None,
    host: str | None = None,
) -> Answer:
    """The players' login form posted as a browser would (a CSRF cookie and its token), asking
    for JSON so that a lockout says its code."""
    token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={token}",
        "Accept": "application/json",
        "Accept-Language": "en",
    }
    if forwarded_for is not None:
        headers["X-Forwarded-For"] = forwarded_for
    if tls is not None:  # a browser's form over HTTPS names where it comes from
        headers["Referer"] = f"https://{host or address}/accounts/login/"
    form = {"username": username, "password": password, "csrfmiddlewaretoken": token}
    return call(
        address,
        "POST",
        "/accounts/login/",
        source=source,
        headers=headers,
        body=urlencode(form).encode(),
        tls=tls,
        host=host,
    )


def read_players(
    address: str,
    *,
    source: str = "127.0.0.1",
    forwarded_for: str = "",
    tls: ssl.SSLContext | None = None,
    host: str | None = None,
) -> int:
    """An anonymous read of the API: its status."""
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    answer = call(
        address, "GET", "/api/v1/players/", source=source, headers=headers, tls=tls, host=host
    )
    return answer.status


def loopback_address() -> str:
    """An address of the loopback range other than 127.0.0.1, new for each call."""
    return f"127.{random.randint(1, 254)}.{random.randint(0, 255)}.{random.randint(1, 254)}"


def documentation_address(n: int) -> str:
    """Addresses that a client claims (IPv6's documentation range, new for each run), in their
    normal form, as the database gives them back."""
    return str(ipaddress.ip_address(f"2001:db8:{uuid.uuid4().hex[:4]}::{n + 1:x}"))


def account(username: str) -> None:
    """A player whose password the server can check: the suite hashes with MD5 for speed (the
    root conftest), which a server process's settings do not list."""
    member(username)
    hasher = PBKDF2PasswordHasher()
    User.objects.filter(username=username).update(password=hasher.encode(PASSWORD, hasher.salt()))


def server(blocker: DjangoDbBlocker, **env: str) -> Iterator[str]:
    """A server process with :data:`LIMITS` and ``env``, trusting only the proxies ``env``
    names."""
    with blocker.unblock():
        environment = {**server_env(), **LIMITS}
    environment.pop("DURAK_TRUSTED_PROXIES", None)
    environment.update(env)
    with asgi_server(environment) as address:
        yield address


@pytest.fixture(scope="module")
def direct(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[str]:
    """A server that trusts no proxy: the default."""
    yield from server(django_db_blocker)


@pytest.fixture(scope="module")
def behind(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[str]:
    """A server that believes the proxy at 127.0.0.1."""
    yield from server(django_db_blocker, DURAK_TRUSTED_PROXIES="127.0.0.1")


# --- no proxy trusted ----------------------------------------------------------------------------


def test_without_a_trusted_proxy_a_forwarded_address_does_not_escape_the_lockout(
    direct: str,
) -> None:
    # given a wrong password from one connection address, a new X-Forwarded-For each time (from
    # 127.0.0.1 too, which uvicorn would trust by default)
    for name, client in (("masha", "127.0.0.1"), ("dasha", loopback_address())):
        account(name)
        codes = [
            log_in(direct, name, source=client, forwarded_for=documentation_address(n)).status
            for n in range(PAIR_LIMIT)
        ]
        # then they are one address's failures, and the pair is locked, the right password too
        assert codes == [200] * (PAIR_LIMIT - 1) + [429], client
        locked = log_in(direct, name, PASSWORD, source=client, forwarded_for="192.0.2.77")
        assert locked.status == 429 and locked.json()["code"] == "login_locked_out"
        assert AccessAttempt.objects.filter(ip_address=client).exists()
    assert AccessAttempt.objects.count() == 2


def test_without_a_trusted_proxy_a_forwarded_address_does_not_escape_the_throttle(
    direct: str,
) -> None:
    client = loopback_address()
    codes = [
        read_players(direct, source=client, forwarded_for=documentation_address(n))
        for n in range(4)
    ]
    assert codes == [200, 200, 200, 429]
    # 127.0.0.1 is no proxy here either
    local = [read_players(direct, forwarded_for=documentation_address(n)) for n in range(4)]
    assert 429 in local


# --- behind a trusted proxy ----------------------------------------------------------------------


def test_the_trusted_proxys_forwarded_address_is_the_clients(behind: str) -> None:
    account("masha")
    # the proxy (127.0.0.1) forwards for several clients: each has its own throttle count
    clients = [documentation_address(n) for n in range(4)]
    assert [read_players(behind, forwarded_for=client) for client in clients] == [200] * 4
    first = clients[0]
    assert [read_players(behind, forwarded_for=first) for _ in range(3)] == [200, 200, 429]
    # and its own login lock: one client's failures lock that client out, not the others
    codes = [log_in(behind, "masha", forwarded_for=first).status for _ in range(PAIR_LIMIT)]
    assert codes == [200] * (PAIR_LIMIT - 1) + [429]
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {first}
    assert log_in(behind, "masha", PASSWORD, forwarded_for=first).status == 429
    other = log_in(behind, "masha", PASSWORD, forwarded_for=clients[1])
    assert other.status == 302, other.body.decode()


def test_behind_a_trusted_proxy_guesses_from_many_addresses_lock_the_name(behind: str) -> None:
    account("masha")
    account("dasha")
    codes = [
        log_in(behind, "masha", forwarded_for=documentation_address(n)).status
        for n in range(NAME_LIMIT)
    ]
    assert codes == [200] * (NAME_LIMIT - 1) + [429]
    assert AccessAttempt.objects.values("ip_address").distinct().count() == NAME_LIMIT
    locked = log_in(behind, "masha", PASSWORD, forwarded_for=documentation_address(99))
    assert locked.status == 429 and locked.json()["code"] == "login_locked_out"
    assert "with this name: logins with it are locked" in str(locked.json()["message"])
    assert log_in(behind, "dasha", PASSWORD, forwarded_for=documentation_address(0)).status == 302


def test_a_client_that_is_not_the_proxy_cannot_forward_for_itself(behind: str) -> None:
    account("masha")
    client = loopback_address()
    codes = [
        log_in(behind, "masha", source=client, forwarded_for=documentation_address(n)).status
        for n in range(PAIR_LIMIT)
    ]
    assert codes == [200] * (PAIR_LIMIT - 1) + [429]
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {client}
    throttled = [
        read_players(behind, source=client, forwarded_for=documentation_address(n))
        for n in range(4)
    ]
    assert throttled == [200, 200, 200, 429]
