"""The events part of the API (``tournaments.api.events`` and ``tournaments.api.exports``): what
a scoreboard reads about an event, who may read it, and how it is cached.

The events here are played out by recording every table's result directly (the services the
jobs call, run in the test's order), not by playing games: fast, and as the API sees it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from drf_spectacular.generators import SchemaGenerator

from games.models import Game
from tests.builders import make_tournament
from tests.conftest import jobs_in_process
from tests.factories import BotPlayerFactory, PlayerFactory, UserFactory
from tournaments import services
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle
from tournaments.api.money import MONEY_PATTERN
from tournaments.models import (
    Entry,
    Player,
    Round,
    Table,
    TableResult,
    Tournament,
)

pytestmark = pytest.mark.django_db

API = "/api/v1/"


def swiss_then_knockout(players: int) -> list[dict[str, Any]]:
    """Two swiss rounds at 4-seat tables, the top half on to a knockout (2 of 4 go on)."""
    return [
        {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": max(4, players // 2)}},
        {"format": "knockout", "table_size": 4, "advance_per_table": 2},
    ]


def record(table: Table, *, pogony: bool) -> TableResult:
    """The table's result: seats in order, rotated by the table's number; the last is the fool,
    and with ``pogony`` the first out hangs pogony on them."""
    seats = list(table.seats.order_by("position"))
    shift = table.number % len(seats)
    seats = seats[shift:] + seats[:shift]
    entries = [s.entry_id for s in seats]
    hung = []
    if pogony:
        first, fool = seats[0], seats[-1]
        hung = [
            {
                "by": first.entry_id,
                "on": [fool.entry_id],
                "rank": "6",
                "by_player": first.player_id,
                "on_players": [fool.player_id],
            }
        ]
    return services.table_record_result(
        table=table, places=entries, fool=entries[-1], pogony=hung, source="bot"
    )


def play_out(tournament: Tournament) -> None:
    """Drive a started tournament to its end as the jobs would: pair, record every table, complete
    the rounds; then the prize pool, the ranks and the ratings."""
    for _ in range(100):
        status = Tournament.objects.values_list("status", flat=True).get(pk=tournament.pk)
        if status == Tournament.Status.FINISHED:
            break
        pending = Round.objects.filter(stage__tournament=tournament, status=Round.Status.PENDING)
        for round_ in pending.order_by("stage__order", "number"):
            services.round_pair(round_id=round_.pk)
        playing = Table.objects.filter(
            round__stage__tournament=tournament, status=Table.Status.PLAYING, is_bye=False
        ).order_by("round__stage__order", "round__number", "number")
        for table in playing:
            record(table, pogony=table.number % 3 == 1)
        rounds = Round.objects.filter(stage__tournament=tournament, status=Round.Status.PLAYING)
        for round_ in rounds.order_by("stage__order", "number"):
            services.round_complete(round_id=round_.pk)
    else:  # pragma: no cover - a bug in the builder or the services
        raise AssertionError("the tournament did not finish")
    services.prize_pool_compute(tournament_id=tournament.pk)
    services.tournament_ranks_compute(tournament_id=tournament.pk)
    services.ratings_update(tournament_id=tournament.pk)
    tournament.refresh_from_db()


def finished_event(players: int | list[Player], *, name: str = "Кубок", **kw: Any) -> Tournament:
    """A finished swiss-then-knockout tournament of ``players`` bots (or these players).

    Its jobs run in-process: in a transactional test a real worker would take what the start
    commits and play the bots' tables while :func:`play_out` records them (a race the builder
    must not run)."""
    field = BotPlayerFactory.create_batch(players) if isinstance(players, int) else players
    with jobs_in_process():
        tournament = make_tournament(field, stages=swiss_then_knockout(len(field)), name=name, **kw)
        services.tournament_start(tournament=tournament)
        play_out(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    return tournament


def get(client: Client, url: str, **headers: str) -> Any:
    return client.get(API + url, headers={"Accept-Language": "en", **headers})


@pytest.fixture(autouse=True)
def _no_throttling(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite makes many requests from one address; the throttles are common.py's tests'."""
    for throttle in (ApiAnonThrottle, ApiUserThrottle):
        monkeypatch.setattr(throttle, "allow_request", lambda self, request, view: True)


@pytest.fixture
def event() -> Tournament:
    return finished_event(16, name="Кубок шестнадцати")


# --- a finished event, endpoint by endpoint -------------------------------------------------------


