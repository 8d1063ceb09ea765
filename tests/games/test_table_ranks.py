"""The live table's state names each seat's current rank (звание), in the socket's language:
``state.ranks`` (issue 20). Ranks are public, so every role gets the same list."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User

from tests.builders import LiveTable
from tests.games.test_table_socket import open_socket
from tournaments.models import League, RankRecord

pytestmark = pytest.mark.django_db(transaction=True)


def wear(live: LiveTable, seat: int, rank: str) -> None:
    """The player of ``seat`` wears ``rank`` in a league season (as the ranks job stores it)."""
    league = League.objects.create(name="Лига", slug="liga", season="2026")
    RankRecord.objects.create(
        player=live.players[seat], league=league, rank=rank, pogony_received=2
    )


@pytest.mark.parametrize(("language", "title"), [("ru", "старшина"), ("en", "sergeant major")])
async def test_every_role_gets_each_seats_rank_in_its_language(
    live_table: LiveTable, referee: User, language: str, title: str
) -> None:
    # given: the player of seat 1 is a старшина of a league, the one of seat 0 has no rank
    await database_sync_to_async(wear)(live_table, 1, "старшина")
    # when: a player, a spectator and the referee connect in the language
    socks = [
        await open_socket(live_table.table.pk, live_table.user_at(0), language=language),
        await open_socket(live_table.table.pk, language=language),
        await open_socket(live_table.table.pk, referee, language=language),
    ]
    states = [await sock.receive_json_from(timeout=5) for sock in socks]
    # then: each state names the ranks by seat, "" for none
    assert [s["role"] for s in states] == ["player", "spectator", "referee"]
    assert all(s["ranks"] == ["", title] for s in states)
    for sock in socks:
        await sock.disconnect()


async def test_a_state_without_ranks_has_an_empty_title_per_seat(live_table: LiveTable) -> None:
    sock = await open_socket(live_table.table.pk)
    state = await sock.receive_json_from(timeout=5)
    assert state["ranks"] == ["", ""] and len(state["players"]) == 2
    await sock.disconnect()
