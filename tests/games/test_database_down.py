"""Issue #13, found by the fault suite (``tests/chaos/test_edge_faults.py``), checked here without
killing anything:

- a database out of reach is answered with a code to try again (``unavailable``): an action on
  the live table's socket gets the error frame (not ``internal``), a new socket is refused with
  1013, the API a coded 503, a page a plain 503 (not a server error's page);
- a broadcast resent after a channel layer failure is sent once more a moment later, since a
  server process's subscription comes back only after its next read (the first resend can reach
  nobody).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client

from games import broadcast, selectors, services
from tests.builders import LiveTable
from tests.games.test_reconcile_broadcast import FlakyLayer, state, wait_for
from tests.games.test_table_socket import open_socket
from tests.sockets import refusal


def database_gone(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("connection failed: server closed the connection unexpectedly")


# --- the live table's socket -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_an_action_while_the_database_is_down_is_refused_with_unavailable(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    sock = await open_socket(live_table.table.pk, live_table.user_at(0), language="en")
    first = await sock.receive_json_from(timeout=5)
    monkeypatch.setattr(services, "table_act", database_gone)
    action = {"type": "take"}  # refused before the engine sees it
    await sock.send_json_to({"type": "action", "id": "a-1", "version": 0, "action": action})
    error = await sock.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["id"] == "a-1"
    assert error["code"] == "unavailable" and "try again" in error["message"]
    # and the socket goes on: the database back, the same message is answered
    monkeypatch.undo()
    await sock.send_json_to({"type": "sync"})
    again = await sock.receive_json_from(timeout=5)
    assert again["type"] == "state" and again["version"] == first["version"]
    await sock.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_opened_while_the_database_is_down_is_told_to_try_again(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a bot's token cannot be checked, nor a table looked up
    monkeypatch.setattr("games.auth.credentials_for_token", database_gone)
    comm = await open_socket(live_table.table.pk, token="x" * 40, expect=False)
    assert await refusal(comm) == ("unavailable", 1013)
    monkeypatch.setattr(selectors, "table_access", database_gone)
    comm = await open_socket(live_table.table.pk, expect=False)
    assert await refusal(comm) == ("unavailable", 1013)


@pytest.mark.django_db(transaction=True)
async def test_a_browsers_socket_whose_session_cannot_be_read_is_told_to_try_again(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a player's browser (a session cookie) and a database out of reach for its session
    user = live_table.user_at(0)

    async def session_user_gone(scope: Any) -> Any:
        database_gone()

    monkeypatch.setattr("channels.auth.get_user", session_user_gone)
    comm = await open_socket(live_table.table.pk, user, expect=False)
    # then the handshake is refused with a code to try again, not failed as a server error
    assert await refusal(comm) == ("unavailable", 1013)


# --- pages and the API ---------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/api/v1/tournaments/", "tournaments.api.events.views.TournamentListView.get_queryset"),
        ("/tables/1/", "tournaments.site.tables.views.table_access"),
    ],
)
def test_a_request_while_the_database_is_down_answers_503_with_a_code(
    path: str, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(target, database_gone)
    response = Client(raise_request_exception=False).get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    if path.startswith("/api/"):
        assert response.json()["code"] == "unavailable"
    else:
        assert b"503" in response.content and b"Traceback" not in response.content


# --- the broadcast resender ----------------------------------------------------------------------


@pytest.fixture
def layer(monkeypatch: pytest.MonkeyPatch) -> FlakyLayer:
    flaky = FlakyLayer(None)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: flaky)
    monkeypatch.setattr(broadcast, "resender", broadcast.Resender())
    monkeypatch.setattr(broadcast, "RESEND_FIRST_PAUSE", 0.01)
    monkeypatch.setattr(broadcast, "RESEND_MAX_PAUSE", 0.05)
    monkeypatch.setattr(broadcast, "RESEND_ECHO_PAUSE", 0.2)
    return flaky


async def test_a_resent_broadcast_is_sent_once_more_for_the_late_subscribers(
    layer: FlakyLayer,
) -> None:
    await broadcast.send_collected([("table-1", state(5, 1))])
    layer.down = False
    await asyncio.to_thread(wait_for, lambda: layer.sent == 1)
    # then once more, a moment later, and no more
    await asyncio.to_thread(wait_for, lambda: layer.sent == 2)
    await asyncio.sleep(0.5)
    assert layer.sent == 2 and broadcast.resender.waiting() == {}


async def test_a_newer_state_sent_meanwhile_cancels_the_echo(layer: FlakyLayer) -> None:
    await broadcast.send_collected([("table-1", state(5, 1))])
    layer.down = False
    await asyncio.to_thread(wait_for, lambda: layer.sent == 1)
    assert await broadcast.send_collected([("table-1", state(5, 2))]) == []
    await asyncio.sleep(0.5)
    assert layer.sent == 2  # the resend and the newer state; no echo of the older one