def test_the_tournament_list_shows_public_events_and_filters_them(client: Client) -> None:
    league = services.league_create(name="Лига", season="2026", actor=None)
    finished = finished_event(8, name="Кубок А", league=league)
    running = make_tournament(BotPlayerFactory.create_batch(4), name="Кубок Б")
    draft = services.tournament_create(name="Черновик", stages=swiss_then_knockout(8))
    hidden = make_tournament(BotPlayerFactory.create_batch(4), name="Свой", is_public=False)

    listed = get(client, "tournaments/").json()
    slugs = [t["slug"] for t in listed["results"]]
    assert finished.slug in slugs and running.slug in slugs
    assert draft.slug not in slugs and hidden.slug not in slugs
    assert {"next", "previous"} <= set(listed)
    item = next(t for t in listed["results"] if t["slug"] == finished.slug)
    assert item["league"] == {"slug": league.slug, "name": "Лига", "season": "2026"}
    assert item["entries"] == 8 and item["status"] == "finished"

    def slugs_for(query: str) -> list[str]:
        return [t["slug"] for t in get(client, "tournaments/?" + query).json()["results"]]

    assert slugs_for("status=finished") == [finished.slug]
    assert set(slugs_for("status=finished&status=registration")) == {finished.slug, running.slug}
    assert slugs_for(f"league={league.slug}") == [finished.slug]
    assert slugs_for(f"league={league.slug}&season=2025") == []
    day = finished.created_at.date().isoformat()
    assert finished.slug in slugs_for(f"created_from={day}&created_to={day}")
    assert slugs_for(f"started_from={day}") == [finished.slug]
    assert get(client, "tournaments/?created_from=yesterday").status_code == 400


def test_the_list_pages_with_a_cursor(client: Client) -> None:
    for i in range(3):
        make_tournament(BotPlayerFactory.create_batch(2), name=f"Кубок {i}")
    first = get(client, "tournaments/?page_size=2").json()
    assert len(first["results"]) == 2 and first["next"]
    second = client.get(first["next"]).json()
    assert len(second["results"]) == 1 and second["next"] is None
    seen = [t["slug"] for t in first["results"] + second["results"]]
    assert len(set(seen)) == 3


def test_a_tournament_has_its_stages_rules_and_money(client: Client, event: Tournament) -> None:
    body = get(client, f"tournaments/{event.slug}/").json()
    assert body["slug"] == event.slug and body["status"] == "finished"
    assert body["version"] == event.version
    assert body["money"]["currency"] == "RUB"
    assert body["money"]["entry_fee"] == "100.00" and body["money"]["rake_percent"] == "10.00"
    assert body["money"]["prize_pool"]["total"] == "1440.00"
    assert body["money"]["prize_pool"]["final"] is True
    swiss, knockout = body["stages"]
    assert swiss["format"] == "swiss" and swiss["rounds_planned"] == 2
    assert swiss["advance"] == {"mode": "top_n", "count": 8}
    assert swiss["series"] == {"format": "single", "target": 1}
    assert swiss["scoring"]["points_by_place"]["4"] == [3.0, 2.0, 1.0, 0.0]
    assert swiss["tie_breaks"][0] == "points"
    assert knockout["format"] == "knockout" and knockout["knockout_advance"] == 2
    assert "seed" not in body and "seed" not in json.dumps(body["stages"])


def test_a_stages_rounds_and_a_round_with_its_tables(client: Client, event: Tournament) -> None:
    rounds = get(client, f"tournaments/{event.slug}/stages/1/rounds/").json()
    assert [r["number"] for r in rounds] == [1, 2]
    assert rounds[0]["tables"] == {"total": 4, "finished": 4, "playing": 0, "waiting": 0, "byes": 0}
    assert rounds[0]["explanation"]["algorithm"] == "swiss"
    assert rounds[0]["status"] == "finished" and rounds[0]["paired_at"]

    body = get(client, f"tournaments/{event.slug}/stages/1/rounds/1/").json()
    assert len(body["tables"]) == 4
    table = body["tables"][0]
    stored = Table.objects.get(pk=table["id"])
    seats = list(stored.seats.select_related("player", "entry__player").order_by("position"))
    assert [s["player"]["name"] for s in table["seats"]] == [s.player.display_name for s in seats]
    assert [s["entry"]["id"] for s in table["seats"]] == [s.entry_id for s in seats]
    result = TableResult.objects.get(table=stored)
    assert [p["entry"]["id"] for p in table["result"]["places"]] == result.places
    assert table["result"]["fool"]["id"] == result.fool_entry_id
    assert table["result"]["places"][-1]["fool"] is True
    series = table["series"]
    assert series["format"] == "single" and series["games_played"] == 0
    assert [s["position"] for s in series["seats"]] == [0, 1, 2, 3]
    assert get(client, f"tournaments/{event.slug}/stages/1/rounds/9/").status_code == 404
    assert get(client, f"tournaments/{event.slug}/stages/7/rounds/").status_code == 404


