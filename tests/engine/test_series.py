"""Series: formats, first attackers, pogony rank and ranks, long durak, JSON round-trip."""

from __future__ import annotations

import json
import random

import pytest

from games.engine import GameState, Pogony, Result, Rules, next_game_attacker
from games.engine.bots import HeuristicBot, RandomBot, play_game
from games.engine.cards import CARD_NAMES, RANKS, cards_of
from games.engine.series import (
    DEFAULT_LADDER,
    Series,
    SeriesError,
    long_deal_size,
    parse_format,
)


def win(*places: int, pogony: Pogony | None = None) -> Result:
    """A result with a fool: ``places`` first out first, the last one the fool."""
    return Result(tuple(places), places[-1], False, pogony, None)


def draw(*places: int) -> Result:
    return Result(tuple(places), None, True, None, None)


def play_out(series: Series, seed: int, max_games: int = 200) -> Series:
    """Play a series to its end with bots (heuristic on even seats, random on odd)."""
    rng = random.Random(seed)
    for _ in range(max_games):
        if series.finished:
            return series
        setup = series.next_game_setup()
        bots = {
            g: (HeuristicBot() if s % 2 == 0 else RandomBot()) for g, s in enumerate(setup.seats)
        }
        state, _actions = play_game(setup.deal(rng), bots, rng)
        assert state.result is not None
        series = series.record(state.result, trump=state.trump)
    raise AssertionError("the series did not end")


# --- formats ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "target", "players"),
    [
        ("single", 1, 2),
        ("best_of", 3, 2),
        ("best_of", 5, 3),
        ("first_to", 3, 2),
        ("first_to", 6, 4),
        ("long", 1, 2),
        ("long", 1, 3),
    ],
)
def test_every_format_ends(fmt: str, target: int, players: int) -> None:
    # given a series played out by bots
    series = play_out(Series.start(Rules(players=players), fmt, target), seed=players * 7 + target)
    # then it has a full result
    result = series.result
    assert result is not None
    assert sorted(result.places) == list(range(players))
    assert len(result.games) == len(series.games) >= 1
    if fmt == "single":
        assert len(series.games) == 1
    if fmt == "best_of":
        assert len(series.games) <= target
    if fmt == "first_to":
        assert max(result.points) >= target
    if fmt == "long":
        assert len(series.remaining) == 1
        assert result.places[0] == series.remaining[0]
        assert result.places[1:] == tuple(reversed(series.eliminated))


def test_single_game_result_and_draw() -> None:
    series = Series.start(Rules(players=3), "single").record(win(2, 0, 1))
    assert series.finished
    assert series.result is not None
    assert (series.result.places, series.result.fool, series.result.draw) == ((2, 0, 1), 1, False)
    drawn = Series.start(Rules(), "single").record(draw(1, 0))
    assert drawn.result is not None
    assert (drawn.result.fool, drawn.result.draw, drawn.points) == (None, True, (0.5, 0.5))


def test_best_of_stops_when_the_leader_cannot_be_caught() -> None:
    series = Series.start(Rules(), "best_of", 3)
    series = series.record(win(0, 1))
    assert not series.finished
    series = series.record(win(0, 1))
    assert series.finished
    assert series.result is not None
    assert series.result.places == (0, 1)
    assert series.result.points == (2.0, 0.0)
    assert series.result.wins == (2, 0)
    assert series.result.fools == (0, 2)


def test_best_of_goes_the_distance_and_last_game_breaks_a_tie() -> None:
    # best of 2, one game each: equal points, equal fools -> the last game decides
    series = Series.start(Rules(), "best_of", 2).record(win(0, 1)).record(win(1, 0))
    assert series.result is not None
    assert series.result.places == (1, 0)
    assert series.result.fool == 0


def test_fewer_fool_results_break_a_tie_before_the_last_game() -> None:
    # 3 players: seat 0 and seat 1 end on 4 points; seat 1 was never the fool
    series = Series.start(Rules(players=3), "best_of", 3)
    for result in (win(0, 1, 2), win(1, 2, 0), win(0, 1, 2)):
        series = series.record(result)
    assert series.result is not None
    assert series.points == (4.0, 4.0, 1.0)
    assert series.result.places == (1, 0, 2)
    assert series.result.fool == 2


def test_first_to_counts_points_by_place() -> None:
    series = Series.start(Rules(players=3), "first_to", 3)
    series = series.record(win(0, 1, 2))  # 2, 1, 0
    assert not series.finished
    series = series.record(win(1, 0, 2))  # 3, 3, 0
    assert series.finished
    assert series.result is not None
    assert series.result.places == (1, 0, 2)  # tied on points and fools: seat 1 won the last game


