"""A referee's state tells which seats' entries have left the event (``state.seat_status``), so
that the ruling's choices mark them (issue 21); players and spectators are not sent it."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User

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
