"""The move clock acting for absent players (issue #9), through ``services.game_clock_expire``.

The rule (``games.services.automation.clock_actions``): an attacker who must open a bout leads
its lowest card (the lowest non-trump; a trump only when it holds nothing else); a defender who
must answer takes (never defends or transfers); once every card is beaten or the defender has
said take, the throwers pass, which ends the bout. Each test deals a fixed hand (the seeded
deal of ``game_create`` is replaced by ``engine.from_deal``), lets the humans act through
``game_apply_action`` and calls the clock job's service directly, the deadline first moved into
the past (no sleeping, no worker: jobs only start on commit, which these tests never reach).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import engine, services
from games.engine import Action, GameState
from games.models import Game, GameAction
from games.services.automation import clock_actions
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

CLOCK = 30  # seconds; never waited for


# --- helpers -------------------------------------------------------------------------------------


def deal(
    hands: list[list[str]],
    *,
    attacker: int = 0,
    rules: dict[str, Any] | None = None,
    stock: list[str] | None = None,
) -> Game:
    """A game with a clock on this fixed deal (trump ♦), nobody has acted yet (version 0)."""
    players = PlayerFactory.create_batch(len(hands))
    game = services.game_create(
        rules={"players": len(hands), **(rules or {})},
        players=[p.pk for p in players],
        clock_seconds=CLOCK,
    )
    fixed = {"hands": hands, "stock": stock or [], "trump": "D", "attacker": attacker}
    state = engine.from_deal(engine.Rules.from_dict(game.rules), fixed)
    Game.objects.filter(pk=game.pk).update(state=state.to_dict())
    game.refresh_from_db()
    assert game.version == 0 and game.deadline is not None
    return game


def play(game: Game, *moves: str) -> Game:
    """The humans' moves (``"0 attack 6S"``) through the game service."""
    for move in moves:
        action = Action.parse(move)
        services.game_apply_action(game_id=game.pk, seat=action.seat, action=action.to_json())
    return Game.objects.get(pk=game.pk)


def expire(game: Game, version: int | None = None) -> Game:
    """The clock job at ``version`` (default: the current one), its deadline passed."""
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    at = Game.objects.get(pk=game.pk).version if version is None else version
    services.game_clock_expire(game_id=game.pk, version=at)
    return Game.objects.get(pk=game.pk)


def state_of(game: Game) -> GameState:
    return services.load_state(game)


def clock_log(game: Game) -> list[tuple[int, str]]:
    """The clock's entries of the log: (seq, action as ``"SEAT TYPE CARDS"``)."""
    rows = GameAction.objects.filter(game=game, kind=GameAction.Kind.CLOCK).order_by("seq")
    return [(row.seq, str(Action.from_json(row.action))) for row in rows]


def hand(game: Game, seat: int) -> list[str]:
    return state_of(game).hand(seat)


def table(game: Game) -> list[tuple[str, str | None]]:
    return [(t["attack"] or "", t["defense"]) for t in state_of(game).table_json()]


def legal(game: Game, seat: int) -> list[str]:
    return [str(a) for a in engine.legal_actions(state_of(game), seat)]


def assert_fresh_deadline(game: Game) -> None:
    """Active, with the deadline one clock period ahead (armed by the clock's own change)."""
    assert game.status == Game.Status.ACTIVE
    assert game.deadline is not None
    ahead = (game.deadline - timezone.now()).total_seconds()
    assert CLOCK - 5 < ahead <= CLOCK


# --- case 1: an attacker who must open a bout leads its lowest card -----------------------------


@pytest.mark.parametrize(
    ("attacker_hand", "led"),
    [
        (["AS", "6D", "7C", "7S", "KH"], "7S"),  # a non-trump seven before the trump six; ♠ < ♣
        (["AH", "6D", "KC"], "KC"),  # the only non-trumps are high: still no trump
        (["9H", "9C", "TS"], "9C"),  # one rank: the suit order S C D H decides
        (["TD", "6D", "8D"], "6D"),  # nothing but trumps: the lowest trump
    ],
)
def test_an_absent_attacker_leads_its_lowest_card(attacker_hand: list[str], led: str) -> None:
    game = deal([attacker_hand, ["JS", "QS"]])
    game = expire(game)
    assert clock_log(game) == [(1, f"0 attack {led}")]
    assert game.version == 1
    assert table(game) == [(led, None)]
    assert sorted(hand(game, 0)) == sorted(c for c in attacker_hand if c != led)
    # now the defender must answer, with a fresh deadline
    assert "1 take" in legal(game, 1)
    assert_fresh_deadline(game)