def test_a_draw_shares_the_last_places_points() -> None:
    series = Series.start(Rules(players=3), "first_to", 10).record(draw(2, 0, 1))
    assert series.points == (0.5, 0.5, 2.0)
    assert series.fools == (0, 0, 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("single", ("single", 1)), ("best_of:5", ("best_of", 5)), ("long", ("long", 1))],
)
def test_parse_format(text: str, expected: tuple[str, int]) -> None:
    assert parse_format(text) == expected


@pytest.mark.parametrize("text", ["best_of", "first_to:x", "marathon:3"])
def test_parse_format_refuses(text: str) -> None:
    with pytest.raises(SeriesError):
        parse_format(text)


def test_start_refuses_bad_input() -> None:
    with pytest.raises(SeriesError, match="unknown series format"):
        Series.start(Rules(), "marathon")
    with pytest.raises(SeriesError, match="target"):
        Series.start(Rules(), "first_to", 0)
    with pytest.raises(SeriesError, match="labels"):
        Series.start(Rules(), "single", 1, seats=["a", "b", "c"])
    with pytest.raises(SeriesError, match="ladder"):
        Series.start(Rules(), "single", ladder=[])
    with pytest.raises(ValueError):  # SeriesError is a ValueError
        Series.start(Rules(players=4, teams=((0, 2), (1, 3))), "long")


def test_record_refuses_results_that_do_not_fit() -> None:
    series = Series.start(Rules(players=3), "best_of", 3)
    with pytest.raises(SeriesError, match="places"):
        series.record(win(0, 1, 5))
    with pytest.raises(SeriesError, match="fool"):
        series.record(Result((0, 1, 2), 1, False, None, None))
    with pytest.raises(SeriesError, match="hung on the fool"):
        series.record(win(0, 1, 2, pogony=Pogony(0, (1,), "6")))
    with pytest.raises(SeriesError, match="trump"):
        series.record(win(0, 1, 2), trump="X")
    done = Series.start(Rules(), "single").record(win(0, 1))
    with pytest.raises(SeriesError, match="finished"):
        done.record(win(0, 1))
    with pytest.raises(SeriesError, match="finished"):
        done.next_game_setup()


# --- first attacker ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("how", "expected"), [("from_under_fool", 2), ("onto_fool", 0), ("winner", 3)]
)
def test_next_game_first(how: str, expected: int) -> None:
    # 4 players; seat 3 went out first, seat 1 is the fool
    rules = Rules(players=4, next_game_first=how)
    series = Series.start(rules, "best_of", 3).record(win(3, 0, 2, 1))
    setup = series.next_game_setup()
    assert setup.attacker == expected
    assert setup.attacker == next_game_attacker(rules, win(3, 0, 2, 1))
    # and the dealt game really starts there
    for seed in range(5):
        assert setup.deal(random.Random(seed)).attacker == expected


def test_first_game_and_after_a_draw_the_lowest_trump_attacks() -> None:
    series = Series.start(Rules(), "best_of", 3)
    assert series.next_game_setup().attacker is None
    assert series.record(draw(0, 1)).next_game_setup().attacker is None
    assert "attacker" not in series.next_game_setup().hooks()


# --- pogony and ranks -------------------------------------------------------------------------


def test_pogony_rank_moves_up_after_each_pogony() -> None:
    series = Series.start(Rules(), "first_to", 100)
    assert series.pogony_rank == "6"
    seen = []
    for i in range(3):
        rank = series.pogony_rank
        seen.append(rank)
        series = series.record(win(0, 1))  # no pogony: the rank stays
        assert series.pogony_rank == rank
        series = series.record(win(i % 2, 1 - i % 2, pogony=Pogony(i % 2, (1 - i % 2,), rank)))
    assert seen == ["6", "7", "8"]
    assert series.pogony_rank == "9"
    setup = series.next_game_setup()
    assert setup.hooks()["pogony_rank"] == "9"
    assert RANKS[setup.deal(random.Random(1)).setup.pogony_rank] == "9"


def test_pogony_rank_starts_at_the_lowest_rank_of_the_deck_and_stops_after_the_ace() -> None:
    assert Series.start(Rules(deck_size=24), "single").pogony_rank == "9"
    assert Series.start(Rules(deck_size=52), "single").pogony_rank == "2"
    series = Series.start(Rules(), "first_to", 100)
    for _ in range(9):  # 6 7 8 9 T J Q K A
        series = series.record(win(0, 1, pogony=Pogony(0, (1,), series.pogony_rank)))
    assert series.pogony_exhausted
    assert series.pogony_rank == "A"
    assert series.pogony_received == (0, 9)
    series = series.record(win(0, 1, pogony=Pogony(0, (1,), "A")))
    assert series.pogony_received == (0, 9)  # past the ace a pogony is not counted


