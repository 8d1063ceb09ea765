"""Ranks (звания) from pogony: the ladder, credit for the hanger, seed 004's three-player rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.ranks import pogony_card_rank
from tournaments.scoring import (
    DEFAULT_LADDER,
    Pogony,
    RankError,
    RankGame,
    TableResult,
    compute_ranks,
    effective_results,
    rank_for,
)

PLAYERS = ["ann", "bob", "cid", "dan"]


def hang(gid: str, by: str, *on: str, rank: str = "6") -> RankGame:
    return RankGame(id=gid, hangings=(Pogony(by=by, on=on, rank=rank),))


def test_default_ladder_starts_with_seed_004_ranks() -> None:
    assert DEFAULT_LADDER[:2] == ("сержант", "старшина")
    assert DEFAULT_LADDER[2:4] == ("прапорщик", "лейтенант")  # rules.md's "прапорщик, лейтенант"


def test_first_pogony_gives_sergeant_and_each_further_one_promotes() -> None:
    games = [hang(f"g{i}", "ann", "bob") for i in range(4)]
    table = compute_ranks(games)
    assert [c.after for c in table.history] == list(DEFAULT_LADDER[:4])
    assert [c.before for c in table.history] == [None, *DEFAULT_LADDER[:3]]
    bob, ann = table.players["bob"], table.players["ann"]
    assert (bob.rank, bob.received, bob.given) == ("лейтенант", 4, 0)
    assert (ann.rank, ann.received, ann.given) == (None, 0, 4)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(PLAYERS), st.sampled_from(PLAYERS)).filter(
            lambda p: p[0] != p[1]
        ),
        max_size=40,
    )
)
def test_rank_is_the_ladder_at_the_pogony_count(pairs: list[tuple[str, str]]) -> None:
    games = [hang(f"g{i}", by, on) for i, (by, on) in enumerate(pairs)]
    table = compute_ranks(games)
    for player, row in table.players.items():
        assert row.received == sum(1 for _, on in pairs if on == player)
        assert row.given == sum(1 for by, _ in pairs if by == player)
        assert row.rank == rank_for(row.received)
    # idempotent: a pure function of the games
    assert compute_ranks(games) == table
    assert sum(r.received for r in table.players.values()) == len(pairs) == len(table.history)


def test_top_of_the_ladder_is_kept() -> None:
    ladder = ("сержант", "старшина")
    table = compute_ranks([hang(f"g{i}", "ann", "bob") for i in range(5)], ladder)
    assert (table.players["bob"].rank, table.players["bob"].received) == ("старшина", 5)


def test_team_pogony_promote_the_whole_team_and_credit_the_hanger_per_player() -> None:
    table = compute_ranks([hang("g", "ann", "bob", "dan")])
    assert table.players["bob"].rank == table.players["dan"].rank == "сержант"
    assert table.players["ann"].given == 2


def test_seed_004_three_players_both_hung_then_the_first_out_hangs_the_last() -> None:
    # given: ann goes out with sixes on both bob and cid; they play on; bob goes out first and
    # hangs cid as well, with the same sixes (seed 004: "могут вешать одинаковые погоны")
    game = RankGame(
        id="g1",
        players=("ann", "bob", "cid"),
        hangings=(
            Pogony(by="ann", on=("bob", "cid"), rank="6"),
            Pogony(by="bob", on=("cid",), rank="6"),
        ),
    )
    # when the game is folded
    players = compute_ranks([game]).players
    # then bob "stays сержант", cid "is promoted to старшина", and the next pogony are sevens
    # (the card rank moves once per game with pogony, not per hanging)
    assert players["bob"].rank == "сержант"
    assert players["cid"].rank == "старшина"
    assert (players["ann"].given, players["bob"].given) == (2, 1)
    assert pogony_card_rank(1) == "7"


THREE = ("ann", "bob", "cid")
FOUR = ("ann", "bob", "cid", "dan")


@pytest.mark.parametrize(
    ("players", "hangings"),
    [
        # the double hanging in a four-player game
        (FOUR, (Pogony(by="ann", on=("bob", "cid")), Pogony(by="bob", on=("cid",)))),
        # the second hanging is not by one of the two hung first
        (THREE, (Pogony(by="ann", on=("bob", "cid")), Pogony(by="ann", on=("cid",)))),
        # the first hanging is on one player only
        (THREE, (Pogony(by="ann", on=("bob",)), Pogony(by="bob", on=("cid",)))),
    ],
)
def test_other_multiple_hangings_are_refused(
    players: tuple[str, ...], hangings: tuple[Pogony, ...]
) -> None:
    with pytest.raises(RankError, match="seed 004"):
        RankGame(id="g", players=players, hangings=hangings)


def test_pogony_on_somebody_not_seated_is_refused() -> None:
    with pytest.raises(RankError, match="not seated"):
        RankGame(id="g", players=("ann", "bob"), hangings=(Pogony(by="ann", on=("zed",)),))


@pytest.mark.parametrize("ladder", [(), ("сержант", "сержант"), ("сержант", " "), "сержант"])
def test_bad_ladders_are_refused(ladder: tuple[str, ...]) -> None:
    with pytest.raises(RankError):
        compute_ranks([], ladder)


def test_pogony_card_rank_climbs_per_game_from_the_lowest_of_the_deck() -> None:
    assert [pogony_card_rank(n) for n in range(10)] == [
        "6", "7", "8", "9", "T", "J", "Q", "K", "A", None,
    ]  # fmt: skip
    assert pogony_card_rank(0, deck_size=52) == "2"
    with pytest.raises(KeyError):
        pogony_card_rank(0, deck_size=40)


def test_ranks_from_table_results_with_corrections() -> None:
    first = TableResult(
        id="r1", places=("ann", "bob"), fool="bob", pogony=Pogony(by="ann", on=("bob",))
    )
    fixed = TableResult(id="r2", places=("ann", "bob"), fool="bob", supersedes="r1", reason="7s")
    games = [RankGame.from_result(r, series="t1") for r in effective_results([first, fixed])]
    table = compute_ranks(games)
    assert table.players["bob"].rank is None
    assert set(table.players) == {"ann", "bob"}
