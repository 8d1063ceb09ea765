"""A stage's standings as a process keeps them (``selectors.standings``: the last computations,
keyed by every input) and as the API sends them (rows in the row serializer's shape, not
serialized field by field)."""

from __future__ import annotations

import gc

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from bench.standings import build, finish
from tests.api.test_events import API
from tests.tournaments.test_corrections import enter, finish_round, seated, started, tables
from tournaments.api.events.rows import final_place_row
from tournaments.api.events.serializers import FinalStandingsSerializer, StageStandingRowSerializer
from tournaments.models import Round, Stage, TableResult
from tournaments.selectors.places import final_places
from tournaments.selectors.standings import (
    forget_kept,
    stage_standings,
    standing_rows,
    standings_change,
)

# Jobs run in-process after each commit, as in the service: the round goes on by itself.
pytestmark = pytest.mark.django_db(transaction=True)


def api_points(client: Client, slug: str) -> dict[int, float]:
    response = client.get(f"{API}tournaments/{slug}/stages/1/standings/")
    assert response.status_code == 200
    return {row["entry_id"]: row["points"] for row in response.json()["rows"]}


def test_a_correction_after_the_next_round_is_paired_changes_what_the_api_shows(
    eager_jobs: None, referee: User, client: Client
) -> None:
    # given round 1 over, round 2 paired, and the standings read (and kept) after it
    tournament = started(players=4, referees=[referee])
    finish_round(tournament, referee)
    assert Round.objects.get(stage__tournament=tournament, number=2).status == "playing"
    first = tables(tournament)[0]
    a, b = seated(first)
    shown = api_points(client, tournament.slug)
    assert shown[a] > shown[b]
    # when a referee corrects round 1's first table, pairing round 2 again
    enter(first, referee, [b, a], reason="видео", repair=True)
    # then the API shows the corrected points
    corrected = api_points(client, tournament.slug)
    assert corrected[b] > corrected[a]
    assert (corrected[a], corrected[b]) == (shown[b], shown[a])


def test_a_changed_scoring_table_changes_the_kept_standings(
    eager_jobs: None, referee: User
) -> None:
    # given a stage whose standings were computed, and are kept, after its first round
    tournament = started(players=4, referees=[referee])
    finish_round(tournament, referee)
    stage = Stage.objects.select_related("tournament").get(tournament=tournament, order=1)
    kept = standing_rows(stage)
    assert standing_rows(stage)[0] is kept[0]  # the same inputs: the kept computation
    # when the stage's two-seat tables score 3 for a win instead of 1
    stage.scoring = {**(stage.scoring or {}), "tables": {"2": [3, 0]}}
    stage.save(update_fields=["scoring"])
    # then its standings are computed again, with the new points
    again = standing_rows(stage)
    assert max(row.points for row in kept) == 1
    assert max(row.points for row in again) == 3


def test_the_api_rows_are_what_the_row_serializer_makes_of_them(
    eager_jobs: None, referee: User, client: Client
) -> None:
    # given a stage with results
    tournament = started(players=6, referees=[referee])
    finish_round(tournament, referee)
    # when the API sends its standings
    response = client.get(f"{API}tournaments/{tournament.slug}/stages/1/standings/")
    rows = response.json()["rows"]
    # then each row is the row serializer's rendering, its fields in its order
    stage = Stage.objects.get(tournament=tournament, order=1)
    serialized = StageStandingRowSerializer(
        [{**vars(line)} for line in stage_standings(stage)], many=True
    ).data
    assert [list(row.items()) for row in rows] == [list(row.items()) for row in serialized]
    assert len(rows) == 6


def test_the_cycle_collector_runs_again_after_the_standings(
    eager_jobs: None, referee: User
) -> None:
    # given a stage with results and the collector running
    tournament = started(players=4, referees=[referee])
    finish_round(tournament, referee)
    stage = Stage.objects.select_related("tournament").get(tournament=tournament, order=1)
    assert gc.isenabled()
    # when its standings are computed (the collector paused meanwhile)
    lines = stage_standings(stage)
    # then the collector runs again
    assert lines and gc.isenabled()


def test_the_feed_s_standings_change_takes_the_same_queries_for_8_and_256_entries() -> None:
    counts = []
    for entries in (8, 256):
        # given a swiss of ``entries`` after two rounds, nothing kept
        tournament = build(entries, 2, f"q{entries}")
        stage = Stage.objects.select_related("tournament").get(tournament=tournament)
        last = TableResult.objects.filter(table__round__stage=stage).latest("id")
        forget_kept()
        # when the feed asks what the last result moved
        with CaptureQueriesContext(connection) as queries:
            before, after = standings_change(stage, last.pk)
        # then the last table's entries moved, in as many queries for 256 entries as for 8
        assert len(after) == entries and before != after
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 2


def test_the_final_standings_rows_are_what_the_row_serializer_makes_of_them(
    client: Client,
) -> None:
    # given a finished event: places, payouts with fractions of the minor unit, rank records
    tournament = build(24, 2, "final-rows")
    finish(tournament)
    # when the API sends its final standings
    response = client.get(f"{API}tournaments/{tournament.slug}/standings/")
    body = response.json()
    # then each row is the row serializer's rendering, its fields in its order, byte for byte
    code = tournament.currency
    rows = [final_place_row(line, code) for line in final_places(tournament).lines]
    serialized = FinalStandingsSerializer({"finished": True, "currency": code, "rows": rows}).data
    assert response.content == JSONRenderer().render(serialized)
    assert len(body["rows"]) == 24
    assert body["rows"][0]["payout"] and body["rows"][-1]["payout"] is None