def test_rank_ladder() -> None:
    series = Series.start(Rules(), "first_to", 100)
    ranks = []
    for _ in range(4):
        series = series.record(win(0, 1, pogony=Pogony(0, (1,), series.pogony_rank)))
        ranks.append(series.ranks[1])
    assert ranks == ["сержант", "старшина", "прапорщик", "лейтенант"]
    assert series.ranks[0] is None
    assert series.pogony_given == (4, 0)


def test_custom_ladder_tops_out() -> None:
    series = Series.start(Rules(), "first_to", 100, ladder=["сержант", "старшина"])
    for _ in range(3):
        series = series.record(win(0, 1, pogony=Pogony(0, (1,), series.pogony_rank)))
    assert series.ranks == (None, "старшина")
    assert series.pogony_received == (0, 3)
    assert DEFAULT_LADDER[:3] == ("сержант", "старшина", "прапорщик")


def test_three_players_the_double_of_seed_004() -> None:
    # seat 0 goes out first hanging pogony on both others; they play on; seat 1 goes out
    # hanging pogony on seat 2: seat 1 stays сержант, seat 2 is promoted to старшина
    series = Series.start(Rules(players=3), "first_to", 100)
    hangings = [Pogony(0, (1, 2), "6"), Pogony(1, (2,), "6")]
    series = series.record(win(0, 1, 2, pogony=Pogony(1, (2,), "6")), hangings=hangings)
    assert series.ranks == (None, "сержант", "старшина")
    assert series.pogony_given == (2, 1, 0)
    assert series.pogony_rank == "7"  # both hangings of that game used the same rank
    assert series.result is None


def test_three_players_both_remaining_already_wear_pogony() -> None:
    series = Series.start(Rules(players=3), "first_to", 100)
    series = series.record(win(0, 2, 1, pogony=Pogony(2, (1,), "6")))
    series = series.record(win(0, 1, 2, pogony=Pogony(1, (2,), "7")))
    assert series.ranks == (None, "сержант", "сержант")
    # both remaining players wear pogony: the first of them out stays сержант,
    # the one hung is promoted to старшина
    series = series.record(win(0, 1, 2, pogony=Pogony(1, (2,), "8")))
    assert series.ranks == (None, "сержант", "старшина")


def test_the_double_is_only_for_three_players() -> None:
    series = Series.start(Rules(players=4), "first_to", 100)
    with pytest.raises(SeriesError, match="three-player"):
        series.record(
            win(0, 1, 2, 3),
            hangings=[Pogony(0, (1, 3), "6"), Pogony(1, (3,), "6")],
        )


def test_team_pogony_promote_the_whole_team() -> None:
    rules = Rules(players=4, teams=((0, 2), (1, 3)))
    series = Series.start(rules, "first_to", 100)
    result = Result((0, 2, 3, 1), 1, False, Pogony(2, (1, 3), "6"), (1, 3), True)
    series = series.record(result)
    assert series.ranks == (None, "сержант", None, "сержант")


# --- long durak -------------------------------------------------------------------------------


def test_long_deal_sizes() -> None:
    assert [long_deal_size(r) for r in "789TJQKA"] == [6, 6, 6, 5, 4, 3, 2, 1]
    assert long_deal_size("T", hand_size=4) == 4


def test_long_lays_out_trumps_from_seven_deals_fewer_caps_and_eliminates() -> None:
    series = Series.start(Rules(), "long")
    expected_cards = ["7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"]
    expected_sizes = [6, 6, 6, 5, 4, 3, 2, 1]
    for loss in range(8):
        series = series.record(win(0, 1), trump="D")
        assert series.laid_out[1] == tuple(expected_cards[: loss + 1])
        setup = series.next_game_setup()
        size = expected_sizes[loss]
        assert setup.removed == tuple(expected_cards[: loss + 1])
        if size == 6:
            assert setup.hand_sizes is None
            assert setup.throw_caps is None
        else:
            assert setup.hand_sizes == (6, size)
            assert setup.throw_caps == (None, size)
        # the dealt game honours the hooks
        state = setup.deal(random.Random(loss))
        assert len(state.hand(1)) == size
        dealt = set(state.hand(0) + state.hand(1)) | set(_stock(state))
        assert not dealt & set(setup.removed)
        assert state.setup.throw_caps[1] == (size if size < 6 else state.setup.throw_caps[0])
    assert not series.finished
    # a fool who loses after the ace is eliminated: one player is left, the series ends
    series = series.record(win(0, 1), trump="S")
    assert series.finished
    assert series.eliminated == (1,)
    assert series.result is not None
    assert series.result.places == (0, 1)
    assert series.result.fool == 1