def test_the_series_score_counts_the_games_played_so_far(client: Client) -> None:
    # given a table whose series has a game recorded (as games.services leaves it)
    tournament = make_tournament(
        BotPlayerFactory.create_batch(2),
        stages=[
            {
                "format": "swiss",
                "table_size": 2,
                "rounds": 1,
                "series": {"format": "best_of", "target": 3},
            }
        ],
    )
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament)
    services.round_pair(round_id=round_.pk)
    table = Table.objects.get(round=round_)
    state = dict(table.series_state)
    state["games"] = [
        {"seats": [0, 1], "result": {"places": [1, 0], "fool": 0, "draw": False, "pogony": None}}
    ]
    Table.objects.filter(pk=table.pk).update(series_state=state)
    # when a scoreboard reads the round
    body = get(client, f"tournaments/{tournament.slug}/stages/1/rounds/1/").json()
    # then the score is there, and nothing of the game itself
    series = body["tables"][0]["series"]
    assert series["format"] == "best_of" and series["target"] == 3
    assert series["games_played"] == 1 and series["finished"] is False
    assert [(s["points"], s["fools"]) for s in series["seats"]] == [(0.0, 1), (1.0, 0)]
    assert "game_ids" not in json.dumps(body) and "rules" not in series


def test_the_results_are_the_confirmed_ones_with_corrections_and_reasons(
    client: Client, event: Tournament
) -> None:
    referee = UserFactory.create(is_staff=True, is_superuser=True)
    table = Table.objects.filter(round__stage__order=1, round__stage__tournament=event).first()
    assert table is not None
    original = TableResult.objects.get(table=table)
    # a correction that counts (the event has no two-person rule) ...
    places = list(reversed(original.places))
    TableResult.objects.create(
        table=table,
        places=places,
        fool_entry_id=places[-1],
        source=TableResult.Source.REFEREE,
        reason="the scorer swapped the seats",
        supersedes=original,
        entered_by=referee,
    )
    # ... and one still waiting for a second referee on another table
    other = Table.objects.filter(round__stage__tournament=event).exclude(pk=table.pk).first()
    assert other is not None
    TableResult.objects.create(
        table=other,
        places=TableResult.objects.get(table=other).places,
        source=TableResult.Source.REFEREE,
        reason="a second look",
        status=TableResult.Status.PENDING,
        supersedes=TableResult.objects.get(table=other),
        entered_by=referee,
    )
    rows = []
    url: str | None = API + f"tournaments/{event.slug}/results/?page_size=50"
    while url:
        page = client.get(url).json()
        rows += page["results"]
        url = page["next"]
    assert (
        len(rows)
        == TableResult.objects.filter(
            table__round__stage__tournament=event, status=TableResult.Status.CONFIRMED
        ).count()
    )
    assert "a second look" not in json.dumps(rows)
    correction = next(r for r in rows if r["supersedes"] == original.pk)
    assert correction["reason"] == "the scorer swapped the seats" and correction["in_force"]
    assert correction["source"] == "referee"
    assert correction["table"]["number"] == table.number and correction["table"]["stage"] == 1
    replaced = next(r for r in rows if r["id"] == original.pk)
    assert replaced["in_force"] is False
    assert [r["id"] for r in rows] == sorted((r["id"] for r in rows), reverse=True)
    # the round's table shows the result in force
    body = get(client, f"tournaments/{event.slug}/stages/1/rounds/{table.round.number}/").json()
    shown = next(t for t in body["tables"] if t["id"] == table.pk)
    assert shown["result"]["id"] == correction["id"]


def test_a_stages_standings_have_every_tie_break_and_the_pogony(
    client: Client, event: Tournament
) -> None:
    body = get(client, f"tournaments/{event.slug}/stages/1/standings/").json()
    assert body["format"] == "swiss" and body["tie_breaks"][0] == "points"
    rows = body["rows"]
    assert len(rows) == 16 and [r["position"] for r in rows] == list(range(1, 17))
    points = [r["points"] for r in rows]
    assert points == sorted(points, reverse=True)
    assert all(r["played"] == 2 for r in rows)
    assert {"buchholz", "head_to_head", "first_places", "fools", "decided_by"} <= set(rows[0])
    assert sum(r["first_places"] for r in rows) == 8 and sum(r["fools"] for r in rows) == 8
    given = sum(r["pogony_given"] for r in rows)
    assert given == sum(r["pogony_received"] for r in rows) > 0
    # a knockout stage has no standings: its bracket tells
    knockout = get(client, f"tournaments/{event.slug}/stages/2/standings/").json()
    assert knockout["format"] == "knockout" and knockout["rows"] == []


