"""Errors of the scoring package.

Every error is a ``ValueError`` subclass carrying a message fit to show an organiser or a referee
(a bad configuration, a result that cannot be scored); the DB layer turns them into a 4xx.

>>> issubclass(PrizeError, ScoringError) and issubclass(ScoringError, ValueError)
True
"""

from __future__ import annotations

__all__ = ["PrizeError", "RankError", "RatingError", "ScoringError"]


class ScoringError(ValueError):
    """A scoring configuration or a result is invalid; the message says what and why."""


class PrizeError(ScoringError):
    """A prize-pool rule, payment or payout structure is invalid."""


class RankError(ScoringError):
    """A rank ladder or a pogony record is invalid."""


class RatingError(ScoringError):
    """A table cannot be rated (fewer than two sides, unknown ranks, ...)."""
