"""Personal API tokens on the live table's socket (issue #22): a ``read`` token watches its
owner's seat but may not play (``token_scope``) nor take the seat back as present; a ``write``
token plays; a revoked token is refused at the handshake (4401)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games import presence
from games.models import ApiToken
from games.services import tickets
from tests.builders import LiveTable
from tests.games.test_socket_edge import communicator
from tests.games.test_table_socket import is_type, open_socket, receive_until
from tests.sockets import refusal
from tournaments.services.tokens import api_token_create

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def make_token(live: LiveTable, seat: int, scope: str) -> str:
    return api_token_create(actor=live.user_at(seat), name="bot", scope=scope).key


async def test_a_read_token_watches_its_seat_and_may_not_play(live_table: LiveTable) -> None:
    state = None
    for seat in (0, 1):
        key = await make_token(live_table, seat, "read")
        comm = await open_socket(live_table.table.pk, token=key)
        state = await comm.receive_json_from(timeout=5)
        assert (state["role"], state["seat"]) == ("player", seat)
        # watching is not sitting at the table: no presence mark
        table = live_table.table.pk
        assert not presence.present_players([table]).get(table)
        if state["view"]["attacker"] == seat:
            break
        await comm.disconnect()
    assert state is not None
    move = state["legal"][0]
    await comm.send_json_to(
        {"type": "action", "id": "r-1", "version": 0, "action": move, "game": state["game"]}
    )
    error, _ = await receive_until(comm, is_type("error"))
    assert (error["id"], error["code"]) == ("r-1", "token_scope")
    await comm.disconnect()


async def test_a_write_token_plays(live_table: LiveTable) -> None:
    for seat in (0, 1):
        key = await make_token(live_table, seat, "write")
        comm = await open_socket(live_table.table.pk, token=key)
        state = await comm.receive_json_from(timeout=5)
        table = live_table.table.pk
        assert presence.present_players([table]).get(table)  # sitting at the table
        if state["view"]["attacker"] == seat:
            break
        await comm.disconnect()
    await comm.send_json_to(
        {
            "type": "action",
            "id": "w-1",
            "version": 0,
            "action": state["legal"][0],
            "game": state["game"],
        }
    )
    ack, _ = await receive_until(comm, is_type("ack"))
    assert ack["id"] == "w-1"
    await comm.disconnect()


async def test_a_revoked_token_is_refused_at_the_handshake(live_table: LiveTable) -> None:
    key = await make_token(live_table, 0, "write")
    await database_sync_to_async(ApiToken.objects.update)(revoked_at=timezone.now())
    assert await refusal(await open_socket(live_table.table.pk, token=key, expect=False)) == (
        "authentication_failed",
        4401,
    )


async def test_a_ticket_got_with_a_read_token_only_watches(live_table: LiveTable) -> None:
    for seat in (0, 1):
        ticket = await database_sync_to_async(tickets.socket_ticket_issue)(
            user=live_table.user_at(seat), scope="read"
        )
        comm = communicator(f"/ws/tables/{live_table.table.pk}/?ticket={ticket}")
        connected, _ = await comm.connect(timeout=10)
        assert connected
        state = await comm.receive_json_from(timeout=5)
        if state["view"]["attacker"] == seat:
            break
        await comm.disconnect()
    await comm.send_json_to(
        {"type": "action", "id": "t-1", "version": 0, "action": state["legal"][0]}
    )
    error, _ = await receive_until(comm, is_type("error"))
    assert (error["id"], error["code"]) == ("t-1", "token_scope")
    await comm.disconnect()