def test_the_final_standings_have_places_ranks_and_payouts(
    client: Client, event: Tournament
) -> None:
    body = get(client, f"tournaments/{event.slug}/standings/").json()
    assert body["finished"] is True and body["currency"] == "RUB"
    rows = body["rows"]
    assert [r["place"] for r in rows] == sorted(r["place"] for r in rows)
    assert len(rows) == 16 and rows[0]["place"] == 1
    winner = Entry.objects.get(tournament=event, final_place=1)
    assert rows[0]["entry_id"] == winner.pk and rows[0]["name"] == winner.name
    assert sum(float(r["payout"] or 0) for r in rows) == 1440.0
    assert any(r["rank"] for r in rows)
    assert sum(r["pogony_given"] for r in rows) == sum(r["pogony_received"] for r in rows) > 0


def _expected_stage_points(client: Client, event: Tournament, stage: int) -> dict[int, float]:
    """Each entry's points in a stage, worked out from the API's own facts (the stage's points
    by place and pogony penalty, every confirmed result in force), not from the selector."""
    detail = get(client, f"tournaments/{event.slug}/").json()
    scoring = detail["stages"][stage - 1]["scoring"]
    results = get(client, f"tournaments/{event.slug}/results.json").json()
    points: dict[int, float] = {}
    for result in results:
        if result["table"]["stage"] != stage or not result["in_force"]:
            continue
        entries = [p["entry"]["id"] for p in result["places"]]
        if len(entries) == 1:  # a walkover
            table = [scoring["bye_points"]]
        else:
            table = scoring["points_by_place"][str(len(entries))]
        for place, entry in enumerate(entries):
            points[entry] = points.get(entry, 0.0) + table[place]
        for hung in result["pogony"]:
            for on in hung["on"]:
                points[on["id"]] -= scoring["fool_pogony_penalty"]
    return points


def test_the_final_standings_rows_name_the_player_how_each_ended_and_its_points(
    client: Client, event: Tournament
) -> None:
    # given a finished swiss (2 rounds, the top 8 on) then knockout of 16
    rows = get(client, f"tournaments/{event.slug}/standings/").json()["rows"]
    entries = {e.pk: e for e in Entry.objects.filter(tournament=event)}
    # then every row names its player (no team in an individual event)
    assert [r["player_id"] for r in rows] == [entries[r["entry_id"]].player_id for r in rows]
    assert all(r["player_id"] is not None and r["team_id"] is None for r in rows)
    # and says how it ended: never "registered" once the event is over
    by_status = {s: [r for r in rows if r["status"] == s] for s in ("finished", "eliminated")}
    assert len(by_status["finished"]) == len(by_status["eliminated"]) == 8
    assert all(r["place"] <= 8 and r["stage"] == 2 for r in by_status["finished"])
    assert all(r["place"] > 8 and r["stage"] == 1 for r in by_status["eliminated"])
    # and its points in the stage it left: the swiss standings' for those it eliminated
    swiss = get(client, f"tournaments/{event.slug}/stages/1/standings/").json()["rows"]
    swiss_points = {r["entry_id"]: r["points"] for r in swiss}
    for row in by_status["eliminated"]:
        assert row["points"] == swiss_points[row["entry_id"]]
    # and what their knockout tables scored for the others, as the stage's scoring counts
    knockout = _expected_stage_points(client, event, 2)
    for row in by_status["finished"]:
        assert row["points"] == pytest.approx(knockout[row["entry_id"]])
    assert all(isinstance(r["points"], float) for r in rows)


