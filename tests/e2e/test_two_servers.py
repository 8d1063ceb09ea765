"""Two ASGI server processes on one Redis channel layer serve one table: a player on one acts,
a spectator on the other sees it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin

from tests.builders import session_cookie, start_live_table
from tests.e2e.conftest import asgi_server

pytestmark = [pytest.mark.real_stack, pytest.mark.django_db(transaction=True)]


async def receive(sock: ClientConnection, timeout: float = 15) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(sock.recv(), timeout))
    return message


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
async def test_a_move_on_one_server_reaches_a_spectator_on_the_other() -> None:
    live = await database_sync_to_async(start_live_table)()
    cookies = [await database_sync_to_async(session_cookie)(u) for u in live.users]
    with asgi_server() as first, asgi_server() as second:
        path = f"/ws/tables/{live.table.pk}/"
        spectator = await connect(f"ws://{second}{path}", origin=Origin(f"http://{second}"))
        seen = await receive(spectator)
        assert seen["role"] == "spectator" and seen["version"] == 0
        attacker = seen["view"]["attacker"]
        player = await connect(
            f"ws://{first}{path}",
            origin=Origin(f"http://{first}"),
            additional_headers={"Cookie": cookies[attacker]},
        )
        mine = await receive(player)
        assert (mine["role"], mine["seat"]) == ("player", attacker)
        move = mine["legal"][0]
        # when the player on the first server plays
        await player.send(json.dumps({"type": "action", "id": "x1", "version": 0, "action": move}))
        assert (await receive(player))["type"] == "ack"
        # then the spectator on the second server gets the new state, redacted
        state = await receive(spectator)
        assert state["version"] == 1 and state["view"]["table"][0]["attack"] == move["cards"][0]
        assert state["view"]["hand"] is None and "hands" not in state["view"]
        await player.close()
        await spectator.close()
