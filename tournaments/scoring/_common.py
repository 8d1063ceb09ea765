"""Small helpers shared by the scoring modules (private: import from the public modules)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from tournaments.scoring.errors import ScoringError

# What a caller may pass where an exact number is expected. float is deliberately absent:
# 0.1 is not one tenth, and points or money must add up exactly.
Exact = Fraction | Decimal | int | str


def to_fraction(value: Exact, what: str, error: type[ScoringError] = ScoringError) -> Fraction:
    """Convert an exact number to a Fraction, refusing floats, NaN and infinities."""
    if isinstance(value, (bool, float)):
        raise error(
            f"{what} must be an exact number (int, Decimal, Fraction or str), not {value!r}"
        )
    try:
        if isinstance(value, Decimal) and not value.is_finite():
            raise error(f"{what} must be a finite number, not {value}")
        return Fraction(value)
    except (ValueError, ZeroDivisionError, TypeError) as exc:
        raise error(f"{what} is not a number: {value!r}") from exc


def draw_key(seed: str, entry: str) -> str:
    """The seeded random draw key of an entry: same seed and entry, same key, on any machine.

    A hash rather than ``random.Random(seed).shuffle`` so an entry's key does not depend on which
    other entries are in the tied group (adding a late entry must not reshuffle everyone else).
    """
    return hashlib.sha256(f"{seed}\x00{entry}".encode()).hexdigest()


def place_groups(
    places: Sequence[tuple[str, int]], error: type[ScoringError] = ScoringError
) -> list[tuple[int, list[str]]]:
    """Group ``(entry, place)`` pairs by place, checking standard competition ranking.

    Tied entries share a place and the places they cover are skipped (1, 2, 2, 4), so a group
    starting at place ``p`` with ``t`` entries covers places ``p .. p+t-1``. Entries keep the
    caller's order inside a group.

    >>> place_groups([("a", 1), ("b", 2), ("c", 2), ("d", 4)])
    [(1, ['a']), (2, ['b', 'c']), (4, ['d'])]
    """
    seen: set[str] = set()
    by_place: dict[int, list[str]] = {}
    for entry, place in places:
        if entry in seen:
            raise error(f"entry {entry!r} has more than one place")
        seen.add(entry)
        if isinstance(place, bool) or not isinstance(place, int) or place < 1:
            raise error(f"place of {entry!r} must be a positive integer, not {place!r}")
        by_place.setdefault(place, []).append(entry)
    groups = sorted(by_place.items())
    expected = 1
    for place, members in groups:
        if place != expected:
            raise error(
                f"places must follow competition ranking (1, 2, 2, 4, ...): expected place "
                f"{expected}, got {place}",
                code="place_order",
                params={"expected": expected, "got": place},
            )
        expected += len(members)
    return groups
