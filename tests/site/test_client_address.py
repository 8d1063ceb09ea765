"""The client's address and the locks that count by it (``durak_site.clientaddr``, issue #18).

In Django (the test client here) the address is ``REMOTE_ADDR`` and nothing else: an
``X-Forwarded-For`` that a client sends changes neither the login lockout nor the API's
throttles. A second lock counts one username's failures from every address. The ASGI server's
side (which proxies it believes) is ``tests/site/test_trusted_proxies.py``.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache.backends.locmem import LocMemCache
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from durak_site.processes import asgi_command, trusted_proxies_in
from tests.site.test_accounts import PASSWORD, member
from tests.site.test_settings import run_python
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle

pytestmark = pytest.mark.django_db

PAIR_LIMIT = 5
NAME_LIMIT = 8


@pytest.fixture
def limits(settings: Settings) -> None:
    settings.AXES_FAILURE_LIMIT = PAIR_LIMIT
    settings.DURAK_LOGIN_USERNAME_FAILURE_LIMIT = NAME_LIMIT
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)


def client_at(address: str, **headers: str) -> Client:
    """A browser whose connection comes from ``address``."""
    return Client(REMOTE_ADDR=address, headers={"accept-language": "en", **headers})


def address(n: int) -> str:
    return f"198.51.100.{n}"


def log_in(client: Client, username: str, password: str = "wrong") -> int:
    return client.post(reverse("login"), {"username": username, "password": password}).status_code


# --- the lock by name, from any addresses --------------------------------------------------------


@pytest.mark.usefixtures("limits")
def test_guesses_spread_over_addresses_lock_the_name() -> None:
    member("masha")
    # given one wrong password from each of NAME_LIMIT addresses (never PAIR_LIMIT from one)
    codes = [log_in(client_at(address(n)), "masha") for n in range(NAME_LIMIT)]
    # then the last one locks the name, from every address, the right password too
    assert codes == [200] * (NAME_LIMIT - 1) + [429]
    locked = client_at(address(200)).post(
        reverse("login"), {"username": "masha", "password": PASSWORD}
    )
    assert locked.status_code == 429 and locked["Retry-After"] == "900"
    html = locked.content.decode()
    assert "login_locked_out" in html
    assert "Too many failed logins with this name: logins with it are locked for 15" in html
    # a script is told the same in JSON
    script = client_at(address(201), accept="application/json")
    answer = script.post(reverse("login"), {"username": "masha", "password": PASSWORD})
    assert answer.status_code == 429 and answer.json()["code"] == "login_locked_out"
    assert answer.json()["retry_after"] == 900
    # the admin's login is the same account's login
    admin = client_at(address(202)).post(
        reverse("admin:login"), {"username": "masha", "password": PASSWORD}
    )
    assert admin.status_code == 429


@pytest.mark.usefixtures("limits")
def test_the_lock_by_name_is_that_names_only() -> None:
    member("masha")
    member("dasha")
    for n in range(NAME_LIMIT):
        log_in(client_at(address(n)), "masha")
    # another player at any of those addresses logs in
    assert log_in(client_at(address(0)), "dasha", PASSWORD) == 302


@pytest.mark.usefixtures("limits")
def test_below_the_name_limit_the_right_password_works_and_clears_the_count() -> None:
    member("masha")
    for n in range(NAME_LIMIT - 1):
        log_in(client_at(address(n)), "masha")
    assert log_in(client_at(address(100)), "masha", PASSWORD) == 302
    assert not AccessAttempt.objects.filter(username="masha").exists()
    # so the next guesses start from nothing
    assert [log_in(client_at(address(n)), "masha") for n in range(NAME_LIMIT - 1)] == [200] * (
        NAME_LIMIT - 1
    )


@pytest.mark.usefixtures("limits")
@pytest.mark.parametrize(
    "command", [("axes_reset",), ("axes_reset_username", "masha")], ids=lambda c: c[0]
)
def test_an_administrator_lifts_the_lock_by_name(command: tuple[str, ...]) -> None:
    member("masha")
    for n in range(NAME_LIMIT):
        log_in(client_at(address(n)), "masha")
    assert log_in(client_at(address(100)), "masha", PASSWORD) == 429
    call_command(*command, verbosity=0)
    assert log_in(client_at(address(100)), "masha", PASSWORD) == 302


@pytest.mark.usefixtures("limits")
def test_the_lock_by_name_ends_after_the_cool_off() -> None:
    member("masha")
    for n in range(NAME_LIMIT):
        log_in(client_at(address(n)), "masha")
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert log_in(client_at(address(100)), "masha", PASSWORD) == 302


# --- a forwarded header is not the address -------------------------------------------------------


@pytest.mark.usefixtures("limits")
def test_the_lockout_ignores_a_forwarded_for_header() -> None:
    member("masha")
    # given a client that names a new address in X-Forwarded-For at every try
    codes = [
        log_in(client_at("203.0.113.9", **{"x-forwarded-for": address(n)}), "masha")
        for n in range(PAIR_LIMIT)
    ]
    # then all its failures are one address's: the pair's lock holds
    assert codes == [200] * (PAIR_LIMIT - 1) + [429]
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.9"}
    again = client_at("203.0.113.9", **{"x-forwarded-for": address(99)})
    assert log_in(again, "masha", PASSWORD) == 429


@pytest.fixture
def anon_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three anonymous reads a minute, counted in a cache of this test's own."""
    rates = {**ApiAnonThrottle.THROTTLE_RATES, "anon": "3/min"}
    cache = LocMemCache(f"throttle-{uuid.uuid4()}", {})
    for throttle in (ApiAnonThrottle, ApiUserThrottle):
        monkeypatch.setattr(throttle, "THROTTLE_RATES", rates)
        monkeypatch.setattr(throttle, "cache", cache)


