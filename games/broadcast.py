"""Pushing game changes to the live table's sockets, always after commit.

The group message carries the full engine state: it stays inside the server (channel layer) and
every consumer redacts it for its own viewer with the engine's ``view`` before sending, so a
hidden card never reaches a client and no consumer has to read the database per change.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


def broadcast_on_commit(game: Any, event: str = "state") -> None:
    """After the current transaction commits, tell every socket of the game's table."""
    message = {
        "type": "game.changed",
        "event": event,
        "game_id": game.pk,
        "table_id": game.table_id,
        "version": game.version,
        "status": game.status,
        "state": game.state,
        "result": game.result,
        "seed": game.seed if game.seed_revealed else None,
        "seed_commitment": game.seed_commitment,
        "deadline": game.deadline.isoformat() if game.deadline else None,
        "players": game.players,
    }
    groups = [game_group(game.pk)]
    if game.table_id is not None:
        groups.append(table_group(game.table_id))

    def send() -> None:
        for group in groups:
            _send(group, message)

    transaction.on_commit(send)
