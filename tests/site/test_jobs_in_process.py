"""``durak_site.jobs`` with jobs run in-process (the embedded defaults): a delayed job runs on
a timer's thread of its own, and gives back the database connections it opened there."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db.backends.signals import connection_created

from durak_site import jobs

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_delayed_job_closes_its_threads_database_connections(eager_jobs: None) -> None:
    # given the connections each thread opens, watched
    opened: list[tuple[str, Any]] = []

    def watch(sender: Any, connection: Any, **kwargs: Any) -> None:
        opened.append((threading.current_thread().name, connection))

    connection_created.connect(watch)
    try:
        # when a job that reads the database is delayed a moment
        sent = jobs.dispatch(jobs.registered("tournaments.idempotency_expire"), countdown=0.05)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(
            name != threading.current_thread().name and wrapper.connection is None
            for name, wrapper in opened
        ):
            time.sleep(0.05)
    finally:
        connection_created.disconnect(watch)
    # then it ran on another thread, which opened a connection and closed it when done
    assert sent
    mine = threading.current_thread().name
    theirs = [wrapper for name, wrapper in opened if name != mine]
    assert theirs, "the delayed job opened no connection"
    assert all(wrapper.connection is None for wrapper in theirs)


def test_a_delayed_job_not_yet_due_is_cancelled_and_a_fired_one_forgotten(
    eager_jobs: None,
) -> None:
    # given the delayed jobs that run, seen by the connection each opens on its timer's thread
    mine = threading.current_thread().name
    ran: list[str] = []

    def watch(sender: Any, connection: Any, **kwargs: Any) -> None:
        if threading.current_thread().name != mine:
            ran.append(threading.current_thread().name)

    connection_created.connect(watch)
    try:
        # when one job is delayed far, one a moment, and the pending ones are cancelled after
        # the second has fired
        jobs.dispatch(jobs.registered("tournaments.idempotency_expire"), countdown=1.5)
        jobs.dispatch(jobs.registered("tournaments.idempotency_expire"), countdown=0.01)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not ran:
            time.sleep(0.02)
        cancelled = jobs.cancel_delayed()
        time.sleep(1.7)
    finally:
        connection_created.disconnect(watch)
    # then only the far one was cancelled, and it never ran
    assert cancelled == 1
    assert len(ran) == 1
    assert jobs.cancel_delayed() == 0
