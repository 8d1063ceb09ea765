"""The one way services start jobs: after commit, through Celery, by task name; and the leases
that let the reconciler start them again.

Services name the job (``"tournaments.round_pair"``) instead of importing its task, so that the
tasks modules depend on the services and never the other way round.

With a broker, a job is sent to the workers. On the embedded defaults (Celery eager) jobs run
in-process, and a job that triggers another (a game ends, its table finishes, the round
completes, the next round is paired, ...) would nest ever deeper; here the nested ones are
queued and run one after another by the outermost dispatch instead, so a whole tournament of
bots can play through eager jobs without a deep stack. A delayed job (a move clock) runs on a
timer thread in eager mode.

**The database, not the broker, says what must happen next.** A message can be lost: a worker
killed with its job half-done (its message waits in Redis's unacknowledged set until the
visibility timeout), Redis restarted without its data, a publish that failed while Redis was
down. None of that loses work, because every job's work is visible in the database as "due and
not done" (a finished game whose table still plays, a round waiting for its pairing, ...), and
the reconciler (``tournaments.reconcile``, beat every few seconds) finds it and sends the job
again. Hence:

- :func:`dispatch` never raises for a broker that is down, and never blocks long: publishing is
  bounded by the broker's timeouts (``CELERY_*`` in settings) and, after a failure, skipped for
  :data:`BROKER_PAUSE` seconds (the requests of those seconds do not wait on a dead Redis one
  after another). What was not sent is logged; the reconciler sends it when it is due.
- A countdown longer than the broker can hold (:func:`longest_countdown`) is not sent: the due
  time is in the database (a game's deadline, a webhook's next attempt) and the reconciler or
  its sweep starts the job then.

**Leases.** So that the reconciler does not send a job again while the first one waits in the
queue or runs, each job it may send (a task with ``base=Reconciled``) has a lease in the shared
cache, named after the task and its arguments: *queued* when the reconciler sends it
(:data:`QUEUED_LEASE`), *received* once a worker has taken its message (:data:`RUNNING_LEASE`: a
worker killed between taking a message and starting it loses the message, not the work, for
seconds rather than the queued lease), *running* while a worker runs it
(:data:`RUNNING_LEASE`, from whichever path the job came), removed when it succeeds, *failed*
for :data:`FAILED_PAUSE` after an error (a job that fails every time runs once a minute, not at
every tick). A worker killed mid-job leaves a running lease that expires within seconds, and the
reconciler sends the job again.
Leases only save duplicate work: every job is idempotent, so two copies at once are safe.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import kombu.exceptions
import redis.exceptions
from billiard.einfo import ExceptionInfo
from celery import Task, signals, states
from django import db
from django.core.cache import cache
from django.db import transaction

from durak_site.celery import app

log = logging.getLogger(__name__)

#: After a failed publish, jobs are not sent for this long (seconds): the reconciler sends the
#: due ones once the broker answers again.
BROKER_PAUSE = 5.0
#: The reconciler leaves work alone for this long after it became due: the job the normal path
#: sent is usually on its way (in the queue, or running). Also the longest a lost job's work
#: waits before the reconciler sends it again, plus one tick.
GRACE = timedelta(seconds=10)
#: Seconds a job the reconciler sent may wait in the queue before it is taken for lost. A
#: message can vanish without a worker ever reporting it (a worker killed in the instant between
#: taking it from Redis and recording it as unacknowledged): this bounds how long its work waits.
#: A job still queued behind a long queue after this is sent a second time; the copy that runs
#: later finds its work done.
QUEUED_LEASE = 30
#: Seconds a running job keeps its lease: after a worker is killed mid-job, its work is sent
#: again within this (plus a tick). A job that runs longer may be sent a second time, which
#: waits on the first one's row lock and then finds nothing to do.
RUNNING_LEASE = 10
#: Seconds before the reconciler sends a failed job again.
FAILED_PAUSE = 60

#: What a broker that is down or unreachable raises from a publish (kombu wraps most of it).
BROKER_ERRORS: tuple[type[BaseException], ...] = (
    kombu.exceptions.OperationalError,
    redis.exceptions.RedisError,
    OSError,
)

_local = threading.local()
_observers: list[Callable[[], None]] = []
_delayed: set[threading.Thread] = set()
"""The timers of the delayed jobs run in-process (Celery eager) that have not fired yet."""
_broker = {"down_until": 0.0}


@dataclass(frozen=True)
class Due:
    """Work the database says is due and not done, and the job (task name, arguments) that
    does it; ``why`` says what was found, for the log and for the waiting commands."""

    task: str
    args: tuple[int, ...]
    why: str

    @property
    def lease(self) -> str:
        return lease_key(self.task, self.args)

    def __str__(self) -> str:
        return f"{self.task}({', '.join(map(str, self.args))}): {self.why}"


def enqueue_on_commit(name: str, *args: Any, countdown: float | None = None) -> None:
    """Run the task called ``name`` with ``args`` as a job once the current transaction
    commits. A broker that is down does not fail the caller (the change has committed): see the
    module's docstring."""
    task = registered(name)  # an unknown name fails here, in the caller, not in a worker
    transaction.on_commit(lambda: dispatch(task, *args, countdown=countdown))


