"""/healthz is green when every part is up, 503 otherwise; only a staff user learns which parts,
their engines and their errors (anyone else gets the status alone)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from django.db import OperationalError
from django.test import Client
from pytest_django import Settings

from durak_site.celery import app as celery_app
from tests.conftest import ROOT, run_database_url, subprocess_env
from tests.factories import UserFactory

DEAD_REDIS = "redis://127.0.0.1:1/0"  # port 1: nothing listens, the connect is refused at once


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(UserFactory.create(is_staff=True))
    return client


@pytest.mark.django_db
def test_green_on_the_configured_stack(staff: Client) -> None:
    response = staff.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["down"] == []
    assert set(body["checks"]) == {"database", "channel_layer", "broker"}
    assert {"database_engine", "channel_layer", "beat_age_seconds"} <= set(body)


@pytest.mark.django_db
def test_anyone_but_staff_gets_the_status_alone(client: Client) -> None:
    # an anonymous probe (a load balancer's) and a logged-in player who is not staff
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.head("/healthz").status_code == 200
    client.force_login(UserFactory.create(is_staff=False))
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"].startswith("max-age=0")  # never cached for the next caller


@pytest.fixture
def redis_unreachable(settings: Settings) -> Iterator[None]:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [DEAD_REDIS]},
        }
    }
    saved = {key: celery_app.conf[key] for key in ("broker_url", "task_always_eager")}
    celery_app.conf.update(broker_url=DEAD_REDIS, task_always_eager=False)
    try:
        yield
    finally:
        celery_app.conf.update(saved)


@pytest.mark.django_db
def test_503_naming_redis_parts_when_redis_is_unreachable(
    staff: Client, redis_unreachable: None
) -> None:
    response = staff.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "unavailable"
    assert sorted(body["down"]) == ["broker", "channel_layer"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("down:")


@pytest.mark.django_db
def test_503_names_nothing_to_anyone_but_staff(client: Client, redis_unreachable: None) -> None:
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable"}
    assert "redis" not in response.content.decode().lower()


def test_only_get_is_allowed(client: Client) -> None:
    assert client.post("/healthz").status_code == 405


@pytest.mark.real_stack
@pytest.mark.django_db
def test_green_as_a_new_processs_first_request() -> None:
    """The first request of a server process may be the load balancer's probe: the database's
    connection pool is not open yet (Django opens it with the first connection)."""
    code = (
        "import django; django.setup();"
        "from django.test import Client;"
        "r = Client().get('/healthz'); print(r.status_code, r.json()['status'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=subprocess_env(DATABASE_URL=run_database_url(), CELERY_TASK_ALWAYS_EAGER="1"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.split()[:2] == ["200", "ok"], out.stdout + out.stderr


@pytest.mark.django_db
def test_a_session_that_cannot_be_read_gets_the_status_alone(
    staff: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A staff cookie while the session's user cannot be read (the database is out of reach):
    the probe still answers, as for anyone, instead of failing."""

    def unreachable(request: object) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr("django.contrib.auth.get_user", unreachable)
    response = staff.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