@pytest.mark.usefixtures("anon_rate")
def test_the_api_throttles_ignore_a_forwarded_for_header() -> None:
    codes = [
        client_at("203.0.113.9", **{"x-forwarded-for": address(n)}).get("/api/v1/players/")
        for n in range(4)
    ]
    assert [answer.status_code for answer in codes] == [200, 200, 200, 429]
    assert codes[-1].json()["code"] == "throttled"
    # while another address has its own count
    assert client_at("203.0.113.10").get("/api/v1/players/").status_code == 200


# --- settings and the server's command line ------------------------------------------------------


def test_the_server_believes_forwarded_headers_only_from_the_proxies_named() -> None:
    nobody = asgi_command("python", "127.0.0.1", 8000)
    assert "--no-proxy-headers" in nobody and "--forwarded-allow-ips" not in nobody
    proxies = trusted_proxies_in({"DURAK_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8 ,::1"})
    named = asgi_command("python", "127.0.0.1", 8000, trusted_proxies=proxies)
    at = named.index("--forwarded-allow-ips")
    assert named[at + 1] == "127.0.0.1,10.0.0.0/8,::1" and "--proxy-headers" in named
    assert trusted_proxies_in({}) == trusted_proxies_in({"DURAK_TRUSTED_PROXIES": " "}) == []


@pytest.mark.parametrize("value", ["*", "proxy.local", "10.0.0.1/8", "127.0.0.1;10.0.0.1"])
def test_a_trusted_proxy_must_be_an_address_or_a_network(value: str) -> None:
    with pytest.raises(ValueError, match="DURAK_TRUSTED_PROXIES"):
        trusted_proxies_in({"DURAK_TRUSTED_PROXIES": value})
    done = run_python("import django; django.setup()", DURAK_TRUSTED_PROXIES=value)
    assert done.returncode != 0 and "DURAK_TRUSTED_PROXIES" in done.stderr


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"DJANGO_BEHIND_TLS_PROXY": "1"}, "DJANGO_BEHIND_TLS_PROXY=1 needs DURAK_TRUSTED_PROXIES"),
        ({"DURAK_NUM_PROXIES": "1"}, "DURAK_NUM_PROXIES is gone"),
        (
            {"DURAK_LOGIN_FAILURE_LIMIT": "10", "DURAK_LOGIN_USERNAME_FAILURE_LIMIT": "9"},
            "DURAK_LOGIN_USERNAME_FAILURE_LIMIT",
        ),
    ],
    ids=["tls-without-proxy", "num-proxies", "name-limit-below-pair-limit"],
)
def test_inconsistent_proxy_and_lockout_settings_stop_the_start(
    env: dict[str, str], says: str
) -> None:
    done = run_python("import django; django.setup()", **env)
    assert done.returncode != 0 and says in done.stderr


def test_behind_a_tls_proxy_django_reads_no_forwarded_header() -> None:
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.SECURE_PROXY_SSL_HEADER, settings.DURAK_TRUSTED_PROXIES)"
    )
    done = run_python(code, DJANGO_BEHIND_TLS_PROXY="1", DURAK_TRUSTED_PROXIES="10.1.0.0/16")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "['10.1.0.0/16']"]
