"""The bulk path of a game of bots alone (``automation._play_all_bots``): the rows it writes at
once are the rows the live services write one action at a time, and the deal still verifies."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from games import engine, services
from games.engine.bots import make_bot, play_step
from games.models import Game, GameAction, RefereeEvent
from games.services.automation import MAX_BOT_STEPS, bot_rng
from games.services.play import after_change, load_state, locked_game, log_action, save_state
from tests.factories import PlayerFactory

BOTS = {0: "heuristic", 1: "random", 2: "heuristic", 3: "random"}
#: A colluding pair (issue 24) at seats 0 and 2, colluding in half of their decisions.
COLLUDERS = {0: "collude:0.5:2", 1: "random", 2: "collude:0.5:0", 3: "heuristic"}
#: The fields of a game's row that its play changes or that the bulk path must leave as dealt.
GAME_FIELDS = [
    "version",
    "status",
    "state",
    "result",
    "log_tail",
    "seed",
    "seed_commitment",
    "seed_revealed",
    "players",
    "bot_seats",
    "deadline",
]
ACTION_FIELDS = ["seq", "seat", "action", "kind", "client_id", "user_id"]


def deal(seed: str, bot_seats: dict[int, str] = BOTS) -> Game:
    players = PlayerFactory.create_batch(4)
    return services.game_create(
        rules={"players": 4}, players=[p.pk for p in players], bot_seats=bot_seats, seed=seed
    )


def rows_of(game_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    game = Game.objects.values(*GAME_FIELDS, "finished_at").get(pk=game_id)
    finished = game.pop("finished_at")
    game["finished"] = finished is not None
    actions = list(
        GameAction.objects.filter(game_id=game_id).order_by("seq").values(*ACTION_FIELDS)
    )
    return game, actions


def play_action_by_action(game_id: int) -> None:
    """The same bots, with the generator the job draws at the deal, through the live services:
    one transaction per action (lock, apply and log, save, broadcast and jobs)."""
    dealt = Game.objects.get(pk=game_id)
    bots = {int(seat): make_bot(name) for seat, name in dealt.bot_seats.items()}
    rng = bot_rng(dealt)
    while True:
        with transaction.atomic():
            game = locked_game(game_id)
            state = load_state(game)
            action = None if state.finished else play_step(state, bots, rng)
            if action is None:
                return
            state = log_action(game, state, action, kind=GameAction.Kind.BOT)
            save_state(game, state)
            after_change(game)


@pytest.mark.parametrize("bots", [BOTS, COLLUDERS], ids=["plain", "colluders"])
@pytest.mark.parametrize("seed", ["bulk-1", "bulk-2", "bulk-3"])
def test_a_bulk_played_game_leaves_the_rows_of_the_same_game_played_action_by_action(
    db: None, seed: str, bots: dict[int, str]
) -> None:
    # given: one deal, kept as dealt
    game = deal(seed, bots)
    dealt = Game.objects.filter(pk=game.pk).values(*GAME_FIELDS, "finished_at").get()
    # when: the bot job plays it (the bulk path: every seat is a bot's) ...
    services.game_play_bots(game_id=game.pk, version=0)
    bulk = rows_of(game.pk)
    # ... and the same deal is played again, one action at a time
    GameAction.objects.filter(game_id=game.pk).delete()
    Game.objects.filter(pk=game.pk).update(**dealt)
    play_action_by_action(game.pk)
    live = rows_of(game.pk)
    # then
    assert bulk[0]["status"] == Game.Status.FINISHED and bulk[0]["finished"]
    assert len(bulk[1]) == bulk[0]["version"] > 10
    assert bulk == live


def test_a_bulk_played_game_keeps_one_time_per_move_and_its_deal_verifies(db: None) -> None:
    # given
    game = deal("bulk-verify")
    # when
    game = services.game_play_bots(game_id=game.pk, version=0)
    # then
    assert game.status == Game.Status.FINISHED and game.seed_revealed
    times = set(GameAction.objects.filter(game=game).values_list("created_at", flat=True))
    assert len(times) == 1 and None not in times
    check = services.game_verify_deal(game=game)
    assert check["commitment_ok"] and check["replay_ok"]
    assert check["deal"] == engine.deal_from_seed(engine.Rules(players=4), "bulk-verify")


def test_a_game_with_a_person_seated_stops_at_the_persons_move(db: None) -> None:
    # given: seat 0 is a person's, and the deal has the person wait for the bots' moves or not
    game = deal("bulk-person", bot_seats={1: "heuristic", 2: "random", 3: "heuristic"})
    # when
    game = services.game_play_bots(game_id=game.pk, version=0)
    # then: not played to the end by the bots
    assert game.status == Game.Status.ACTIVE
    assert GameAction.objects.filter(game=game).count() == game.version


#: A deal its heuristic bots play for ever (found in a benchmark's event): with the stock gone,
#: three players pass the same cards round, each taking what it cannot beat.
CYCLING_SEED = "7d25e6466f954eb3e86e5a09156dc11e"
CYCLING_SETUP = {"attacker": 1, "pogony_rank": "6"}


def test_a_game_of_bots_alone_that_cycles_is_voided_at_the_bound(db: None) -> None:
    # given: the deal, every seat a heuristic bot's
    players = PlayerFactory.create_batch(4)
    game = services.game_create(
        rules={"players": 4},
        players=[p.pk for p in players],
        bot_seats=dict.fromkeys(range(4), "heuristic"),
        seed=CYCLING_SEED,
        setup=CYCLING_SETUP,
    )
    # when: the bot job plays it
    game = services.game_play_bots(game_id=game.pk, version=0)
    # then: it stops at the bound, every move logged, and the game is voided by the service
    # with its reason (its table deals a new one), the seed revealed
    assert game.status == Game.Status.VOIDED and game.seed_revealed
    assert game.version == MAX_BOT_STEPS == GameAction.objects.filter(game=game).count()
    (event,) = RefereeEvent.objects.filter(game=game)
    assert event.kind == RefereeEvent.Kind.VOID and event.referee is None
    assert f"{MAX_BOT_STEPS} moves without an end" in event.reason
    # and a later job leaves it alone
    assert services.game_play_bots(game_id=game.pk).version == MAX_BOT_STEPS