def test_a_disqualified_entry_is_listed_as_such_last_and_unpaid(
    client: Client, event: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    winner = Entry.objects.get(tournament=event, final_place=1)
    with jobs_in_process(), django_capture_on_commit_callbacks(execute=True):
        services.entry_disqualify(entry=winner, reason="a marked deck")
    rows = get(client, f"tournaments/{event.slug}/standings/").json()["rows"]
    row = next(r for r in rows if r["entry_id"] == winner.pk)
    assert (row["status"], row["place"], row["payout"]) == ("disqualified", 16, None)
    assert row["player_id"] == winner.player_id and row["stage"] == 2
    assert sum(Decimal(r["payout"] or 0) for r in rows) == Decimal("1440.00")


def team_event() -> Tournament:
    """A one-round swiss of four pairs (two tables of two teams), played, its pool computed."""
    players = BotPlayerFactory.create_batch(8)
    teams = [
        services.team_create(name=f"Пара {i}", players=players[i : i + 2]) for i in range(0, 8, 2)
    ]
    with jobs_in_process():
        event = services.tournament_create(
            name="Парный кубок",
            team_size=2,
            move_clock_seconds=0,
            entry_fee="100",
            stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        )
        services.tournament_open_registration(tournament=event)
        for team in teams:
            services.entry_register(tournament=event, team=team)
        services.tournament_start(tournament=event)
        for round_ in Round.objects.filter(stage__tournament=event, status=Round.Status.PENDING):
            services.round_pair(round_id=round_.pk)
        for table in Table.objects.filter(round__stage__tournament=event, is_bye=False):
            sides = list(dict.fromkeys(s.entry_id for s in table.seats.order_by("position")))
            services.table_record_result(
                table=table, places=sides, fool=sides[-1], team_lost=[sides[-1]], source="bot"
            )
        for round_ in Round.objects.filter(stage__tournament=event, status=Round.Status.PLAYING):
            services.round_complete(round_id=round_.pk)
        services.prize_pool_compute(tournament_id=event.pk)
    return event


def test_a_team_events_final_rows_name_the_team(client: Client) -> None:
    # given a finished one-round swiss of four pairs (two tables of two teams)
    event = team_event()
    # then each row names its team, not a player, and the points its table gave it
    rows = get(client, f"tournaments/{event.slug}/standings/").json()["rows"]
    team_of = dict(Entry.objects.filter(tournament=event).values_list("pk", "team_id"))
    assert len(rows) == 4
    assert all(r["player_id"] is None and r["team_id"] == team_of[r["entry_id"]] for r in rows)
    assert {r["status"] for r in rows} == {"finished"} and {r["stage"] for r in rows} == {1}
    swiss = get(client, f"tournaments/{event.slug}/stages/1/standings/").json()["rows"]
    assert {r["entry_id"]: r["points"] for r in rows} == {r["entry_id"]: r["points"] for r in swiss}
    assert {r["points"] for r in rows} != {0.0}


MONEY_2 = re.compile(r"^[0-9]+\.[0-9]{2}$")


def test_money_is_written_to_the_currencys_minor_unit(client: Client, event: Tournament) -> None:
    money = get(client, f"tournaments/{event.slug}/").json()["money"]
    assert money["currency"] == "RUB"
    assert (money["entry_fee"], money["reentry_fee"], money["guarantee"]) == (
        "100.00",
        "0.00",
        "0.00",
    )
    pool = money["prize_pool"]
    assert pool["currency"] == "RUB"
    assert (pool["gross"], pool["rake"], pool["total"]) == ("1600.00", "160.00", "1440.00")
    amounts = [p["amount"] for p in money["payouts"]]
    rows = get(client, f"tournaments/{event.slug}/standings/").json()["rows"]
    paid = [r["payout"] for r in rows if r["payout"] is not None]
    assert amounts == paid and all(MONEY_2.match(a) for a in amounts)
    assert all(r["currency"] == "RUB" for r in rows)
    assert sum(Decimal(a) for a in amounts) == Decimal("1440.00")


def test_a_currency_without_a_minor_unit_is_written_without_decimals(client: Client) -> None:
    event = finished_event(8, name="Кубок в иенах", currency="JPY", entry_fee="1000")
    money = get(client, f"tournaments/{event.slug}/").json()["money"]
    assert money["currency"] == "JPY" and money["entry_fee"] == "1000"
    assert money["prize_pool"]["total"] == "7200"
    rows = get(client, f"tournaments/{event.slug}/standings/").json()["rows"]
    paid = [r["payout"] for r in rows if r["payout"] is not None]
    assert paid and all(re.fullmatch(r"[0-9]+", a) for a in paid)
    assert sum(int(a) for a in paid) == 7200
    # and the CSV gives a spreadsheet the payouts as numbers it sums
    lines = list(
        csv.reader(
            io.StringIO(get(client, f"tournaments/{event.slug}/standings.csv").content.decode())
        )
    )
    column = lines[0].index("payout")
    assert sum(int(line[column] or 0) for line in lines[1:]) == 7200


def test_the_payout_structure_is_the_one_the_pool_was_paid_by(
    client: Client, event: Tournament
) -> None:
    # given no structure of the organiser's: the default scale for a field of 16 (3 places paid)
    money = get(client, f"tournaments/{event.slug}/").json()["money"]
    assert money["payout_structure_default"] is True
    assert money["payout_structure"] == ["54.55", "27.27", "18.18"]
    assert [p["place"] for p in money["payouts"]] == [1, 2, 3]
    winner = Entry.objects.get(tournament=event, final_place=1)
    assert money["payouts"][0]["entry"] == {"id": winner.pk, "name": winner.name}
    # and an organiser's own structure is the one shown
    own = finished_event(8, name="Кубок 60/40", payout_structure=["60", "40"])
    money = get(client, f"tournaments/{own.slug}/").json()["money"]
    assert money["payout_structure_default"] is False
    assert money["payout_structure"] == ["60.00", "40.00"]
    assert [p["amount"] for p in money["payouts"]] == ["432.00", "288.00"]


def test_the_schema_types_money_statuses_points_and_ratings() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    components = schema["components"]["schemas"]
    row = components["FinalStandingRow"]["properties"]
    assert row["player_id"]["type"] == "integer" and row["player_id"]["nullable"]
    assert row["points"]["type"] == "number" and not row["points"].get("nullable")
    status = components["EventFinalStatusEnum"]
    assert status["enum"] == ["finished", "eliminated", "withdrawn", "disqualified"]
    for name, field in [
        ("FinalStandingRow", "payout"),
        ("TournamentMoney", "entry_fee"),
        ("PrizePoolPublic", "total"),
        ("TournamentPayout", "amount"),
    ]:
        money = components[name]["properties"][field]
        assert money["type"] == "string" and money["pattern"] == MONEY_PATTERN, (name, field)
        assert re.match(money["pattern"], "1261.34") and not re.match(money["pattern"], "1e3")
        assert "currency" in components[name]["properties"], name
    assert components["PlayerRating"]["properties"]["rating"]["type"] == "integer"


def test_the_knockout_tree_links_tables_by_the_places_that_go_on(
    client: Client, event: Tournament
) -> None:
    body = get(client, f"tournaments/{event.slug}/stages/2/bracket/").json()
    nodes = {n["id"]: n for n in body["nodes"]}
    assert body["rounds"] == 2 and body["advance_per_table"] == 2
    assert len(nodes) == 3
    final = next(n for n in nodes.values() if n["is_final"])
    assert final["round"] == 2 and final["advancing"] == []
    feeders = [n for n in nodes.values() if n["round"] == 1]
    assert {(e["from_table"], e["place"], e["to_table"]) for e in body["edges"]} == {
        (n["id"], place, final["id"]) for n in feeders for place in (1, 2)
    }
    # who advances from each first-round table is who sits at the final
    advanced = {e["id"] for n in feeders for e in n["advancing"]}
    assert advanced == {e["id"] for e in final["entries"]}
    assert (
        final["result"]["places"][0]["entry"]["id"]
        == Entry.objects.get(tournament=event, final_place=1).pk
    )
    assert get(client, f"tournaments/{event.slug}/stages/1/bracket/").status_code == 404


def test_a_league_and_its_table(client: Client) -> None:
    league = services.league_create(
        name="Осенняя лига", season="2026", actor=None, points_scale=[10, 6, 4, 2]
    )
    field = BotPlayerFactory.create_batch(8)
    first = finished_event(field, name="Этап 1", league=league)
    finished_event(field, name="Этап 2", league=league)
    services.league_ranks_compute(league_id=league.pk)
    services.league_create(name="Пустая лига", season="2026", actor=None)

    leagues = get(client, "leagues/").json()["results"]
    assert [item["slug"] for item in leagues] == [league.slug]
    body = get(client, f"leagues/{league.slug}/table/").json()
    assert body["tournaments_counted"] == 2 and body["error"] == ""
    rows = body["rows"]
    assert len(rows) == 8 and all(r["played"] == 2 for r in rows)
    assert rows[0]["points"] >= rows[-1]["points"]
    winner = Entry.objects.get(tournament=first, final_place=1)
    assert winner.player is not None
    assert any(r["player_id"] == winner.player_id and 1 in r["places"] for r in rows)
    assert all(r["rating"] and r["rating"]["sigma"] > 0 for r in rows)
    assert any(r["rank"] for r in rows)
    assert get(client, f"leagues/{league.slug}/table/?season=2025").status_code == 404
    assert get(client, "leagues/pustaya-liga/table/").status_code == 404


def test_a_private_event_stays_out_of_the_league_table_of_those_who_may_not_read_it(
    client: Client, organiser: User
) -> None:
    # given a league with a public finished event and a private one of other players
    league = services.league_create(name="Закрытая лига", season="2026", actor=organiser)
    public = finished_event(8, name="Открытый этап", league=league, created_by=organiser)
    hidden = finished_event(8, name="Закрытый этап", league=league, created_by=organiser)
    Tournament.objects.filter(pk=hidden.pk).update(is_public=False)
    hidden_names = {e.name for e in Entry.objects.filter(tournament=hidden)}
    # when an anonymous reader and the organiser read the table
    anonymous = get(client, f"leagues/{league.slug}/table/").json()
    client.force_login(organiser)
    own = get(client, f"leagues/{league.slug}/table/").json()
    # then only the organiser's counts the private event and shows its players
    assert anonymous["tournaments_counted"] == 1 and own["tournaments_counted"] == 2
    assert not hidden_names & {row["name"] for row in anonymous["rows"]}
    assert hidden_names <= {row["name"] for row in own["rows"]}
    assert {e.name for e in Entry.objects.filter(tournament=public)} <= {
        row["name"] for row in anonymous["rows"]
    }


# --- exports --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("export", "endpoint"),
    [("stages/1/standings", "stages/1/standings/"), ("standings", "standings/")],
)
def test_the_standings_download_as_csv_and_json(
    client: Client, event: Tournament, export: str, endpoint: str
) -> None:
    rows = get(client, f"tournaments/{event.slug}/{endpoint}").json()["rows"]
    as_json = get(client, f"tournaments/{event.slug}/{export}.json")
    assert as_json["Content-Disposition"].startswith("attachment; filename=")
    assert as_json["Content-Disposition"].endswith('.json"')
    assert as_json.json() == rows
    as_csv = get(client, f"tournaments/{event.slug}/{export}.csv", Accept="application/json")
    assert as_csv["Content-Type"] == "text/csv; charset=utf-8"
    assert as_csv["Content-Disposition"].endswith('.csv"')
    assert as_csv.content.startswith("\ufeff".encode())
    lines = list(csv.DictReader(io.StringIO(as_csv.content.decode("utf-8-sig"))))
    assert len(lines) == len(rows)
    assert [line["name"] for line in lines] == [r["name"] for r in rows]
    assert [float(line["points"] or 0) for line in lines] == [float(r["points"] or 0) for r in rows]


