"""``scoring.points.Standings``: its rows and its updates (a result put in, a correction, a
result taken out) are :func:`scoring.points.standings`' rows, row for row, over random fields."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from tournaments.scoring import ScoringConfig, TableResult
from tournaments.scoring.points import TIE_BREAKS, Standings, standings
from tournaments.scoring.results import Pogony


def random_result(rng: random.Random, rid: int, entries: list[str]) -> TableResult:
    """A random result of 1 to 4 of ``entries``: a bye, a plain game with or without pogony, a
    draw, a team game."""
    size = rng.choice((1, 2, 3, 4, 4, 4))
    places = tuple(rng.sample(entries, size))
    if size == 1:
        return TableResult(id=f"r{rid:05d}", places=places)
    kind = rng.random()
    if kind < 0.15 and size >= 3:
        drawn = places[-rng.randint(2, size - 1) :]
        return TableResult(id=f"r{rid:05d}", places=places, drawn=drawn)
    if kind < 0.25 and size == 4:
        return TableResult(id=f"r{rid:05d}", places=places, fool=places[-1], team_lost=places[2:])
    pogony = None
    if rng.random() < 0.3:
        pogony = Pogony(by=places[0], on=(places[-1],), rank="6")
    return TableResult(id=f"r{rid:05d}", places=places, fool=places[-1], pogony=pogony)


def random_config(rng: random.Random) -> ScoringConfig:
    order = list(TIE_BREAKS)
    rng.shuffle(order)
    tables = {4: (3, 2, 1, 0), 3: (2, 1, 0)} if rng.random() < 0.5 else {4: ("5/2", 2, 1, 0)}
    return ScoringConfig(
        tables=tables,
        fool_pogony_penalty=rng.choice((0, 1, Fraction(1, 2))),
        bye_points=rng.choice((0, 1, 2)),
        tie_breaks=order[: rng.randint(1, len(order))],
    )


@pytest.mark.parametrize("seed", range(40))
def test_updated_standings_are_the_standings_computed_whole(seed: int) -> None:
    # given a random field, scoring and tie-break order, and its standings over some results
    rng = random.Random(seed)
    entries = [f"e{i}" for i in range(rng.randint(4, 40))]
    config = random_config(rng)
    results = [random_result(rng, i, entries) for i in range(rng.randint(0, 30))]
    state = Standings.of(results, config, seed=f"s{seed}", entries=entries)
    assert state.rows == standings(results, config, seed=f"s{seed}", entries=entries)
    updates = 0
    for step in range(60):
        # when results come one by one, are corrected (replaced) or taken out (voided)
        kind = rng.random()
        added: list[TableResult] = []
        removed: list[TableResult] = []
        if kind < 0.6 or not results:
            added = [random_result(rng, 1000 + step, entries)]
        elif kind < 0.85:
            old = rng.choice(results)
            new = random_result(rng, 1000 + step, entries)
            # the same table's entries in another order, or another table altogether
            places = tuple(rng.sample(old.places, len(old.places)))
            fool = places[-1] if len(places) > 1 else None
            removed, added = [old], [TableResult(id=new.id, places=places, fool=fool)]
            if rng.random() < 0.5:
                added = [new]
        else:
            removed = [rng.choice(results)]
        results = [r for r in results if r not in removed] + added
        updated = state.updated(added=added, removed=removed)
        whole = standings(results, config, seed=f"s{seed}", entries=entries)
        if updated is None:  # a new table size changed the common denominator
            updated = Standings.of(results, config, seed=f"s{seed}", entries=entries)
        else:
            updates += 1
        # then the updated rows are those computed whole, row for row
        assert updated.rows == whole, (step, kind)
        # and a row that did not change is the row before (nothing rebuilt for it)
        before = {row.entry: row for row in state.rows}
        for row in updated.rows:
            if before.get(row.entry) == row:
                assert before[row.entry] is row
        state = updated
    assert updates > 30


def test_an_update_it_cannot_make_says_so() -> None:
    # given standings over one 4-seat result of four of five entries (3-seat tables score
    # sevenths)
    config = ScoringConfig(tables={3: ("3/7", "1/7", 0)})
    entries = ["a", "b", "c", "d", "e"]
    first = TableResult(id="1", places=("a", "b", "c", "d"), fool="d")
    state = Standings.of([first], config, seed="s", entries=entries)
    # then a result with an entry not given, one taken out that is not there, one put in twice
    # and a new table size (a new common denominator) are not updates
    assert (
        state.updated(added=[TableResult(id="2", places=("a", "x"), fool="x")], removed=[]) is None
    )
    assert (
        state.updated(added=[], removed=[TableResult(id="9", places=("a", "b"), fool="b")]) is None
    )
    assert state.updated(added=[first], removed=[]) is None
    assert (
        state.updated(added=[TableResult(id="3", places=("a", "b", "e"), fool="e")], removed=[])
        is None
    )
    # and one of a size already there is
    same = TableResult(id="4", places=("e", "d", "c", "b"), fool="b")
    updated = state.updated(added=[same], removed=[])
    assert updated is not None
    assert updated.rows == standings([first, same], config, seed="s", entries=entries)
