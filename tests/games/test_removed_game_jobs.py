"""A game's jobs outlive the game when its table is dealt again before they run (a seat swap, a
round paired again after a correction): they find nothing to do instead of failing (a failed
job is logged and retried by the reconciler every minute, for a game that will never come
back)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from durak_site.errors import NotFound
from games import tasks as game_tasks
from games.models import Game
from games.services import game_adjudicate, game_play_bots
from tests.builders import make_tournament
from tournaments import services
from tournaments.errors import StateError
from tournaments.models import Player, Round, Seat, Table
from tournaments.services.results import table_after_game


@pytest.mark.django_db  # on_commit never fires here: the test runs the jobs itself
def test_the_jobs_of_a_game_a_seat_swap_removed_do_nothing(
    bot_players: list[Player], referee: User
) -> None:
    # given a bots' round paired, the bots' jobs not run yet
    tournament = make_tournament(
        bot_players[:4], stages=[{"format": "swiss", "table_size": 2, "rounds": 2}]
    )
    tournament.referees.add(referee)
    services.tournament_start(tournament=tournament)
    round_1 = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_1.pk)
    first, second = Table.objects.filter(round=round_1).order_by("number")
    old = Game.objects.get(table=first)
    # when a referee swaps two seats: both tables are dealt again
    services.seats_swap(
        first=Seat.objects.get(table=first, position=0),
        second=Seat.objects.get(table=second, position=0),
        actor=referee,
        reason="просьба судьи",
    )
    assert not Game.objects.filter(pk=old.pk).exists()
    # then the removed game's jobs, run late, do nothing and do not fail
    assert game_tasks.game_play_bots.apply(args=(old.pk, 0), throw=True).get() == game_tasks.GONE
    assert game_tasks.game_clock_expire.apply(args=(old.pk, 0), throw=True).get() == game_tasks.GONE
    # while the service itself still refuses a game that does not exist
    with pytest.raises(NotFound):
        game_play_bots(game_id=old.pk)
    # and the new game's job plays it
    new = Game.objects.get(table=first)
    assert game_tasks.game_play_bots.apply(args=(new.pk, 0), throw=True).get() > 0


@pytest.mark.django_db
def test_a_ruling_before_any_move_is_play_begun_and_a_removed_game_is_not_recorded(
    bot_players: list[Player], referee: User
) -> None:
    tournament = make_tournament(
        bot_players[:4], stages=[{"format": "swiss", "table_size": 2, "rounds": 2}]
    )
    tournament.referees.add(referee)
    services.tournament_start(tournament=tournament)
    round_1 = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_1.pk)
    first, second = Table.objects.filter(round=round_1).order_by("number")
    game = Game.objects.get(table=first)
    # given a referee ruled on a game before anyone moved (a dropout, an adjudicated draw)
    game_adjudicate(game_id=game.pk, places=[0, 1], fool=None, reason="ничья", referee=referee)
    # then its table's seats stay: the swap would erase the ruling
    with pytest.raises(StateError, match="play has begun"):
        services.seats_swap(
            first=Seat.objects.get(table=first, position=0),
            second=Seat.objects.get(table=second, position=0),
            actor=referee,
            reason="просьба судьи",
        )
    # and a finished game's job that finds the game removed records nothing
    Game.objects.filter(pk=game.pk).delete()
    assert table_after_game(game_id=game.pk) == "the game was removed"
