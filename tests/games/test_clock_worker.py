"""The move clock needs no ASGI process: the real Celery worker runs it.

(On the embedded defaults the clock's delayed job runs on a timer thread instead, see
``durak_site/jobs.py``; this test needs the real worker and is skipped there.)
"""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from games import engine, services
from games.models import Game, GameAction
from tournaments.models import Player

pytestmark = [pytest.mark.real_stack, pytest.mark.django_db(transaction=True)]


@pytest.mark.usefixtures("celery_worker")
def test_the_worker_makes_an_absent_defender_take_without_any_server(
    players: list[Player],
) -> None:
    # One transaction: the clock job of the deal (version 0) then finds the game moved on.
    with transaction.atomic():
        game = services.game_create(
            rules={"deck_size": 36}, players=[p.pk for p in players], clock_seconds=1
        )
        state = services.load_state(game)
        attacker, defender = state.attacker, state.defender
        opening = engine.legal_actions(state, attacker)[0].to_json()
        del opening["seat"]
        # when the attacker opens through the service (no socket, no ASGI server running)
        services.game_apply_action(
            game_id=game.pk,
            seat=attacker,
            action=opening,
            version=0,
            client_id="open",
            user=players[attacker].user,
        )
    # then, with no further call, the worker's clock job makes the absent defender take
    deadline = time.monotonic() + 10
    while not GameAction.objects.filter(game=game, kind=GameAction.Kind.CLOCK).exists():
        assert time.monotonic() < deadline, "the clock did not act within 10 s"
        time.sleep(0.1)
    logged = list(GameAction.objects.filter(game=game).order_by("seq"))
    assert [(a.seq, a.kind, a.seat, a.action["type"]) for a in logged[:2]] == [
        (1, GameAction.Kind.PLAYER, attacker, "attack"),
        (2, GameAction.Kind.CLOCK, defender, "take"),
    ]
    game.refresh_from_db()
    assert game.version >= 2 and game.status == Game.Status.ACTIVE
