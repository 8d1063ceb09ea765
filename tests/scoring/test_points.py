"""Points per table result, standings, tie-breaks and corrections."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.scoring import (
    Pogony,
    ScoringConfig,
    ScoringError,
    StandingRow,
    TableResult,
    effective_results,
    result_points,
    standings,
)
from tournaments.scoring.points import _head_to_head, totals

PLAYERS = [f"p{i:02d}" for i in range(12)]


def game(rid: str, *places: str, drawn: int = 0, **kw: object) -> TableResult:
    if drawn:
        return TableResult(id=rid, places=places, drawn=places[-drawn:], **kw)  # type: ignore[arg-type]
    return TableResult(id=rid, places=places, fool=places[-1], **kw)  # type: ignore[arg-type]


# --- points of one result -------------------------------------------------------------------


def test_default_table_gives_k_minus_one_down_to_zero() -> None:
    points = result_points(game("r", "a", "b", "c", "d"), ScoringConfig())
    assert points == {"a": 3, "b": 2, "c": 1, "d": 0}


def test_configured_table_is_used_for_its_size_only() -> None:
    cfg = ScoringConfig(tables={3: (5, 2, 0)})
    assert result_points(game("r", "a", "b", "c"), cfg) == {"a": 5, "b": 2, "c": 0}
    assert result_points(game("r", "a", "b"), cfg) == {"a": 1, "b": 0}


def test_draw_splits_the_shared_places_exactly() -> None:
    cfg = ScoringConfig(tables={4: (4, 2, 1, 0)})
    points = result_points(game("r", "a", "b", "c", "d", drawn=3), cfg)
    assert points == {"a": 4, "b": Fraction(1), "c": Fraction(1), "d": Fraction(1)}
    two = result_points(game("r", "a", "b", drawn=2), ScoringConfig())
    assert two == {"a": Fraction(1, 2), "b": Fraction(1, 2)}


def test_pogony_penalty_is_taken_from_the_hung() -> None:
    cfg = ScoringConfig(fool_pogony_penalty=Decimal("0.5"))
    result = game("r", "a", "b", "c", pogony=Pogony(by="b", on=("c",), rank="6"))
    assert result_points(result, cfg) == {"a": 2, "b": 1, "c": Fraction(-1, 2)}
    assert result_points(result, ScoringConfig())["c"] == 0


def test_team_game_winners_and_losers_share_their_places() -> None:
    result = TableResult(id="r", places=("a", "b", "c", "d"), fool="d", team_lost=("b", "d"))
    assert result_points(result, ScoringConfig()) == {
        "a": Fraction(5, 2),
        "c": Fraction(5, 2),
        "b": Fraction(1, 2),
        "d": Fraction(1, 2),
    }


def test_bye_scores_the_configured_bye_points() -> None:
    cfg = ScoringConfig(bye_points=2)
    assert result_points(TableResult(id="b", places=("a",)), cfg) == {"a": 2}


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(2, 6),
    data=st.data(),
)
def test_points_of_a_table_add_up_to_its_scoring_table(size: int, data: st.DataObject) -> None:
    # given a random non-increasing table, order, draw and pogony
    values = sorted(data.draw(st.lists(st.integers(0, 20), min_size=size, max_size=size)))[::-1]
    penalty = data.draw(st.integers(0, 3))
    cfg = ScoringConfig(tables={size: values}, fool_pogony_penalty=penalty)
    places = tuple(data.draw(st.permutations(PLAYERS[:size])))
    drawn = data.draw(st.sampled_from([0, *range(2, size + 1)]))
    pogony = None
    if not drawn and data.draw(st.booleans()):
        pogony = Pogony(by=places[0], on=(places[-1],), rank="6")
    result = game("r", *places, drawn=drawn, pogony=pogony)
    # when it is scored
    points = result_points(result, cfg)
    # then nothing is created or lost but the penalty, and the drawn all score the same
    assert sum(points.values()) == sum(values) - (penalty if pogony else 0)
    if drawn:
        assert len({points[e] for e in result.drawn}) == 1


# --- configuration and result validation ----------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tie_breaks": ("points", "coin")}, "unknown tie-break 'coin'"),
        ({"tie_breaks": ("points", "buchholz", "buchholz")}, "listed twice"),
        ({"tie_breaks": "points"}, "not one string"),
        ({"tables": {3: (2, 1)}}, "needs 3 values, got 2"),
        ({"tables": {2: (1, -1)}}, "negative"),
        ({"tables": {3: (0, 1, 2)}}, "must not increase"),
        ({"tables": {2: (1.0, 0)}}, "exact number"),
        ({"fool_pogony_penalty": -1}, "must not be negative"),
        ({"bye_points": -1}, "must not be negative"),
    ],
)
def test_bad_configurations_are_refused_clearly(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        ScoringConfig(**kwargs)  # type: ignore[arg-type]


def test_points_is_ranked_first_unless_placed() -> None:
    assert ScoringConfig(tie_breaks=("buchholz",)).tie_breaks == ("points", "buchholz")
    assert ScoringConfig(tie_breaks=("buchholz", "points")).tie_breaks == ("buchholz", "points")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"places": ()}, "at least one entry"),
        ({"places": ("a", "a"), "fool": "a"}, "appears twice"),
        ({"places": ("a", "b"), "fool": "a"}, "must be the last place"),
        ({"places": ("a", "b")}, "has a fool"),
        ({"places": ("a", "b", "c"), "drawn": ("a", "b")}, "must be the last places"),
        ({"places": ("a", "b"), "drawn": ("a", "b"), "fool": "b"}, "a draw has no fool"),
        (
            {"places": ("a", "b"), "fool": "b", "pogony": Pogony(by="b", on=("a",))},
            "hung on the fool",
        ),
        ({"places": ("a", "b"), "fool": "b", "team_lost": ("a",)}, "losing team"),
        ({"places": ("a",), "fool": "a"}, "a bye"),
    ],
)
def test_inconsistent_results_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        TableResult(id="r", **kwargs)  # type: ignore[arg-type]


# --- standings ------------------------------------------------------------------------------


results_strategy = st.lists(
    st.tuples(
        st.permutations(PLAYERS[:8]).map(tuple),
        st.integers(2, 4),
        st.booleans(),
    ),
    min_size=1,
    max_size=12,
)


def _results(raw: list[tuple[tuple[str, ...], int, bool]]) -> list[TableResult]:
    out = []
    for i, (order, size, draw) in enumerate(raw):
        places = order[:size]
        out.append(game(f"r{i:03d}", *places, drawn=2 if draw else 0))
    return out


@settings(max_examples=100, deadline=None)
@given(raw=results_strategy, seed=st.text(max_size=8), shuffle=st.randoms())
def test_standings_are_deterministic_and_order_free(
    raw: list[tuple[tuple[str, ...], int, bool]], seed: str, shuffle: random.Random
) -> None:
    results = _results(raw)
    cfg = ScoringConfig()
    once = standings(results, cfg, seed=seed)
    shuffled = list(results)
    shuffle.shuffle(shuffled)
    assert standings(shuffled, cfg, seed=seed) == once
    assert [row.position for row in once] == list(range(1, len(once) + 1))


def tie_break_key(row: StandingRow, criteria: list[str]) -> tuple[Fraction, ...]:
    """The row's values of ``criteria``, bigger better."""
    values = {
        "points": row.points,
        "first_places": Fraction(row.first_places),
        "buchholz": row.buchholz,
        "fewest_fools": Fraction(-row.fools),
        # only the entries whose tie reached it have one: compared within such a tie
        "head_to_head": row.head_to_head if row.head_to_head is not None else Fraction(0),
    }
    return tuple(values[name] for name in criteria)


