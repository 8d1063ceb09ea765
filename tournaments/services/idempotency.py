"""The API's stored answers to writes (``IdempotentRequest``, kept for the ``Idempotency-Key``
replay of ``tournaments.api.idempotency``): forgetting the old ones is the domain's daily job, not
the API's, so the job runs it without importing a face."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from tournaments.models import IdempotentRequest

__all__ = ["KEEP", "idempotency_expire"]

#: How long an answer is kept for a replay: a client retries within minutes, not days.
KEEP = timedelta(days=1)


def idempotency_expire(*, now: datetime | None = None) -> int:
    """Forget the stored answers older than :data:`KEEP` (the daily job); returns how many.
    Running it twice forgets nothing more."""
    before = (now or timezone.now()) - KEEP
    deleted, _ = IdempotentRequest.objects.filter(created_at__lt=before).delete()
    return deleted