def test_the_results_download_as_csv_and_json(client: Client, event: Tournament) -> None:
    as_json = get(client, f"tournaments/{event.slug}/results.json").json()
    count = TableResult.objects.filter(table__round__stage__tournament=event).count()
    assert len(as_json) == count and [r["id"] for r in as_json] == sorted(r["id"] for r in as_json)
    as_csv = get(client, f"tournaments/{event.slug}/results.csv")
    lines = list(csv.DictReader(io.StringIO(as_csv.content.decode("utf-8-sig"))))
    assert [int(line["id"]) for line in lines] == [r["id"] for r in as_json]
    first = as_json[0]
    assert lines[0]["places"] == "; ".join(p["entry"]["name"] for p in first["places"])
    assert lines[0]["fool"] == first["fool"]["name"]


def test_a_download_of_a_missing_or_hidden_event_is_a_json_404(client: Client) -> None:
    hidden = make_tournament(BotPlayerFactory.create_batch(2), is_public=False)
    for url in (f"tournaments/{hidden.slug}/standings.csv", "tournaments/nope/results.csv"):
        response = get(client, url)
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert response.json()["code"] == "not_found"
        assert "Content-Disposition" not in response


# --- who may read ---------------------------------------------------------------------------------


def private_event_urls(slug: str) -> list[str]:
    t = f"tournaments/{slug}/"
    return [
        t,
        t + "stages/1/rounds/",
        t + "stages/1/rounds/1/",
        t + "stages/1/standings/",
        t + "standings/",
        t + "results/",
        t + "standings.csv",
        t + "standings.json",
        t + "results.csv",
        t + "stages/1/standings.json",
    ]


