"""Errors of the scoring package.

Every error is a ``ValueError`` subclass carrying a message fit to show an organiser or a referee
(a bad configuration, a result that cannot be scored); the DB layer turns them into a 4xx.

>>> issubclass(PrizeError, ScoringError) and issubclass(ScoringError, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["PrizeError", "RankError", "RatingError", "ScoringError"]


class ScoringError(ValueError):
    """A scoring configuration or a result is invalid; the message says what and why. ``code``
    and ``params`` (where set) name the problem for a caller that words it in its reader's
    language.

    >>> ScoringError("places out of order", code="place_order", params={"expected": 2}).params
    {'expected': 2}
    """

    def __init__(
        self, message: str = "", *, code: str = "", params: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.params: dict[str, Any] = dict(params or {})


class PrizeError(ScoringError):
    """A prize-pool rule, payment or payout structure is invalid."""


class RankError(ScoringError):
    """A rank ladder or a pogony record is invalid."""


class RatingError(ScoringError):
    """A table cannot be rated (fewer than two sides, unknown ranks, ...)."""