def assert_ordered_by(rows: list[StandingRow], criteria: list[str]) -> None:
    """``rows`` sorted by the values of ``criteria`` in that order, each below the one above
    by the first criterion that tells them apart (the draw if none does)."""

    def key(row: StandingRow) -> tuple[Fraction, ...]:
        return tie_break_key(row, criteria)

    for above, below in pairwise(rows):
        assert key(above) >= key(below)
        if key(above) == key(below):
            assert below.decided_by == "draw"
            assert below.rank == above.rank
        else:
            first_diff = next(
                n for n, a, b in zip(criteria, key(above), key(below), strict=True) if a != b
            )
            assert below.decided_by == first_diff
            assert below.rank == below.position


@settings(max_examples=100, deadline=None)
@given(
    raw=results_strategy,
    order=st.permutations(["points", "first_places", "buchholz", "fewest_fools"]),
)
def test_tie_break_order_is_respected(
    raw: list[tuple[tuple[str, ...], int, bool]], order: list[str]
) -> None:
    # given standings ordered by a random order of the group-independent tie-breaks
    rows = standings(_results(raw), ScoringConfig(tie_breaks=order), seed="s")
    # then the rows are sorted by those keys, in that order, and labelled by the deciding one
    assert_ordered_by(rows, order)


@settings(max_examples=150, deadline=None)
@given(
    raw=results_strategy,
    order=st.permutations(["points", "first_places", "buchholz", "fewest_fools"]),
    cut=st.integers(0, 4),
)
def test_head_to_head_splits_only_the_group_tied_on_the_criteria_before_it(
    raw: list[tuple[tuple[str, ...], int, bool]], order: list[str], cut: int
) -> None:
    # given head-to-head among the tie-breaks, the others before and after it
    criteria = [*order[:cut], "head_to_head", *order[cut:]]
    rows = standings(_results(raw), ScoringConfig(tie_breaks=criteria), seed="s")
    # then the rows are sorted by those keys, head-to-head within the ties before it, and
    # labelled by the deciding one
    assert_ordered_by(rows, criteria)
    # and each such tie's head-to-head is its mini-table over every table two of it met at
    ties: dict[tuple[Fraction, ...], list[StandingRow]] = {}
    for row in rows:
        ties.setdefault(tie_break_key(row, order[:cut]), []).append(row)
    for tie in (tie for tie in ties.values() if len(tie) > 1):
        halves = _head_to_head([row.entry for row in tie], _results(raw))
        assert {row.entry: row.head_to_head for row in tie} == {
            entry: Fraction(half, 2) for entry, half in halves.items()
        }


