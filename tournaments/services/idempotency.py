"""The stored answers to writes (``IdempotentRequest``): the API's, kept for the
``Idempotency-Key`` replay of ``tournaments.api.idempotency``, and the console forms' one-time
tokens (:func:`form_submit_once`: a double submit creates nothing twice). Forgetting the old ones
is the domain's daily job, not a face's, so the job runs it without importing a face."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Model
from django.utils import timezone

from tournaments.models import IdempotentRequest

__all__ = ["KEEP", "form_submit_once", "idempotency_expire"]

#: How long an answer is kept for a replay: a client retries within minutes, not days.
KEEP = timedelta(days=1)


def idempotency_expire(*, now: datetime | None = None) -> int:
    """Forget the stored answers older than :data:`KEEP` (the daily job); returns how many.
    Running it twice forgets nothing more."""
    before = (now or timezone.now()) - KEEP
    deleted, _ = IdempotentRequest.objects.filter(created_at__lt=before).delete()
    return deleted


#: The prefix of a console form's one-time token among the keys (the API's are its clients').
FORM_KEY = "form:"


def form_submit_once(
    *, user: Any, token: str, path: str, submit: Callable[[], Model]
) -> tuple[Model | None, int]:
    """Run ``submit`` (a form's write: it creates one row) once for ``user``'s one-time form
    ``token``: returns (the row, its pk) the first time, and (None, the first row's pk) for the
    same token again, even sent twice at once (a double click). The token is claimed by an
    ``IdempotentRequest`` row inserted first, in the transaction ``submit`` runs in: the second
    of two concurrent posts waits on the unique (user, key) until the first commits, then finds
    its answer; if ``submit`` raises, nothing is kept and the token can be sent again (the form
    corrected). Forgotten after :data:`KEEP`, like the API's."""
    key = FORM_KEY + token
    with transaction.atomic():
        try:
            with transaction.atomic():
                claim = IdempotentRequest.objects.create(
                    user=user, key=key, method="POST", path=path, body_sha256="", status_code=0
                )
        except IntegrityError:
            done = IdempotentRequest.objects.get(user=user, key=key)
            return None, int((done.response or {})["pk"])
        row = submit()
        claim.status_code = 302
        claim.response = {"pk": row.pk}
        claim.save(update_fields=["status_code", "response"])
    return row, int(row.pk)
