"""Database calls from async code (consumers, WebSocket middleware) on a bounded thread pool.

Channels' ``database_sync_to_async`` runs every call of a process on one sync thread, which makes
one database call at a time the ceiling of a server. Here, on PostgreSQL, the calls run on
``DURAK_DB_THREADS`` threads, each with its own persistent connection, so the round trips of
different tables overlap; the row lock of a game still serialises the actions of one game.
SQLite allows one writer at a time, so there the pool has a single thread.

After each call the thread's connections get Django's end-of-request treatment (closed if a
query failed and the connection no longer works, or if a transaction was left open) but are
otherwise kept by their thread, whatever their age (taken once from the process's connection
pool, ``settings.DATABASES``), with no per-call health check (a ``SELECT 1`` before every
call). A connection that died while idle therefore fails one call, which changes nothing (its
transaction never committed) and reaches the client as an error; the failure closes it, and the
next call connects afresh. The measurements behind both choices: ``docs/performance.md``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.db import connections

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def size() -> int:
    return int(settings.DURAK_DB_THREADS) if settings.USES_POSTGRES else 1


def _executor() -> ThreadPoolExecutor:
    global _pool  # noqa: PLW0603 (one pool per process, made on first use)
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=size(), thread_name_prefix="db")
        return _pool


def _after_call() -> None:
    for conn in connections.all(initialized_only=True):
        # Kept by its thread, whatever its age: the thread lives as long as the process (with
        # the connection pool, CONN_MAX_AGE is 0, which would hand it back after every call).
        conn.close_at = None
        conn.close_if_unusable_or_obsolete()
        if conn.connection is not None:
            # Used by this call, or checked just now after an error: no SELECT 1 next time.
            # (django-stubs lacks this attribute of every connection, Django >= 4.1.)
            conn.health_check_done = True  # type: ignore[attr-defined]


class _PoolCall(SyncToAsync[P, R]):
    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            # asgiref leaves thread_handler unannotated
            return super().thread_handler(loop, *args, **kwargs)  # type: ignore[no-untyped-call]
        finally:
            _after_call()


def db_async(func: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """``func`` as a coroutine function that runs on the database pool (see the module doc)."""

    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        runner = _PoolCall(func, thread_sensitive=False, executor=_executor())
        result: R = await runner(*args, **kwargs)
        return result

    call.__name__ = getattr(func, "__name__", "db_call")
    call.__doc__ = func.__doc__
    return call


def close_all(timeout: float = 30) -> None:
    """Close every pool thread's database connections and retire the pool (tests drop their
    database afterwards, and PostgreSQL refuses while a session is open). The next call starts
    a fresh pool."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is None:
        return
    n = pool._max_workers
    # One task per thread: each waits at the barrier, so no thread can take two.
    barrier = threading.Barrier(n, timeout=timeout)

    def close_here() -> None:
        connections.close_all()
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()

    for future in [pool.submit(close_here) for _ in range(n)]:
        future.result(timeout=timeout)
    pool.shutdown(wait=True)
