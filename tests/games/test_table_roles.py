"""Who a socket is at a table, where the roles could be confused.

- A player's seat stays theirs: another event's organiser cannot take the player's account link
  in the console, so its socket is a spectator's and the player's socket keeps the seat, the
  hand and the legal moves.
- A player of an event is never its referee at a table (``permissions.can_see_hands``), even one
  assigned as referee before these rules (registration and assignment now refuse it): at their
  own table they are the player, at another a spectator (a private event's too: its players
  read it), and the referee's commands are refused to them.
"""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from games.models import Game
from tests.builders import ConsoleEvent, make_tournament
from tests.factories import PlayerFactory, referee_user
from tests.games.test_table_socket import open_socket
from tournaments import services
from tournaments.models import Player, Seat, Table, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def _takeover_attempt(event: ConsoleEvent, intruder: User) -> tuple[int, Player, int]:
    """The defect's steps: ``intruder`` posts the change form of a player seated at ``event``'s
    playing table with its own account. (the table, the player, the answer's status)"""
    table = Table.objects.get(round=event.round, status=Table.Status.PLAYING)
    seat = Seat.objects.select_related("player").filter(table=table).first()
    assert seat is not None and seat.player is not None
    player = seat.player
    client = Client()
    client.force_login(intruder)
    response = client.post(
        reverse("admin:tournaments_player_change", args=[player.pk]),
        {
            "display_name": player.display_name,
            "club": player.club,
            "city": player.city,
            "user": intruder.pk,
        },
    )
    return table.pk, player, response.status_code


async def test_the_players_seat_stays_theirs_after_another_organisers_attempt(
    console_events: tuple[ConsoleEvent, ConsoleEvent], other_organiser: User
) -> None:
    # given B's organiser tried to relink a player seated in A
    table, player, status = await database_sync_to_async(_takeover_attempt)(
        console_events[0], other_organiser
    )
    assert status == 404
    owner = await database_sync_to_async(lambda: Player.objects.get(pk=player.pk).user)()
    assert owner is not None and owner != other_organiser

    # when both connect to the player's table
    intruder = await open_socket(table, other_organiser)
    real = await open_socket(table, owner)
    seen, mine = (
        await intruder.receive_json_from(timeout=5),
        await real.receive_json_from(timeout=5),
    )

    # then the intruder is a spectator; the player keeps its seat, hand and moves
    assert (seen["role"], seen["seat"], seen["view"]["hand"], seen["legal"]) == (
        "spectator",
        None,
        None,
        [],
    )
    assert mine["role"] == "player" and mine["seat"] is not None
    assert mine["view"]["hand"] and "hands" not in mine["view"]
    for sock in (intruder, real):
        await sock.disconnect()


def _event_with_a_seated_referee(*, is_public: bool) -> tuple[User, int, int, int]:
    """A running four-player event of two-seat tables in which one player's user was made a
    referee of the event behind the services' back (data from before the rule). (that user,
    its table, the other table, a player at the other table)"""
    seated_referee = referee_user("seated-referee")
    players = [PlayerFactory.create(user=seated_referee), *PlayerFactory.create_batch(3)]
    tournament = make_tournament(
        players,
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        rules={"deck_size": 24},
        is_public=is_public,
        entry_fee="0",
    )
    Tournament.referees.through.objects.create(tournament=tournament, user=seated_referee)
    services.tournament_start(tournament=tournament)
    own = Table.objects.get(round__stage__tournament=tournament, seats__player=players[0])
    other = Table.objects.filter(round__stage__tournament=tournament).exclude(pk=own.pk).get()
    assert Game.objects.filter(table__in=[own, other]).count() == 2
    across = Seat.objects.filter(table=other).values_list("player__user_id", flat=True).first()
    assert across is not None
    return seated_referee, own.pk, other.pk, across


@pytest.mark.usefixtures("eager_jobs")
async def test_a_seated_referee_never_gets_the_referees_view_in_its_event() -> None:
    user, own, other, _ = await database_sync_to_async(_event_with_a_seated_referee)(is_public=True)
    # at its own table: the player
    at_own = await open_socket(own, user)
    mine: dict[str, Any] = await at_own.receive_json_from(timeout=5)
    assert mine["role"] == "player" and "hands" not in mine["view"]
    # at the other table: a spectator, no hand seen, no command taken
    at_other = await open_socket(other, user)
    seen: dict[str, Any] = await at_other.receive_json_from(timeout=5)
    assert (seen["role"], seen["view"]["hand"]) == ("spectator", None)
    assert "hands" not in seen["view"]
    for sock in (at_own, at_other):
        await sock.send_json_to({"type": "referee", "id": "r", "command": "pause", "reason": "x"})
        assert (await sock.receive_json_from(timeout=5))["code"] == "forbidden"
        await sock.disconnect()


@pytest.mark.usefixtures("eager_jobs")
async def test_a_seated_referee_of_a_private_event_is_a_spectator_at_the_other_tables() -> None:
    user, own, other, _ = await database_sync_to_async(_event_with_a_seated_referee)(
        is_public=False
    )
    # a player of the private event watches its other tables as any of its players does
    # (``tournaments.tables``): no hand seen
    at_other = await open_socket(other, user)
    seen: dict[str, Any] = await at_other.receive_json_from(timeout=5)
    assert (seen["role"], seen["view"]["hand"]) == ("spectator", None)
    assert "hands" not in seen["view"]
    await at_other.disconnect()
    at_own = await open_socket(own, user)
    assert (await at_own.receive_json_from(timeout=5))["role"] == "player"
    await at_own.disconnect()
