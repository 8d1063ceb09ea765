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


LOG_LENGTH = 30  # the last actions every state message carries (a reconnecting client's log)


def recent_actions(game: Any) -> list[dict[str, Any]]:
    """The game's last logged actions, oldest first. All public: every card in an action is
    played face up (a shown trump is shown to everyone by the rules)."""
    from games.models import GameAction

    rows = GameAction.objects.filter(game_id=game.pk).order_by("-seq")[:LOG_LENGTH]
    return [
        {"seq": seq, "kind": kind, **action}
        for seq, kind, action in reversed(rows.values_list("seq", "kind", "action"))
    ]


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
        "actions": recent_actions(game),
    }


def broadcast_on_commit(game: Any, event: str = "state") -> None:
    """After the current transaction commits, tell every socket of the game's table."""
    message = game_message(game, event)
    groups = [game_group(game.pk)]
    if game.table_id is not None:
        groups.append(table_group(game.table_id))

    def send() -> None:
        for group in groups:
            _send(group, message)

    transaction.on_commit(send)