def test_a_private_event_is_only_for_its_people(
    client: Client, organiser: User, event_referee: User, other_referee: User, outsider: User
) -> None:
    referee = event_referee
    humans = PlayerFactory.create_batch(4)
    tournament = make_tournament(
        humans,
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        is_public=False,
        created_by=organiser,
    )
    tournament.referees.set([referee])
    services.tournament_start(tournament=tournament)
    services.round_pair(round_id=Round.objects.get(stage__tournament=tournament).pk)
    player = humans[0].user
    assert player is not None
    urls = private_event_urls(tournament.slug)
    for url in urls:
        assert get(client, url).status_code == 404, url
    for who in (outsider, other_referee):
        client.force_login(who)
        for url in urls:
            assert get(client, url).status_code == 404, url
        assert tournament.slug not in json.dumps(get(client, "tournaments/").json())
    for who in (organiser, referee, player):
        client.force_login(who)
        for url in urls:
            response = get(client, url)
            assert response.status_code == 200, (who, url)
        assert response["Cache-Control"] == "private, no-cache"
        listed = get(client, "tournaments/").json()["results"]
        assert tournament.slug in [t["slug"] for t in listed]


def test_a_draft_is_never_listed_nor_shown_publicly(client: Client) -> None:
    draft = services.tournament_create(name="Черновик", stages=swiss_then_knockout(8))
    assert draft.status == Tournament.Status.DRAFT
    assert draft.slug not in json.dumps(get(client, "tournaments/").json())
    assert get(client, f"tournaments/{draft.slug}/").status_code == 404
    client.force_login(UserFactory.create())
    assert draft.slug not in json.dumps(get(client, "tournaments/").json())


