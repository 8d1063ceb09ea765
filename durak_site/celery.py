"""The one Celery app. Tasks are autodiscovered from every app's ``tasks.py``.

Reliability choices live in settings (``CELERY_*``, each with its reason); periodic jobs are
declared only here, in ``app.conf.beat_schedule``.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")

app = Celery("durak_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The only place for periodic schedules. Each entry is a safety net: the normal path
# triggers the same idempotent job on an event, and the sweep catches a lost trigger.
app.conf.beat_schedule = {
    "heartbeat": {"task": "durak_site.tasks.heartbeat", "schedule": 60.0},
    "rounds-sweep": {"task": "tournaments.rounds_sweep", "schedule": 60.0},
    "webhooks-sweep": {"task": "tournaments.webhooks_sweep", "schedule": 60.0},
    "idempotency-expire": {"task": "tournaments.idempotency_expire", "schedule": 86400.0},
}
