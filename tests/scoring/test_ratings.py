"""OpenSkill Plackett–Luce ratings and the league table."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.scoring import (
    LeagueScale,
    RatedTable,
    Rating,
    RatingConfig,
    RatingError,
    ScoringError,
    TableResult,
    TournamentPlaces,
    league_table,
    rate,
    rated_table,
)

PLAYERS = [f"p{i}" for i in range(6)]


@settings(max_examples=60, deadline=None)
@given(order=st.permutations(PLAYERS).flatmap(lambda p: st.integers(2, 6).map(lambda k: p[:k])))
def test_winner_moves_up_and_fool_moves_down(order: list[str]) -> None:
    # given fresh players finishing in this order (the last one is the fool)
    result = TableResult(id="t", places=tuple(order), fool=order[-1])
    table = rated_table(result)
    assert table is not None
    # when rated
    new = rate({}, [table])
    start = RatingConfig().initial()
    # then the first out gains, the fool loses, and mu falls with the place
    assert new[order[0]].mu > start.mu > new[order[-1]].mu
    mus = [new[p].mu for p in order]
    assert mus == sorted(mus, reverse=True)
    assert new[order[0]].ordinal > new[order[-1]].ordinal


def test_rating_is_deterministic_and_does_not_touch_its_input() -> None:
    before = {"a": Rating(30.0, 5.0), "b": Rating(20.0, 7.0)}
    tables = [
        RatedTable(sides=(("a",), ("b",), ("c",)), ranks=(3, 1, 2)),
        RatedTable(sides=(("c",), ("a",)), ranks=(1, 2)),
    ]
    first = rate(before, tables)
    assert rate(dict(before), list(tables)) == first
    assert before == {"a": Rating(30.0, 5.0), "b": Rating(20.0, 7.0)}


def test_draw_gives_tied_ranks_and_equal_players_stay_equal() -> None:
    result = TableResult(id="t", places=("a", "b", "c"), drawn=("b", "c"))
    table = rated_table(result)
    assert table == RatedTable(sides=(("a",), ("b",), ("c",)), ranks=(1, 2, 2))
    new = rate({}, [table])
    assert new["b"] == new["c"]
    assert new["a"].mu > new["b"].mu


def test_teams_are_rated_as_teams() -> None:
    result = TableResult(id="t", places=("a", "b", "c", "d"), fool="d", team_lost=("b", "d"))
    table = rated_table(result, teams=[("a", "c"), ("b", "d")])
    new = rate({}, [table])  # type: ignore[list-item]
    assert new["a"] == new["c"] and new["b"] == new["d"]
    assert new["a"].mu > 25 > new["b"].mu
    with pytest.raises(RatingError, match="partition"):
        rated_table(result, teams=[("a", "c"), ("b",)])


def test_byes_and_bad_tables_are_not_rated() -> None:
    assert rated_table(TableResult(id="b", places=("a",))) is None
    with pytest.raises(RatingError, match="2 to 6 sides"):
        RatedTable(sides=(("a",),), ranks=(1,))
    with pytest.raises(RatingError, match="one side only"):
        RatedTable(sides=(("a",), ("a",)), ranks=(1, 2))
    with pytest.raises(RatingError, match="one rank"):
        RatedTable(sides=(("a",), ("b",)), ranks=(1,))


# --- league table ---------------------------------------------------------------------------


def test_league_points_sum_over_the_season_with_shared_places() -> None:
    scale = LeagueScale(points=(10, 6, 4, 2))
    spring = TournamentPlaces("spring", (("a", 1), ("b", 2), ("c", 2), ("d", 4)))
    summer = TournamentPlaces("summer", (("c", 1), ("a", 2), ("e", 3)))
    rows = {r.entry: r for r in league_table([spring, summer], scale, seed="2025")}
    assert rows["a"].points == 16
    assert rows["b"].points == 5 and rows["c"].points == 15
    assert rows["e"].points == 4 and rows["d"].points == 2
    assert rows["a"].placings == {1: 1, 2: 1}


def test_league_tie_breaks_in_configured_order() -> None:
    # a and b both on 12: a won once (10 + 2), b was second twice (6 + 6)
    scale = LeagueScale(points=(10, 6, 4, 2), tie_breaks=("points", "played", "first_places"))
    t1 = TournamentPlaces("t1", (("a", 1), ("b", 2), ("x", 3), ("y", 4)))
    t2 = TournamentPlaces("t2", (("z", 1), ("b", 2), ("x", 3), ("a", 4), ("y", 5)))
    rows = league_table([t1, t2], scale, seed="s")
    ab = [r for r in rows if r.entry in {"a", "b"}]
    assert [r.points for r in ab] == [12, 12]
    assert [r.entry for r in ab] == ["a", "b"]
    assert ab[1].decided_by == "first_places"
    countback = LeagueScale(points=(10, 6, 4, 2), tie_breaks=("points", "countback"))
    assert [r.entry for r in league_table([t1, t2], countback, seed="s")][:2] == ["a", "b"]


def test_league_scale_is_validated() -> None:
    with pytest.raises(ScoringError, match="must not increase"):
        LeagueScale(points=(1, 2))
    with pytest.raises(ScoringError, match="unknown league tie-break"):
        LeagueScale(tie_breaks=("points", "elo"))
    with pytest.raises(ScoringError, match="competition ranking"):
        league_table([TournamentPlaces("t", (("a", 2),))], LeagueScale(), seed="s")
    assert LeagueScale(points=(3,), beyond=Fraction(1, 2)).for_places(2) == (
        Fraction(3),
        Fraction(1, 2),
    )