def test_an_absent_attacker_leads_even_when_it_may_ask_for_a_redeal() -> None:
    hands = [["6H", "7H", "8H", "9H", "TH", "6S"], ["7S", "8S", "9S", "TS", "JS"]]
    game = deal(hands, rules={"redeal_five_of_suit": True})
    # a redeal needs a game shuffled by the engine: keep the seeded game's generator
    seeded = services.game_create(
        rules={"redeal_five_of_suit": True},
        players=[p.pk for p in PlayerFactory.create_batch(2)],
    )
    fixed = {**game.state, "rng_state": seeded.state["rng_state"]}
    Game.objects.filter(pk=game.pk).update(state=fixed)
    game.refresh_from_db()
    assert "0 redeal" in legal(game, 0) and legal(game, 1) == ["1 redeal"]
    game = expire(game)
    assert clock_log(game) == [(1, "0 attack 6S")]


def test_an_absent_attacker_opens_again_after_a_take_in_a_two_player_game() -> None:
    game = deal([["6S", "8S", "AH"], ["7C", "8C"]])
    game = play(game, "0 attack 6S", "1 take", "0 pass")
    assert state_of(game).attacker == 0 and not table(game)
    game = expire(game)
    assert clock_log(game) == [(4, "0 attack 8S")]
    assert table(game) == [("8S", None)]


# --- case 2: a defender who must answer takes ---------------------------------------------------


def test_an_absent_defender_takes_and_the_absent_attacker_then_passes() -> None:
    game = deal([["6S", "7S", "AH"], ["8C", "9C", "TC"]])
    game = play(game, "0 attack 6S")
    game = expire(game)
    assert clock_log(game) == [(2, "1 take")]
    after = state_of(game)
    assert after.taking and after.defender == 1 and game.version == 2
    # the take leaves the attacker its turn to throw in more or pass: a fresh deadline for it
    assert legal(game, 0) == ["0 pass"]
    assert_fresh_deadline(game)
    game = expire(game)
    assert clock_log(game) == [(2, "1 take"), (3, "0 pass")]
    after = state_of(game)
    assert hand(game, 1) == ["6S", "8C", "9C", "TC"]
    assert not table(game) and not after.taking
    # two players: after a take the same attacker attacks again
    assert (after.attacker, after.defender, after.bouts) == (0, 1, 1)
    assert_fresh_deadline(game)


def test_a_defender_who_beat_some_cards_takes_them_all() -> None:
    game = deal([["6S", "6C", "AH"], ["7S", "8H", "9H"]])
    game = play(game, "0 attack 6S 6C", "1 defend 7S 6S")
    game = expire(game)
    assert clock_log(game) == [(3, "1 take")]
    game = expire(game)
    assert clock_log(game)[-1] == (4, "0 pass")
    assert hand(game, 1) == ["6S", "6C", "7S", "8H", "9H"]
    assert hand(game, 0) == ["AH"]


def test_the_throwers_may_still_throw_after_the_clocks_take() -> None:
    game = deal([["6S", "AH"], ["7C", "8C"], ["6H", "9C"]], rules={"players": 3})
    game = play(game, "0 attack 6S")
    game = expire(game)
    assert clock_log(game) == [(2, "1 take")]
    assert "2 throw 6H" in legal(game, 2)
    game = play(game, "2 throw 6H")  # a present thrower throws in вдогонку
    game = expire(game)
    assert clock_log(game) == [(2, "1 take"), (4, "0 pass"), (5, "2 pass")]
    assert hand(game, 1) == ["6S", "6H", "7C", "8C"]
    after = state_of(game)
    assert (after.attacker, after.defender) == (2, 0)


# --- case 3: throwers pass, the bout ends -------------------------------------------------------


def test_absent_throwers_pass_after_the_take_and_the_bout_ends() -> None:
    game = deal([["6S", "AH"], ["7C", "8C"], ["6H", "9C"]], rules={"players": 3})
    game = play(game, "0 attack 6S")
    game = expire(game)
    assert clock_log(game) == [(2, "1 take")]
    game = expire(game)
    # every thrower passes (the clock never throws in, though seat 2 could), clockwise from
    # the attacker
    assert clock_log(game)[1:] == [(3, "0 pass"), (4, "2 pass")]
    assert hand(game, 1) == ["6S", "7C", "8C"] and hand(game, 2) == ["6H", "9C"]
    after = state_of(game)
    # the player to the taker's left attacks next
    assert (after.attacker, after.defender, after.bouts) == (2, 0, 1)
    assert game.version == 4
    assert_fresh_deadline(game)


def test_a_defender_who_beat_every_card_waits_no_longer_the_throwers_pass() -> None:
    game = deal([["6S", "AH", "KC"], ["7S", "8C", "9C"], ["6H", "TC", "JC"]], rules={"players": 3})
    game = play(game, "0 attack 6S", "1 defend 7S 6S")
    # the defender has nothing left to do; the throwers may throw (seat 2 holds a six) or pass
    assert legal(game, 1) == []
    assert "2 throw 6H" in legal(game, 2) and "2 pass" in legal(game, 2)
    game = expire(game)
    assert clock_log(game) == [(3, "0 pass"), (4, "2 pass")]
    after = state_of(game)
    # a successful defence: the table is discarded and the defender attacks next
    assert not table(game) and after.discard == 2
    assert (after.attacker, after.defender, after.bouts) == (1, 2, 1)
    assert after.first_defence
    assert_fresh_deadline(game)


