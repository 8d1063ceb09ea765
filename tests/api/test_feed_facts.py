"""The facts each feed event carries (``tournaments.selectors.facts``): an event played out
while a channel notes every message, then each message's facts compared with what the REST
endpoints answer right after; the last event, ``tournament_completed``, holds the awards; the
payloads take as many queries for 256 players as for 8, and stay bounded."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api.test_events import finished_event, get, play_out, record
from tests.builders import make_tournament
from tests.conftest import jobs_in_process
from tests.factories import BotPlayerFactory
from tournaments import notifications, services
from tournaments.models import Round, Stage, Table, Tournament
from tournaments.notifications import Change, Listener
from tournaments.selectors import facts

pytestmark = pytest.mark.django_db

#: What a message may never name: a game's hidden information (ours are never sent at all).
HIDDEN = ("hand", "hands", "deck", "talon", "cards", "trump", "seed", "stock")


class Messages(Listener):
    """Every message, as the socket and a webhook's body carry it, in the order announced."""

    name = "facts-recorder"

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def stage(self, change: Change) -> None:
        for stamp in change.stamps:
            # through JSON, as the channel layer and the outbox do
            self.messages.append(json.loads(json.dumps(change.message(stamp))))

    def of(self, event: str) -> list[dict[str, Any]]:
        return [m["data"] for m in self.messages if m["event"] == event]


@pytest.fixture
def messages() -> Iterator[Messages]:
    recorder = notifications.register(Messages())
    assert isinstance(recorder, Messages)
    try:
        yield recorder
    finally:
        notifications.unregister(Messages.name)