# --- conditional GET ------------------------------------------------------------------------------


def event_urls(slug: str) -> list[str]:
    t = f"tournaments/{slug}/"
    return [
        t,
        t + "stages/1/rounds/",
        t + "stages/1/rounds/1/",
        t + "stages/1/standings/",
        t + "stages/2/bracket/",
        t + "standings/",
        t + "results/",
        t + "stages/1/standings.csv",
        t + "standings.json",
        t + "results.csv",
    ]


def test_a_current_etag_gets_a_304_from_one_query_and_a_change_a_200(
    client: Client, event: Tournament
) -> None:
    for url in event_urls(event.slug):
        first = get(client, url)
        assert first.status_code == 200, url
        etag = first["ETag"]
        assert etag.startswith('W/"') and first["Last-Modified"]
        # a finished event whose awards are computed may be kept a while
        assert first["Cache-Control"] == "public, max-age=300"
        with CaptureQueriesContext(connection) as queries:
            again = get(client, url, **{"If-None-Match": etag})
        assert again.status_code == 304, url
        assert again.content == b""
        assert len(queries) == 1, [q["sql"] for q in queries]
        assert "tournaments_tournament" in queries[0]["sql"]
    # when the event changes, the old ETag gets the new body
    Tournament.objects.filter(pk=event.pk).update(version=F("version") + 1)
    for url in event_urls(event.slug):
        stale = get(client, url)
        response = get(client, url, **{"If-None-Match": stale["ETag"] + ', W/"old"'})
        assert response.status_code == 304
    old = get(client, event_urls(event.slug)[0])
    Tournament.objects.filter(pk=event.pk).update(version=F("version") + 1)
    fresh = get(client, event_urls(event.slug)[0], **{"If-None-Match": old["ETag"]})
    assert fresh.status_code == 200 and fresh.json()["version"] == event.version + 2


def test_a_running_event_is_revalidated_every_time(client: Client) -> None:
    tournament = make_tournament(BotPlayerFactory.create_batch(4))
    response = get(client, f"tournaments/{tournament.slug}/")
    assert response["Cache-Control"] == "public, no-cache"


# --- hidden information ---------------------------------------------------------------------------


def test_no_endpoint_shows_anything_of_a_games_state_or_seed(client: Client) -> None:
    # given a running event whose first round plays live games
    tournament = make_tournament(
        BotPlayerFactory.create_batch(8), stages=[{"format": "swiss", "table_size": 4, "rounds": 2}]
    )
    services.tournament_start(tournament=tournament)
    services.round_pair(round_id=Round.objects.get(stage__tournament=tournament).pk)
    games = list(Game.objects.filter(table__round__stage__tournament=tournament))
    assert games
    secrets: set[str] = set()
    for game in games:
        secrets.add(game.seed)
        state = game.state
        for hand in state["hands"]:
            secrets.update(str(card) for card in hand)
        for card in state["stock"]:
            secrets.add(str(card))
    secrets = {s for s in secrets if s and len(s) >= 2}
    # (the secrets are real: every game's seed and the cards in hand and in the stock)
    assert {g.seed for g in games} < secrets and len(secrets) > len(games) * 4
    # when a scoreboard reads every endpoint of the event (each answers: a 404 would read nothing)
    t = f"tournaments/{tournament.slug}/"
    urls = [
        t,
        t + "stages/1/rounds/",
        t + "stages/1/rounds/1/",
        t + "stages/1/standings/",
        t + "standings/",
        t + "results/",
        t + "stages/1/standings.csv",
        t + "standings.json",
        t + "results.csv",
        t + "results.json",
    ]
    bodies = []
    for url in urls:
        response = get(client, url)
        assert response.status_code == 200, url
        bodies.append(response.content.decode())
    text = "\n".join(bodies)
    # then no seed, no card of any hand or of the stock appears
    leaked = [s for s in secrets if f'"{s}"' in text]
    assert not leaked
    assert '"seed"' not in text and '"state"' not in text and '"hands"' not in text
