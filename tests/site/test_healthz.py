"""/healthz is green when every part is up and names what is down otherwise."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from django.test import Client
from pytest_django import Settings

from durak_site.celery import app as celery_app
from tests.conftest import ROOT, run_database_url, subprocess_env

DEAD_REDIS = "redis://127.0.0.1:1/0"  # port 1: nothing listens, the connect is refused at once


@pytest.mark.django_db
def test_green_on_the_configured_stack(client: Client) -> None:
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["down"] == []
    assert set(body["checks"]) == {"database", "channel_layer", "broker"}


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
    client: Client, redis_unreachable: None
) -> None:
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "down"
    assert sorted(body["down"]) == ["broker", "channel_layer"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("down:")


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
        "r = Client().get('/healthz'); print(r.status_code, r.json()['checks']['database'])"
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
