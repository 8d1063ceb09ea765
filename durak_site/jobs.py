"""The one way services start jobs: after commit, through Celery.

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

from django.db import transaction

_local = threading.local()


def enqueue_on_commit(task: Any, *args: Any, countdown: float | None = None) -> None:
    """Run ``task(*args)`` as a job once the current transaction commits."""
    transaction.on_commit(lambda: dispatch(task, *args, countdown=countdown))


def dispatch(task: Any, *args: Any, countdown: float | None = None) -> None:
    if not task.app.conf.task_always_eager:
        task.apply_async(args, countdown=countdown)
        return
    if countdown:
        timer = threading.Timer(countdown, lambda: dispatch(task, *args))
        timer.daemon = True
        timer.start()
        return
    queue: deque[tuple[Any, tuple[Any, ...]]] | None = getattr(_local, "queue", None)
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
