"""``durak_site.dbloop``: statements on the event loop's own PostgreSQL connections."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest
from django.conf import settings
from pytest_django import Settings

from durak_site import dbloop

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.USES_POSTGRES, reason="PostgreSQL's async connections"),
]


async def backend_pid() -> int:
    async with dbloop.connection() as conn:
        row = await (await conn.execute("SELECT pg_backend_pid()")).fetchone()
    assert row is not None
    return int(row[0])


async def test_a_loop_keeps_its_connections_and_bounds_them(settings: Settings) -> None:
    settings.DURAK_DB_LOOP_CONNECTIONS = 2
    dbloop.close_all()
    # one after another: the same connection again
    assert await backend_pid() == await backend_pid()

    # at once: never more than the bound, each statement waits for a free one
    async def slow() -> int:
        async with dbloop.connection() as conn:
            await conn.execute("SELECT pg_sleep(0.2)")
            return conn.info.backend_pid

    pids = await asyncio.gather(*(slow() for _ in range(6)))
    assert len(set(pids)) <= 2


async def test_a_connection_whose_statement_failed_is_not_kept() -> None:
    first = await backend_pid()
    with pytest.raises(psycopg.errors.DivisionByZero):
        async with dbloop.connection() as conn:
            await conn.execute("SELECT 1 / 0")
    # the next statement gets a fresh session, and works
    assert await backend_pid() != first


async def test_a_database_out_of_reach_pauses_the_loops_statements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dbloop.close_all()
    real = dbloop._params

    def nowhere() -> dict[str, Any]:
        return {**real(), "host": "127.0.0.1", "port": 1, "connect_timeout": 2}

    monkeypatch.setattr(dbloop, "_params", nowhere)
    monkeypatch.setattr(dbloop, "PAUSE_AFTER_CONNECT_FAILURE", 0.5)
    assert dbloop.available()
    with pytest.raises(psycopg.OperationalError):
        await backend_pid()
    # the callers take their usual path for a while instead of waiting for a connect again
    assert not dbloop.available()
    # and once the database is back and the pause is over, the loop's statements resume
    monkeypatch.setattr(dbloop, "_params", real)
    await asyncio.sleep(0.6)
    assert dbloop.available()
    assert await backend_pid() > 0
