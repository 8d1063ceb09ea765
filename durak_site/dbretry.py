"""Transactions that run again when PostgreSQL aborts them for a conflict with another one.

PostgreSQL breaks a deadlock by aborting one of its transactions (SQLSTATE ``40P01``) and, at
REPEATABLE READ or SERIALIZABLE, aborts a transaction whose snapshot a concurrent commit made
stale (``40001``). Neither is a bug in the aborted transaction: it rolled back whole and would
very likely succeed if it ran again. :func:`run_atomic` (and its decorator form
:func:`atomic_retry`) runs a function in ``transaction.atomic()`` and, on those two errors only,
runs it again in a new transaction after a jittered, exponentially growing pause, at most
``attempts`` times in all; after the last attempt the error is raised as it came. Each retry is
logged (``durak_site.dbretry``, warning).

Why here, around the service, and not in Celery (``autoretry_for`` + ``retry_backoff``): the
retry belongs to whoever owns the transaction. Doing it in the service protects every caller the
same way (workers, eager jobs on the embedded defaults, management commands, the console), keeps
the worker's slot for the few tenths of a second a retry costs instead of sending the job back
through the broker, and never mistakes another ``OperationalError`` (a lost connection, a lock
timeout) for something to retry.

Called inside a transaction the caller already opened, nothing is retried: the caller's whole
transaction is the one the database aborted, and only its owner can run it again. The function
then runs once, in a savepoint, and the error propagates.

Anything the function does besides database writes (an HTTP call, a file) must be safe to
repeat, or be put in ``transaction.on_commit`` (which only a committed attempt runs).
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.db import DEFAULT_DB_ALIAS, OperationalError, connections, transaction

P = ParamSpec("P")
R = TypeVar("R")

logger = logging.getLogger(__name__)

#: SQLSTATEs of a transaction aborted for a conflict with a concurrent one.
RETRYABLE_SQLSTATES = {
    "40P01": "deadlock detected",
    "40001": "serialization failure",
}
#: Attempts in all (the first run and four retries), and the pauses' growth: before retry n the
#: pause is drawn from [cap/2, cap], cap = min(MAX_DELAY, BASE_DELAY * 2**(n-1)), so that the
#: transactions that met do not meet again in lockstep.
ATTEMPTS = 5
BASE_DELAY = 0.05
MAX_DELAY = 2.0


def retryable_sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a deadlock or serialization failure, looked for in ``exc`` and its causes
    (Django raises its own ``OperationalError`` with the driver's error as ``__cause__``:
    ``psycopg.errors.DeadlockDetected`` or ``SerializationFailure``); ``None`` for anything
    else."""
    seen: BaseException | None = exc
    while seen is not None:
        # psycopg 3 names it ``sqlstate``; psycopg2 ``pgcode``
        code = getattr(seen, "sqlstate", None) or getattr(seen, "pgcode", None)
        if code in RETRYABLE_SQLSTATES:
            return str(code)
        seen = seen.__cause__
    return None


def backoff(attempt: int) -> float:
    """The pause (seconds) after failed attempt number ``attempt`` (1 for the first)."""
    cap = min(MAX_DELAY, BASE_DELAY * 2 ** (attempt - 1))
    return random.uniform(cap / 2, cap)


def run_atomic(
    func: Callable[[], R],
    *,
    attempts: int = ATTEMPTS,
    using: str | None = None,
    label: str | None = None,
) -> R:
    """``func()`` in one transaction; rerun in a new one on a deadlock or serialization
    failure, up to ``attempts`` runs in all (see the module's docstring)."""
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    alias = using or DEFAULT_DB_ALIAS
    name = label or getattr(func, "__qualname__", repr(func))
    if connections[alias].in_atomic_block:
        with transaction.atomic(using=alias):
            return func()
    attempt = 1
    while True:
        try:
            with transaction.atomic(using=alias):
                return func()
        except OperationalError as exc:
            sqlstate = retryable_sqlstate(exc)
            if sqlstate is None:
                raise
            if attempt >= attempts:
                logger.warning(
                    "%s: %s (SQLSTATE %s) on attempt %d of %d; giving up",
                    name,
                    RETRYABLE_SQLSTATES[sqlstate],
                    sqlstate,
                    attempt,
                    attempts,
                )
                raise
            pause = backoff(attempt)
            logger.warning(
                "%s: %s (SQLSTATE %s) on attempt %d of %d; retrying in %.3f s",
                name,
                RETRYABLE_SQLSTATES[sqlstate],
                sqlstate,
                attempt,
                attempts,
                pause,
            )
            time.sleep(pause)
            attempt += 1


def atomic_retry(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate a service: each call runs in :func:`run_atomic` with the default attempts.

    >>> @atomic_retry
    ... def ratings_update(*, tournament_id: int) -> int: ...
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return run_atomic(lambda: func(*args, **kwargs), label=func.__qualname__)

    return wrapper
