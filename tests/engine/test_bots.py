"""Bots: legal moves only, no peeking, heuristic beats random, games end."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine import (
    Action,
    GameState,
    Rules,
    apply,
    is_legal,
    legal_actions,
    new_game,
    view,
)
from games.engine import bots as bots_module
from games.engine.bots import (
    ColludingBot,
    HeuristicBot,
    PogonyBot,
    RandomBot,
    acting_seat,
    make_bot,
    play_game,
    play_step,
)
from games.engine.errors import BadRequest

from .helpers import deal

# A long stock (trump D) whose cards the test hands do not use.
STOCK = ["6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "6C", "TC", "6D"]

CONFIGS: list[dict[str, Any]] = [
    {"variant": v, "players": p}
    for v in ("simple", "throw_in", "transfer")
    for p in (2, 3, 4, 5, 6)
] + [
    {"players": 4, "throw_in_by": "neighbours"},
    {"players": 4, "teams": [[0, 2], [1, 3]]},
    {"players": 6, "teams": [[0, 2, 4], [1, 3, 5]], "variant": "transfer"},
    {"variant": "transfer", "players": 3, "trump_show": True, "transfer_first_bout": True},
    {"deck_size": 52, "players": 8, "redeal_five_of_suit": True},
    {"deck_size": 24, "players": 3, "draw": False},
]


def _ids(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(options.items()))


@pytest.mark.parametrize("options", CONFIGS, ids=_ids)
def test_play_game_terminates_with_legal_actions(options: dict[str, Any]) -> None:
    rules = Rules.from_dict(options)
    rng = random.Random(len(_ids(options)))
    for game in range(4):
        seats = range(rules.players)
        kinds = (HeuristicBot, RandomBot, PogonyBot)
        table = {s: kinds[(s + game) % 3]() for s in seats}
        state = new_game(rules, rng)
        steps = 0
        while not state.finished:
            action = play_step(state, table, rng)
            assert action is not None
            # a listed action, or a multi-card one that the engine accepts
            assert action in legal_actions(state, action.seat) or (
                len(action.cards) > 1 and is_legal(state, action)
            )
            state = apply(state, action)
            steps += 1
            assert steps < 5_000
        assert play_step(state, table, rng) is None


@pytest.mark.parametrize("options", CONFIGS, ids=_ids)
def test_heuristic_self_play_ends(options: dict[str, Any]) -> None:
    rules = Rules.from_dict(options)
    rng = random.Random(7)
    for _ in range(3):
        table = {s: HeuristicBot() for s in range(rules.players)}
        state, actions = play_game(new_game(rules, rng), table, rng)
        assert state.finished
        assert actions and len(actions) < 5_000


class Sealed:
    """A state the bot may not touch: every attribute access fails."""

    def __getattribute__(self, name: str) -> Any:
        raise AssertionError(f"the bot read state.{name}")


@pytest.mark.parametrize(
    "bot",
    [HeuristicBot(), RandomBot(), PogonyBot(), ColludingBot("collude", 0.5, 1)],
    ids=lambda b: b.name,
)
def test_bots_see_only_view_and_legal_actions(
    bot: HeuristicBot | RandomBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a real game, and a sealed stand-in the bot receives instead of the state
    rng = random.Random(5)
    rules = Rules(players=3, variant="transfer", transfer_first_bout=True)
    calls: list[tuple[str, int | None]] = []
    real: dict[str, GameState] = {}

    def fake_view(state: object, seat: int | None) -> dict[str, Any]:
        assert isinstance(state, Sealed)
        calls.append(("view", seat))
        return view(real["state"], seat)

    def fake_legal(state: object, seat: int) -> list[Action]:
        assert isinstance(state, Sealed)
        calls.append(("legal", seat))
        return legal_actions(real["state"], seat)

    def fake_is_legal(state: object, action: Action) -> bool:
        assert isinstance(state, Sealed)
        calls.append(("is_legal", action.seat))
        return is_legal(real["state"], action)

    monkeypatch.setattr(bots_module, "view", fake_view)
    monkeypatch.setattr(bots_module, "legal_actions", fake_legal)
    monkeypatch.setattr(bots_module, "is_legal", fake_is_legal)

    checked = 0
    for _ in range(3):
        state = new_game(rules, rng)
        while not state.finished:
            seat = acting_seat(state)
            assert seat is not None
            real["state"] = state
            calls.clear()
            # when the bot chooses from a sealed state
            action = bot.choose(Sealed(), seat, rng)  # type: ignore[arg-type]
            # then it asked only about its own seat, through view / legal_actions / is_legal
            assert calls and {s for _, s in calls} == {seat}
            assert {name for name, _ in calls} <= {"view", "legal", "is_legal"}
            state = apply(state, action)
            checked += 1
            # let the others move on quickly
            while not state.finished and acting_seat(state) != seat:
                other = acting_seat(state)
                assert other is not None
                state = apply(state, rng.choice(legal_actions(state, other)))
    assert checked > 20


def test_heuristic_ignores_the_hidden_cards() -> None:
    # two deals that differ only in the opponent's hand and the stock order: same decisions
    a = deal([["6S", "9C", "KH", "7D"], ["7S", "8C", "AS", "QC"]], ["TS", "JS", "6D"])
    b = deal([["6S", "9C", "KH", "7D"], ["AH", "TC", "JC", "9S"]], ["QS", "8S", "6D"])
    bot = HeuristicBot()
    assert bot.choose(a, 0, random.Random(1)) == bot.choose(b, 0, random.Random(1))


def test_heuristic_sheds_low_non_trumps_and_attacks_with_pairs() -> None:
    state = deal([["6S", "6C", "7D", "AH"], ["7S", "8C", "9H", "TS"]])
    assert str(HeuristicBot().choose(state, 0, random.Random(0))) == "0 attack 6S 6C"
    state = deal([["9S", "6D", "AH"], ["7S", "8C", "9H"]])
    assert str(HeuristicBot().choose(state, 0, random.Random(0))) == "0 attack 9S"


def test_heuristic_beats_cheaply_and_takes_when_beating_is_dear() -> None:
    stock = STOCK
    # cheap: the 7S is beaten by the 9S, not the 8D trump
    state = deal([["7S", "KC"], ["9S", "8D", "AD"]], stock)
    state = apply(state, Action.parse("0 attack 7S"))
    assert str(HeuristicBot().choose(state, 1, random.Random(0))) == "1 defend 9S 7S"
    # dear: only the ace of trumps beats the KS while the stock is large -> take
    state = deal([["KS", "KC"], ["9S", "8C", "AD"]], stock)
    state = apply(state, Action.parse("0 attack KS"))
    assert str(HeuristicBot().choose(state, 1, random.Random(0))) == "1 take"
    # endgame: the same beat is worth it once the stock is empty
    state = deal([["KS", "KC"], ["9S", "8C", "AD"]])
    state = apply(state, Action.parse("0 attack KS"))
    assert str(HeuristicBot().choose(state, 1, random.Random(0))) == "1 defend AD KS"


def test_heuristic_throws_low_cards_but_not_trumps_early() -> None:
    stock = STOCK
    state = deal([["7S", "7C", "7D", "QS"], ["9S", "8C", "AD", "JS"]], stock)
    state = apply(state, Action.parse("0 attack 7S"))
    state = apply(state, Action.parse("1 defend 9S 7S"))
    # 7C is thrown (low non-trump), the trump 7D is kept
    assert str(HeuristicBot().choose(state, 0, random.Random(0))) == "0 throw 7C"
    state = apply(state, Action.parse("0 throw 7C"))
    state = apply(state, Action.parse("1 defend 8C 7C"))
    assert str(HeuristicBot().choose(state, 0, random.Random(0))) == "0 pass"


def test_heuristic_transfers_with_a_cheap_card() -> None:
    state = deal(
        [["8S", "KC", "KD"], ["8C", "AD", "QD"], ["9C", "TS"]],
        STOCK,
        variant="transfer",
        transfer_first_bout=True,
    )
    state = apply(state, Action.parse("0 attack 8S"))
    assert str(HeuristicBot().choose(state, 1, random.Random(0))) == "1 transfer 8C"


def test_heuristic_beats_random_clearly() -> None:
    rng = random.Random(2024)
    rules = Rules()
    fools = {"heuristic": 0, "random": 0}
    games = 300
    for game in range(games):
        names = ["heuristic", "random"] if game % 2 else ["random", "heuristic"]
        table = {s: make_bot(n) for s, n in enumerate(names)}
        state, _ = play_game(new_game(rules, rng), table, rng)
        assert state.result is not None
        if state.result.fool is not None:
            fools[names[state.result.fool]] += 1
    # measured: the heuristic is the fool in about 2% of the games, random in about 98%
    assert fools["heuristic"] < 0.2 * games
    assert fools["random"] > 0.7 * games


def test_the_pogony_bot_keeps_its_sixes_while_it_has_other_cards() -> None:
    # given: the pogony bot holds two non-trump sixes and a seven, the stock is empty
    state = deal([["6S", "6C", "7H"], ["8S", "9C", "QH", "KH"]], trump="D")
    bot = PogonyBot()
    # then: it attacks with the seven, never a six, while it has anything else
    assert str(bot.choose(state, 0, random.Random(0))) == "0 attack 7H"
    # (the heuristic player sheds its lowest cards first: the two sixes together)
    assert str(HeuristicBot().choose(state, 0, random.Random(0))) == "0 attack 6S 6C"


def test_the_pogony_bot_lays_its_kept_sixes_together_and_hangs_pogony() -> None:
    # given: only the two sixes left, the opponent with cards to spare
    state = deal([["6S", "6C"], ["8S", "9C", "QH", "KH"]], trump="D")
    action = PogonyBot().choose(state, 0, random.Random(0))
    assert str(action) == "0 attack 6S 6C"
    # when: the opponent cannot beat both and takes them
    state = apply(state, action)
    state = apply(state, Action.parse("1 take"))
    # then: the bot is out and hangs pogony of sixes on the fool
    assert state.result is not None and state.result.pogony is not None
    assert (state.result.pogony.by, state.result.pogony.on, state.result.pogony.rank) == (
        0,
        (1,),
        "6",
    )


def test_pogony_bots_hang_pogony_in_most_games() -> None:
    rng = random.Random(2026)
    hung = 0
    for _ in range(100):
        table = {s: PogonyBot() for s in range(2)}
        state, _ = play_game(new_game(Rules(), rng), table, rng)
        assert state.result is not None
        hung += state.result.pogony is not None
    # measured: about 84 games in 100 (the heuristic bots' games: almost none)
    assert hung > 60


def test_make_bot() -> None:
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("heuristic"), HeuristicBot)
    assert isinstance(make_bot("pogony"), PogonyBot)
    with pytest.raises(BadRequest, match="unknown bot"):
        make_bot("oracle")


def test_driver_order_defender_then_throwers_from_the_attacker() -> None:
    state = deal(
        [["7S", "7C"], ["8S", "8C", "9D"], ["7H", "AS"]],
        ["6H", "9H", "TH", "JH", "QH", "KH", "AH", "6C", "7D"],
    )
    assert acting_seat(state) == 0
    state = apply(state, Action.parse("0 attack 7S"))
    assert acting_seat(state) == 1  # an unbeaten card: the defender
    state = apply(state, Action.parse("1 defend 8S 7S"))
    assert acting_seat(state) == 0  # all beaten: the attacker may throw first
    state = apply(state, Action.parse("0 pass"))
    assert acting_seat(state) == 2  # then the next thrower clockwise
    state = apply(state, Action.parse("2 throw 7H"))
    assert acting_seat(state) == 1


def test_play_game_respects_max_steps() -> None:
    rng = random.Random(1)
    state, actions = play_game(new_game(Rules(), rng), {0: RandomBot(), 1: RandomBot()}, rng, 5)
    assert len(actions) == 5 and not state.finished
    with pytest.raises(BadRequest, match="no bot for seat"):
        play_game(new_game(Rules(), rng), {}, rng)