def test_head_to_head_among_the_tied_group_only() -> None:
    # given a and b on 2 points each, b having beaten a when they met; x and y on 1 each but
    # they never met
    results = [
        game("1", "b", "a"),  # b 1, a 0
        game("2", "a", "x", "z"),  # a 2, x 1
        game("3", "b", "w"),  # b 1
        game("4", "y", "v"),  # y 1
    ]
    cfg = ScoringConfig(tie_breaks=("points", "head_to_head"))
    # when the standings are computed
    rows = standings(results, cfg, seed="s")
    # then head-to-head puts b above a, and the draw separates x and y, who never met
    assert [r.entry for r in rows[:2]] == ["b", "a"]
    assert rows[1].decided_by == "head_to_head"
    assert (rows[0].head_to_head, rows[1].head_to_head) == (Fraction(1), Fraction(0))
    assert {r.entry for r in rows[2:4]} == {"x", "y"}
    assert rows[3].decided_by == "draw"
    assert rows[3].head_to_head == rows[2].head_to_head == 0


def test_first_places_then_fewest_fools() -> None:
    # a: 1st, 2nd-of-3 ... build two entries equal on points, different on first places
    cfg = ScoringConfig(tie_breaks=("points", "first_places", "fewest_fools"))
    results = [
        game("1", "a", "q", "z"),  # a 2
        game("2", "z", "q", "a"),  # a 0, fool
        game("3", "b", "z"),  # b 1
        game("4", "q", "b", "z"),  # b 1
    ]
    rows = {r.entry: r for r in standings(results, cfg, seed="s")}
    assert rows["a"].points == rows["b"].points == 2
    assert rows["a"].first_places == 1 and rows["b"].first_places == 1
    assert rows["a"].fools == 1 and rows["b"].fools == 0
    assert rows["b"].position < rows["a"].position
    assert rows["a"].decided_by == "fewest_fools"