def keys_of(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from keys_of(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from keys_of(inner)


def started(players: int) -> Tournament:
    """A started swiss-then-knockout event of ``players`` bots (``test_events``' plan)."""
    field = BotPlayerFactory.create_batch(players)
    stages = [
        {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": max(4, players // 2)}},
        {"format": "knockout", "table_size": 4, "advance_per_table": 2},
    ]
    with jobs_in_process():
        tournament = make_tournament(field, stages=stages, name=f"Кубок фактов {players}")
        services.tournament_start(tournament=tournament)
    return tournament


def test_each_event_carries_its_facts_as_the_rest_answers_them(
    client: Client, messages: Messages
) -> None:
    # given an event of 8 bots, followed by a channel from its start
    tournament = started(8)
    slug = tournament.slug
    t = f"tournaments/{slug}/"
    stage1 = Stage.objects.get(tournament=tournament, order=1)
    # when its first round is paired
    services.round_pair(round_id=Round.objects.get(stage=stage1, number=1).pk)
    # then round_paired carries its tables and who sits at each, as the round's REST answer
    (paired,) = messages.of("round_paired")
    rest_round = unlinked(get(client, t + "stages/1/rounds/1/").json())
    assert paired["tables"] == [
        {key: table[key] for key in facts.PAIRED_TABLE_KEYS} for table in rest_round["tables"]
    ]
    assert all(seat["player"]["id"] for table in paired["tables"] for seat in table["seats"])

    # when a table finishes
    table = Table.objects.filter(round__stage=stage1, is_bye=False).order_by("number").first()
    assert table is not None
    record(table, pogony=True)
    # then table_finished carries the table with its result and places, and the standings
    # rows that moved, each equal to the REST rows right after
    (finished,) = messages.of("table_finished")
    assert (finished["stage"], finished["round"], finished["table"]) == (1, 1, table.number)
    rest_round = unlinked(get(client, t + "stages/1/rounds/1/").json())
    (rest_table,) = [row for row in rest_round["tables"] if row["id"] == table.pk]
    assert {key: finished["table_detail"][key] for key in rest_table} == rest_table
    assert [p["entry"]["id"] for p in finished["table_detail"]["result"]["places"]] == list(
        table.results.get().places
    )
    rest_rows = {
        row["entry_id"]: row for row in get(client, t + "stages/1/standings/").json()["rows"]
    }
    moved = finished["standings"]["rows"]
    assert moved and not finished["standings"]["truncated"]
    assert {row["entry_id"] for row in moved} >= set(table.seats.values_list("entry_id", flat=True))
    for row in moved:
        assert row == rest_rows[row["entry_id"]]
        assert row["player_id"] is not None

    # when the event plays out and its awards are computed
    play_out(tournament)
    # then a stage that is not the last announces its end, its standings and who goes on
    (stage_end, last_stage_end) = messages.of("stage_finished")
    assert stage_end["stage"] == 1 and last_stage_end["stage"] == 2
    rest_standings = get(client, t + "stages/1/standings/").json()["rows"]
    assert stage_end["standings"]["rows"] == [
        {key: row[key] for key in facts.SHORT_STANDING_KEYS} for row in rest_standings
    ]
    stage2 = Stage.objects.get(tournament=tournament, order=2)
    assert stage_end["advancing"] == list(
        stage2.stage_entries.order_by("seed").values_list("entry_id", flat=True)
    )
    # every round announces its end, the last one too
    assert [(m["stage"], m["round"]) for m in messages.of("round_finished")] == [
        (r.stage.order, r.number)
        for r in Round.objects.filter(stage__tournament=tournament).order_by(
            "stage__order", "number"
        )
    ]
    # the event's end, its final places (before the awards)
    rest_final = get(client, t + "standings/").json()
    (ended,) = messages.of("tournament_finished")
    assert ended["final_standings"]["rows"] == [
        {key: row[key] for key in facts.SHORT_FINAL_KEYS} for row in rest_final["rows"]
    ]
    assert all(row["player_id"] is not None for row in ended["final_standings"]["rows"])
    # the awards, each with its facts
    awards = {data["what"]: data for data in messages.of("awards_computed")}
    detail = get(client, t).json()
    assert awards["prize_pool"]["prize_pool"] == detail["money"]["prize_pool"]
    assert awards["prize_pool"]["payouts"] == [
        {key: row[key] for key in ("place", "entry_id", "player_id", "name", "payout")}
        for row in rest_final["rows"]
        if row["payout"] is not None
    ]
    assert awards["prize_pool"]["payouts"], "the event pays its first places"
    ranked = {row["player_id"]: row for row in awards["ranks"]["ranks"]}
    assert ranked and awards["ranks"]["final"] is True
    rated = awards["ratings"]["ratings"]
    assert len(rated) == 8
    profile = get(client, f"players/{rated[0]['player_id']}/").json()
    (change,) = [c for c in profile["rating_history"] if c["tournament"]["slug"] == slug]
    assert {key: rated[0][key] for key in change if key != "tournament"} == {
        key: value for key, value in change.items() if key != "tournament"
    }
    for row in profile["ranks"]:
        if row["scope"] == "tournament" and row["tournament"]["slug"] == slug:
            assert ranked[rated[0]["player_id"]]["rank"] == row["rank"]
    # and the last event is tournament_completed, with the final standings as the REST answer
    # (payouts and ranks) and the prize pool; every award came before it
    assert messages.messages[-1]["event"] == "tournament_completed"
    assert len(messages.of("tournament_completed")) == 1
    events = [m["event"] for m in messages.messages]
    assert events.index("tournament_finished") < events.index("tournament_completed")
    completed = messages.messages[-1]["data"]
    assert completed["final_standings"] == rest_final
    assert completed["prize_pool"] == detail["money"]["prize_pool"]
    assert set(events[-4:-1]) == {"awards_computed"}
    # the versions only grow; no message names hidden information
    versions = [m["version"] for m in messages.messages]
    assert versions == sorted(set(versions))
    assert not set(keys_of([m["data"] for m in messages.messages])) & set(HIDDEN)


def test_the_awards_jobs_run_again_announce_no_second_completion(messages: Messages) -> None:
    tournament = finished_event(8, name="Кубок повторов")
    assert [m["event"] for m in messages.messages][-1] == "tournament_completed"
    count = len(messages.messages)
    services.tournament_ranks_compute(tournament_id=tournament.pk)
    services.ratings_update(tournament_id=tournament.pk)
    assert len(messages.messages) == count


def unlinked(value: Any) -> Any:
    """A REST answer without its ``links`` objects (the API's paths: a face's, not a fact)."""
    if isinstance(value, dict):
        return {k: unlinked(v) for k, v in value.items() if k != "links"}
    if isinstance(value, list):
        return [unlinked(v) for v in value]
    return value


# --- bounded: queries and size ------------------------------------------------------------------


def payload_costs(tournament: Tournament) -> tuple[dict[str, int], dict[str, int]]:
    """Each event's facts for ``tournament``: the queries building them take, and their size in
    bytes of JSON."""
    stage1 = Stage.objects.select_related("tournament").get(tournament=tournament, order=1)
    round_ = Round.objects.select_related("stage__tournament").get(stage=stage1, number=2)
    table = (
        Table.objects.select_related("round__stage__tournament")
        .filter(round=round_, is_bye=False)
        .order_by("-number")
        .first()
    )
    assert table is not None
    result = table.results.get()
    tournament = Tournament.objects.get(pk=tournament.pk)
    builders: dict[str, Callable[[], Any]] = {
        "table_finished": lambda: facts.result_facts(table, result.pk),
        "round_paired": lambda: facts.paired_facts(round_),
        "round_finished": lambda: facts.round_facts(round_),
        "stage_finished": lambda: facts.stage_facts(stage1, round_.number),
        "tournament_finished": lambda: facts.finished_facts(tournament, stage1, 1),
        "awards_computed/prize_pool": lambda: facts.payouts(tournament),
        "awards_computed/ranks": lambda: facts.ranks(tournament),
        "awards_computed/ratings": lambda: facts.ratings(tournament),
        "tournament_completed": lambda: facts.completed_facts(tournament),
    }
    queries, sizes = {}, {}
    for name, build in builders.items():
        with CaptureQueriesContext(connection) as captured:
            data = build()
        queries[name] = len(captured)
        sizes[name] = len(json.dumps(data, ensure_ascii=False).encode())
    return queries, sizes


@pytest.mark.slow
def test_the_facts_take_the_same_queries_for_8_and_256_players_and_stay_bounded() -> None:
    measured = [payload_costs(finished_event(n, name=f"Кубок размера {n}")) for n in (8, 256)]
    (small, small_sizes), (large, large_sizes) = measured
    print("\nfacts per event: queries (8 / 256 players), bytes (8 / 256 players)")
    for name in small:
        sizes = f"{small_sizes[name]:7d} {large_sizes[name]:7d}"
        print(f"  {small[name]:3d} {large[name]:3d}  {sizes}  {name}")
    assert small == large
    assert max(small.values()) <= 10
    # a table's result: the table and the moved rows only, at most MOVED_ROWS_LIMIT of them
    assert large_sizes["table_finished"] < facts.MOVED_ROWS_LIMIT * 400 + 4_000
    # the rest grows with the field, by a short row per entry or seat (a 1,024-player event's
    # are four times these: docs/feed.md)
    for name, size in large_sizes.items():
        # a short row per entry or seat; a rating change's row is longer (μ, σ, ordinal and the
        # displayed rating, before and after)
        per_row = 320 if name == "awards_computed/ratings" else 256
        assert size < per_row * 256, name


def test_a_stage_too_large_for_moved_rows_gives_none_and_says_truncated(
    client: Client, messages: Messages, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given an event of 8 bots whose first round is paired
    tournament = started(8)
    stage1 = tournament.stages.get(order=1)
    services.round_pair(round_id=Round.objects.get(stage=stage1, number=1).pk)
    tables = list(Table.objects.filter(round__stage=stage1, is_bye=False).order_by("number"))
    assert len(tables) == 2
    # when a table finishes in a stage of exactly MOVED_ROWS_MAX_ENTRIES entries
    monkeypatch.setattr(facts, "MOVED_ROWS_MAX_ENTRIES", 8)
    record(tables[0], pogony=False)
    # then its moved rows come (the table's entries among them)
    (small,) = messages.of("table_finished")
    assert small["standings"]["rows"] and not small["standings"]["truncated"]
    # and when the next finishes in a stage of one entry more than the limit
    monkeypatch.setattr(facts, "MOVED_ROWS_MAX_ENTRIES", 7)
    record(tables[1], pogony=False)
    # then it carries no rows, and says that rows moved: read the stage's standings
    (_, large) = messages.of("table_finished")
    assert large["standings"] == {"stage": 1, "rows": [], "truncated": True}
    assert large["table_detail"]["result"]["places"]
    # and the round's end carries the stage's standings whole, as REST answers them
    services.round_complete(round_id=tables[1].round_id)
    (finished,) = messages.of("round_finished")
    rest = get(client, f"tournaments/{tournament.slug}/stages/1/standings/").json()["rows"]
    assert [row["entry_id"] for row in finished["standings"]["rows"]] == [
        row["entry_id"] for row in rest
    ]
    assert len(rest) == 8
