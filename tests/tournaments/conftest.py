from __future__ import annotations

from typing import Any

import pytest

from tournaments import services
from tournaments.models import Tournament

SWISS_THEN_KNOCKOUT = [
    {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": 8}},
    {"format": "knockout", "table_size": 4, "advance_per_table": 2},
]


def make_tournament(
    players: list[Any], stages: list[dict[str, Any]] | None = None, **kw: Any
) -> Tournament:
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


@pytest.fixture
def open_tournament(bot_players: list[Any]) -> Tournament:
    return make_tournament(bot_players)
