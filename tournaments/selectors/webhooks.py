"""Reads of the organisers' webhooks for the API: whose webhooks a caller sees, and one webhook
as a caller may reach it.

A webhook is its tournament's organiser's (and a superuser's): to anyone else it is missing,
except to the event's referees, who see it in the console (view-only, never its secret) and so
are told it is not theirs to use (:data:`NOT_YOURS`). An unknown id and another organiser's
webhook look the same.
"""

from __future__ import annotations

from typing import Literal

from django.db.models import QuerySet

from games.actors import Actor
from tournaments.models import Webhook, WebhookDelivery
from tournaments.permissions import can_manage, can_referee, managed_tournaments

Reach = Literal["yours", "not_yours", "missing"]
YOURS: Reach = "yours"
NOT_YOURS: Reach = "not_yours"
MISSING: Reach = "missing"


def webhooks_managed_by(user: Actor | None, *, slug: str | None = None) -> QuerySet[Webhook]:
    """The webhooks of the tournaments ``user`` organises (all of them for a superuser); with
    ``slug``, only that tournament's."""
    webhooks = Webhook.objects.filter(tournament__in=managed_tournaments(user))
    if slug is not None:
        webhooks = webhooks.filter(tournament__slug=slug)
    return webhooks.select_related("tournament")


def webhook_reached(user: Actor | None, pk: int) -> tuple[Webhook | None, Reach]:
    """The webhook ``pk`` as ``user`` reaches it: theirs to use (``YOURS``, with the webhook),
    seen but not theirs (``NOT_YOURS``: a referee of its event), or ``MISSING``."""
    webhook = Webhook.objects.select_related("tournament").filter(pk=pk).first()
    if webhook is None:
        return None, MISSING
    if can_manage(user, webhook.tournament):
        return webhook, YOURS
    if can_referee(user, webhook.tournament):
        return None, NOT_YOURS
    return None, MISSING


def deliveries_of(webhook: Webhook) -> QuerySet[WebhookDelivery]:
    """``webhook``'s delivery log (newest first, the model's order)."""
    return WebhookDelivery.objects.filter(webhook=webhook)
