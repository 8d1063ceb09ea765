"""The settings read from the environment, as a server process reads them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import subprocess_env

PRINT_PREFIX = (
    "import django; django.setup(); from django.conf import settings; "
    "print(settings.CHANNEL_LAYERS['default']['CONFIG']['prefix'])"
)


@pytest.mark.parametrize(
    ("redis_url", "prefix"),
    [
        ("redis://127.0.0.1:6379/5", "durak:asgi:5"),
        ("redis://127.0.0.1:6379/?db=3", "durak:asgi:3"),
        ("redis://127.0.0.1:6379", "durak:asgi:0"),
    ],
)
def test_the_channel_layers_prefix_names_the_redis_database(redis_url: str, prefix: str) -> None:
    """Redis pub/sub channels ignore the database: two services sharing a Redis server on
    different databases would hear each other's tables without the database in the prefix."""
    done = subprocess.run(
        [sys.executable, "-c", PRINT_PREFIX],
        env=subprocess_env(REDIS_URL=redis_url),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == prefix
