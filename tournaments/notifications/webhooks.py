"""Organisers' webhooks (``tournaments.services.webhooks``): in the change's transaction, one
delivery row per active webhook that wants the event (an outbox: the rows commit or roll back
with the change), and one delivery job per row asked for on commit."""

from __future__ import annotations

from tournaments.notifications import Change, Listener
from tournaments.services.webhooks.delivery import deliveries_create


class WebhookDeliveries(Listener):
    name = "webhooks"

    def stage(self, change: Change) -> None:
        deliveries_create(change)
