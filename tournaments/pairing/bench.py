"""Benchmark of swiss pairing: ``python -m tournaments.pairing.bench``.

For each field size, three rounds are paired with random results to make a history, then the
fourth round is timed several times. "Avoidable" repeats are those made although an
independent check (`check.repeat_free_seating`) found a seating without any.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence

from .check import repeat_free_seating, repeat_pairs
from .models import Entry, History, Pairing, balanced_table_sizes
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


def main(sizes: Sequence[int] = (100, 1_000, 10_000), runs: int = 5) -> None:
    """Print median time and repeat counts for each field size."""
    print(f"{'players':>8} {'median s':>9} {'repeats':>8} {'avoidable':>10}")
    for n in sizes:
        entries, history = simulate_history(n, 4, 3, random.Random(n))
        times = []
        pairing = None
        for run in range(runs):
            start = time.perf_counter()
            pairing = pair_swiss(entries, history, table_size=4, rng=random.Random(run))
            times.append(time.perf_counter() - start)
        assert pairing is not None
        repeats = repeat_pairs(pairing, history)
        avoidable = 0
        if repeats:
            free = repeat_free_seating(
                [e.id for e in entries], history, balanced_table_sizes(n, 4), random.Random(0)
            )
            avoidable = repeats if free is not None else 0
        print(f"{n:>8} {statistics.median(times):>9.3f} {repeats:>8} {avoidable:>10}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
