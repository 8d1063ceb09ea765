"""Swiss histories with random results: the fields that the pairing benchmark (``bench.pairing``)
and the pairing tests pair a next round for.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .models import Entry, History, Pairing
from .swiss import pair_swiss

__all__ = ["play_random_results", "simulate_history"]


def play_random_results(
    entries: Sequence[Entry], pairing: Pairing, rng: random.Random
) -> list[Entry]:
    """Entries with points added from a random finishing order at every table (k-1 .. 0).

    >>> from .models import Table
    >>> pairing = Pairing((Table(1, (1, 2)),))
    >>> out = play_random_results([Entry(1), Entry(2)], pairing, random.Random(0))
    >>> sorted(e.points for e in out)
    [0.0, 1.0]
    """
    gained: dict[int, float] = {}
    winners: set[int] = set()
    for table in pairing.tables:
        order = list(table.entries)
        rng.shuffle(order)
        winners.add(order[0])
        for place, e in enumerate(order):
            gained[e] = float(len(order) - 1 - place)
    return [
        Entry(
            e.id,
            points=e.points + gained.get(e.id, 0.0),
            first_places=e.first_places + (e.id in winners),
            rating=e.rating,
            club=e.club,
        )
        for e in entries
    ]


def simulate_history(
    n: int, table_size: int, rounds: int, rng: random.Random, clubs: int = 0
) -> tuple[list[Entry], History]:
    """A field of ``n`` entries after ``rounds`` swiss rounds with random results.

    >>> entries, history = simulate_history(12, 4, 2, random.Random(1))
    >>> len(history.rounds), len(entries)
    (2, 12)
    """
    entries = [
        Entry(i, rating=rng.gauss(1500, 200), club=f"club{rng.randrange(clubs)}" if clubs else None)
        for i in range(1, n + 1)
    ]
    history = History()
    for _ in range(rounds):
        pairing = pair_swiss(entries, history, table_size=table_size, rng=rng)
        history = History((*history.rounds, pairing.as_history_round()))
        entries = play_random_results(entries, pairing, rng)
    return entries, history
