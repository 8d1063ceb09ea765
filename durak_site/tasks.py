"""Service-level tasks: a liveness round trip for the worker and beat."""

from __future__ import annotations

import time

from celery import shared_task
from django.core.cache import cache

BEAT_KEY = "durak:beat:last"


@shared_task(name="durak_site.tasks.ping")
def ping(payload: str) -> dict[str, str | float]:
    """Echo ``payload`` with the worker's clock: proves a task crossed the broker and back."""
    return {"echo": payload, "at": time.time()}


@shared_task(name="durak_site.tasks.heartbeat")
def heartbeat() -> float:
    """Record when beat last scheduled work; /healthz reports its age."""
    now = time.time()
    cache.set(BEAT_KEY, now, timeout=None)
    return now
