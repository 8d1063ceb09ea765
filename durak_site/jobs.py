"""The one way services start jobs: after commit, through Celery, by task name.

Services name the job (``"tournaments.round_pair"``) instead of importing its task, so that the
tasks modules depend on the services and never the other way round.

With a broker, a job is sent to the workers. On the embedded defaults (Celery eager) jobs run
in-process, and a job that triggers another (a game ends, its table finishes, the round
completes, the next round is paired, ...) would nest ever deeper; here the nested ones are
queued and run one after another by the outermost dispatch instead, so a whole tournament of
bots can play through eager jobs without a deep stack. A delayed job (a move clock) runs on a
timer thread in eager mode.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from celery import Task
from django.db import transaction

from durak_site.celery import app

_local = threading.local()


def enqueue_on_commit(name: str, *args: Any, countdown: float | None = None) -> None:
    """Run the task called ``name`` with ``args`` as a job once the current transaction
    commits."""
    task = registered(name)  # an unknown name fails here, in the caller, not in a worker
    transaction.on_commit(lambda: dispatch(task, *args, countdown=countdown))


def registered(name: str) -> Task[..., Any]:
    """The task called ``name``; ``KeyError`` if no app's ``tasks`` module defines it."""
    if name not in app.tasks:
        app.loader.import_default_modules()  # the apps' tasks modules (autodiscovery)
    return app.tasks[name]


def dispatch(task: Task[..., Any], *args: Any, countdown: float | None = None) -> None:
    if not app.conf.task_always_eager:
        if countdown is None:
            task.apply_async(args)
        else:
            task.apply_async(args, countdown=countdown)
        return
    if countdown:
        timer = threading.Timer(countdown, lambda: dispatch(task, *args))
        timer.daemon = True
        timer.start()
        return
    queue: deque[tuple[Task[..., Any], tuple[Any, ...]]] | None = getattr(_local, "queue", None)
    if queue is not None:
        queue.append((task, args))
        return
    _local.queue = queue = deque([(task, args)])
    try:
        while queue:
            job, job_args = queue.popleft()
            job.apply(args=job_args, throw=True)
    finally:
        _local.queue = None
