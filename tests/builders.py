"""Scenes the suites build on: a tournament open for registration, a live table in play.

The named fixtures of the usual cast (``tests/conftest.py``) use these; a test that needs a
variant (a private tournament, a move clock, other rules) calls them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from games.models import Game
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import Player, Table, Tournament

SWISS_THEN_KNOCKOUT = [
    {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": 8}},
    {"format": "knockout", "table_size": 4, "advance_per_table": 2},
]
TWO_SEATS = [{"format": "swiss", "table_size": 2, "rounds": 1}]
# The seed of the ``game`` fixture: a test may check its commitment, or that it stays secret.
GAME_SEED = "fixed-seed-1"


def make_tournament(
    players: Sequence[Player], stages: list[dict[str, Any]] | None = None, **kw: Any
) -> Tournament:
    """A tournament open for registration with ``players`` registered (no move clock; an entry
    fee of 100 and a 10 % rake unless ``kw`` says otherwise)."""
    tournament = services.tournament_create(
        name=kw.pop("name", "Кубок клуба"),
        stages=stages or SWISS_THEN_KNOCKOUT,
        entry_fee=kw.pop("entry_fee", "100"),
        rake_percent=kw.pop("rake_percent", "10"),
        move_clock_seconds=0,
        **kw,
    )
    services.tournament_open_registration(tournament=tournament)
    for player in players:
        services.entry_register(tournament=tournament, player=player)
    return tournament


@dataclass
class LiveTable:
    """A started two-seat tournament: its one table and the table's first game."""

    tournament: Tournament
    table: Table
    game: Game
    users: list[User]  # users[s] plays game seat s of the first game
    players: list[Player]  # players[s] likewise

    def user_at(self, seat: int) -> User:
        return self.users[seat]


def start_live_table(*, is_public: bool = True, clock: int = 0, **rules: Any) -> LiveTable:
    """A running 2-player tournament (one table, one game of a 24-card deck) with human
    players; ``clock``: the move clock in seconds (0: none); ``rules``: the game's rules."""
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
    services.tournament_start(tournament=tournament)
    table = Table.objects.get(round__stage__tournament=tournament)
    game = Game.objects.get(table=table)
    by_id = {p.pk: p for p in players}
    seated = [by_id[pid] for pid in game.players]
    users = []
    for player in seated:
        assert player.user is not None  # PlayerFactory's players are human
        users.append(player.user)
    return LiveTable(tournament, table, game, users, seated)


def session_cookie(user: User) -> str:
    """The ``Cookie`` header of a session logged in as ``user``."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"
