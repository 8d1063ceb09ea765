"""Settings load both ways from the environment, and refuse bad values loudly."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from typing import TypedDict

import pytest

from tests.conftest import ROOT

PROBE = (
    "import json, django; django.setup(); from django.conf import settings as s;"
    "print(json.dumps({'db': s.DATABASES['default']['ENGINE'],"
    " 'layer': s.CHANNEL_LAYERS['default']['BACKEND'], 'cache': s.CACHES['default']['BACKEND'],"
    " 'eager': s.CELERY_TASK_ALWAYS_EAGER, 'broker': s.CELERY_BROKER_URL, 'debug': s.DEBUG}))"
)
CLEAR = (
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
)


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in CLEAR}
    base["DJANGO_SETTINGS_MODULE"] = "durak_site.settings"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


class Loaded(TypedDict):
    """What ``PROBE`` prints: the settings as loaded from the environment."""

    db: str
    layer: str
    cache: str
    eager: bool
    broker: str
    debug: bool


def load(**env: str) -> Loaded:
    done = run_python(PROBE, **env)
    assert done.returncode == 0, done.stderr
    loaded: Loaded = json.loads(done.stdout)
    return loaded


def production_env() -> dict[str, str]:
    return {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        "DJANGO_ALLOWED_HOSTS": "durak.example.org",
    }


def test_embedded_defaults_when_nothing_is_set() -> None:
    loaded = load()
    assert loaded["db"] == "django.db.backends.sqlite3"
    assert loaded["layer"] == "channels.layers.InMemoryChannelLayer"
    assert loaded["cache"].endswith("LocMemCache")
    assert loaded["eager"] is True
    assert loaded["debug"] is True


def test_postgres_and_redis_from_urls() -> None:
    loaded = load(DATABASE_URL="postgres://u@db.example:5432/durak", REDIS_URL="redis://r:6379/1")
    assert loaded["db"] == "django.db.backends.postgresql"
    assert loaded["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert loaded["cache"].endswith("RedisCache")
    assert loaded["eager"] is False
    assert loaded["broker"] == "redis://r:6379/1"


@pytest.mark.parametrize(
    ("env", "complaint"),
    [
        ({"DJANGO_DEBUG": "maybe"}, "DJANGO_DEBUG must be one of"),
        ({"DATABASE_URL": "mysql://x/y"}, "DATABASE_URL must be a URL starting with"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL must be a URL starting with"),
        ({"CELERY_TASK_TIME_LIMIT": "soon"}, "CELERY_TASK_TIME_LIMIT must be an integer"),
        ({"DJANGO_DEBUG": "0"}, "DJANGO_SECRET_KEY must be set"),
        ({"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "short"}, "at least 50 characters"),
        (
            {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": secrets.token_urlsafe(64)},
            "DJANGO_ALLOWED_HOSTS must list at least one value",
        ),
    ],
)
def test_bad_values_stop_the_start(env: dict[str, str], complaint: str) -> None:
    done = run_python(PROBE, **env)
    assert done.returncode != 0
    assert complaint in done.stderr


def test_production_settings_pass_check_deploy() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        # (The engine's build is not a setting: a checkout whose build is stale would warn,
        # games.W001, tested in tests/games/test_engine_check.py.)
        env={**run_env_without_urls(), **production_env(), "DURAK_ENGINE": "python"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def run_env_without_urls() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in CLEAR}
