"""Bots for absent players as an event's setting, and "play to the end" (issue #21):
``tournaments.services.automation`` over ``games.services.stand_ins``.

Time is never waited for: a turn's start is moved into the past (the game's deal, as the clock's
tests move its deadline), and presence is marked in the cache as a live socket marks it. Without
``transaction=True`` no job runs (nothing commits): each test calls the job's service itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.core.cache import cache, caches
from django.core.cache.backends import locmem
from django.utils import timezone

from durak_site.errors import Forbidden
from games import presence
from games import reconcile as games_reconcile
from games import services as game_services
from games.engine.bots import acting_seat
from games.models import Game
from tests.builders import LiveTable, make_tournament
from tests.factories import PlayerFactory
from tests.games.test_table_socket import open_socket
from tournaments import reconcile, services
from tournaments.errors import ConfigurationError, StateError
from tournaments.models import AuditEvent, Round, Seat, Table, Tournament

SECONDS = 20
TWO_ROUNDS = [{"format": "swiss", "table_size": 2, "rounds": 2}]


@pytest.fixture(autouse=True)
def _no_one_connected() -> Iterator[None]:
    """Presence lives in the cache, which outlives a test: each starts with nobody at a table
    (the local memory cache is emptied; a shared Redis is left alone, each test removing the
    marks it made)."""
    local = isinstance(caches["default"], locmem.LocMemCache)
    if local:
        cache.clear()
    yield
    if local:
        cache.clear()


def started(organiser: User, players: int = 2, **settings: Any) -> Tournament:
    """A running swiss of ``players`` people at 2-seat tables, round 1 seated."""
    tournament = make_tournament(
        PlayerFactory.create_batch(players),
        stages=TWO_ROUNDS,
        rules={"deck_size": 24},
        entry_fee="0",
        created_by=organiser,
        **settings,
    )
    services.tournament_start(tournament=tournament, actor=organiser)
    first = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=first.pk)  # the job the start requested
    return Tournament.objects.get(pk=tournament.pk)


def the_game(tournament: Tournament) -> Game:
    return Game.objects.filter(table__round__stage__tournament=tournament).earliest("pk")


def turn_began(game: Game, seconds_ago: float) -> Game:
    """The game was dealt ``seconds_ago`` (nobody has moved: its turn began then)."""
    Game.objects.filter(pk=game.pk).update(
        created_at=timezone.now() - timedelta(seconds=seconds_ago)
    )
    return Game.objects.get(pk=game.pk)


def check(game: Game) -> Game:
    """The stand-in job at the game's current version."""
    current = Game.objects.get(pk=game.pk)
    return game_services.game_absent_check(game_id=game.pk, version=current.version)


def acting_player(game: Game) -> tuple[int, int]:
    seat = acting_seat(game_services.load_state(game))
    assert seat is not None
    return seat, game.players[seat]


def stood_in(tournament: Tournament) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(tournament=tournament, action=AuditEvent.Action.SEAT_BOT))


# --- absent on their turn ---------------------------------------------------------------------


@pytest.mark.django_db
def test_an_absent_player_s_seat_goes_to_a_bot_after_the_seconds_set(organiser: User) -> None:
    # given an event whose bots play for players absent 20 s on their turn, nobody connected
    tournament = started(organiser, absent_bots="absent", absent_bots_seconds=SECONDS)
    game = the_game(tournament)
    assert game.absent_after == SECONDS
    seat, player = acting_player(game)
    # when the check comes before the 20 s are up, nothing changes
    assert check(game).bot_seats == {}
    # when the turn has lasted 21 s
    game = check(turn_began(game, SECONDS + 1))
    # then a bot stands in for that seat (the other seat's player is not on turn: left alone)
    assert game.bot_seats == {str(seat): "heuristic"}
    assert game.stand_ins == [seat]
    # and the handover is in the audit log, in the system's name, with its reason
    [row] = stood_in(tournament)
    assert row.actor is None and row.actor_name == "system"
    assert row.reason == "absent 20 seconds on their turn"
    assert row.before == {
        "seat": Seat.objects.get(table=game.table, player=player).position,
        "player": Seat.objects.get(table=game.table, player=player).player.display_name,
        "game": 1,
    }
    # and the job run twice does nothing more
    check(game)
    assert len(stood_in(tournament)) == 1


