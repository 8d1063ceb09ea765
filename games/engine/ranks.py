"""Ranks in a series: the rank ladder (звания) and the card ranks a series plays with.

The pogony card rank climbs once per game with pogony; a long-durak fool lays out trumps of rising
rank and is dealt fewer cards from the ten on. The readings are in ``docs/readings.md``
("Series at a table").
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import RANKS, lowest_rank, parse_rank

__all__ = [
    "ACE",
    "DEFAULT_LADDER",
    "TEN",
    "layout_ranks",
    "long_deal_size",
    "pogony_card_rank",
    "rank_for",
]

DEFAULT_LADDER: tuple[str, ...] = (
    "сержант",
    "старшина",
    "прапорщик",
    "лейтенант",
    "старший лейтенант",
    "капитан",
    "майор",
    "подполковник",
    "полковник",
    "генерал",
)
"""The rank ladder: seed 004 names the first two; the rest follows the army (configurable)."""


def rank_for(received: int, ladder: Sequence[str] = DEFAULT_LADDER) -> str | None:
    """The rank after ``received`` pogony: none, сержант, старшина, ..., capped at the top.

    >>> rank_for(0), rank_for(1), rank_for(2), rank_for(99)
    (None, 'сержант', 'старшина', 'генерал')
    """
    if received <= 0:
        return None
    return ladder[min(received, len(ladder)) - 1]


def pogony_card_rank(games_with_pogony: int, deck_size: int = 36) -> str | None:
    """The card rank of the next pogony of a series (rules.md): 6, then 7, 8, ... (36 cards).

    ``None`` once the ranks run out past the ace (seed 004: "по возможности", where possible).

    >>> pogony_card_rank(0), pogony_card_rank(1), pogony_card_rank(0, deck_size=24)
    ('6', '7', '9')
    >>> pogony_card_rank(8), pogony_card_rank(9)
    ('A', None)
    """
    index = lowest_rank(deck_size) + games_with_pogony
    return RANKS[index] if index < len(RANKS) else None


SEVEN = RANKS.index("7")
TEN = RANKS.index("T")
ACE = RANKS.index("A")


def layout_ranks(deck_size: int) -> tuple[int, ...]:
    """Rank indices a long-durak fool lays out, loss by loss: 7 (or above the lowest) .. A."""
    start = max(SEVEN, lowest_rank(deck_size) + 1)
    return tuple(range(start, ACE + 1))


def long_deal_size(rank: str, hand_size: int = 6) -> int:
    """Cards dealt to a long-durak fool whose highest laid-out card has rank ``rank``.

    >>> [long_deal_size(r) for r in "789TJQKA"]
    [6, 6, 6, 5, 4, 3, 2, 1]
    """
    index = parse_rank(rank)
    size = hand_size if index < TEN else 5 - (index - TEN)
    return max(1, min(hand_size, size))
