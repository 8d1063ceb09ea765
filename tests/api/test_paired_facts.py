"""``round_paired``'s tables (``facts.paired_facts``, read from plain values) are the round's
REST rows (``events.table_rows``) cut to their keys, in an individual and a team event."""

from __future__ import annotations

import pytest

from tests.builders import make_tournament, pairs_event
from tournaments import services
from tournaments.models import Player, Round, Tournament
from tournaments.selectors import events, facts


def rest_tables(round_: Round) -> list[dict[str, object]]:
    rows = events.table_rows(round_.tables.order_by("number"))
    return [facts.jsonable({key: row[key] for key in facts.PAIRED_TABLE_KEYS}) for row in rows]


def first_round(tournament: Tournament) -> Round:
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_.pk)
    return round_


@pytest.mark.django_db  # on_commit never fires here: the test runs the pairing itself
def test_an_individual_events_paired_tables_are_its_rest_rows(bot_players: list[Player]) -> None:
    # given 5 bots paired at 2-seat tables (a bye among them)
    round_ = first_round(
        make_tournament(bot_players[:5], stages=[{"format": "swiss", "table_size": 2, "rounds": 1}])
    )
    # when the facts are built, then they are the REST rows
    tables = facts.paired_facts(round_)["tables"]
    assert tables == rest_tables(round_)
    assert any(table["is_bye"] for table in tables)
    assert all(seat["bot"] for table in tables for seat in table["seats"])


@pytest.mark.django_db
def test_a_team_events_paired_tables_name_the_teams(bot_players: list[Player]) -> None:
    # given four pairs of bots paired at a 4-seat table
    tournament = pairs_event(bot_players[:8])
    round_ = first_round(tournament)
    # when the facts are built, then they are the REST rows, each seat's entry its team
    tables = facts.paired_facts(round_)["tables"]
    assert tables == rest_tables(round_)
    names = {seat["entry"]["name"] for table in tables for seat in table["seats"]}
    assert names == {f"Пара {i}" for i in range(0, 8, 2)}