def _stock(state: GameState) -> list[str]:
    return [CARD_NAMES[c] for c in state.stock]


def test_throw_ins_to_a_capped_seat_stop_at_the_cap() -> None:
    # seat 1 has laid out up to the king: dealt 2 cards, at most 2 attack cards per bout
    series = Series.start(Rules(), "long")
    for _ in range(7):
        series = series.record(win(0, 1), trump="H")
    setup = series.next_game_setup()
    assert setup.hand_sizes == (6, 2) and setup.throw_caps == (None, 2)
    for seed in range(30):
        state = setup.deal(random.Random(seed))
        rng = random.Random(seed)
        state, _ = play_game(state, {0: HeuristicBot(), 1: RandomBot()}, rng)
        assert state.finished


def test_long_lay_out_avoids_a_card_already_laid_out() -> None:
    series = Series.start(Rules(), "long")
    series = series.record(win(1, 0), trump="D").record(win(0, 1), trump="D")
    assert series.laid_out == (("7D",), ("7H",))
    series = series.record(win(0, 1))  # no trump given: first free suit from S
    assert series.laid_out[1] == ("7H", "8S")
    assert series.losses == (1, 2)


def test_long_reseats_the_players_still_in() -> None:
    rules = Rules(players=3)
    series = Series.start(rules, "long")
    for _ in range(9):  # seat 1 loses nine times: eliminated after the ace
        series = series.record(win(0, 2, 1), trump="C")
    assert series.eliminated == (1,)
    assert not series.finished
    setup = series.next_game_setup()
    assert setup.seats == (0, 2)
    assert setup.rules.players == 2
    assert setup.removed == ()  # the eliminated seat's cards went back into the deck
    assert setup.attacker == 1  # from under the fool: seat 2 (game seat 1)
    # results now come in game seats: game seat 0 is series seat 0, game seat 1 is seat 2
    series = series.record(win(1, 0), trump="C")
    assert series.laid_out[0] == ("7C",)
    assert series.next_game_setup().attacker == 1  # from under seat 0: seat 2 = game seat 1
    for _ in range(8):
        series = series.record(win(1, 0), trump="C")
    assert series.finished
    assert series.result is not None
    assert series.result.places == (2, 0, 1)
    assert series.result.fool == 1


@pytest.mark.parametrize(("how", "expected"), [("onto_fool", 0), ("winner", 2)])
def test_long_first_attacker_after_an_elimination(how: str, expected: int) -> None:
    rules = Rules(players=4, next_game_first=how)
    series = Series.start(rules, "long")
    for _ in range(9):
        series = series.record(win(2, 0, 3, 1))
    setup = series.next_game_setup()
    assert setup.seats == (0, 2, 3)
    assert setup.seats[setup.attacker or 0] == expected


# --- JSON -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["single", "best_of", "first_to", "long"])
def test_json_round_trip(fmt: str) -> None:
    series = Series.start(Rules(players=3), fmt, 3, seats=["ann", "bob", "cid"])
    series = play_out(series, seed=11)
    stored = json.loads(json.dumps(series.to_dict()))
    again = Series.from_dict(stored)
    assert again == series
    assert again.result == series.result
    assert again.ranks == series.ranks and again.laid_out == series.laid_out


def test_json_round_trip_midway_with_the_double() -> None:
    series = Series.start(Rules(players=3), "long")
    series = series.record(win(2, 0, 1), trump="S")
    series = series.record(
        win(0, 1, 2, pogony=Pogony(1, (2,), "6")),
        trump="H",
        hangings=[Pogony(0, (1, 2), "6"), Pogony(1, (2,), "6")],
    )
    again = Series.from_dict(json.loads(json.dumps(series.to_dict())))
    assert again == series
    assert again.next_game_setup() == series.next_game_setup()


def test_from_dict_refuses_a_tampered_series() -> None:
    data = Series.start(Rules(), "best_of", 3).record(win(0, 1)).to_dict()
    data["games"][0]["result"]["fool"] = 0
    with pytest.raises(SeriesError):
        Series.from_dict(data)
    with pytest.raises(SeriesError):
        Series.from_dict({"version": 1, "rules": {"players": 9}})
    with pytest.raises(SeriesError):
        Series.from_dict([])  # type: ignore[arg-type]


def test_laid_out_cards_reach_the_engine_as_removed() -> None:
    # 7S laid out by the fool of game 1 is out of the next deal
    series = Series.start(Rules(), "long").record(win(0, 1), trump="S")
    state = series.next_game_setup().deal(random.Random(3))
    assert state.setup.removed and cards_of(state.setup.removed) == [RANKS.index("7") * 4]