def dispatch_all(jobs: Iterable[tuple[str, tuple[Any, ...], float | None]]) -> None:
    """Send ``(task name, args, countdown)`` jobs now, for a change committed outside a Django
    transaction (one statement on the event loop: ``games.services.live``)."""
    for name, args, countdown in jobs:
        dispatch(registered(name), *args, countdown=countdown)


def registered(name: str) -> Task[..., Any]:
    """The task called ``name``; ``KeyError`` if no app's ``tasks`` module defines it."""
    if name not in app.tasks:
        app.loader.import_default_modules()  # the apps' tasks modules (autodiscovery)
    return app.tasks[name]


def longest_countdown() -> float:
    """The longest countdown sent to the broker (seconds). A worker holds a delayed message,
    unacknowledged, until it is due; Redis gives a message unacknowledged for longer than its
    visibility timeout to another worker, so a longer countdown (less the hard time limit of the
    job that then runs) would be delivered twice, again and again."""
    options = app.conf.broker_transport_options or {}
    visibility = float(options.get("visibility_timeout", 3600))
    return visibility - float(app.conf.task_time_limit or 0)


def dispatch(task: Task[..., Any], *args: Any, countdown: float | None = None) -> bool:
    """Send (or, eager, run) the job; False if it was not sent (logged: the broker is down, or
    the countdown is longer than the broker holds a message). Never raises for the broker."""
    if not app.conf.task_always_eager:
        return _publish(task, args, countdown)
    if countdown:
        timer = threading.Timer(countdown, _run_later, (task, args))
        timer.daemon = True
        _delayed.add(timer)
        timer.start()
        return True
    queue: deque[tuple[Task[..., Any], tuple[Any, ...]]] | None = getattr(_local, "queue", None)
    if queue is not None:
        queue.append((task, args))
        return True
    _local.queue = queue = deque([(task, args)])
    try:
        while queue:
            job, job_args = queue.popleft()
            job.apply(args=job_args, throw=True)
            for observer in tuple(_observers):
                observer()
    finally:
        _local.queue = None
    return True


def _run_later(task: Task[..., Any], args: tuple[Any, ...]) -> None:
    """A delayed job, run in-process on its timer's thread; that thread's database connections
    are closed after it (they would otherwise be left open when it ends: on PostgreSQL, held
    out of the server's pool for good)."""
    _delayed.discard(threading.current_thread())
    try:
        dispatch(task, *args)
    finally:
        db.connections.close_all()


def cancel_delayed() -> int:
    """Cancel the delayed jobs run in-process (Celery eager) that are not due yet; return how
    many. What a test scheduled (a game's clock) would otherwise fire in a later test, on rows
    that are gone; a worker's delayed jobs are the broker's and are not touched."""
    timers = list(_delayed)
    _delayed.clear()
    for timer in timers:
        assert isinstance(timer, threading.Timer)
        timer.cancel()
    return len(timers)


