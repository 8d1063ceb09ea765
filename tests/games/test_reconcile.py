"""The games layer's part of the reconciler (``games.reconcile``): games the server must move and
nobody is moving, found only once they have waited past the grace, then moved by the job sent.

The test database runs each test in a transaction, so the jobs a service asks for after commit
are never sent: every job here is a lost one, as after a worker was killed.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from durak_site import jobs
from durak_site.jobs import Due
from games import reconcile
from games import services as game_services
from games.engine import GameState
from games.engine.bots import acting_seat
from games.models import Game, GameAction
from tests.builders import GAME_SEED
from tests.factories import BotPlayerFactory
from tournaments.models import Player

pytestmark = pytest.mark.django_db


def bots_game(seats: dict[int, str] | None = None, players: list[Player] | None = None) -> Game:
    """A dealt two-seat game whose bots (every seat unless ``seats``) have not moved."""
    field = players or BotPlayerFactory.create_batch(2)
    return game_services.game_create(
        rules={},
        players=[p.pk for p in field],
        bot_seats=seats if seats is not None else {0: "heuristic", 1: "heuristic"},
        seed=GAME_SEED,
    )


def found(game: Game, *, after: timedelta = timedelta(seconds=1)) -> list[Due]:
    """The due items of ``game`` when the reconciler looks ``after`` its last change."""
    cutoff = timezone.now() + after - jobs.GRACE
    return [d for d in reconcile.due_jobs(cutoff=cutoff) if d.args[0] == game.pk]


def test_a_game_of_bots_that_nobody_moves_is_found_once_the_grace_has_passed() -> None:
    game = bots_game()
    # within the grace the job the game asked for is taken to be on its way
    assert found(game, after=timedelta(0)) == []
    # past it, the bots' job is sent again, at the game's version
    (due,) = found(game, after=jobs.GRACE + timedelta(seconds=1))
    assert (due.task, due.args) == ("games.game_play_bots", (game.pk, 0))


def test_the_job_found_plays_the_game(eager_jobs: None) -> None:
    game = bots_game()
    due = found(game, after=jobs.GRACE + timedelta(seconds=1))
    # when the reconciler sends it
    assert jobs.enqueue_due(due) == due
    # then the bots play the game to its end, and nothing more is due
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.version > 0
    assert found(game, after=jobs.GRACE + timedelta(seconds=1)) == []


def test_a_game_that_moved_a_moment_ago_is_left_to_its_job(players: list[Player]) -> None:
    game = bots_game()
    game_services.game_play_bots(game_id=game.pk)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED  # bots only: one job plays it through
    # a game of a person and a bot, where the bot has just moved
    mixed = bots_game({0: "heuristic"}, [*BotPlayerFactory.create_batch(1), players[0]])
    GameAction.objects.create(game=mixed, seq=1, seat=0, action={}, kind=GameAction.Kind.BOT)
    assert found(mixed, after=timedelta(0)) == []


@pytest.mark.parametrize("bot_acts", [True, False], ids=["bot-to-move", "person-to-move"])
def test_in_a_game_with_a_person_only_a_bots_turn_is_due(
    players: list[Player], bot_acts: bool
) -> None:
    # given a game of a bot and a person, where the attacker (who moves first) is one or the other
    probe = bots_game({}, [BotPlayerFactory.create(), players[0]])
    attacker = acting_seat(GameState.from_dict(probe.state))
    assert attacker is not None
    bot_seat = attacker if bot_acts else 1 - attacker
    game = bots_game({bot_seat: "heuristic"}, [BotPlayerFactory.create(), players[1]])
    # when nobody has moved past the grace
    due = found(game, after=jobs.GRACE + timedelta(seconds=1))
    # then the bot is due only when it is its move (a person's move waits for the person)
    assert [d.task for d in due] == (["games.game_play_bots"] if bot_acts else [])


def test_a_clock_past_its_deadline_is_found_and_acts(game: Game, eager_jobs: None) -> None:
    # given a game whose move clock ran out and whose clock job was lost
    Game.objects.filter(pk=game.pk).update(
        clock_seconds=30, deadline=timezone.now() - timedelta(seconds=1)
    )
    assert found(game, after=timedelta(0)) == []  # within the grace: the clock job is due now
    (due,) = found(game, after=jobs.GRACE)
    assert (due.task, due.args) == ("games.game_clock_expire", (game.pk, 0))
    # when it is sent, the clock acts for the absent attacker and arms a new deadline
    jobs.enqueue_due([due])
    game.refresh_from_db()
    assert game.version == 1 and game.deadline is not None and game.deadline > timezone.now()
    assert GameAction.objects.get(game=game).kind == GameAction.Kind.CLOCK


@pytest.mark.parametrize("status", [Game.Status.PAUSED, Game.Status.FINISHED, Game.Status.VOIDED])
def test_games_not_in_play_are_never_due(status: str) -> None:
    game = bots_game()
    Game.objects.filter(pk=game.pk).update(
        status=status, deadline=timezone.now() - timedelta(hours=1)
    )
    assert found(game, after=timedelta(hours=1)) == []


def test_the_seating_layer_scopes_the_games_to_its_tables() -> None:
    game = bots_game()  # no table
    cutoff = timezone.now() + timedelta(hours=1)
    assert [d.args[0] for d in reconcile.due_jobs(cutoff=cutoff)] == [game.pk]
    assert reconcile.due_jobs(cutoff=cutoff, tables=[]) == reconcile.due_jobs(cutoff=cutoff)
    assert reconcile.due_jobs(cutoff=cutoff, tables=[], tableless=False) == []