def test_the_clock_passes_only_for_the_throwers_who_have_not_passed() -> None:
    game = deal([["6S", "AH", "KC"], ["7S", "8C", "9C"], ["6H", "TC", "JC"]], rules={"players": 3})
    game = play(game, "0 attack 6S", "1 defend 7S 6S", "0 pass")
    game = expire(game)
    assert clock_log(game) == [(4, "2 pass")]
    assert state_of(game).attacker == 1


def test_in_two_players_the_attacker_passes_over_a_beaten_table() -> None:
    game = deal([["6S", "AH"], ["7S", "8C"]])
    game = play(game, "0 attack 6S", "1 defend 7S 6S")
    game = expire(game)
    assert clock_log(game) == [(3, "0 pass")]
    after = state_of(game)
    assert (after.attacker, after.defender, after.discard) == (1, 0, 2)


# --- 3 to 6 players, teams, transfer ------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_a_whole_bout_of_absent_players_in_three_clock_periods(n: int) -> None:
    # seat s holds the two black cards of rank 6 + s (no trumps)
    ranks = "6789TJ"
    hands = [[ranks[s] + "S", ranks[s] + "C"] for s in range(n)]
    game = deal(hands, rules={"players": n})
    game = expire(game)
    game = expire(game)
    game = expire(game)
    throwers = [0, *range(2, n)]  # everyone but the defender, clockwise from the attacker
    assert clock_log(game) == [
        (1, "0 attack 6S"),
        (2, "1 take"),
        *((3 + i, f"{seat} pass") for i, seat in enumerate(throwers)),
    ]
    assert game.version == 2 + len(throwers)
    assert hand(game, 0) == ["6C"] and hand(game, 1) == ["6S", "7S", "7C"]
    after = state_of(game)
    assert (after.attacker, after.defender, after.bouts) == (2, 3 % n, 1)
    assert_fresh_deadline(game)


def test_a_team_game_the_takers_partner_is_not_acted_for() -> None:
    hands = [["6S", "6C"], ["7S", "7C"], ["8S", "8C"], ["9S", "9C"]]
    game = deal(hands, rules={"players": 4, "teams": [[0, 2], [1, 3]]})
    game = expire(game)
    game = expire(game)
    assert legal(game, 3) == []  # seat 3 never throws in to its partner
    game = expire(game)
    assert clock_log(game) == [(1, "0 attack 6S"), (2, "1 take"), (3, "0 pass"), (4, "2 pass")]
    after = state_of(game)
    # the next defender is the next opponent clockwise
    assert (after.attacker, after.defender) == (2, 3)
    assert hand(game, 1) == ["6S", "7S", "7C"]


TRANSFER = {"players": 3, "variant": "transfer", "transfer_first_bout": True, "trump_show": True}


def test_a_transfer_game_the_defender_takes_instead_of_transferring() -> None:
    game = deal([["6S", "AH", "KH"], ["6C", "6D", "8C"], ["7H", "9C", "TC"]], rules=TRANSFER)
    game = play(game, "0 attack 6S")
    # the defender could transfer or show its trump six (проездной)
    assert {"1 transfer 6C", "1 show_trump 6D", "1 take"} <= set(legal(game, 1))
    game = expire(game)
    assert clock_log(game) == [(2, "1 take")]
    after = state_of(game)
    assert after.taking and after.defender == 1
    game = expire(game)
    assert hand(game, 1) == ["6S", "6C", "6D", "8C"]
    assert state_of(game).attacker == 2


def test_a_transfer_game_the_new_defender_takes_after_a_human_transfer() -> None:
    game = deal([["6S", "AH", "KH", "QH"], ["6C", "8C"], ["6H", "9C", "TC"]], rules=TRANSFER)
    game = play(game, "0 attack 6S", "1 transfer 6C")
    assert state_of(game).defender == 2
    assert "2 transfer 6H" in legal(game, 2)  # it could pass the cards on to seat 0
    game = expire(game)
    assert clock_log(game) == [(3, "2 take")]
    game = expire(game)
    assert clock_log(game)[1:] == [(4, "0 pass"), (5, "1 pass")]
    assert hand(game, 2) == ["6S", "6C", "6H", "9C", "TC"]
    assert (state_of(game).attacker, state_of(game).defender) == (0, 1)


# --- when the clock does nothing ------------------------------------------------------------------


