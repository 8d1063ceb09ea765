"""The feed's sockets (``tournaments.consumers``): each change's message broadcast, after
commit, to the channel layer group of each tournament that shows it."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer

from durak_site import redisloop
from tournaments.notifications import Change, Listener

log = logging.getLogger(__name__)

#: Seconds one feed broadcast may take before it counts as failed (logged).
SEND_TIMEOUT = 2.0


def feed_group(tournament_id: int) -> str:
    """The channel layer group of a tournament's feed sockets."""
    return f"tournament-{tournament_id}"


class FeedSockets(Listener):
    name = "sockets"

    def send(self, change: Change) -> None:
        for stamp in change.stamps:
            broadcast(feed_group(stamp.pk), change.message(stamp))


def broadcast(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to the feed's sockets (a channel layer that fails is logged: the change
    has committed, and the clients resync from the next version they see)."""
    layer = get_channel_layer()
    if layer is None:
        return
    event = {"type": "tournament.event", "message": message}
    try:
        if isinstance(layer, RedisPubSubChannelLayer):
            # The process's own loop, its Redis connection kept (``redisloop.run``): not a new
            # loop and connection per event (each table's result in a worker).
            redisloop.run(lambda: layer.group_send(group, event), timeout=SEND_TIMEOUT)
        else:  # an in-memory layer's groups belong to the caller's loop
            async_to_sync(layer.group_send)(group, event)
    except Exception:
        log.warning("feed %s: the broadcast failed", group, exc_info=True)
