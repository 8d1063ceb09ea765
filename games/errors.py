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


class NotYourSeat(Forbidden):
    code = "not_your_seat"


__all__ = ["GameError", "GameNotActive", "NotFound", "NotYourSeat", "StaleVersion"]
