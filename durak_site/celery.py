"""The one Celery app. Tasks are autodiscovered from every app's ``tasks.py``.

Reliability choices live in settings (``CELERY_*``, each with its reason); periodic jobs are
declared only here, in ``app.conf.beat_schedule``.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_ready

from durak_site import brokerfix
from durak_site.processes import collector_tuned

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")

brokerfix.apply()  # a worker survives losing Redis mid-job (see the module)
app = Celery("durak_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
@worker_process_init.connect
def _collector_tuned(**_: Any) -> None:
    """A worker's collector tuned as a server's (``processes.collector_tuned``), once its tasks
    and Django are loaded: the solo pool's process when it is ready, each pool process when it
    starts. Without it, the collector's full passes over the worker's heap were a share of
    every job's CPU (``docs/performance.md``, the 4-stage bot event)."""
    collector_tuned()


#: Seconds between two runs of the reconciler.
RECONCILE_EVERY = 5.0

# The only place for periodic schedules. The reconciler is how the service recovers from any
# lost job (``durak_site.jobs``): the normal path triggers each idempotent job on an event, and
# the reconciler finds in the database the work that is due and not done. A run that waited in
# the queue past the next one's start is dropped (``expires``): while no worker runs, beat's
# messages do not pile up.
app.conf.beat_schedule = {
    "heartbeat": {"task": "durak_site.tasks.heartbeat", "schedule": 60.0},
    "reconcile": {
        "task": "tournaments.reconcile",
        "schedule": RECONCILE_EVERY,
        "options": {"expires": RECONCILE_EVERY},
    },
    "webhooks-sweep": {"task": "tournaments.webhooks_sweep", "schedule": 60.0},
    "idempotency-expire": {"task": "tournaments.idempotency_expire", "schedule": 86400.0},
}
