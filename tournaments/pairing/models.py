"""Plain input and output objects of the pairing code.

The DB layer builds these from rows, calls a pairing function and saves what comes back; nothing
here knows about the database. All objects are frozen so a pairing cannot be altered after it
has explained itself.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import PairingError

__all__ = [
    "Compromise",
    "CompromiseKind",
    "Entry",
    "History",
    "HistoryRound",
    "Pairing",
    "Table",
    "balanced_table_sizes",
]


@dataclass(frozen=True, slots=True)
class Entry:
    """One player (or team) taking part in a stage.

    ``seed`` is the seed rank (1 = best; 0 = none) and only orders entries with equal points and
    rating. ``members`` holds the player ids of a team entry, in seating order.

    >>> Entry(id=7, points=3.0, club="Tula").club
    'Tula'
    """

    id: int
    points: float = 0.0
    first_places: int = 0
    rating: float = 0.0
    seed: int = 0
    club: str | None = None
    team: str | None = None
    members: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryRound:
    """One earlier round: its tables in seat order (seat 0 attacks first) and its byes.

    >>> HistoryRound(tables=((1, 2, 3), (4, 5))).tables[1]
    (4, 5)
    """

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class History:
    """Every earlier round of the stage (or of the whole event, if repeats count across stages).

    >>> h = History.from_tables([[(1, 2), (3, 4)], [(1, 3), (2, 4)]])
    >>> h.meetings()[frozenset((1, 2))]
    1
    """

    rounds: tuple[HistoryRound, ...] = ()

    @classmethod
    def from_tables(cls, rounds: Iterable[Iterable[Sequence[int]]]) -> History:
        """Build a history from rounds given as lists of seat-ordered tables (no byes)."""
        return cls(
            tuple(HistoryRound(tuple(tuple(t) for t in tables)) for tables in rounds),
        )

    def meetings(self) -> dict[frozenset[int], int]:
        """How many times each pair of entries has sat at one table."""
        met: dict[frozenset[int], int] = {}
        for rnd in self.rounds:
            for table in rnd.tables:
                for i, a in enumerate(table):
                    for b in table[i + 1 :]:
                        key = frozenset((a, b))
                        met[key] = met.get(key, 0) + 1
        return met

    def opponents(self) -> dict[int, dict[int, int]]:
        """For each entry, its earlier opponents and how many times it met each."""
        opp: dict[int, dict[int, int]] = {}
        for rnd in self.rounds:
            for table in rnd.tables:
                for a in table:
                    mine = opp.setdefault(a, {})
                    for b in table:
                        if b != a:
                            mine[b] = mine.get(b, 0) + 1
        return opp

    def first_seats(self) -> dict[int, int]:
        """How many times each entry sat in seat 0 (the first attacker)."""
        counts: dict[int, int] = {}
        for rnd in self.rounds:
            for table in rnd.tables:
                if len(table) > 1:
                    counts[table[0]] = counts.get(table[0], 0) + 1
        return counts

    def byes(self) -> dict[int, int]:
        """How many byes each entry has had."""
        counts: dict[int, int] = {}
        for rnd in self.rounds:
            for e in rnd.byes:
                counts[e] = counts.get(e, 0) + 1
        return counts


class CompromiseKind(enum.StrEnum):
    """What a pairing had to give up at a table."""

    REPEAT = "repeat"
    SAME_CLUB = "same_club"
    SAME_TEAM = "same_team"
    SEAT_IMBALANCE = "seat_imbalance"
    BYE = "bye"


@dataclass(frozen=True, slots=True)
class Compromise:
    """One thing the pairing could not avoid, with the entries concerned.

    For ``REPEAT`` ``times`` is how often the pair met before; for ``SEAT_IMBALANCE`` it is how
    often the seat-0 entry already attacked first; for ``BYE`` how many byes it had before.

    >>> Compromise(CompromiseKind.REPEAT, (3, 9), times=1).describe()
    'entries 3 and 9 meet again (met 1 time before)'
    """

    kind: CompromiseKind
    entries: tuple[int, ...]
    times: int = 0
    value: str | None = None

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """A sentence for the referee's round report, naming the entries by ``names`` if given.

        >>> Compromise(CompromiseKind.SAME_CLUB, (3, 9), value="Spartak").describe(
        ...     {3: "Ann", 9: "Bob"})
        "Ann and Bob share the club 'Spartak'"
        """

        def who(entry: int) -> str:
            return names[entry] if names and entry in names else f"entry {entry}"

        def pair() -> str:
            a, b = self.entries
            return f"{who(a)} and {who(b)}" if names else f"entries {a} and {b}"

        if self.kind is CompromiseKind.REPEAT:
            plural = "" if self.times == 1 else "s"
            return f"{pair()} meet again (met {self.times} time{plural} before)"
        if self.kind in (CompromiseKind.SAME_CLUB, CompromiseKind.SAME_TEAM):
            what = "club" if self.kind is CompromiseKind.SAME_CLUB else "team"
            return f"{pair()} share the {what} {self.value!r}"
        if self.kind is CompromiseKind.SEAT_IMBALANCE:
            return (
                f"{who(self.entries[0])} attacks first again "
                f"(already did {self.times} time{'' if self.times == 1 else 's'})"
            )
        return f"{who(self.entries[0])} gets a bye ({self.times} before)"

    def to_json(self, names: Mapping[int, str] | None = None) -> dict[str, Any]:
        """The compromise as stored in a round's explanation and a table's compromises: data,
        worded where it is shown, in the reader's language (``tournaments.wording``), with the
        entries' ``names`` as they were when it was paired (``entry <id>`` for one not named).

        >>> Compromise(CompromiseKind.REPEAT, (3, 9), times=2).to_json({3: "Ann"})["names"]
        ['Ann', 'entry 9']
        """
        return {
            "kind": self.kind.value,
            "entries": list(self.entries),
            "names": [names[e] if names and e in names else f"entry {e}" for e in self.entries],
            "times": self.times,
            "value": self.value,
        }


@dataclass(frozen=True, slots=True)
class Table:
    """A table of a round: entry ids in seat order (seat 0 attacks first).

    ``score_group`` is the points of the group the table was drawn from (its best score);
    ``floats`` lists the entries who sit below or above that score.

    >>> Table(number=1, entries=(4, 2, 9), score_group=3.0).size
    3
    """

    number: int
    entries: tuple[int, ...]
    score_group: float = 0.0
    compromises: tuple[Compromise, ...] = ()
    floats: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        """Number of seats taken."""
        return len(self.entries)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round's seating: tables (numbered from 1, best scores first) and byes.

    >>> p = Pairing(tables=(Table(1, (1, 2)),), byes=(3,))
    >>> p.seated()
    (1, 2, 3)
    """

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()
    bye_compromises: tuple[Compromise, ...] = field(default=())

    def seated(self) -> tuple[int, ...]:
        """Every entry of the round, table by table, then the byes."""
        return tuple(e for t in self.tables for e in t.entries) + self.byes

    def compromises(self) -> tuple[Compromise, ...]:
        """Every compromise of the round, tables first, then byes."""
        return tuple(c for t in self.tables for c in t.compromises) + self.bye_compromises

    def as_history_round(self) -> HistoryRound:
        """This round in the form a later round's history takes."""
        return HistoryRound(tuple(t.entries for t in self.tables), self.byes)


def balanced_table_sizes(n: int, table_size: int) -> list[int]:
    """Sizes of the tables for ``n`` entries: as few tables as possible, sizes differing by one
    at most, larger tables first. Fewer than two entries cannot make a table.

    Tables one seat short are preferred to byes, so this never leaves anyone out when ``n >= 2``
    and ``table_size >= 3``; with 2-seat tables an odd ``n`` needs a bye first.

    >>> balanced_table_sizes(10, 4)
    [4, 3, 3]
    >>> balanced_table_sizes(5, 4)
    [3, 2]
    """
    if not 2 <= table_size <= 6:
        raise PairingError(f"table size must be 2 to 6, not {table_size}")
    if n < 2:
        return []
    tables = -(-n // table_size)
    base, extra = divmod(n, tables)
    sizes = [base + 1] * extra + [base] * (tables - extra)
    if sizes[-1] < 2:
        raise PairingError(
            f"{n} entries cannot be seated at {table_size}-seat tables without a bye"
        )
    return sizes
