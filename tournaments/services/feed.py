"""The tournament feed: every change a reader of an event can see, announced once.

A service that changes what a reader of the event sees calls :func:`tournament_changed` as the
last statement of its transaction. It bumps the tournament's ``version`` (the API's ETag and the
feed's resync point) and ``changed_at``, writes one :class:`~tournaments.models.WebhookDelivery`
per active webhook of the tournament that wants the event (an outbox: the rows commit or roll
back with the change), and, after commit only, broadcasts the message to the feed's sockets
(``tournaments.consumers``), publishes the version for the API's front
(``tournaments.versions``) and asks for one delivery job per row
(``tournaments.services.webhooks``).

The message, the same on the socket and in a webhook's body::

    {"event": "table_finished", "tournament": "kubok-kluba", "version": 42,
     "at": "2026-05-01T12:00:00+00:00", "data": {"table": 7, "round": 2}}

A client that sees a version skip (a message lost, two changes in one transaction announced
once) reads the REST endpoints again; versions only grow.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from durak_site.jobs import enqueue_on_commit
from tournaments import versions
from tournaments.models import Tournament, Webhook, WebhookDelivery

log = logging.getLogger(__name__)

#: The events, with their names for the console (a webhook subscribes to some or all).
EVENTS: Final[dict[str, Any]] = {
    "registration_opened": _("Registration opened"),
    "registration_closed": _("Registration closed"),
    "tournament_started": _("Tournament started"),
    "tournament_cancelled": _("Tournament cancelled"),
    "tournament_updated": _("Tournament settings changed"),
    "entries_changed": _("Entries changed"),
    "round_paired": _("Round paired"),
    "seats_swapped": _("Seats swapped"),
    "table_finished": _("Table finished (standings changed)"),
    "result_corrected": _("Result corrected (standings changed)"),
    "round_finished": _("Round finished"),
    "stage_finished": _("Stage finished"),
    "tournament_finished": _("Tournament finished"),
    "awards_computed": _("Prize pool, ranks or ratings computed"),
    "awards_failed": _("Final places, prize pool, ranks or ratings failed"),
}


def feed_group(tournament_id: int) -> str:
    """The channel layer group of a tournament's feed sockets."""
    return f"tournament-{tournament_id}"


def event_id(tournament_id: int, version: int) -> str:
    """The Standard Webhooks ``webhook-id`` of the change that made ``version``: the same for
    every attempt and every webhook, so a receiver drops repeats by it."""
    return f"msg_{tournament_id}_{version}"


def wants(webhook_events: Any, event: str) -> bool:
    """Whether a webhook subscribed to ``webhook_events`` (empty: all of them) gets ``event``."""
    return not webhook_events or event in webhook_events


def tournament_changed(
    *, tournament_id: int, event: str, data: dict[str, Any] | None = None
) -> int:
    """Announce a change of the tournament a reader can see; returns the new version.

    Call it inside the service's transaction as its **last statement**. Lock order: it updates
    the tournament row (``FOR NO KEY UPDATE``, the lock an ``UPDATE`` of non-key columns takes),
    so it comes after every other lock the service takes: a service that locks a round or a
    table and then the tournament meets another one that does the same in the same order, and
    a transaction that holds the tournament row only from here on asks for no further row lock
    before its commit. A service that locked the tournament first (registration, the start, the
    awards jobs) already holds it, and this takes nothing new.

    Queries: the ``UPDATE``, one ``SELECT`` of the new version and slug, one of the webhooks
    (plus one ``INSERT`` of the deliveries when a webhook wants the event). After commit: one
    broadcast to the feed's sockets and one delivery job per delivery.
    """
    assert event in EVENTS, event
    assert transaction.get_connection().in_atomic_block, "call it inside the change's transaction"
    now = timezone.now()
    Tournament.objects.filter(pk=tournament_id).update(version=F("version") + 1, changed_at=now)
    slug, version = Tournament.objects.filter(pk=tournament_id).values_list("slug", "version").get()
    message = {
        "event": event,
        "tournament": slug,
        "version": version,
        "at": now.isoformat(),
        "data": data or {},
    }
    hooks = [
        hook_id
        for hook_id, events in Webhook.objects.filter(
            tournament_id=tournament_id, is_active=True
        ).values_list("pk", "events")
        if wants(events, event)
    ]
    deliveries = []
    if hooks:
        deliveries = WebhookDelivery.objects.bulk_create(
            WebhookDelivery(
                webhook_id=hook_id,
                event_id=event_id(tournament_id, version),
                event=event,
                payload=message,
                next_attempt_at=now,
            )
            for hook_id in hooks
        )
    group = feed_group(tournament_id)
    transaction.on_commit(lambda: _broadcast(group, message), robust=True)
    transaction.on_commit(
        lambda: versions.publish(slug=slug, pk=tournament_id, version=version), robust=True
    )
    for delivery in deliveries:
        enqueue_on_commit("tournaments.webhook_deliver", delivery.pk)
    return int(version)


def _broadcast(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to the feed's sockets (a channel layer that fails is logged: the change
    has committed, and the clients resync from the next version they see)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "tournament.event", "message": message})
    except Exception:
        log.warning("feed %s: the broadcast failed", group, exc_info=True)
