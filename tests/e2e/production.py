"""A production-mode server for the edge's tests: ``DJANGO_DEBUG=0``, static files collected once
per module (WhiteNoise serves them), on the test database (``tests.e2e.conftest.asgi_server``).

The fixtures ``static_root`` and ``production`` are imported by the modules that use them.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django import DjangoDbBlocker

from durak_site.processes import collectstatic_command
from tests.conftest import ROOT
from tests.e2e.conftest import asgi_server, server_env

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
    "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
    "DJANGO_SECURE_SSL_REDIRECT": "0",  # no TLS in front of the test server
    "DJANGO_LOG_LEVEL": "WARNING",
    # One client far above any real rate: the fuzzers must meet the code, not the throttle.
    "DURAK_API_RATE_ANON": "off",
    "DURAK_API_RATE_USER": "off",
    "DURAK_API_RATE_WRITE": "off",
    # The NDJSON streams end after two seconds, so that a fuzzer reads each answer to its end.
    "DURAK_STREAM_SECONDS": "2",
    "DURAK_STREAM_KEEPALIVE_SECONDS": "1",
}


def production_env(static_root: Path) -> dict[str, str]:
    """The environment of a production server (and of its ``collectstatic``) on the test
    database, its static files in ``static_root``."""
    return {**server_env(), **PRODUCTION, "DURAK_STATIC_ROOT": str(static_root)}


def collect_static(static_root: Path) -> None:
    """``collectstatic`` as production runs it, into ``static_root``."""
    done = subprocess.run(
        collectstatic_command(sys.executable),
        cwd=ROOT,
        env=production_env(static_root),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Production's static files, collected into a folder of this module's."""
    root = tmp_path_factory.mktemp("static")
    collect_static(root)
    return root


@pytest.fixture(scope="module")
def production(
    static_root: Path, django_db_setup: None, django_db_blocker: DjangoDbBlocker
) -> Iterator[tuple[str, Path]]:
    """A production server for this module: (its ``host:port``, its log file)."""
    with django_db_blocker.unblock():
        env = production_env(static_root)
    with asgi_server(env) as address:
        yield address, ROOT / f".pytest-asgi-{address.rsplit(':', 1)[1]}.log"