@pytest.mark.django_db
def test_a_present_player_keeps_their_seat(organiser: User) -> None:
    tournament = started(organiser, absent_bots="absent", absent_bots_seconds=SECONDS)
    game = turn_began(the_game(tournament), SECONDS + 5)
    _seat, player = acting_player(game)
    assert game.table_id is not None
    presence.seat_joined(game.table_id, player, "specific.player!1")
    assert check(game).bot_seats == {}
    assert stood_in(tournament) == []
    # nor does the reconciler find work there
    cutoff = timezone.now()
    assert games_reconcile.due_jobs(cutoff=cutoff, tables=[game.table_id]) == []
    # once the socket closes, the reconciler finds the seat left empty
    presence.seat_left(game.table_id, "specific.player!1")
    due = games_reconcile.due_jobs(cutoff=cutoff, tables=[game.table_id])
    assert [(d.task, d.args) for d in due] == [("games.game_absent_check", (game.pk, 0))]


@pytest.mark.django_db
def test_a_returning_player_takes_their_seat_back(organiser: User) -> None:
    tournament = started(organiser, absent_bots="absent", absent_bots_seconds=SECONDS)
    game = check(turn_began(the_game(tournament), SECONDS + 1))
    seat, player = acting_player(game)
    assert game.stand_ins == [seat] and game.table_id is not None
    # when the player's socket connects again (the consumer's connect calls this)
    back = game_services.table_seat_return(table_id=game.table_id, player_id=player)
    # then the bot stops before the seat's next move
    assert back is not None
    game.refresh_from_db()
    assert game.bot_seats == {} and game.stand_ins == []
    [row] = AuditEvent.objects.filter(tournament=tournament, action=AuditEvent.Action.SEAT_RETURN)
    assert row.actor is None and row.reason == "back at the table"
    # a player no bot stands in for has nothing to take back
    assert game_services.table_seat_return(table_id=game.table_id, player_id=player) is None


@pytest.mark.django_db
def test_a_seat_a_referee_handed_to_a_bot_is_not_given_back(
    organiser: User, event_referee: User
) -> None:
    tournament = started(organiser, absent_bots="absent", absent_bots_seconds=SECONDS)
    tournament.referees.add(event_referee)
    game = the_game(tournament)
    seat = Seat.objects.filter(table=game.table).earliest("position")
    services.seats_hand_to_bots(seats=[seat], actor=event_referee, reason="ушёл")
    assert game.table_id is not None
    assert game_services.table_seat_return(table_id=game.table_id, player_id=seat.player_id) is None
    assert Game.objects.get(pk=game.pk).bot_seats == {
        str(game.players.index(seat.player_id)): "heuristic"
    }


@pytest.mark.django_db
def test_every_empty_seat_goes_to_a_bot_from_the_first_move(organiser: User) -> None:
    tournament = started(organiser, absent_bots="empty")
    game = the_game(tournament)
    table = game.table_id
    assert game.absent_after == 0 and table is not None
    # one player is at the table, the other is not (off turn or on turn alike)
    here, away = game.players
    presence.seat_joined(table, here, "specific.here!1")
    game = check(game)
    assert game.bot_seats == {"1": "heuristic"} and game.stand_ins == [1]
    [row] = stood_in(tournament)
    assert row.reason == "not connected to the table"
    name = Seat.objects.get(table=game.table, player=away).player.display_name
    assert row.before == {"seat": 1, "player": name, "game": 1}
    presence.seat_left(table, "specific.here!1")


@pytest.mark.django_db(transaction=True)
async def test_a_player_whose_socket_connects_takes_the_seat_back(live_table: LiveTable) -> None:
    # given a bot standing in for the attacker of a live table, absent 20 s on their turn
    game = live_table.game
    await database_sync_to_async(stand_in_for_the_attacker)(game)
    attacker = live_table.users[game.state["attacker"]]
    # when the attacker opens the table's socket again
    comm = await open_socket(live_table.table.pk, attacker)
    await comm.receive_json_from(timeout=5)
    # then the seat is theirs again, and the table is told
    game = await Game.objects.aget(pk=game.pk)
    assert game.stand_ins == []
    assert str(game.state["attacker"]) not in game.bot_seats
    await comm.disconnect()


