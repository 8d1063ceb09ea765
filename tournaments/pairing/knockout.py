"""Knockout brackets of tables: the top ``advance`` of each table go on, until one final table.

The bracket is a tree fixed before the first game: every table of a later round is fed by
``g = table_size // advance`` tables (or byes) of the round before, places 1..advance of each.
Seeds are spread by the generalised tennis order (seed 1 and seed 2 sit in different branches
of the final, and so on down), entries are dealt to first-round tables by snake order, and when
the field does not fill the first round the top seeds skip it (byes).

Only configurations with ``advance <= table_size // 2`` make such a tree: with more advancing,
one table's qualifiers cannot fill a next table together with whole groups from others (see
`validate_knockout`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .errors import ConfigError, PairingError

__all__ = [
    "Bracket",
    "BracketTable",
    "Feed",
    "TableRef",
    "bracket_order",
    "build_bracket",
    "next_round_seating",
    "snake_deal",
    "validate_knockout",
]


@dataclass(frozen=True, slots=True, order=True)
class TableRef:
    """A table of the bracket: round (1 = first) and number within the round (from 1).

    >>> TableRef(2, 1)
    TableRef(round=2, number=1)
    """

    round: int
    number: int


@dataclass(frozen=True, slots=True)
class Feed:
    """Where a seat of a later table comes from: finishing ``place`` of ``table``, or -- for a
    bye -- straight from ``entry``.

    >>> Feed(table=TableRef(1, 3), place=2).is_bye
    False
    """

    table: TableRef | None = None
    place: int = 0
    entry: int | None = None

    @property
    def is_bye(self) -> bool:
        """True when the seat is taken by an entry that skipped the round before."""
        return self.entry is not None


@dataclass(frozen=True, slots=True)
class BracketTable:
    """One table of the bracket.

    First-round tables list their ``entries`` in seat order; later tables list ``feeds_from``
    in seat order instead. ``advance`` is how many go on (0 at the final table).
    """

    ref: TableRef
    seats: int
    advance: int
    entries: tuple[int, ...] = ()
    feeds_from: tuple[Feed, ...] = ()

    @property
    def is_final(self) -> bool:
        """The one table of the last round."""
        return self.advance == 0


@dataclass(frozen=True, slots=True)
class Bracket:
    """The whole bracket, round by round; the last round is the one final table.

    >>> b = build_bracket(list(range(1, 17)), table_size=4, advance=2)
    >>> [len(r) for r in b.rounds], b.final.ref
    ([4, 2, 1], TableRef(round=3, number=1))
    """

    table_size: int
    advance: int
    rounds: tuple[tuple[BracketTable, ...], ...]
    byes: tuple[int, ...] = ()

    @property
    def final(self) -> BracketTable:
        """The final table."""
        return self.rounds[-1][0]

    def table(self, ref: TableRef) -> BracketTable:
        """The table with this reference."""
        try:
            return self.rounds[ref.round - 1][ref.number - 1]
        except IndexError:
            raise PairingError(f"the bracket has no table {ref.round}.{ref.number}") from None


def validate_knockout(table_size: int, advance: int) -> int:
    """Check a knockout configuration; return how many tables feed each later table.

    >>> validate_knockout(4, 2)
    2
    """
    if not 2 <= table_size <= 6:
        raise ConfigError(
            f"table size must be 2 to 6, not {table_size}",
            field="table_size",
            reason="table_size",
            params={"size": table_size},
        )
    if advance < 1:
        raise ConfigError(
            f"at least one player per table must advance, not {advance}",
            field="advance_per_table",
            reason="knockout_advance_none",
            params={"advance": advance},
        )
    if advance >= table_size:
        raise ConfigError(
            f"advance ({advance}) must be below the table size ({table_size}): "
            "otherwise nobody is knocked out",
            field="advance_per_table",
            reason="knockout_advance_all",
            params={"advance": advance, "size": table_size},
        )
    if advance * 2 > table_size:
        raise ConfigError(
            f"a knockout bracket needs at most half of a table to advance "
            f"(table size {table_size}, advance {advance}): the qualifiers of two tables must "
            f"fit one next table; use a swiss stage with a cut instead",
            field="advance_per_table",
            reason="knockout_advance_half",
            params={"advance": advance, "size": table_size},
        )
    return table_size // advance


def bracket_order(levels: int, fan_in: int) -> list[int]:
    """Seed ranks of the first-round slots in bracket order, for a tree of ``levels`` rounds
    below the final with ``fan_in`` feeders per table. Rank 1 and rank 2 sit under different
    branches of the final; rank 1 meets rank ``k`` as late as possible.

    >>> bracket_order(3, 2)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    for _ in range(levels):
        width = len(order)
        order = [
            c * width + s if c % 2 == 0 else (c + 1) * width + 1 - s
            for s in order
            for c in range(fan_in)
        ]
    return order


def snake_deal(seeded: Sequence[int], capacities: Sequence[int]) -> list[list[int]]:
    """Deal entries (best first) to slots by snake order, skipping slots already full.

    >>> snake_deal([1, 2, 3, 4, 5, 6], [3, 3])
    [[1, 4, 5], [2, 3, 6]]
    """
    if sum(capacities) != len(seeded):
        raise PairingError(f"{len(seeded)} entries do not fill {sum(capacities)} seats")
    out: list[list[int]] = [[] for _ in capacities]
    order = list(range(len(capacities)))
    i = 0
    lap = 0
    while i < len(seeded):
        for slot in order if lap % 2 == 0 else reversed(order):
            if i < len(seeded) and len(out[slot]) < capacities[slot]:
                out[slot].append(seeded[i])
                i += 1
        lap += 1
    return out


