"""Independent checks of a pairing, for tests, the benchmark and the referee's sanity report.

They share no code with the pairing algorithms on purpose: a bug in `swiss` should not be able
to hide itself here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .models import History, Pairing

__all__ = ["repeat_free_seating", "repeat_pairs"]


def repeat_pairs(pairing: Pairing, history: History) -> int:
    """Number of pairs seated together who already met in ``history``.

    >>> from .models import Table
    >>> repeat_pairs(Pairing((Table(1, (1, 2)),)), History.from_tables([[(2, 1)]]))
    1
    """
    met = history.meetings()
    count = 0
    for table in pairing.tables:
        e = table.entries
        count += sum(1 for i, a in enumerate(e) for b in e[i + 1 :] if frozenset((a, b)) in met)
    return count


def repeat_free_seating(
    ids: Sequence[int], history: History, sizes: Sequence[int], rng: random.Random, tries: int = 20
) -> list[list[int]] | None:
    """Look for a seating of ``ids`` at tables of ``sizes`` with no repeat meeting.

    A plain randomised greedy with restarts, ignoring scores: finding one proves that every
    repeat in a pairing with the same table sizes was avoidable. ``None`` proves nothing.

    >>> repeat_free_seating([1, 2, 3, 4], History.from_tables([[(1, 2), (3, 4)]]), [2, 2],
    ...                     random.Random(0)) is not None
    True
    """
    opp: dict[int, set[int]] = {}
    for rnd in history.rounds:
        for seated in rnd.tables:
            for a in seated:
                opp.setdefault(a, set()).update(b for b in seated if b != a)
    for _ in range(tries):
        pool = list(ids)
        rng.shuffle(pool)
        tables: list[list[int]] = []
        ok = True
        for size in sizes:
            table: list[int] = [pool.pop()]
            while len(table) < size:
                pick = next(
                    (
                        x
                        for x in range(len(pool) - 1, -1, -1)
                        if all(pool[x] not in opp.get(m, ()) for m in table)
                    ),
                    None,
                )
                if pick is None:
                    ok = False
                    break
                table.append(pool.pop(pick))
            if not ok:
                break
            tables.append(table)
        if ok:
            return tables
    return None
