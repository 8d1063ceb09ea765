"""Applying actions: the engine judges, the log records, races have one winner."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import close_old_connections

from games import engine, services
from games.errors import GameError, GameNotActive, StaleVersion
from games.models import Game, GameAction, RefereeEvent
from tests.builders import GAME_SEED
from tests.factories import PlayerFactory


def opening(game: Game) -> dict[str, Any]:
    """A legal opening action of the game's attacker (as the client would send it)."""
    state = services.load_state(game)
    action = engine.legal_actions(state, state.attacker)[0]
    return {k: v for k, v in action.to_json().items() if k != "seat"}


def test_the_seed_commitment_is_published_and_the_seed_kept_secret(game: Game) -> None:
    assert game.seed_commitment == engine.seed_commitment(GAME_SEED)
    assert not game.seed_revealed
    with pytest.raises(GameError) as refused:
        services.game_verify_deal(game=game)
    assert refused.value.code == "seed_secret"


def test_a_legal_action_is_logged_and_moves_the_version(game: Game) -> None:
    attacker = services.load_state(game).attacker
    outcome = services.game_apply_action(
        game_id=game.pk, seat=attacker, action=opening(game), version=0, client_id="c1"
    )
    assert outcome.game.version == 1 and not outcome.duplicate
    logged = GameAction.objects.get(game=game)
    assert (logged.seq, logged.seat, logged.client_id) == (1, attacker, "c1")


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "pass"}, "illegal"),
        ({"type": "attack", "cards": ["ZZ"]}, "bad_request"),
        ({"type": "fly"}, "bad_request"),
        ({"type": "attack", "cards": ["6S"], "extra": 1}, "bad_request"),
    ],
)
def test_a_refused_action_changes_nothing(game: Game, action: dict[str, Any], code: str) -> None:
    before = Game.objects.get(pk=game.pk)
    attacker = services.load_state(game).attacker
    with pytest.raises(GameError) as refused:
        services.game_apply_action(game_id=game.pk, seat=attacker, action=action, version=0)
    assert refused.value.code == code
    after = Game.objects.get(pk=game.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert not GameAction.objects.filter(game=game).exists()


def test_a_card_not_in_hand_and_out_of_turn(game: Game) -> None:
    state = services.load_state(game)
    attacker, defender = state.attacker, state.defender
    foreign = state.hand(defender)[0]
    with pytest.raises(GameError) as refused:
        services.game_apply_action(
            game_id=game.pk, seat=attacker, action={"type": "attack", "cards": [foreign]}
        )
    assert refused.value.code == "card_not_in_hand"
    with pytest.raises(GameError) as refused:
        services.game_apply_action(
            game_id=game.pk,
            seat=defender,
            action={"type": "attack", "cards": [state.hand(defender)[0]]},
        )
    assert refused.value.code == "not_your_turn"


def test_a_stale_version_is_refused(game: Game) -> None:
    attacker = services.load_state(game).attacker
    services.game_apply_action(game_id=game.pk, seat=attacker, action=opening(game), version=0)
    with pytest.raises(StaleVersion) as refused:
        services.game_apply_action(
            game_id=game.pk, seat=attacker, action={"type": "pass"}, version=0
        )
    assert refused.value.code == "stale_version"


def test_a_repeated_client_id_is_answered_again_never_applied_twice(game: Game) -> None:
    attacker = services.load_state(game).attacker
    first = services.game_apply_action(
        game_id=game.pk, seat=attacker, action=opening(game), version=0, client_id="same"
    )
    again = services.game_apply_action(
        game_id=game.pk, seat=attacker, action=opening(game), version=0, client_id="same"
    )
    assert again.duplicate and again.game.version == first.game.version == 1
    assert GameAction.objects.filter(game=game).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_actions_racing_for_one_version_exactly_one_wins(game: Game) -> None:
    state = services.load_state(game)
    choices = engine.legal_actions(state, state.attacker)[:2]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def play(action: engine.Action) -> None:
        barrier.wait()
        try:
            services.game_apply_action(
                game_id=game.pk,
                seat=action.seat,
                action={k: v for k, v in action.to_json().items() if k != "seat"},
                version=0,
            )
            outcomes.append("won")
        except StaleVersion:
            outcomes.append("stale")
        finally:
            close_old_connections()

    threads = [threading.Thread(target=play, args=(a,)) for a in choices]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes) == ["stale", "won"]
    assert GameAction.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).version == 1


def test_the_clock_makes_an_absent_defender_take(game: Game) -> None:
    state = services.load_state(game)
    services.game_apply_action(game_id=game.pk, seat=state.attacker, action=opening(game))
    # when the clock runs out at version 1 (nobody acted since)
    after = services.game_clock_expire(game_id=game.pk, version=1)
    kinds = list(GameAction.objects.filter(game=game).values_list("kind", "action__type"))
    assert kinds[1] == ("clock", "take")
    assert after.version >= 2
    # a late clock job for an old version does nothing
    assert services.game_clock_expire(game_id=game.pk, version=1).version == after.version


def test_referee_controls_need_a_reason_and_are_logged(game: Game, referee: User) -> None:
    with pytest.raises(GameError, match="needs a reason"):
        services.game_pause(game_id=game.pk, reason="  ", referee=referee)
    services.game_pause(game_id=game.pk, reason="спор за столом", referee=referee)
    with pytest.raises(GameNotActive):
        services.game_apply_action(game_id=game.pk, seat=0, action={"type": "take"})
    services.game_resume(game_id=game.pk, reason="разобрались", referee=referee)
    ruled = services.game_adjudicate(
        game_id=game.pk, places=[1, 0], fool=0, reason="игрок ушёл", referee=referee
    )
    assert ruled.status == Game.Status.ADJUDICATED and ruled.seed_revealed
    assert list(RefereeEvent.objects.filter(game=game).values_list("kind", flat=True)) == [
        "pause",
        "resume",
        "adjudicate",
    ]
    with pytest.raises(GameNotActive):
        services.game_void(game_id=game.pk, reason="поздно", referee=referee)


def test_bots_play_a_game_to_the_end_and_the_deal_verifies(db: None) -> None:
    players = PlayerFactory.create_batch(3)
    game = services.game_create(
        rules={"players": 3},
        players=[p.pk for p in players],
        bot_seats={0: "heuristic", 1: "random", 2: "heuristic"},
        seed="bots",
    )
    game = services.game_play_bots(game_id=game.pk, version=0)
    assert game.status == Game.Status.FINISHED and game.seed_revealed
    assert game.version == GameAction.objects.filter(game=game, kind="bot").count()
    check = services.game_verify_deal(game=game)
    assert check["commitment_ok"] and check["replay_ok"]
    assert check["deal"] == engine.deal_from_seed(engine.Rules(players=3), "bots")