def in_process() -> bool:
    """Do jobs run in-process (Celery eager: the embedded defaults) rather than on workers?"""
    return bool(app.conf.task_always_eager)


@contextlib.contextmanager
def after_each_eager_job(observer: Callable[[], None]) -> Iterator[None]:
    """Call ``observer`` after each job run in-process (Celery eager) inside this block, in the
    thread that runs the jobs, outside any transaction: the moments between two steps of the
    system, where the simulator's incidents happen and its invariants are checked. What the
    observer's services request is queued behind the jobs already waiting; what it raises stops
    the run like a failing job."""
    _observers.append(observer)
    try:
        yield
    finally:
        _observers.remove(observer)


def _publish(task: Task[..., Any], args: tuple[Any, ...], countdown: float | None) -> bool:
    if countdown is not None and countdown > longest_countdown():
        log.info(
            "job %s%r due in %.0f s is not sent to the broker: the reconciler starts it then",
            task.name,
            args,
            countdown,
        )
        return False
    if time.monotonic() < _broker["down_until"]:
        log.warning("job %s%r not sent (the broker was down moments ago)", task.name, args)
        return False
    try:
        # Nobody reads a job's result: ignoring it keeps the result backend (and its Redis
        # connection) out of the caller's path.
        if countdown is None:
            task.apply_async(args, ignore_result=True)
        else:
            task.apply_async(args, countdown=countdown, ignore_result=True)
    except BROKER_ERRORS as exc:
        _broker["down_until"] = time.monotonic() + BROKER_PAUSE
        log.warning(
            "job %s%r not sent: the broker failed (%s: %s); the reconciler sends it when due",
            task.name,
            args,
            type(exc).__name__,
            exc,
        )
        return False
    return True


# --- leases --------------------------------------------------------------------------------------


def lease_key(task: str, args: Iterable[Any]) -> str:
    """The shared cache key of a job's lease."""
    return f"job:{task}:{':'.join(map(str, args))}"


def enqueue_due(items: Iterable[Due]) -> list[Due]:
    """Send the job of each item unless its lease says it is queued, running or failed a moment
    ago (``cache.add``: of two reconcilers running at once, one sends it); returns the items
    sent."""
    sent = []
    for item in items:
        if not cache.add(item.lease, "queued", QUEUED_LEASE):
            continue
        if dispatch(registered(item.task), *item.args):
            sent.append(item)
        else:
            cache.delete(item.lease)  # not sent: the next tick tries again
    return sent


def _set_lease(key: str, state: str | None, seconds: int) -> None:
    """Set (``state``) or remove (None) a lease; a cache that fails only costs a duplicate."""
    try:
        if state is None:
            cache.delete(key)
        else:
            cache.set(key, state, seconds)
    except Exception:
        log.warning("lease %s: the cache failed", key, exc_info=True)


def _on_received(request: Any, **_: Any) -> None:
    """A worker took the message of a job the reconciler may send: its *queued* lease (two
    minutes, for a long queue) becomes a short *received* one, which the job's start renews as
    *running*. Delayed messages (a move clock, a webhook retry) are held until due: left alone."""
    if request.eta is None and isinstance(app.tasks.get(request.task_name), Reconciled):
        _set_lease(lease_key(request.task_name, request.args), "received", RUNNING_LEASE)


signals.task_received.connect(_on_received, weak=False)


class Reconciled(Task):  # type: ignore[type-arg]
    """The base of the jobs the reconciler may send: holds the job's lease while it runs (see the
    module's docstring)."""

    def before_start(self, task_id: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        _set_lease(lease_key(self.name, args), "running", RUNNING_LEASE)

    def after_return(  # noqa: PLR0917 (Celery's signature)
        self,
        status: str,
        retval: Any,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: ExceptionInfo,
    ) -> None:
        key = lease_key(self.name, args)
        if status == states.SUCCESS:
            _set_lease(key, None, 0)
        else:
            _set_lease(key, "failed", FAILED_PAUSE)
