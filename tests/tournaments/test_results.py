"""Results: bad ones refused with nothing changed; corrections keep the history."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.contrib.auth.models import User

from games import services as game_services
from tests.builders import make_tournament, pairs_event, start_live_table
from tests.factories import PlayerFactory
from tournaments import selectors, services
from tournaments.errors import ResultError, StateError
from tournaments.models import Player, Round, Table, TableResult
from tournaments.selectors.standings import standing_rows


@pytest.fixture
def human_table(db: None, eager_jobs: None) -> Table:
    """A paired round of human players: tables wait for their results."""
    players = PlayerFactory.create_batch(8)
    tournament = make_tournament(
        players, stages=[{"format": "swiss", "table_size": 4, "rounds": 2}]
    )
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_.pk)
    return Table.objects.filter(round=round_).order_by("number")[0]


def seated(table: Table) -> list[int]:
    return list(table.seats.order_by("position").values_list("entry_id", flat=True))


def test_a_result_for_an_entry_not_at_the_table_is_refused(human_table: Table) -> None:
    entries = seated(human_table)
    with pytest.raises(ResultError, match="each entry of table"):
        services.table_record_result(
            table=human_table, places=[*entries[:3], 999_999], fool=999_999, source="referee"
        )
    with pytest.raises(ResultError, match="fool"):
        services.table_record_result(table=human_table, places=entries, fool=entries[0])
    assert not TableResult.objects.filter(table=human_table).exists()
    human_table.refresh_from_db()
    assert human_table.status == Table.Status.PLAYING


def test_a_correction_needs_a_referee_and_a_reason_and_keeps_the_history(
    human_table: Table, referee: User
) -> None:
    human_table.round.stage.tournament.referees.add(referee)
    entries = seated(human_table)
    first = services.table_record_result(table=human_table, places=entries, fool=entries[-1])
    # the same result delivered twice is stored once
    again = services.table_record_result(table=human_table, places=entries, fool=entries[-1])
    assert again.pk == first.pk
    swapped = [entries[1], entries[0], *entries[2:]]
    with pytest.raises(ResultError, match="correction"):
        services.table_record_result(table=human_table, places=swapped, fool=entries[-1])
    with pytest.raises(ResultError, match="reason"):
        services.table_result_enter(
            table=human_table, actor=referee, places=swapped, fool=entries[-1]
        )
    fix = services.table_result_enter(
        table=human_table,
        actor=referee,
        places=swapped,
        fool=entries[-1],
        reason="места перепутаны",
    )
    assert fix.supersedes_id == first.pk
    assert selectors.effective_result(human_table) == fix
    assert TableResult.objects.filter(table=human_table).count() == 2
    points = {row.entry: row.points for row in standing_rows(human_table.round.stage)}
    assert points[str(entries[1])] == 3 and points[str(entries[0])] == 2


def test_pairing_a_round_twice_is_refused_for_a_referee(human_table: Table) -> None:
    with pytest.raises(StateError, match="paired once"):
        services.round_request_pairing(round_=human_table.round)
    # and the job run again pairs nothing new
    tables = Table.objects.count()
    services.round_pair(round_id=human_table.round_id)
    assert Table.objects.count() == tables


def test_a_provisional_prize_pool_during_registration(bot_players: list[Player]) -> None:
    tournament = make_tournament(bot_players, payout_structure=["60", "40"], guarantee="2000")
    pool = services.prize_pool_compute(tournament_id=tournament.pk)
    assert not pool.final
    assert pool.gross == 1600 and pool.rake == 160 and pool.total == 2000  # raised to guarantee


def test_a_drawn_team_table_is_scored_and_rated(db: None) -> None:
    players = PlayerFactory.create_batch(8)
    tournament = pairs_event(players)
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament)
    services.round_pair(round_id=round_.pk)
    drawn_table, other = Table.objects.filter(round=round_).order_by("number")
    a, b = dict.fromkeys(seated(drawn_table))
    services.table_record_result(table=drawn_table, places=[a, b], fool=None, drawn=[a, b])
    c, d = dict.fromkeys(seated(other))
    services.table_record_result(table=other, places=[c, d], fool=d)
    services.round_complete(round_id=round_.pk)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    # when the ratings job runs, the drawn teams' players stay level with each other
    assert services.ratings_update(tournament_id=tournament.pk) == 8
    mu = {p.pk: p.rating_mu for p in type(players[0]).objects.all()}
    drawn_players = list(drawn_table.seats.values_list("player_id", flat=True))
    assert len({round(mu[p], 9) for p in drawn_players}) == 1
    points = {row.entry: row.points for row in standing_rows(round_.stage)}
    assert points[str(a)] == points[str(b)] == Fraction(1, 2)


@pytest.mark.django_db(transaction=True)
def test_an_adjudicated_game_makes_the_table_result_the_referees(
    eager_jobs: None, referee: User
) -> None:
    # given a live two-player table whose only game its referee adjudicates
    live = start_live_table(referees=[referee])
    game_services.game_adjudicate(
        game_id=live.game.pk, places=[1, 0], fool=0, reason="игрок ушёл", referee=referee
    )
    # then the table's result says so: the referee's source, the ruling's reason, who ruled
    result = TableResult.objects.get(table=live.table)
    assert result.source == TableResult.Source.REFEREE
    assert result.entered_by == referee
    assert result.reason == f"game {live.game.pk} adjudicated: игрок ушёл"
    seat_entry = dict(live.table.seats.values_list("player_id", "entry_id"))
    assert result.places == [seat_entry[live.game.players[1]], seat_entry[live.game.players[0]]]