def stand_in_for_the_attacker(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(absent_after=SECONDS)
    check(turn_began(game, SECONDS + 1))
    assert Game.objects.get(pk=game.pk).stand_ins


# --- the setting: every table of the event, changeable while it runs ----------------------------


@pytest.mark.django_db
def test_the_setting_reaches_the_next_round_s_tables_without_any_action(organiser: User) -> None:
    # given a running event without bots for absent players
    tournament = started(organiser, players=4)
    first = Round.objects.get(stage__tournament=tournament, number=1)
    assert set(Game.objects.filter(table__round=first).values_list("absent_after", flat=True)) == {
        None
    }
    # when its organiser turns them on while it runs (a setting safe to change then)
    services.tournament_update(
        tournament=tournament, actor=organiser, absent_bots="absent", absent_bots_seconds=15
    )
    # then the change is audited with its values before and after
    edit = AuditEvent.objects.get(tournament=tournament, action=AuditEvent.Action.TOURNAMENT_EDIT)
    assert edit.actor == organiser
    assert edit.before == {"absent_bots": "off", "absent_bots_seconds": 30}
    assert edit.after == {"absent_bots": "absent", "absent_bots_seconds": 15}
    # and the games in play follow it (the job that follows the commit)
    services.tournament_bots_apply(tournament_id=tournament.pk)
    assert set(Game.objects.filter(table__round=first).values_list("absent_after", flat=True)) == {
        15
    }
    # and the next round is dealt with it, nobody asking
    for table in first.tables.all():
        seated = list(table.seats.order_by("position").values_list("entry_id", flat=True))
        services.table_record_result(table=table, places=seated, fool=seated[-1], source="bot")
    services.round_complete(round_id=first.pk)
    second = Round.objects.get(stage__tournament=tournament, number=2)
    services.round_pair(round_id=second.pk)
    dealt = Game.objects.filter(table__round=second)
    assert dealt.count() == 2
    assert set(dealt.values_list("absent_after", flat=True)) == {15}


@pytest.mark.django_db
def test_only_the_bots_setting_changes_while_the_event_runs(organiser: User) -> None:
    tournament = started(organiser)
    with pytest.raises(StateError):
        services.tournament_update(tournament=tournament, actor=organiser, entry_fee="10")
    with pytest.raises(ConfigurationError):
        services.tournament_update(tournament=tournament, actor=organiser, absent_bots="often")
    with pytest.raises(ConfigurationError):
        services.tournament_update(tournament=tournament, actor=organiser, absent_bots_seconds=0)
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.TOURNAMENT_EDIT).exists()


# --- play to the end ----------------------------------------------------------------------------


def test_a_referee_who_is_not_the_organiser_cannot_play_it_to_the_end(
    db: None, organiser: User, event_referee: User
) -> None:
    tournament = started(organiser)
    tournament.referees.add(event_referee)
    with pytest.raises(Forbidden):
        services.tournament_play_to_end(
            tournament=tournament, actor=event_referee, reason="демонстрация"
        )
    with pytest.raises(StateError):
        services.tournament_play_to_end(tournament=tournament, actor=organiser, reason=" ")
    assert Tournament.objects.get(pk=tournament.pk).absent_bots == "off"


@pytest.mark.django_db
def test_play_to_the_end_hands_the_seats_in_play_and_every_later_one(organiser: User) -> None:
    tournament = started(organiser, players=4)
    services.tournament_play_to_end(tournament=tournament, actor=organiser, reason="демонстрация")
    assert Tournament.objects.get(pk=tournament.pk).absent_bots == "all"
    edit = AuditEvent.objects.get(tournament=tournament, action=AuditEvent.Action.TOURNAMENT_EDIT)
    assert (edit.actor, edit.reason, edit.after) == (
        organiser,
        "демонстрация",
        {"absent_bots": "all"},
    )
    # the job after the commit (and the reconciler, until it has run) hands the seats in play
    assert [
        d.task for d in reconcile.due_jobs(grace=timedelta(0), tournament_id=tournament.pk)
    ] == ["tournaments.tournament_bots_apply"]
    assert services.tournament_bots_apply(tournament_id=tournament.pk) == 4
    assert services.tournament_bots_apply(tournament_id=tournament.pk) == 0  # twice: nothing
    assert set(Seat.objects.filter(table__round__number=1).values_list("bot_kind", flat=True)) == {
        "heuristic"
    }
    for game in Game.objects.filter(table__round__stage__tournament=tournament):
        assert set(game.bot_seats) == {"0", "1"}
    assert len(stood_in(tournament)) == 4
    with pytest.raises(StateError):  # once is enough
        services.tournament_play_to_end(tournament=tournament, actor=organiser, reason="ещё")