def test_a_paused_game_is_left_alone_and_the_clock_acts_again_after_the_resume(
    referee: Any,
) -> None:
    game = deal([["6S", "AH"], ["7C", "8C"]])
    services.game_pause(game_id=game.pk, reason="связь пропала", referee=referee)
    game = expire(game)
    assert game.status == Game.Status.PAUSED and game.version == 0 and clock_log(game) == []
    services.game_resume(game_id=game.pk, reason="вернулся", referee=referee)
    game = Game.objects.get(pk=game.pk)
    assert_fresh_deadline(game)
    # the job scheduled before the pause (same version) comes while the new deadline is ahead
    services.game_clock_expire(game_id=game.pk, version=0)
    game = Game.objects.get(pk=game.pk)
    assert game.version == 0 and clock_log(game) == []
    # the resume's own job, once its deadline passed, acts
    game = expire(game)
    assert clock_log(game) == [(1, "0 attack 6S")]
    assert_fresh_deadline(game)


def test_a_finished_game_is_left_alone() -> None:
    game = deal([["9S"], ["TS"]])
    game = play(game, "0 attack 9S", "1 defend TS 9S")
    assert game.status == Game.Status.FINISHED and game.deadline is None
    game = expire(game, version=2)
    assert game.status == Game.Status.FINISHED and game.version == 2
    assert clock_log(game) == []


def test_the_clocks_take_can_end_the_game() -> None:
    game = deal([["6S"], ["7C", "8C"]])
    game = expire(game)
    assert clock_log(game) == [(1, "0 attack 6S")]
    game = expire(game)
    # the attacker played its last card, so nobody is left to pass: the take ends the game
    assert clock_log(game) == [(1, "0 attack 6S"), (2, "1 take")]
    assert game.status == Game.Status.FINISHED and game.deadline is None
    assert game.result is not None and game.result["fool"] == 1
    assert expire(game).version == 2


def test_a_stale_version_is_left_alone() -> None:
    game = deal([["6S", "AH"], ["7C", "8C"]])
    game = play(game, "0 attack 6S")
    game = expire(game, version=0)  # the deal's job, after the attacker moved
    assert game.version == 1 and clock_log(game) == []
    assert not state_of(game).taking


def test_the_same_expiry_twice_acts_once() -> None:
    game = deal([["6S", "AH"], ["7C", "8C"]])
    game = play(game, "0 attack 6S")
    game = expire(game, version=1)
    assert clock_log(game) == [(2, "1 take")]
    before = (game.version, game.state)
    game = expire(game, version=1)  # a retried or duplicated job
    assert (game.version, game.state) == before
    assert clock_log(game) == [(2, "1 take")]


def test_a_game_nobody_plays_is_played_to_its_end_by_the_clock() -> None:
    players = PlayerFactory.create_batch(2)
    game = services.game_create(
        rules={"deck_size": 24},
        players=[p.pk for p in players],
        clock_seconds=CLOCK,
        seed="clock-only",
    )
    for _ in range(100):
        version = game.version
        game = expire(game)
        if game.is_over:
            break
        assert game.version > version  # every expiry moves the game on
        assert_fresh_deadline(game)
    assert game.status == Game.Status.FINISHED
    assert GameAction.objects.filter(game=game).exclude(kind=GameAction.Kind.CLOCK).count() == 0
    assert GameAction.objects.filter(game=game).count() == game.version


# --- the rule itself, on every kind of state random play reaches -------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        {"players": 2},
        {"players": 3, "variant": "simple"},
        {"players": 4, "throw_in_by": "neighbours"},
        {"players": 4, "teams": [[0, 2], [1, 3]]},
        {"players": 6, "deck_size": 52, "hand_size": 6},
        {"players": 3, "variant": "transfer", "transfer_first_bout": True, "trump_show": True},
        {"players": 5, "variant": "transfer", "transfer_two_players": True},
    ],
)
def test_the_clock_always_has_a_legal_move_that_changes_the_game(rules: dict[str, Any]) -> None:
    parsed = engine.Rules.from_dict(rules)
    rng = random.Random(repr(rules))
    for _ in range(10):
        state = engine.new_game(parsed, rng)
        while not state.finished:
            acted = clock_actions(state)
            assert acted, f"the clock has nothing to do in {state!r}"
            kinds = {a.type for a in acted}
            assert kinds in ({"attack"}, {"take"}, {"pass"})
            after = state
            for action in acted:
                after = engine.apply(after, action)  # raises if the clock's move is illegal
            assert after.to_dict() != state.to_dict()
            if kinds == {"pass"}:  # the passes end the bout
                assert after.finished or after.bouts == state.bouts + 1
            moves = [a for s in range(parsed.players) for a in engine.legal_actions(state, s)]
            state = engine.apply(state, rng.choice(moves))
        assert clock_actions(state) == []
