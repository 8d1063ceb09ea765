"""``durak_site.dbthreads``: async code's database calls on a bounded pool of threads."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import Error as DatabaseFailure
from django.db import connection
from pytest_django import Settings

from durak_site import dbthreads

pytestmark = pytest.mark.django_db(transaction=True)


class InFlight:
    """Counts the calls running at once; the most seen is ``most``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


def where_and_what(pause: float, in_flight: InFlight | None = None) -> tuple[str, int]:
    with in_flight or contextlib.nullcontext():
        time.sleep(pause)
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row = cursor.fetchone()
    assert row is not None
    return threading.current_thread().name, row[0]


async def test_calls_run_on_the_pool_and_overlap_on_postgres() -> None:
    call = dbthreads.db_async(where_and_what)
    n = max(2, dbthreads.size())
    in_flight = InFlight()
    # each call holds its thread a moment, so that calls given threads of their own overlap
    results = await asyncio.gather(*(call(0.3, in_flight) for _ in range(n)))
    assert all(value == 1 and name.startswith("db") for name, value in results)
    if settings.USES_POSTGRES:
        assert dbthreads.size() == settings.DURAK_DB_THREADS >= 2
        assert len({name for name, _ in results}) == n
        assert in_flight.most == n  # side by side, not one after another
    else:
        assert dbthreads.size() == 1  # SQLite has one writer: one thread
        assert in_flight.most == 1


async def test_close_all_retires_the_pool_and_a_new_one_follows() -> None:
    call = dbthreads.db_async(where_and_what)
    await call(0)
    dbthreads.close_all()
    name, value = await call(0)
    assert value == 1 and name.startswith("db")


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="needs PostgreSQL")
async def test_a_connection_that_died_fails_one_call_and_the_next_reconnects(
    settings: Settings,
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