@pytest.mark.django_db(transaction=True)
def test_play_to_the_end_finishes_a_two_stage_event(organiser: User, eager_jobs: None) -> None:
    # given a running swiss then knockout of eight people, round 1 seated, nobody moving
    tournament = make_tournament(
        PlayerFactory.create_batch(8),
        stages=[
            {"format": "swiss", "table_size": 4, "rounds": 1, "advance": {"top": 4}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
        created_by=organiser,
    )
    services.tournament_start(tournament=tournament, actor=organiser)
    assert Table.objects.filter(round__stage__tournament=tournament).count() == 2
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING
    # when its organiser has bots play it to the end (one action)
    services.tournament_play_to_end(tournament=tournament, actor=organiser, reason="демо")
    # then the in-process jobs played both stages to the end
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.stages.get(format="knockout").rounds.get().tables.get().results.exists()
    # every seat went to a bot once: the swiss's 8 now, the final's 4 as it was seated
    assert len(stood_in(tournament)) == 12


@pytest.mark.django_db(transaction=True)
def test_an_event_nobody_attends_plays_itself_with_every_empty_seat_to_bots(
    organiser: User, eager_jobs: None
) -> None:
    # given an event whose bots play every empty seat, and nobody at any table
    tournament = make_tournament(
        PlayerFactory.create_batch(4),
        stages=TWO_ROUNDS,
        rules={"deck_size": 24},
        created_by=organiser,
        absent_bots="empty",
    )
    # when it starts, and nobody acts again
    services.tournament_start(tournament=tournament, actor=organiser)
    # then both rounds are played by stand-ins to the end
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    games = Game.objects.filter(table__round__stage__tournament=tournament)
    assert games.count() == 4
    assert all(sorted(game.stand_ins) == [0, 1] for game in games)
    # each stand-in recorded: two seats at each of four tables
    assert len(stood_in(tournament)) == 8


@pytest.mark.django_db
def test_a_delay_the_move_clock_always_beats_is_refused_at_its_field(organiser: User) -> None:
    tournament = started(organiser)
    Tournament.objects.filter(pk=tournament.pk).update(move_clock_seconds=30)
    tournament.refresh_from_db()
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_update(
            tournament=tournament, actor=organiser, absent_bots="absent", absent_bots_seconds=30
        )
    assert refused.value.fields == {
        "absent_bots_seconds": ["must be shorter than the move clock (30 s): the clock moves first"]
    }
    services.tournament_update(
        tournament=tournament, actor=organiser, absent_bots="absent", absent_bots_seconds=20
    )


@pytest.mark.real_stack
@pytest.mark.django_db(transaction=True)
def test_play_to_the_end_finishes_on_a_real_worker(organiser: User, celery_worker: None) -> None:
    # given a running two-stage event of people whose jobs go through Redis to a worker process
    tournament = make_tournament(
        PlayerFactory.create_batch(8),
        stages=[
            {"format": "swiss", "table_size": 4, "rounds": 1, "advance": {"top": 4}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
        created_by=organiser,
    )
    services.tournament_start(tournament=tournament, actor=organiser)
    deadline = time.monotonic() + 120
    tables = Table.objects.filter(round__stage__tournament=tournament)
    while tables.count() < 2 and time.monotonic() < deadline:
        time.sleep(0.25)  # the worker pairs round 1
    assert tables.count() == 2
    # when its organiser has bots play it to the end
    services.tournament_play_to_end(tournament=tournament, actor=organiser, reason="демо")
    # then the worker plays both stages to the end
    while time.monotonic() < deadline:
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        time.sleep(0.5)
    assert tournament.status == Tournament.Status.FINISHED, reconcile.unfinished_work(tournament)
    assert len(stood_in(tournament)) == 12
