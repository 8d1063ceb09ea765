"""Round-robin groups.

With 2-seat tables every pair meets exactly once (the circle method). With larger tables no
exact design exists for most group sizes, so a greedy covering schedule is built: each round
seats players so as to cover as many not-yet-met pairs as possible, until every pair has met;
several seeded attempts are made and the shortest kept. The lower bound ``ceil((n-1)/(k-1))``
is reported next to the number of rounds so the referee sees how close it came.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import ConfigError, PairingError
from .models import Pairing, Table, balanced_table_sizes

__all__ = ["RoundRobinSchedule", "group_count", "group_name", "round_robin", "snake_groups"]


@dataclass(frozen=True, slots=True)
class RoundRobinSchedule:
    """Every round of one group; ``lower_bound`` is the fewest rounds any schedule could need.

    >>> s = round_robin([1, 2, 3, 4], table_size=2, rng=random.Random(0))
    >>> s.round_count, s.lower_bound
    (3, 3)
    """

    group: tuple[int, ...]
    rounds: tuple[Pairing, ...]
    lower_bound: int

    @property
    def round_count(self) -> int:
        """Number of rounds the group plays."""
        return len(self.rounds)


def group_count(entries: int, groups: int | None) -> int:
    """How many groups ``entries`` entries are dealt into when a stage asks for ``groups``:
    fewer when a group would have under 2 (entries left before the stage began).

    >>> group_count(10, 4), group_count(5, 4), group_count(1, None)
    (4, 2, 1)
    """
    return max(1, min(groups or 1, entries // 2))


def group_name(index: int) -> str:
    """The name of a stage's group ``index`` (0 up): A to Z, then AA, AB, ... as a spreadsheet
    names its columns, so a stage of any number of groups names each once.

    >>> [group_name(i) for i in (0, 25, 26, 27, 51, 52, 701, 702)]
    ['A', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']
    """
    name = ""
    index += 1
    while index:
        index, letter = divmod(index - 1, 26)
        name = chr(ord("A") + letter) + name
    return name


def snake_groups(seeded: Sequence[int], groups: int) -> list[list[int]]:
    """Split entries (best first) into ``groups`` by snake order, so groups are equally strong.

    >>> snake_groups([1, 2, 3, 4, 5, 6], 2)
    [[1, 4, 5], [2, 3, 6]]
    """
    if groups < 1:
        raise ConfigError(f"a stage needs at least one group, not {groups}")
    if groups > len(seeded):
        raise PairingError(f"{len(seeded)} entries cannot fill {groups} groups")
    out: list[list[int]] = [[] for _ in range(groups)]
    for i, e in enumerate(seeded):
        lap, pos = divmod(i, groups)
        out[pos if lap % 2 == 0 else groups - 1 - pos].append(e)
    return out


def _circle(ids: list[int]) -> list[Pairing]:
    # The circle method: the first player stays put, the rest rotate one place per round. The
    # fixed player alternates seats so the first-attacker seat is shared evenly.
    players: list[int | None] = list(ids)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds = []
    for r in range(n - 1):
        tables: list[Table] = []
        byes: list[int] = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if (i == 0 and r % 2) or (i > 0 and i % 2):
                a, b = b, a
            if a is None or b is None:
                byes.append(b if a is None else a)  # type: ignore[arg-type]
                continue
            tables.append(Table(len(tables) + 1, (a, b)))
        rounds.append(Pairing(tuple(tables), tuple(byes)))
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def _greedy_cover(ids: list[int], table_size: int, rng: random.Random) -> list[list[list[int]]]:
    n = len(ids)
    unmet = {i: set(range(n)) - {i} for i in range(n)}
    sizes = balanced_table_sizes(n, table_size)
    rounds: list[list[list[int]]] = []
    seat_first = [0] * n
    while any(unmet.values()):
        free = set(range(n))
        tables: list[list[int]] = []
        for size in sizes:
            # Open with whoever has most pairs left to cover: they are the hardest to finish.
            anchor = max(free, key=lambda p: (len(unmet[p] & free), rng.random()))
            table = [anchor]
            free.discard(anchor)
            while len(table) < size:
                pick = max(
                    free,
                    key=lambda p: (
                        sum(1 for m in table if m in unmet[p]),
                        len(unmet[p]),
                        rng.random(),
                    ),
                )
                table.append(pick)
                free.discard(pick)
            for a in table:
                unmet[a].difference_update(table)
            # Seat 0 to whoever attacked first least often.
            head = min(table, key=lambda p: (seat_first[p], table.index(p)))
            seat_first[head] += 1
            table.remove(head)
            tables.append([head, *table])
        rounds.append(tables)
        assert len(rounds) <= n * n, "greedy cover does not progress"
    return [[[ids[p] for p in t] for t in r] for r in rounds]


def round_robin(
    group: Sequence[int], *, table_size: int, rng: random.Random, attempts: int = 12
) -> RoundRobinSchedule:
    """Schedule a group so every player meets every other at least once.

    2-seat tables: the circle method, exactly once each, with a bye per round for odd groups.
    Larger tables: a greedy covering schedule, best of ``attempts`` seeded tries.

    >>> s = round_robin(list(range(1, 9)), table_size=4, rng=random.Random(1))
    >>> s.lower_bound, s.round_count <= 4
    (3, True)
    """
    if not 2 <= table_size <= 6:
        raise ConfigError(f"table size must be 2 to 6, not {table_size}")
    ids = list(group)
    if len(set(ids)) != len(ids):
        raise PairingError("a group lists an entry more than once")
    if len(ids) < 2:
        raise PairingError("a round-robin group needs at least 2 entries")
    bound = -(-(len(ids) - 1) // (table_size - 1))
    if table_size == 2:
        return RoundRobinSchedule(tuple(ids), tuple(_circle(ids)), len(ids) - 1 + len(ids) % 2)
    best: list[list[list[int]]] | None = None
    for _ in range(attempts):
        cover = _greedy_cover(ids, table_size, rng)
        if best is None or len(cover) < len(best):
            best = cover
        if len(best) == bound:
            break
    assert best is not None
    rounds = tuple(Pairing(tuple(Table(i + 1, tuple(t)) for i, t in enumerate(r))) for r in best)
    return RoundRobinSchedule(tuple(ids), rounds, bound)