def build_bracket(seeded: Sequence[int], *, table_size: int, advance: int) -> Bracket:
    """Build the whole bracket for entries given best seed first.

    The first round has as many tables as the tree allows; when the field does not fill them,
    the top seeds get byes (straight into round 2), as few as possible, and the other tables
    shrink (never below ``advance + 1``).

    >>> b = build_bracket(list(range(1, 11)), table_size=2, advance=1)
    >>> b.byes, [len(r) for r in b.rounds]
    ((1, 2, 3, 4, 5, 6), [2, 4, 2, 1])
    """
    fan_in = validate_knockout(table_size, advance)
    ids = list(seeded)
    if len(set(ids)) != len(ids):
        raise PairingError("an entry is seeded more than once")
    n = len(ids)
    if n < 2:
        raise PairingError("a knockout needs at least 2 entries")
    if n <= table_size:
        return Bracket(table_size, advance, ((BracketTable(TableRef(1, 1), n, 0, tuple(ids)),),))
    # Rounds below the final: the fewest whose first round can seat everyone.
    levels = 1
    while table_size * fan_in**levels < n:
        levels += 1
    slots = fan_in**levels
    assert table_size * slots >= n > advance * slots, "bracket depth chosen wrongly"
    extra = n - advance * slots
    real = min(slots, extra)  # as many real tables as possible: fewest byes
    if (
        advance > 1
        and slots - real == 1
        and real > 1
        and extra + advance * (real - 1) <= (table_size * (real - 1))
    ):
        # One bye slot would hold seeds 1 and 2 together; two keep them in separate branches.
        real -= 1
    bye_slots = slots - real
    bye_players = ids[: advance * bye_slots]
    players = ids[advance * bye_slots :]
    base, more = divmod(len(players), real)
    capacities = [base + 1] * more + [base] * (real - more)
    assert base >= advance + 1 and base + (more > 0) <= table_size, "first-round table size"
    bye_groups = snake_deal(bye_players, [advance] * bye_slots)
    table_groups = snake_deal(players, capacities)
    # Slot strength rank r: byes take ranks 1..bye_slots, then tables in snake-deal order.
    by_rank = [("bye", g) for g in bye_groups] + [("table", g) for g in table_groups]
    order = bracket_order(levels, fan_in)

    rounds: list[tuple[BracketTable, ...]] = []
    first: list[BracketTable] = []
    # Feeds into round 2, per first-round slot position: a table's places or a bye's entries.
    slot_feeds: list[tuple[Feed, ...]] = []
    for rank in order:
        kind, group = by_rank[rank - 1]
        if kind == "bye":
            slot_feeds.append(tuple(Feed(entry=e) for e in group))
            continue
        ref = TableRef(1, len(first) + 1)
        first.append(BracketTable(ref, len(group), advance, tuple(group)))
        slot_feeds.append(tuple(Feed(table=ref, place=p) for p in range(1, advance + 1)))
    rounds.append(tuple(first))
    for rnd in range(2, levels + 2):
        tables: list[BracketTable] = []
        next_feeds: list[tuple[Feed, ...]] = []
        is_final = rnd == levels + 1
        for pos in range(0, len(slot_feeds), fan_in):
            children = slot_feeds[pos : pos + fan_in]
            # Winners first, then runners-up: places interleave across the feeding tables so
            # that partners from one table do not sit side by side.
            feeds = tuple(child[p] for p in range(advance) for child in children)
            ref = TableRef(rnd, len(tables) + 1)
            tables.append(BracketTable(ref, len(feeds), 0 if is_final else advance, (), feeds))
            next_feeds.append(tuple(Feed(table=ref, place=p) for p in range(1, advance + 1)))
        rounds.append(tuple(tables))
        slot_feeds = next_feeds
    assert len(rounds[-1]) == 1, "the bracket must end in one final table"
    return Bracket(table_size, advance, tuple(rounds), tuple(bye_players))


def next_round_seating(
    bracket: Bracket, round_number: int, results: Mapping[TableRef, Sequence[int]]
) -> dict[TableRef, tuple[int, ...]]:
    """Seat round ``round_number + 1`` from the finishing orders of round ``round_number``.

    ``results`` maps every table of the finished round to its entries in finishing order
    (winner first). Returns each next-round table's entries in seat order.

    >>> b = build_bracket([1, 2, 3, 4, 5, 6, 7, 8], table_size=4, advance=2)
    >>> t1, t2 = (t.ref for t in b.rounds[0])
    >>> next_round_seating(b, 1, {t1: b.rounds[0][0].entries, t2: b.rounds[0][1].entries})
    {TableRef(round=2, number=1): (1, 2, 4, 3)}
    """
    if not 1 <= round_number < len(bracket.rounds):
        raise PairingError(f"round {round_number} has no next round in this bracket")
    for table in bracket.rounds[round_number - 1]:
        order = results.get(table.ref)
        if order is None:
            raise PairingError(f"table {table.ref.round}.{table.ref.number} has no result yet")
        expected = set(table.entries) if round_number == 1 else None
        if len(order) != table.seats or len(set(order)) != len(order):
            raise PairingError(
                f"table {table.ref.round}.{table.ref.number}: the result must rank each of its "
                f"{table.seats} entries once"
            )
        if expected is not None and set(order) != expected:
            raise PairingError(
                f"table {table.ref.round}.{table.ref.number}: the result lists entries "
                "not seated there"
            )
    seating: dict[TableRef, tuple[int, ...]] = {}
    for table in bracket.rounds[round_number]:
        seats = []
        for feed in table.feeds_from:
            if feed.entry is not None:
                seats.append(feed.entry)
            else:
                assert feed.table is not None and feed.table.round == round_number
                seats.append(results[feed.table][feed.place - 1])
        seating[table.ref] = tuple(seats)
    return seating
