"""Seating of team tables (2x2, 3x3): partners alternate round the table."""

from __future__ import annotations

from collections.abc import Sequence

from .errors import PairingError

__all__ = ["team_seating"]


def team_seating(
    teams: Sequence[Sequence[int]],
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Seat the members of team entries alternately: t1a, t2a, t1b, t2b, ...

    Returns the player ids in seat order and, for the engine's ``teams`` option, each team's
    seat numbers -- partners are never neighbours, so they never attack each other.

    >>> team_seating([(10, 11), (20, 21)])
    ((10, 20, 11, 21), ((0, 2), (1, 3)))
    """
    if len(teams) < 2:
        raise PairingError("a team table needs at least two teams")
    size = len(teams[0])
    if size < 2 or any(len(t) != size for t in teams):
        raise PairingError("every team at a table must have the same number of players (2 or 3)")
    if size * len(teams) > 6:
        raise PairingError(f"{len(teams)} teams of {size} do not fit a table of 6 seats")
    players = [p for t in teams for p in t]
    if len(set(players)) != len(players):
        raise PairingError("a player is listed in two teams at one table")
    seats = tuple(teams[s % len(teams)][s // len(teams)] for s in range(size * len(teams)))
    partition = tuple(tuple(range(i, size * len(teams), len(teams))) for i in range(len(teams)))
    return seats, partition
