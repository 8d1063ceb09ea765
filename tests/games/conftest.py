"""The live-table cast: a public 2-seat table with two human players, sockets to it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from durak_site.asgi import application
from games.models import Game
from tests.factories import PlayerFactory
from tests.tournaments.conftest import make_tournament
from tournaments import services as tournament_services
from tournaments.models import Table, Tournament

ORIGIN = "http://testserver"
TWO_SEATS = [{"format": "swiss", "table_size": 2, "rounds": 1}]


@dataclass
class LiveTable:
    tournament: Tournament
    table: Table
    game: Game
    users: list[Any]  # users[s] plays game seat s of the first game
    players: list[Any]

    def user_at(self, seat: int) -> Any:
        return self.users[seat]


def start_live_table(*, is_public: bool = True, clock: int = 0, **rules: Any) -> LiveTable:
    """A running 2-player tournament (one table, one game) with human players."""
    players = PlayerFactory.create_batch(2)
    tournament = make_tournament(
        players,
        stages=TWO_SEATS,
        rules={"deck_size": 24, **rules},
        is_public=is_public,
        entry_fee="0",
    )
    if clock:
        Tournament.objects.filter(pk=tournament.pk).update(move_clock_seconds=clock)
    tournament_services.tournament_start(tournament=tournament)
    table = Table.objects.get(round__stage__tournament=tournament)
    game = Game.objects.get(table=table)
    by_id = {p.pk: p for p in players}
    seated = [by_id[pid] for pid in game.players]
    return LiveTable(tournament, table, game, [p.user for p in seated], seated)


@pytest.fixture
def live_table(eager_jobs: None) -> LiveTable:
    return start_live_table()


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def open_socket(
    table_id: int,
    user: Any = None,
    *,
    token: str | None = None,
    origin: str = ORIGIN,
    expect: bool = True,
) -> WebsocketCommunicator:
    """A connected socket (``expect``: the handshake must succeed and the first state come)."""
    headers = [(b"origin", origin.encode())]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    path = f"/ws/tables/{table_id}/" + (f"?token={token}" if token else "")
    comm = WebsocketCommunicator(application, path, headers=headers)
    if expect:
        connected, code = await comm.connect(timeout=10)
        assert connected, f"refused with {code}"
    return comm


async def receive_until(
    comm: WebsocketCommunicator, pred: Callable[[dict[str, Any]], bool], timeout: float = 10
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Receive until a message matches ``pred``: (that message, every message received)."""
    seen: list[dict[str, Any]] = []
    while True:
        message = await comm.receive_json_from(timeout=timeout)
        seen.append(message)
        if pred(message):
            return message, seen
