"""Seed 004's three-player double pogony: the first out hangs pogony on both others at once.

Seed 004: "В игре втроем один игрок может повесить погоны двоим оппонентам одновременно ...
Проигравшие игроки доигрывают партию до появления одного победителя. Если оставшиеся два игрока
уже имеют погоны, первый вышедший остается сержантом. Игрок, которому повесили погон, повышается
до старшины. В таком исходе первый и второй вышедшие игроки могут вешать одинаковые погоны".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engine import GameState, Pogony, Result, Rules, from_deal, view
from games.engine.errors import BadRequest
from games.engine.series import Series

from .helpers import deal, play


def fixed(hands: list[list[str]], *, pogony_rank: str | None = None, **options: Any) -> GameState:
    options.setdefault("players", len(hands))
    return from_deal(
        Rules.from_dict(options),
        {"hands": hands, "stock": [], "trump": "D", "attacker": 0},
        pogony_rank=pogony_rank,
    )


def double_then_pogony_on_the_fool() -> tuple[GameState, GameState]:
    """Seat 0 goes out with a six (double on 1 and 2); seat 1 goes out with a six on seat 2."""
    state = fixed([["6S"], ["7S", "6H"], ["8C", "9C"]])
    midway = play(state, "0 attack 6S", "1 defend 7S 6S", "2 pass")
    return midway, play(midway, "1 attack 6H", "2 take")


def test_the_first_out_hangs_both_then_the_second_out_hangs_the_fool() -> None:
    # given a three-player deal where seat 0 goes out attacking with a six
    midway, end = double_then_pogony_on_the_fool()
    # then the double is hung while the two others play on
    assert not midway.finished
    assert midway.double_pogony == Pogony(0, (1, 2), "6")
    assert (midway.attacker, midway.defender) == (1, 2)
    # it is public: in the protocol state and in every seat's view
    expected = {"by": 0, "on": [1, 2], "rank": "6"}
    assert midway.to_json()["double_pogony"] == expected
    for seat in (0, 1, 2, None):
        assert view(midway, seat)["double_pogony"] == expected
    # when the game ends, the result carries both hangings in order, same card rank
    result = end.result
    assert result is not None
    assert result.places == (0, 1, 2) and result.fool == 2
    assert result.pogony == Pogony(1, (2,), "6")  # still the game-ending one
    assert result.hangings == (Pogony(0, (1, 2), "6"), Pogony(1, (2,), "6"))
    assert result.double == Pogony(0, (1, 2), "6")
    assert result.to_json() == {
        "places": [0, 1, 2],
        "fool": 2,
        "draw": False,
        "pogony": {"by": 1, "on": [2], "rank": "6"},
        "hangings": [expected, {"by": 1, "on": [2], "rank": "6"}],
    }


def test_a_double_with_the_series_rank_and_no_pogony_at_the_end() -> None:
    # seventh game rank "7": a trump seven with a plain seven still hangs; seat 1 then goes out
    # with a nine, so the game ends without a second hanging
    state = fixed([["7S", "7D"], ["8S", "8D", "9H"], ["TC", "JC"]], pogony_rank="7")
    state = play(state, "0 attack 7S 7D", "1 defend 8S 7S", "1 defend 8D 7D", "2 pass")
    assert state.double_pogony == Pogony(0, (1, 2), "7")
    state = play(state, "1 attack 9H", "2 take")
    result = state.result
    assert result is not None and result.fool == 2 and result.pogony is None
    assert result.hangings == (Pogony(0, (1, 2), "7"),)
    assert result.to_json()["hangings"] == [{"by": 0, "on": [1, 2], "rank": "7"}]


def test_a_thrower_going_out_hangs_the_double() -> None:
    state = fixed([["6S", "KH"], ["7S", "7C", "AH"], ["6C"]])
    state = play(state, "0 attack 6S", "2 throw 6C", "1 defend 7S 6S", "1 defend 7C 6C")
    state = play(state, "0 pass")
    assert state.to_json()["out"] == [2]
    assert state.double_pogony == Pogony(2, (0, 1), "6")


def test_a_double_followed_by_a_draw() -> None:
    state = fixed([["6S"], ["7S", "9H"], ["TH"]])
    state = play(state, "0 attack 6S", "1 defend 7S 6S", "2 pass", "1 attack 9H", "2 defend TH 9H")
    result = state.result
    assert result is not None and result.draw and result.fool is None
    assert result.pogony is None and result.hangings == (Pogony(0, (1, 2), "6"),)
    # the series keeps the double: both others were hung once
    series = Series.start(Rules(players=3), "first_to", 100).record(result)
    assert series.ranks == (None, "сержант", "сержант")


@pytest.mark.parametrize(
    ("hands", "moves", "options"),
    [
        # all of the pogony rank but all trumps
        ([["6D"], ["7D", "9H"], ["8C", "9C"]], ["0 attack 6D", "1 defend 7D 6D", "2 pass"], {}),
        # fewer sixes than pogony_min_cards
        (
            [["6S"], ["7S", "9H"], ["8C", "9C"]],
            ["0 attack 6S", "1 defend 7S 6S", "2 pass"],
            {"pogony_min_cards": 2},
        ),
        # not the pogony rank
        ([["7S"], ["8S", "9H"], ["8C", "9C"]], ["0 attack 7S", "1 defend 8S 7S", "2 pass"], {}),
        # the first out is the defender, out by beating
        (
            [["6S", "KH"], ["7S"], ["8C", "9C"]],
            ["0 attack 6S", "1 defend 7S 6S", "0 pass", "2 pass"],
            {},
        ),
        # the first out went out by a transfer
        (
            [["6S", "KH"], ["6C"], ["7S", "7C", "AC"]],
            ["0 attack 6S", "1 transfer 6C", "2 defend 7S 6S", "2 defend 7C 6C", "0 pass"],
            {
                "variant": "transfer",
                "transfer_first_bout": True,
                "transfer_to_go_out": True,
            },
        ),
    ],
    ids=["all-trumps", "below-min-cards", "other-rank", "defender", "transfer"],
)
def test_no_double(hands: list[list[str]], moves: list[str], options: dict[str, Any]) -> None:
    state = play(fixed(hands, **options), *moves)
    assert len(state.to_json()["out"]) == 1 and not state.finished
    assert state.double_pogony is None
    assert state.to_json()["double_pogony"] is None


def test_all_trumps_first_out_then_the_game_ends_without_a_double() -> None:
    state = fixed([["6D"], ["7D", "6H"], ["8C", "9C"]])
    state = play(state, "0 attack 6D", "1 defend 7D 6D", "2 pass", "1 attack 6H", "2 take")
    result = state.result
    assert result is not None and result.double is None
    assert result.hangings == (Pogony(1, (2,), "6"),) == (result.pogony,)
    assert "hangings" not in result.to_json()


def test_never_a_double_with_two_or_four_players() -> None:
    # two players: the first out ends the game; its pogony is the only hanging
    state = play(deal([["6S"], ["7H", "8C"]]), "0 attack 6S", "1 take")
    result = state.result
    assert result is not None and result.hangings == (Pogony(0, (1,), "6"),)
    assert result.double is None and "hangings" not in result.to_json()
    # four players: the first out with a plain six hangs nothing; the game goes on
    hands = [["6S"], ["7S", "6H"], ["8C", "9C"], ["TC"]]
    state = play(fixed(hands), "0 attack 6S", "1 defend 7S 6S", "2 pass", "3 pass")
    assert state.to_json()["out"] == [0] and not state.finished
    assert state.double_pogony is None
    state = play(state, "1 attack 6H", "2 take", "3 pass")
    assert state.to_json()["out"] == [0, 1]
    state = play(state, "3 attack TC", "2 take")
    result = state.result
    assert result is not None and result.fool == 2 and result.double is None
    assert result.hangings == () and "hangings" not in result.to_json()


def test_json_round_trips_of_state_and_result() -> None:
    midway, end = double_then_pogony_on_the_fool()
    for state in (midway, end):
        stored = json.loads(json.dumps(state.to_dict()))
        again = GameState.from_dict(stored)
        assert again == state and again.double_pogony == state.double_pogony
    assert end.result is not None
    assert Result.from_json(json.loads(json.dumps(end.result.to_json()))) == end.result
    # a state stored before the field existed loads with no double
    old = midway.to_dict()
    del old["double_pogony"]
    assert GameState.from_dict(old).double_pogony is None
    # a result without "hangings" has just its pogony
    plain = Result.from_json({"places": [0, 1], "fool": 1, "draw": False, "pogony": None})
    assert plain.hangings == () and plain.double is None


def test_the_game_ending_pogony_is_the_last_hanging() -> None:
    with pytest.raises(BadRequest, match="last hanging"):
        Result(
            (0, 1, 2),
            2,
            False,
            Pogony(1, (2,), "6"),
            None,
            hangings=(Pogony(1, (2,), "6"), Pogony(0, (1, 2), "6")),
        )


def test_a_series_counts_the_engines_double_without_being_told() -> None:
    _midway, end = double_then_pogony_on_the_fool()
    assert end.result is not None
    series = Series.start(Rules(players=3), "first_to", 100).record(end.result, trump="D")
    # seed 004: the first of the two out stays сержант, the one hung twice is старшина
    assert series.ranks == (None, "сержант", "старшина")
    assert series.pogony_given == (2, 1, 0)
    assert series.pogony_rank == "7"  # one pogony game: the rank moves once
    assert Series.from_dict(json.loads(json.dumps(series.to_dict()))) == series
