"""Pushing game changes to the live table's sockets, always after commit.

The group message carries the full engine state: it stays inside the server (channel layer) and
every consumer redacts it for its own viewer with the engine's ``view`` before sending, so a
hidden card never reaches a client and no consumer has to read the database per change.

A consumer that calls a service from its event loop wraps the call in :func:`collected`: the
service's broadcasts are then handed back instead of sent from the database thread, and the
consumer sends them itself (:func:`send_collected`) before it answers. The database thread is
then not held during the Redis round trips.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games import timing


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


Pending = list[tuple[str, dict[str, Any]]]
_collector = threading.local()


@contextmanager
def collected() -> Iterator[Pending]:
    """Collect the broadcasts of the changes committed in this thread (``(group, message)``
    pairs, in commit order) instead of sending them; see :func:`send_collected`."""
    previous = getattr(_collector, "pending", None)
    pending: Pending = []
    _collector.pending = pending
    try:
        yield pending
    finally:
        _collector.pending = previous


async def send_collected(pending: Pending) -> None:
    """Send collected broadcasts in order."""
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in pending:
        if timing.ENABLED:
            message["sent_at"] = time.time()
        await layer.group_send(group, message)


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


def game_message(game: Any, event: str = "state") -> dict[str, Any]:
    """The group message of a game as it is now: the full truth, for consumers to redact."""
    return {
        "type": "game.changed",
        "event": event,
        "game_id": game.pk,
        "table_id": game.table_id,
        "number": game.number,
        "version": game.version,
        "status": game.status,
        "state": game.state,
        "result": game.result,
        "seed": game.seed if game.seed_revealed else None,
        "seed_commitment": game.seed_commitment,
        "deadline": game.deadline.isoformat() if game.deadline else None,
        "players": game.players,
        "actions": game.log_tail,
    }


def broadcast_on_commit(game: Any, event: str = "state") -> None:
    """After the current transaction commits, tell every socket of the game's table (a game
    without a table has no sockets)."""
    if game.table_id is None:
        return
    message = game_message(game, event)
    group = table_group(game.table_id)

    def send() -> None:
        pending = getattr(_collector, "pending", None)
        if pending is not None:
            pending.append((group, message))
            return
        if timing.ENABLED:
            message["sent_at"] = time.time()
        _send(group, message)

    transaction.on_commit(send)