def test_buchholz_sums_opponents_points() -> None:
    results = [game("1", "a", "b"), game("2", "b", "c"), game("3", "c", "d")]
    rows = {r.entry: r for r in standings(results, ScoringConfig(), seed="s")}
    assert rows["a"].buchholz == rows["b"].points == 1
    assert rows["b"].buchholz == rows["a"].points + rows["c"].points == 2


def test_random_draw_depends_on_the_seed_only() -> None:
    # every entry has one bye at 0 points: they tie on everything
    results = [TableResult(id=str(i), places=(p,)) for i, p in enumerate(PLAYERS)]
    orders = {
        seed: [r.entry for r in standings(results, ScoringConfig(), seed=seed)]
        for seed in ("a", "b", "c")
    }
    assert len({tuple(o) for o in orders.values()}) > 1
    assert [r.entry for r in standings(results, ScoringConfig(), seed="a")] == orders["a"]
    assert all(r.rank == 1 for r in standings(results, ScoringConfig(), seed="a"))


def test_entries_without_results_stand_on_zero() -> None:
    rows = standings([game("1", "a", "b")], ScoringConfig(), seed="s", entries=["late"])
    late = next(r for r in rows if r.entry == "late")
    assert (late.points, late.played) == (Fraction(0), 0)


def test_bye_is_no_opponent_and_no_first_place() -> None:
    cfg = ScoringConfig(bye_points=1)
    rows = {r.entry: r for r in standings([TableResult(id="b", places=("a",))], cfg, seed="s")}
    a = rows["a"]
    assert (a.points, a.byes, a.first_places, a.buchholz) == (Fraction(1), 1, 0, Fraction(0))


# --- corrections ----------------------------------------------------------------------------


def test_a_correction_chain_keeps_the_newest_result_in_place() -> None:
    a = game("a", "x", "y")
    other = game("o", "p", "q")
    b = game("b", "y", "x", supersedes="a", reason="wrong order")
    c = game("c", "x", "y", supersedes="b", reason="video review")
    assert [r.id for r in effective_results([a, other, b, c])] == ["o", "c"]
    rows = standings(effective_results([a, b]), ScoringConfig(), seed="s")
    assert rows[0].entry == "y"


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([game("a", "x", "y"), game("a", "y", "x")], "share the id"),
        ([game("b", "x", "y", supersedes="zz", reason="r")], "unknown result"),
        ([game("a", "x", "y"), game("b", "y", "x", supersedes="a")], "must give a reason"),
        (
            [
                game("a", "x", "y"),
                game("b", "y", "x", supersedes="a", reason="r"),
                game("c", "y", "x", supersedes="a", reason="r"),
            ],
            "superseded twice",
        ),
        (
            [
                game("a", "x", "y", supersedes="b", reason="r"),
                game("b", "y", "x", supersedes="a", reason="r"),
            ],
            "cycle",
        ),
    ],
)
def test_bad_correction_chains_are_refused(results: list[TableResult], message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        effective_results(results)


@settings(max_examples=100, deadline=None)
@given(raw=results_strategy, penalty=st.sampled_from([0, 1, "1/3"]))
def test_totals_are_the_sums_of_the_results_points_and_the_standings_points(
    raw: list[tuple[tuple[str, ...], int, bool]], penalty: int | str
) -> None:
    # given results (draws among them, a pogony on every third fool) and a fractional scoring
    results = [
        replace(r, pogony=Pogony(by=r.places[0], on=(r.fool,)))
        if i % 3 == 0 and r.fool is not None
        else r
        for i, r in enumerate(_results(raw))
    ]
    cfg = ScoringConfig(
        tables={3: ("2.5", "1", "0")}, bye_points="1/2", fool_pogony_penalty=penalty
    )
    # when they are totalled
    total = totals(results, cfg)
    # then each entry's is the sum of its results' points, and its standings points
    added: dict[str, Fraction] = {}
    for result in results:
        for entry, value in result_points(result, cfg).items():
            added[entry] = added.get(entry, Fraction(0)) + value
    assert total == added
    assert total == {row.entry: row.points for row in standings(results, cfg, seed="s")}
