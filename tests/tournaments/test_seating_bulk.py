"""A round's tables seated and dealt together (``seating.tables_seat``) get the rows a table
seated alone (``seating.table_seat``) gets."""

from __future__ import annotations

from typing import Any

import pytest

from games import engine
from games.models import Game
from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import Round, Seat, Table
from tournaments.services.seating import table_seat


def table_rows(table: Table) -> dict[str, Any]:
    table.refresh_from_db()
    (game,) = Game.objects.filter(table=table)
    return {
        "table": (table.status, table.series_state),
        "seats": list(
            Seat.objects.filter(table=table)
            .order_by("position")
            .values_list("position", "entry_id", "player_id", "bot_kind")
        ),
        "game": (
            game.number,
            game.version,
            game.status,
            game.rules,
            game.setup,
            game.players,
            game.bot_seats,
            game.clock_seconds,
            game.absent_after,
            game.deadline,
        ),
    }


def dealt_from_its_seed(game: Game) -> bool:
    rules = engine.Rules.from_dict(game.rules)
    state = engine.new_game(rules, engine.rng_for_seed(game.seed), **game.setup)
    return state.to_dict() == game.state and game.seed_commitment == engine.seed_commitment(
        game.seed
    )


@pytest.mark.django_db(transaction=True)
def test_a_round_seated_at_once_has_the_rows_of_tables_seated_one_by_one(
    eager_jobs: None,
) -> None:
    # given an event of 8 people paired into round 1: its two tables seated together
    tournament = make_tournament(
        PlayerFactory.create_batch(8),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 2}],
    )
    services.tournament_start(tournament=tournament)
    first = Round.objects.get(stage__tournament=tournament, number=1)
    tables = list(first.tables.order_by("number"))
    assert len(tables) == 2
    paired = {table.number: table_rows(table) for table in tables}
    assert all(dealt_from_its_seed(game) for game in Game.objects.filter(table__in=tables))
    for table in tables:
        entries = [entry for _position, entry, _player, _bot in paired[table.number]["seats"]]
        Seat.objects.filter(table=table).delete()  # an entry sits once a round
        Game.objects.filter(table=table).delete()
        # when the same entries are seated at a table of their own, the one-table way
        alone = Table.objects.create(round=first, number=10 + table.number)
        table_seat(alone, entries)
        # then every row is the same but for the ids and the secret deal
        assert table_rows(alone) == paired[table.number]
        assert dealt_from_its_seed(Game.objects.get(table=alone))
