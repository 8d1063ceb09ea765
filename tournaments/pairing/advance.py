"""Who goes on to the next stage: top N overall, or top K of each table/group."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .errors import PairingError

__all__ = ["StandingRow", "top_overall", "top_per_group"]


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One row of a stage's final standings, already tie-broken (the scoring code's job).

    ``rank`` is the overall place (1 = best, unique); ``group`` the table or group the row
    belongs to (for per-group cuts) and ``group_rank`` the place within it.

    >>> StandingRow(entry=5, rank=1, group="A", group_rank=1).entry
    5
    """

    entry: int
    rank: int
    group: Hashable = None
    group_rank: int = 0


def _check(rows: Sequence[StandingRow]) -> list[StandingRow]:
    ranks = [r.rank for r in rows]
    if len(set(ranks)) != len(ranks):
        raise PairingError("standings must be tie-broken before a cut: two rows share a rank")
    entries = [r.entry for r in rows]
    if len(set(entries)) != len(entries):
        raise PairingError("an entry appears twice in the standings")
    return sorted(rows, key=lambda r: r.rank)


def top_overall(rows: Sequence[StandingRow], n: int) -> list[int]:
    """The best ``n`` entries, best first (the next stage's seeding order).

    >>> top_overall([StandingRow(7, 2), StandingRow(3, 1), StandingRow(9, 3)], 2)
    [3, 7]
    """
    ordered = _check(rows)
    if n < 1:
        raise PairingError(f"at least one entry must advance, not {n}")
    if n > len(ordered):
        raise PairingError(f"{n} are to advance but only {len(ordered)} entries finished")
    return [r.entry for r in ordered[:n]]


def top_per_group(rows: Sequence[StandingRow], k: int) -> list[int]:
    """The best ``k`` of each group: all group winners first (in overall order), then all
    runners-up, and so on -- so the next stage seeds group winners above runners-up.

    >>> rows = [StandingRow(1, 1, "A", 1), StandingRow(2, 2, "B", 1),
    ...         StandingRow(3, 3, "B", 2), StandingRow(4, 4, "A", 2), StandingRow(5, 5, "A", 3)]
    >>> top_per_group(rows, 2)
    [1, 2, 3, 4]
    """
    ordered = _check(rows)
    if k < 1:
        raise PairingError(f"at least one entry per group must advance, not {k}")
    sizes: dict[Hashable, int] = {}
    for r in ordered:
        sizes[r.group] = sizes.get(r.group, 0) + 1
    short = sorted((str(g) for g, s in sizes.items() if s < k))
    if short:
        raise PairingError(f"groups {', '.join(short)} have fewer than {k} entries to advance")
    chosen = [r for r in ordered if 1 <= r.group_rank <= k]
    if len(chosen) != k * len(sizes):
        raise PairingError("group ranks must run 1, 2, ... within each group")
    return [r.entry for r in sorted(chosen, key=lambda r: (r.group_rank, r.rank))]
