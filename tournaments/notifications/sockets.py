"""The feed's sockets (``tournaments.consumers``): each change's message broadcast, after
commit, to the channel layer group of each tournament that shows it."""

from __future__ import annotations

import logging
from typing import Any

from channels.layers import get_channel_layer

from games.broadcast import SEND_TIMEOUT, from_sync
from tournaments.notifications import Change, Listener

log = logging.getLogger(__name__)


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
        # Not a new loop and Redis connection per event (each table's result in a worker).
        from_sync(lambda: layer.group_send(group, event), timeout=SEND_TIMEOUT)
    except Exception:
        log.warning("feed %s: the broadcast failed", group, exc_info=True)
