"""Errors raised by the engine: one ``ValueError`` subclass per protocol error code.

Every refusal of the engine is an :class:`EngineError`; its ``code`` is the error code of the engine
protocol (``engine-protocol.md``), so a caller can answer ``{"ok": false, "error": err.code,
"message": str(err)}`` without a lookup table.

>>> try:
...     raise CannotBeat("7D does not beat 6S")
... except EngineError as err:
...     print(err.code, err)
cannot_beat 7D does not beat 6S
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BadRequest",
    "CannotBeat",
    "CardError",
    "CardNotInHand",
    "DealError",
    "EngineError",
    "GameOver",
    "IllegalAction",
    "LimitExceeded",
    "NotYourTurn",
    "RankNotOnTable",
    "RulesError",
    "SeriesError",
    "TransferNotAllowed",
]


class EngineError(ValueError):
    """Base of every refusal; ``code`` is the protocol error code."""

    code = "illegal"


class BadRequest(EngineError):
    """Malformed input: not an action, unknown card code, bad seat, bad JSON shape."""

    code = "bad_request"


class RulesError(BadRequest):
    """An invalid rules object: unknown option, wrong type, bad value or impossible combination.

    ``option`` names the option to blame, ``reason`` and ``params`` the problem, for a caller
    that words it in its reader's language (the message is the engine's English).

    >>> RulesError("pogony_min_cards: must be 1-4", option="pogony_min_cards",
    ...            reason="pogony_range", params={"value": 9}).params
    {'value': 9}
    """

    def __init__(
        self,
        message: str = "",
        *,
        option: str = "",
        reason: str = "",
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.option = option
        self.reason = reason
        self.params: dict[str, Any] = dict(params or {})


class SeriesError(BadRequest):
    """An invalid series request: unknown format, bad target, a result that does not fit.

    >>> from games.engine.series import parse_format
    >>> parse_format("chess:3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    games.engine.errors.SeriesError: unknown series format 'chess' (one of ...)
    """


class CardError(BadRequest):
    """A string that is not a card code (``"TS"``) or suit letter."""


class DealError(BadRequest):
    """A fixed deal that cannot be played (duplicate card, wrong number of hands, ...)."""


class GameOver(EngineError):
    """An action after the end of the game."""

    code = "game_over"


class NotYourTurn(EngineError):
    """The seat may not make that kind of move now (e.g. attack when another seat attacks)."""

    code = "not_your_turn"


class CardNotInHand(EngineError):
    """A card that the acting seat does not hold."""

    code = "card_not_in_hand"


class CannotBeat(EngineError):
    """A defence card that does not beat its target."""

    code = "cannot_beat"


class RankNotOnTable(EngineError):
    """A throw-in (or transfer) card whose rank is not on the table."""

    code = "rank_not_on_table"


class LimitExceeded(EngineError):
    """More attack cards than the bout allows (defender's hand, ``bout_limit``, ...)."""

    code = "limit_exceeded"


class TransferNotAllowed(EngineError):
    """A transfer that the rules forbid here (first bout, two players, over a trump, ...)."""

    code = "transfer_not_allowed"


class IllegalAction(EngineError):
    """Any other refusal."""

    code = "illegal"
