"""A referee's state tells which seats' entries have left the event (``state.seat_status``), so
that the ruling's choices mark them (issue 21); players and spectators are not sent it."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User

from games.errors import GameError
from games.models import Game
from games.services import game_adjudicate
from tests.builders import LiveTable
from tests.games.test_table_socket import open_socket
from tournaments.models import Entry, Seat

pytestmark = pytest.mark.django_db(transaction=True)


def leave(live: LiveTable, seat: int, status: str) -> None:
    """The entry of the player of game seat ``seat`` withdraws or is disqualified."""
    entry_id = Seat.objects.get(table=live.table, player=live.players[seat]).entry_id
    Entry.objects.filter(pk=entry_id).update(status=status)


@pytest.mark.parametrize("status", [Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED])
async def test_a_referee_is_told_which_seats_entry_has_left(
    live_table: LiveTable, referee: User, status: str
) -> None:
    # given: the entry of the player of seat 1 has left the event
    await database_sync_to_async(leave)(live_table, 1, status)
    # when: the referee, a player and a spectator connect
    judge = await open_socket(live_table.table.pk, referee)
    player = await open_socket(live_table.table.pk, live_table.user_at(0))
    spectator = await open_socket(live_table.table.pk)
    states = [await sock.receive_json_from(timeout=5) for sock in (judge, player, spectator)]
    # then: the referee's state names it by seat, "" for the one still in; no one else's does
    assert states[0]["role"] == "referee" and states[0]["seat_status"] == ["", status]
    assert all("seat_status" not in s for s in states[1:])
    for sock in (judge, player, spectator):
        await sock.disconnect()


async def test_every_seat_is_present_while_no_entry_has_left(
    live_table: LiveTable, referee: User
) -> None:
    judge = await open_socket(live_table.table.pk, referee)
    state = await judge.receive_json_from(timeout=5)
    assert state["seat_status"] == ["", ""]
    await judge.disconnect()


# --- the ruling refuses one who left above one who stayed ---------------------------------------


@pytest.mark.parametrize("status", [Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED])
def test_a_ruling_places_a_seat_that_left_below_every_seat_still_in(
    live_table: LiveTable, referee: User, status: str
) -> None:
    # given: the entry of the player of seat 0 has left the event mid-game
    leave(live_table, 0, status)
    game_id = live_table.game.pk
    # when: the referee rules that seat first (the one still in the fool), it is refused
    with pytest.raises(GameError) as refused:
        game_adjudicate(game_id=game_id, places=[0, 1], fool=1, reason="?", referee=referee)
    assert refused.value.code == "left_above_present"
    assert live_table.players[0].display_name in refused.value.message
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE  # nothing written
    # then: the same seat last (the fool) is the ruling
    ruled = game_adjudicate(game_id=game_id, places=[1, 0], fool=0, reason="ушёл", referee=referee)
    assert ruled.status == Game.Status.ADJUDICATED
    assert ruled.result is not None and ruled.result["places"] == [1, 0]
