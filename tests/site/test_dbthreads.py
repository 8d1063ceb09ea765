"""``durak_site.dbthreads``: async code's database calls on a bounded pool of threads."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import Error as DatabaseFailure
from django.db import connection

from durak_site import dbthreads

pytestmark = pytest.mark.django_db(transaction=True)


def where_and_what(pause: float) -> tuple[str, int]:
    time.sleep(pause)
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return threading.current_thread().name, cursor.fetchone()[0]


async def test_calls_run_on_the_pool_and_overlap_on_postgres() -> None:
    call = dbthreads.db_async(where_and_what)
    n = max(2, dbthreads.size())
    started = time.monotonic()
    results = await asyncio.gather(*(call(0.3) for _ in range(n)))
    elapsed = time.monotonic() - started
    assert all(value == 1 and name.startswith("db") for name, value in results)
    if settings.USES_POSTGRES:
        assert dbthreads.size() == settings.DURAK_DB_THREADS >= 2
        assert len({name for name, _ in results}) == n
        assert elapsed < 0.3 * n - 0.1  # side by side, not one after another
    else:
        assert dbthreads.size() == 1  # SQLite has one writer: one thread
        assert elapsed >= 0.3 * n


async def test_close_all_retires_the_pool_and_a_new_one_follows() -> None:
    call = dbthreads.db_async(where_and_what)
    await call(0)
    dbthreads.close_all()
    name, value = await call(0)
    assert value == 1 and name.startswith("db")


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="needs PostgreSQL")
async def test_a_connection_that_died_fails_one_call_and_the_next_reconnects(
    settings: Any,
) -> None:
    settings.DURAK_DB_THREADS = 1  # one thread, so that every call meets the same connection
    dbthreads.close_all()
    call = dbthreads.db_async(backend_pid)
    first = await call()
    assert await call() == first  # kept between calls, and no health check in between
    await sync_to_async(kill_backend)(first)  # a database restart, as the connection sees it
    with pytest.raises(DatabaseFailure):
        await call()
    assert await call() != first  # the failure closed it; this call connected afresh
    dbthreads.close_all()


def kill_backend(pid: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
