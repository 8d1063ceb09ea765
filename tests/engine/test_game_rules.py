"""One test (or a few) per rule of rules.md."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engine import (
    Action,
    BadRequest,
    CardNotInHand,
    DealError,
    GameOver,
    GameState,
    IllegalAction,
    LimitExceeded,
    NotYourTurn,
    RankNotOnTable,
    Result,
    Rules,
    TransferNotAllowed,
    apply,
    deal_from_seed,
    from_deal,
    legal_actions,
    new_game,
    next_game_attacker,
    rng_for_seed,
    seed_commitment,
    view,
)
from games.engine.errors import CannotBeat, EngineError

from .helpers import deal, legal, play

# --- the deal -------------------------------------------------------------------------------


def test_lowest_trump_holder_attacks_first() -> None:
    for seed in range(30):
        state = new_game(Rules(players=4), random.Random(seed))
        trump = state.setup.trump
        lowest = min(
            (c, seat)
            for seat in range(4)
            for c in range(52)
            if state.hands[seat] >> c & 1 and c & 3 == trump
        )
        assert state.attacker == lowest[1]
        assert state.defender == (state.attacker + 1) % 4


def test_random_seat_attacks_when_nobody_holds_a_trump() -> None:
    # 24 cards, 4 players: every card is dealt; the last dealt card is trump, so someone holds
    # one.  With 2 players and 36 cards, find a seed where all six trumps... are not in hands.
    seen = set()
    for seed in range(3000):
        state = new_game(Rules(), random.Random(seed))
        trumps = sum(
            1
            for seat in range(2)
            for c in range(52)
            if state.hands[seat] >> c & 1 and c & 3 == state.setup.trump
        )
        if trumps == 0:
            seen.add(state.attacker)
            again = new_game(Rules(), random.Random(seed))
            assert again.attacker == state.attacker  # seeded
    assert seen == {0, 1}


def test_whole_deck_dealt_last_card_is_trump() -> None:
    state = new_game(Rules(players=6), random.Random(5))
    assert not state.stock
    trump_card = state.setup.trump_card
    assert trump_card & 3 == state.setup.trump
    assert any(h >> trump_card & 1 for h in state.hands)


def test_seed_feeds_random_and_commitment() -> None:
    assert deal_from_seed(Rules(), 42) == deal_from_seed(Rules(), "42")
    assert deal_from_seed(Rules(), 42) != deal_from_seed(Rules(), 43)
    assert len(seed_commitment("x")) == 64
    rebuilt = from_deal(Rules(), deal_from_seed(Rules(), 7))
    original = new_game(Rules(), rng_for_seed(7))
    assert rebuilt.to_json() == original.to_json()
    with pytest.raises(BadRequest):
        seed_commitment(-1)


def test_deal_validation() -> None:
    good = {"hands": [["6S"], ["7S"]], "stock": ["AD"], "trump": "D", "attacker": 0}
    from_deal(Rules(), good)
    bad_deals = [
        {**good, "hands": [["6S"], ["6S"]]},
        {**good, "hands": [["6S"]]},
        {**good, "hands": [["2S"], ["7S"]]},
        {**good, "trump": "H"},
        {**good, "attacker": 2},
        {**good, "hands": [[], ["7S"]]},
        {**good, "extra": 1},
        {**good, "stock": ["6S"], "trump": "S"},
    ]
    for bad in bad_deals:
        with pytest.raises(BadRequest):
            from_deal(Rules(), bad)
    with pytest.raises(DealError):
        from_deal(Rules(), {**good, "stock": [], "hands": [["6S"], []]})


def test_series_hooks_hand_sizes_removed_caps_attacker() -> None:
    rules = Rules(players=3)
    state = new_game(
        rules,
        random.Random(1),
        attacker=2,
        hand_sizes=[6, 3, 6],
        removed=["7D", "7H"],
        throw_caps=[None, 2, None],
        pogony_rank="8",
    )
    assert [len(state.hand(s)) for s in range(3)] == [6, 3, 6]
    assert len(state.stock) == 36 - 2 - 15
    assert state.attacker == 2 and state.defender == 0
    all_cards = {c for s in range(3) for c in state.hand(s)} | {
        state.to_dict()["stock"][i] for i in range(len(state.stock))
    }
    assert "7D" not in all_cards and "7H" not in all_cards
    restored = GameState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert restored.setup.throw_caps[1] == 2 and restored.setup.pogony_rank == 6


def test_throw_cap_hook_limits_attack_cards() -> None:
    rules = Rules()
    state = from_deal(
        rules,
        {
            "hands": [["6S", "6C", "6H"], ["AS", "AC", "AH"]],
            "stock": [],
            "trump": "D",
            "attacker": 0,
        },
        throw_caps=[None, 2],
    )
    with pytest.raises(LimitExceeded):
        play(state, "0 attack 6S 6C 6H")
    state = play(state, "0 attack 6S 6C")
    assert "0 throw 6H" not in legal(state, 0)


# --- attack, defend, throw ------------------------------------------------------------------


def test_attack_needs_one_rank_and_own_cards() -> None:
    state = deal([["6S", "6C", "7C"], ["AS", "AC", "AH"]])
    with pytest.raises(IllegalAction):
        play(state, "0 attack 6S 7C")
    with pytest.raises(CardNotInHand):
        play(state, "0 attack 6H")
    with pytest.raises(NotYourTurn):
        play(state, "1 attack AS")
    state = play(state, "0 attack 6S 6C")
    assert state.to_json()["table"] == [
        {"attack": "6S", "defense": None},
        {"attack": "6C", "defense": None},
    ]
    with pytest.raises(IllegalAction):
        play(state, "0 attack 7C")  # the bout is open: throw


def test_defend_rules() -> None:
    state = play(deal([["6S", "7S"], ["AS", "8H", "6D"]], trump="D"), "0 attack 6S")
    with pytest.raises(CannotBeat):
        play(state, "1 defend 8H 6S")
    with pytest.raises(IllegalAction):
        play(state, "1 defend AS 7S")  # not on the table
    with pytest.raises(NotYourTurn):
        play(state, "0 defend 7S 6S")
    assert legal(state, 1) == {"1 defend AS 6S", "1 defend 6D 6S", "1 take"}
    state = play(state, "1 defend 6D 6S")
    with pytest.raises(IllegalAction):
        play(state, "1 defend AS 6S")  # already beaten


def test_throw_in_any_rank_on_table_including_defence() -> None:
    state = deal([["6S", "9S", "AD"], ["9C", "KS", "7H"], ["6H", "9H", "KH"]], attacker=0)
    state = play(state, "0 attack 6S")
    assert legal(state, 2) == {"2 throw 6H"}  # no pass while a card is unbeaten
    state = play(state, "1 defend KS 6S")
    assert legal(state, 2) == {"2 throw 6H", "2 throw KH", "2 pass"}
    with pytest.raises(RankNotOnTable):
        play(state, "2 throw 9H")


def test_first_bout_limit_then_bout_limit() -> None:
    hands = [["6S", "6C", "6H", "6D", "AS", "AC"], ["8S", "8C", "8H", "AD", "KD", "QD", "JD"]]
    moves = ("0 attack 6S 6C 6H 6D", "1 defend 8S 6S", "1 defend 8C 6C", "1 defend 8H 6H")
    state = play(deal(hands, trump="D"), *moves, "1 defend AD 6D", "0 throw AS")
    with pytest.raises(LimitExceeded):
        play(state, "0 throw AC")  # 5 on the first bout
    state = play(deal(hands, trump="D", first_bout_limit=6), *moves, "1 defend AD 6D")
    state = play(state, "0 throw AS AC")
    assert state.to_json()["table"][-1] == {"attack": "AC", "defense": None}


def test_unlimited_after_stock() -> None:
    hands = [["6S", "6C", "6H", "6D", "7C", "7H"], ["7S", "AS", "AC", "AH", "KD", "QD"]]
    moves = ("0 attack 6S 6C 6H 6D", "1 defend 7S 6S")
    state = play(deal(hands, trump="D", unlimited_after_stock=True), *moves, "0 throw 7C 7H")
    assert len(state.t_att) == 6  # over first_bout_limit: the stock is empty
    with pytest.raises(LimitExceeded):
        play(deal(hands, trump="D"), *moves, "0 throw 7C 7H")


def test_unbeaten_never_exceed_defender_hand_and_take_with_throw_after() -> None:
    state = deal([["6S", "6C", "6D", "9S"], ["7S", "KD"]], trump="H")
    with pytest.raises(LimitExceeded):
        play(state, "0 attack 6S 6C 6D")
    state = play(state, "0 attack 6S", "1 take", "0 throw 6C")
    with pytest.raises(LimitExceeded):
        play(state, "0 throw 6D")
    assert legal(state, 0) == {"0 pass"}
    state = play(state, "0 pass")
    assert sorted(state.hand(1)) == ["6C", "6S", "7S", "KD"]
    assert (state.attacker, state.defender) == (0, 1)


# --- passes and the end of a bout -----------------------------------------------------------


def test_pass_is_cleared_by_a_new_card() -> None:
    state = deal([["6S", "6C", "9D"], ["7S", "7C", "AH"], ["6H", "7H", "KH"]], trump="D")
    state = play(state, "0 attack 6S", "1 defend 7S 6S", "2 pass")
    assert state.passed == 0b100
    state = play(state, "0 throw 6C")
    assert state.passed == 0
    state = play(state, "1 defend 7C 6C", "0 pass")
    assert state.t_att  # seat 2 must pass again
    with pytest.raises(IllegalAction):
        play(state, "0 pass")  # already passed
    state = play(state, "2 pass")
    assert not state.t_att and state.discard == 4


def test_thrower_without_cards_counts_as_passed() -> None:
    state = deal([["6S"], ["7S", "8S"], ["9S", "TS"]], trump="D", stock=["AD"])
    state = play(state, "0 attack 6S", "1 defend 7S 6S", "2 pass")
    assert not state.t_att  # seat 0 has no card: the bout ended after seat 2's pass
    assert state.hand(0) == ["AD"]


def test_simple_variant_ends_bout_when_all_beaten() -> None:
    state = deal([["6S", "6C", "9H"], ["7S", "7C", "8D"]], variant="simple")
    state = play(state, "0 attack 6S 6C", "1 defend 7S 6S")
    assert legal(state, 0) == set()
    state = play(state, "1 defend 7C 6C")
    assert not state.t_att and state.attacker == 1


def test_draw_order_first_attacker_then_clockwise_defender_last() -> None:
    stock = ["6S", "6C", "6H", "7S", "7C", "7H", "8D"]
    state = deal([["9S", "9C"], ["TS", "TC"], ["JS", "JC"], ["QS", "QC"]], stock=stock)
    state = play(state, "0 attack 9S", "1 take", "2 pass", "3 pass", "0 pass")
    # hand_size 6 but only 7 cards: 0 draws 5 (6S..7H), 2 draws... the stock is gone
    assert sorted(state.hand(0)) == sorted(["9C", "6S", "6C", "6H", "7S", "7C"])
    assert sorted(state.hand(2)) == sorted(["JS", "JC", "7H", "8D"])
    assert len(state.hand(3)) == 2 and len(state.hand(1)) == 3
    assert (state.attacker, state.defender) == (2, 3)


def test_transfer_first_attacker_who_ends_as_defender_draws_last() -> None:
    stock = ["AS", "AC", "AH", "9S", "KC", "KH", "QD"]
    hands = [["6S", "JS", "QS", "KS"], ["6C", "JC"], ["6H", "JH", "TS"]]
    state = deal(
        hands,
        stock=stock,
        trump="D",
        variant="transfer",
        transfer_first_bout=True,
        hand_size=4,
        players=3,
    )
    state = play(state, "0 attack 6S", "1 transfer 6C", "2 transfer 6H")
    assert state.defender == 0 and state.attacker == 0
    state = play(state, "0 take", "1 pass", "2 pass")
    # order: 1, 2, then 0 last: 1 draws 3, 2 draws 2, 0 already holds 6
    assert len(state.hand(1)) == 4 and len(state.hand(2)) == 4
    assert len(state.stock) == 2 and len(state.hand(0)) == 6
    assert state.hand(1) == sorted(["JC", "AS", "AC", "AH"], key=state.hand(1).index)
    assert (state.attacker, state.defender) == (1, 2)


# --- transfer -------------------------------------------------------------------------------


def _transfer_game(**options: Any) -> GameState:
    opts = {"variant": "transfer", "transfer_first_bout": True, **options}
    hands = [["6S", "6D", "KS"], ["6H", "6C", "AS", "QD"], ["7S", "8S", "9S"]]
    return deal(hands, trump="D", **opts)


def test_transfer_conditions() -> None:
    state = play(_transfer_game(), "0 attack 6S")
    assert "1 transfer 6H" in legal(state, 1) and "1 transfer 6C" in legal(state, 1)
    moved = play(state, "1 transfer 6H 6C")
    assert (moved.attacker, moved.defender) == (0, 2)
    assert set(moved.to_json()["throwers"]) == {0, 1}
    with pytest.raises(RankNotOnTable):
        play(state, "1 transfer AS")
    with pytest.raises(TransferNotAllowed):
        play(
            deal([["6S"], ["6H", "7S"], ["8S"]], variant="transfer"), "0 attack 6S", "1 transfer 6H"
        )  # first bout
    over_trump = play(_transfer_game(), "0 attack 6D")
    with pytest.raises(TransferNotAllowed):
        play(over_trump, "1 transfer 6H")
    assert "1 transfer 6H" in legal(
        play(_transfer_game(transfer_over_trump=True), "0 attack 6D"), 1
    )


def test_no_transfer_between_two_players_unless_allowed() -> None:
    hands = [["6S", "KS", "QS"], ["6H", "AC"]]
    state = play(deal(hands, variant="transfer", transfer_first_bout=True), "0 attack 6S")
    with pytest.raises(TransferNotAllowed):
        play(state, "1 transfer 6H")
    state = play(
        deal(hands, variant="transfer", transfer_first_bout=True, transfer_two_players=True),
        "0 attack 6S",
        "1 transfer 6H",
    )
    assert (state.attacker, state.defender) == (0, 0)


def test_no_transfer_with_last_card_unless_to_go_out() -> None:
    hands = [["6S", "KS"], ["6H"], ["7S", "7H", "9S"]]
    state = play(deal(hands, variant="transfer", transfer_first_bout=True), "0 attack 6S")
    with pytest.raises(TransferNotAllowed):
        play(state, "1 transfer 6H")
    state = play(
        deal(hands, variant="transfer", transfer_first_bout=True, transfer_to_go_out=True),
        "0 attack 6S",
        "1 transfer 6H",
        "2 defend 7S 6S",
        "2 defend 7H 6H",
        "0 pass",
    )
    assert state.to_json()["out"] == [1]


def test_trump_show_once_per_game() -> None:
    hands = [["6S", "6C", "KS"], ["6D", "AC", "AS"], ["7S", "8S", "9S", "7C"]]
    rules: dict[str, Any] = {"variant": "transfer", "transfer_first_bout": True, "trump_show": True}
    state = play(deal(hands, trump="D", **rules), "0 attack 6S")
    assert "1 show_trump 6D" in legal(state, 1)
    state = play(state, "1 show_trump 6D")
    assert state.defender == 2 and "6D" in state.hand(1) and len(state.t_att) == 1
    assert state.to_json()["shown"] == [1]
    with pytest.raises(IllegalAction):
        play(deal(hands, trump="D", variant="transfer"), "0 attack 6S", "1 show_trump 6D")


# --- going out, the end, the result ---------------------------------------------------------


def test_next_attacker_skips_players_who_are_out() -> None:
    state = deal([["6S", "9H"], ["7S"], ["6C", "9C"], ["6H", "TC"]])
    state = play(state, "0 attack 6S", "1 defend 7S 6S", "0 pass", "2 pass", "3 pass")
    assert state.to_json()["out"] == [1]
    assert (state.attacker, state.defender) == (2, 3)


def test_same_bout_going_out_order_by_last_card() -> None:
    state = deal([["6S"], ["AS", "AC", "KD"], ["6C"], ["KH", "QH"]])
    state = play(state, "0 attack 6S", "2 throw 6C", "1 defend AC 6C", "1 defend AS 6S", "3 pass")
    assert state.to_json()["out"] == [0, 2]
    state = deal([["6S"], ["AS", "AC", "KD"], ["6C"], ["KH", "QH"]])
    state = play(state, "0 attack 6S", "1 defend AS 6S", "2 throw 6C", "1 defend AC 6C", "3 pass")
    assert state.to_json()["out"] == [0, 2]


def test_fool_and_places() -> None:
    state = deal([["6S"], ["7S"], ["8S", "9S"]], players=3)
    state = play(state, "0 attack 6S", "1 defend 7S 6S", "2 pass")
    result = state.result
    assert result is not None
    assert result.places == (0, 1, 2) and result.fool == 2 and not result.draw
    with pytest.raises(GameOver):
        play(state, "2 attack 8S")
    assert legal_actions(state, 2) == []


def test_draw_on_and_off() -> None:
    state = play(deal([["9S"], ["TS"]]), "0 attack 9S", "1 defend TS 9S")
    assert state.result is not None and state.result.draw and state.result.fool is None
    assert set(state.result.places) == {0, 1}
    state = play(deal([["9S"], ["TS"]], draw=False), "0 attack 9S", "1 defend TS 9S")
    assert state.result is not None and state.result.fool == 1 and not state.result.draw
    assert state.result.places == (0, 1)


def test_pogony() -> None:
    state = play(deal([["6S", "6C"], ["7H", "8C", "9C"]]), "0 attack 6S 6C", "1 take")
    assert state.result is not None and state.result.pogony is not None
    assert state.result.pogony.to_json() == {"by": 0, "on": [1], "rank": "6"}
    # trumps only: no pogony
    state = play(deal([["6D"], ["7H", "8C"]], trump="D"), "0 attack 6D", "1 take")
    assert state.result is not None and state.result.pogony is None
    # fewer than pogony_min_cards
    state = play(deal([["6S"], ["7H", "8C"]], pogony_min_cards=2), "0 attack 6S", "1 take")
    assert state.result is not None and state.result.pogony is None
    # another rank than the series' pogony rank
    state = play(deal([["7S"], ["7H", "8C"]]), "0 attack 7S", "1 take")
    assert state.result is not None and state.result.pogony is None
    series = from_deal(
        Rules(),
        {"hands": [["7S"], ["7H", "8C"]], "stock": [], "trump": "D", "attacker": 0},
        pogony_rank="7",
    )
    state = play(series, "0 attack 7S", "1 take")
    assert state.result is not None and state.result.pogony is not None
    assert state.result.pogony.rank == "7"
    # a mixed last play (a 7 and a 6) is no pogony
    state = play(deal([["6S", "7C"], ["7S", "8C", "KH"]]), "0 attack 6S", "1 defend 7S 6S")
    state = play(state, "0 throw 7C", "1 take")
    assert state.result is not None and state.result.fool == 1 and state.result.pogony is None


def test_teams_end_when_one_team_holds_all_cards() -> None:
    hands = [["6S"], ["7S", "9H", "TH"], ["6C"], ["8S"]]
    state = deal(hands, players=4, teams=[[0, 2], [1, 3]])
    state = play(state, "0 attack 6S", "1 defend 7S 6S", "2 throw 6C")
    state = play(state, "1 take")
    result = state.result
    assert result is not None
    assert result.team_lost == (1, 3) and result.fool == 1
    assert result.places == (0, 2, 3, 1)
    assert result.to_json()["team_lost"] == [1, 3]
    assert result.pogony is not None and result.pogony.on == (1, 3)


def test_teams_next_defender_is_next_opponent() -> None:
    hands = [["6S", "9S"], ["7S"], ["6C", "9C"], ["8S", "TS"]]
    state = deal(hands, players=4, teams=[[0, 2], [1, 3]])
    state = play(state, "0 attack 6S", "1 defend 7S 6S", "0 pass", "2 pass")
    # seat 1 is out: its partner 3 does not attack 0's partner... 2 attacks 3
    assert state.to_json()["out"] == [1]
    assert (state.attacker, state.defender) == (2, 3)


def test_next_game_attacker() -> None:
    result = Result((0, 2, 1), 1, False, None, None)
    assert next_game_attacker(Rules(players=3), result) == 2
    assert next_game_attacker(Rules(players=3, next_game_first="onto_fool"), result) == 0
    assert next_game_attacker(Rules(players=3, next_game_first="winner"), result) == 0


def test_redeal_five_of_suit() -> None:
    rules = Rules(redeal_five_of_suit=True)
    for seed in range(3000):
        state = new_game(rules, random.Random(seed))
        seats = [a.seat for s in range(2) for a in legal_actions(state, s) if a.type == "redeal"]
        if seats:
            break
    else:
        pytest.fail("no seed with five of a suit")
    again = apply(state, Action(seats[0], "redeal"))
    assert again.redeals == 1 and again.to_json() != state.to_json()
    stored = GameState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert apply(stored, Action(seats[0], "redeal")) == again  # same Random stream
    first = legal_actions(state, state.attacker)[0]
    with pytest.raises(IllegalAction):
        apply(apply(state, first), Action(seats[0], "redeal"))


# --- errors, views, JSON --------------------------------------------------------------------


def test_errors_leave_state_unchanged() -> None:
    state = play(deal([["6S", "7C"], ["7S", "8H"]]), "0 attack 6S")
    before = json.dumps(state.to_dict())
    bad = ["1 defend 8H 6S", "0 throw 8H", "1 attack 7S", "0 pass", "1 defend 7C 6S"]
    for move in bad:
        with pytest.raises(EngineError):
            play(state, move)
    with pytest.raises(BadRequest):
        apply(state, Action(5, "take"))
    assert json.dumps(state.to_dict()) == before


def test_view_redacts_hidden_cards() -> None:
    state = new_game(Rules(players=3), random.Random(11))
    state = apply(state, legal_actions(state, state.attacker)[0])
    for seat in (0, 1, 2, None):
        v = view(state, seat)
        text = json.dumps(v)
        assert "hands" not in v
        for other in range(3):
            if other != seat:
                for card in state.hand(other):
                    assert f'"{card}"' not in text.replace(json.dumps(v["table"]), "")
        stock_cards = state.to_dict()["stock"][:-1]
        for card in stock_cards:
            assert f'"{card}"' not in text
        assert v["hand_sizes"] == [len(state.hand(s)) for s in range(3)]
    assert view(state, None)["hand"] is None
    with pytest.raises(BadRequest):
        view(state, 3)


def test_state_json_round_trip_mid_bout() -> None:
    state = play(_transfer_game(), "0 attack 6S", "1 transfer 6H", "0 throw 6D")
    restored = GameState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert restored == state and restored.to_json() == state.to_json()
    with pytest.raises(BadRequest):
        GameState.from_dict({"format": 1})
