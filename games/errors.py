"""Refusals of the games layer, in the one error shape (``code``, ``message``).

Engine refusals keep the engine protocol's codes (``cannot_beat``, ``not_your_turn``, ...), so a
client sees the same code over the WebSocket as over the protocol.
"""

from __future__ import annotations

from durak_site.errors import Conflict, Forbidden, NotFound, ServiceError


class GameError(ServiceError):
    code = "illegal"


class StaleVersion(Conflict):
    code = "stale_version"


class GameNotActive(Conflict):
    code = "game_not_active"


class NotSeated(Forbidden):
    """An action from a connection whose user has no seat in the table's current game."""

    code = "not_seated"


class SeedSecret(GameError):
    """The seed of a game still in play is secret (only its commitment is public)."""

    code = "seed_secret"
    http_status = 409


__all__ = [
    "Forbidden",
    "GameError",
    "GameNotActive",
    "NotFound",
    "NotSeated",
    "SeedSecret",
    "StaleVersion",
]
