"""Delivering a change to the organisers' webhooks: the outbox rows, the job's attempts.

A change (``tournaments.notifications.Change``) makes one :class:`WebhookDelivery` per active
webhook of each of its tournaments that wants its event (:func:`deliveries_create`, in the
change's transaction: the rows commit or roll back with it), and asks for one delivery job per
row on commit.

Any answer but 2xx, a timeout or a network error (``transport``) is a failure: the delivery is
tried again after :data:`BACKOFF` (with jitter), at most :data:`MAX_ATTEMPTS` times in all, then
marked failed. ``410 Gone`` switches the webhook off.

The job (``tournaments.webhook_deliver``) claims a delivery with a conditional ``UPDATE`` (due,
pending; it bumps ``attempts`` and moves ``next_attempt_at`` past the attempt's lease), so two
runs of it never send the same delivery at the same time; :func:`webhooks_sweep` (beat) asks
again for deliveries whose job was lost.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext

from durak_site.jobs import enqueue_on_commit
from tournaments.models import Webhook, WebhookDelivery
from tournaments.notifications import Change
from tournaments.services.webhooks.signing import sign
from tournaments.services.webhooks.transport import post

# The pauses before the 2nd, 3rd, ... attempt. The longest stays under the broker's visibility
# timeout (settings: 3600 s), or Redis would hand the waiting job out twice.
BACKOFF: tuple[float, ...] = (10, 30, 120, 600, 2700)
MAX_ATTEMPTS = len(BACKOFF) + 1
JITTER = 0.2  # each pause is drawn from [1 - JITTER, 1 + JITTER] of its nominal length
LEASE = timedelta(seconds=120)  # an attempt's claim: past it, the sweep may try again
SWEEP_GRACE = timedelta(seconds=60)  # the sweep leaves a due delivery this long to its own job
SWEEP_LIMIT = 500
USER_AGENT = "durak-tournaments-webhooks/1"
MAX_ERROR = 300  # WebhookDelivery.last_error's length


def event_id(webhook_id: int, tournament_id: int, version: int) -> str:
    """The Standard Webhooks ``webhook-id`` of the delivery of the change that made ``version``
    to the webhook ``webhook_id``: the same for every attempt (a receiver drops repeats by it;
    the outbox's unique (webhook, id) refuses a second row of it), and opaque: a keyed hash
    (``salted_hmac``, the site's secret key), so that it shows no internal id or count."""
    value = f"{webhook_id}:{tournament_id}:{version}"
    return "msg_" + salted_hmac("durak.webhook-id", value, algorithm="sha256").hexdigest()[:32]


def wants(webhook_events: Iterable[str] | None, event: str) -> bool:
    """Whether a webhook subscribed to ``webhook_events`` (empty: all of them) gets ``event``."""
    return not webhook_events or event in webhook_events


def deliveries_create(change: Change) -> list[WebhookDelivery]:
    """The outbox of ``change``: a pending delivery, due now, per active webhook of each of its
    tournaments that wants its event, and a delivery job asked for each on commit. Inside the
    change's transaction; queries: one ``SELECT`` of the webhooks, one ``INSERT`` when one wants
    it."""
    stamps = {stamp.pk: stamp for stamp in change.stamps}
    hooks = [
        (hook_id, tournament_id)
        for hook_id, tournament_id, events in Webhook.objects.filter(
            tournament_id__in=list(stamps), is_active=True
        ).values_list("pk", "tournament_id", "events")
        if wants(events, change.event)
    ]
    if not hooks:
        return []
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            webhook_id=hook_id,
            event_id=event_id(hook_id, tournament_id, stamps[tournament_id].version),
            event=change.event,
            payload=change.message(stamps[tournament_id]),
            next_attempt_at=change.at,
        )
        for hook_id, tournament_id in hooks
    )
    for delivery in deliveries:
        enqueue_on_commit("tournaments.webhook_deliver", delivery.pk)
    return deliveries


def backoff(attempts: int, rng: random.Random | None = None) -> float:
    """Seconds to wait after ``attempts`` failed attempts before the next one (jittered)."""
    nominal = BACKOFF[min(attempts, len(BACKOFF)) - 1]
    return nominal * (rng or random).uniform(1 - JITTER, 1 + JITTER)


def _claim(delivery_id: int, now: datetime) -> int | None:
    """Claim a due pending delivery for one attempt: its attempt number, or None if it is not
    due (delivered, failed, not yet due, or another run has it)."""
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id,
        status=WebhookDelivery.Status.PENDING,
        next_attempt_at__lte=now,
    ).update(attempts=F("attempts") + 1, next_attempt_at=now + LEASE)
    if not claimed:
        return None
    attempts: int = (
        WebhookDelivery.objects.filter(pk=delivery_id).values_list("attempts", flat=True).get()
    )
    return attempts


def webhook_deliver(*, delivery_id: int) -> str:
    """One attempt at a delivery (the delivery job's body); returns what happened.

    Safe to run twice: the claim (:func:`_claim`) lets one run at a time make one attempt, and a
    delivery that is not due is left alone. The request is made outside any transaction; its
    outcome is written with a conditional ``UPDATE`` on the attempt it claimed.
    """
    now = timezone.now()
    attempt = _claim(delivery_id, now)
    if attempt is None:
        return "not due"
    delivery = WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)
    hook = delivery.webhook
    mine = WebhookDelivery.objects.filter(pk=delivery_id, attempts=attempt)
    if not hook.is_active:
        mine.update(
            status=WebhookDelivery.Status.FAILED,
            next_attempt_at=None,
            last_error=gettext("the webhook is switched off"),
        )
        return "webhook off"
    body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()
    stamp = int(time.time())
    answer = post(
        hook.url,
        body,
        {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "webhook-id": delivery.event_id,
            "webhook-timestamp": str(stamp),
            "webhook-signature": sign(hook.secret, delivery.event_id, stamp, body),
        },
    )
    done = timezone.now()
    if answer.status is not None and 200 <= answer.status < 300:
        mine.update(
            status=WebhookDelivery.Status.DELIVERED,
            delivered_at=done,
            next_attempt_at=None,
            last_status_code=answer.status,
            last_error="",
        )
        return "delivered"
    if answer.status == 410:
        with transaction.atomic():
            Webhook.objects.filter(pk=hook.pk).update(is_active=False)
            mine.update(
                status=WebhookDelivery.Status.FAILED,
                next_attempt_at=None,
                last_status_code=410,
                last_error=gettext("410 Gone: the webhook is switched off"),
            )
        return "gone"
    if attempt >= MAX_ATTEMPTS:
        mine.update(
            status=WebhookDelivery.Status.FAILED,
            next_attempt_at=None,
            last_status_code=answer.status,
            last_error=answer.error[:MAX_ERROR],
        )
        return "failed"
    pause = backoff(attempt)
    with transaction.atomic():
        mine.update(
            next_attempt_at=done + timedelta(seconds=pause),
            last_status_code=answer.status,
            last_error=answer.error[:MAX_ERROR],
        )
        enqueue_on_commit("tournaments.webhook_deliver", delivery_id, countdown=pause)
    return "retry"


def webhooks_sweep(*, now: datetime | None = None) -> int:
    """Ask again for the pending deliveries that are overdue (their job was lost, or a worker
    died during an attempt); returns how many. The jobs' claim keeps a delivery from being sent
    twice."""
    cutoff = (now or timezone.now()) - SWEEP_GRACE
    due = list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=cutoff
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:SWEEP_LIMIT]
    )
    with transaction.atomic():
        for delivery_id in due:
            enqueue_on_commit("tournaments.webhook_deliver", delivery_id)
    return len(due)
