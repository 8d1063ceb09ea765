"""Database statements on the event loop itself: psycopg's async connections, a few per loop.

For the hot statements of a server process (the live table's action, ``games.services.live``)
that are one round trip each: no hop to a database thread (``durak_site.dbthreads``), whose
queue and GIL contention with the event loop were most of an action's wait
(``docs/performance.md``). Everything else keeps the ORM on the database threads.

Only on PostgreSQL (:func:`available`); on SQLite the callers take their usual path. The
connections are autocommit: one statement is one transaction. They are opened with the default
database's own parameters (Django's test database too, in the tests), at most
``DURAK_DB_LOOP_CONNECTIONS`` per event loop, kept while they work: a connection that failed
(a restart, a killed session) is closed and the next statement opens a fresh one. A caller
whose statement fails cannot tell whether it committed: it must be able to check (the live
table's actions carry a client id for that).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

import psycopg
from django.conf import settings
from django.db import connections

#: Seconds to wait for a free connection of the loop before giving up.
ACQUIRE_TIMEOUT = 5.0
#: Seconds the loop's statements are not tried after a connection could not be opened (the
#: callers' usual path then answers at once, without waiting for a second connect timeout).
PAUSE_AFTER_CONNECT_FAILURE = 5.0


def available() -> bool:
    """Whether to send statements on this loop now: on PostgreSQL, unless a connection of the
    running loop failed to open in the last :data:`PAUSE_AFTER_CONNECT_FAILURE` seconds."""
    if not settings.USES_POSTGRES:
        return False
    with _lock:
        group = _by_loop.get(asyncio.get_running_loop())
    return group is None or time.monotonic() >= group.paused_until


def _params() -> dict[str, Any]:
    params = dict(connections["default"].get_connection_params())
    # Django's adapters, cursor class and pool are for its own connections.
    for key in ("context", "cursor_factory", "pool", "server_side_binding"):
        params.pop(key, None)
    params["prepare_threshold"] = None  # as Django's: connection poolers keep working
    return params


class _LoopConnections:
    """The connections of one event loop: idle ones kept, at most ``size`` in use."""

    def __init__(self, size: int) -> None:
        self.idle: list[psycopg.AsyncConnection[Any]] = []
        self.slots = asyncio.Semaphore(size)
        self.paused_until = 0.0

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        await asyncio.wait_for(self.slots.acquire(), ACQUIRE_TIMEOUT)
        conn: psycopg.AsyncConnection[Any] | None = None
        try:
            while self.idle and conn is None:
                candidate = self.idle.pop()
                if candidate.closed:
                    continue
                conn = candidate
            if conn is None:
                try:
                    conn = await psycopg.AsyncConnection.connect(**_params(), autocommit=True)
                except BaseException:
                    self.paused_until = time.monotonic() + PAUSE_AFTER_CONNECT_FAILURE
                    raise
            yield conn
        except BaseException:
            if conn is not None:
                # Its state is unknown (a failed or cancelled statement): not kept.
                await _close_quietly(conn)
                conn = None
            raise
        finally:
            if conn is not None and not conn.closed:
                self.idle.append(conn)
            self.slots.release()

    def close_idle(self) -> None:
        """Close the idle connections at once, from any thread (libpq's ``PQfinish``)."""
        idle, self.idle = self.idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.pgconn.finish()


async def _close_quietly(conn: psycopg.AsyncConnection[Any]) -> None:
    with contextlib.suppress(Exception):
        await conn.close()


_lock = threading.Lock()
_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopConnections] = (
    weakref.WeakKeyDictionary()
)


def _connections() -> _LoopConnections:
    loop = asyncio.get_running_loop()
    with _lock:
        found = _by_loop.get(loop)
        if found is None:
            found = _by_loop[loop] = _LoopConnections(int(settings.DURAK_DB_LOOP_CONNECTIONS))
        return found


@contextlib.asynccontextmanager
async def connection() -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """One of this event loop's connections (autocommit), for one statement or a few."""
    async with _connections().connection() as conn:
        yield conn


def close_all() -> None:
    """Close the idle connections of every loop (tests drop their database afterwards)."""
    with _lock:
        groups = list(_by_loop.values())
    for group in groups:
        group.close_idle()
