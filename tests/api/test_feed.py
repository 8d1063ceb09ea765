"""The tournament feed: the version counter every visible change bumps, and the WebSocket
``/ws/tournaments/<slug>/`` (``WebsocketCommunicator`` on the real ASGI app) that announces
each change after commit."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from durak_site.asgi import application
from tests.builders import (
    TWO_SEATS,
    LiveTable,
    make_tournament,
    session_cookie,
    start_live_table,
)
from tests.factories import PlayerFactory
from tests.sockets import refusal
from tournaments import services
from tournaments.models import Table, TableResult, Tournament, Webhook, WebhookDelivery
from tournaments.services.feed import tournament_changed
from tournaments.services.webhooks.delivery import event_id

ORIGIN = "http://testserver"


async def open_feed(
    slug: str, user: User | None = None, *, token: str | None = None
) -> WebsocketCommunicator:
    headers = [(b"host", b"testserver"), (b"origin", ORIGIN.encode())]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    if token is not None:
        headers.append((b"authorization", f"Token {token}".encode()))
    return WebsocketCommunicator(application, f"/ws/tournaments/{slug}/", headers=headers)


def record_the_result(live: LiveTable) -> TableResult:
    seated = list(live.table.seats.order_by("position").values_list("entry_id", flat=True))
    return services.table_record_result(table=live.table, places=seated, fool=seated[-1])


def version_of(tournament: Tournament) -> int:
    return Tournament.objects.values_list("version", flat=True).get(pk=tournament.pk)


# --- the socket ----------------------------------------------------------------------------------


def two_tables() -> list[Table]:
    """A running public event of four players at two tables (jobs in-process)."""
    tournament = make_tournament(
        PlayerFactory.create_batch(4), TWO_SEATS, name="Кубок ленты", entry_fee="0"
    )
    services.tournament_start(tournament=tournament)
    return list(Table.objects.filter(round__stage__tournament=tournament).order_by("number"))


def record(table: Table) -> TableResult:
    seated = list(table.seats.order_by("position").values_list("entry_id", flat=True))
    return services.table_record_result(table=table, places=seated, fool=seated[-1])


async def hello(slug: str) -> tuple[WebsocketCommunicator, int]:
    comm = await open_feed(slug)
    connected, _ = await comm.connect(timeout=10)
    assert connected
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] == "hello"
    return comm, first["version"]


async def the_rest(comm: WebsocketCommunicator) -> list[dict[str, Any]]:
    messages = []
    while not await comm.receive_nothing(timeout=0.5):
        messages.append(await comm.receive_json_from(timeout=5))
    return messages


@pytest.mark.django_db(transaction=True)
async def test_hello_then_a_recorded_result_with_the_next_version(eager_jobs: None) -> None:
    # given a spectator's socket on a public event playing at two tables
    first, _second = await database_sync_to_async(two_tables)()
    slug = await database_sync_to_async(lambda: first.round.stage.tournament.slug)()
    comm, version = await hello(slug)
    assert version == await database_sync_to_async(version_of)(
        await database_sync_to_async(lambda: first.round.stage.tournament)()
    )
    # when the first table's result is recorded
    await database_sync_to_async(record)(first)
    # then the socket hears of it with the next version, and nothing else (a table still plays)
    message = await comm.receive_json_from(timeout=10)
    assert message["type"] == "event" and message["event"] == "table_finished"
    assert message["version"] == version + 1
    assert message["tournament"] == slug
    data = message["data"]
    assert (data["stage"], data["round"], data["table"]) == (1, 1, first.number)
    # with its facts: the table's result with its places, the standings rows that moved
    assert data["table_id"] == first.pk
    places = [p["entry"]["id"] for p in data["table_detail"]["result"]["places"]]
    assert (
        places
        == await database_sync_to_async(
            lambda: list(first.seats.order_by("position").values_list("entry_id", flat=True))
        )()
    )
    assert {row["entry_id"] for row in data["standings"]["rows"]} >= set(places)
    assert await the_rest(comm) == []
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_versions_a_socket_gets_only_grow(live_table: LiveTable) -> None:
    # given a socket on a one-table event
    comm, version = await hello(live_table.tournament.slug)
    # when its only result finishes the event (the round, awards: in-process jobs, each
    # committing and announcing inside the result's commit)
    await database_sync_to_async(record_the_result)(live_table)
    # then the socket's versions only grow (a client resyncs when one is skipped)
    messages = await the_rest(comm)
    versions = [m["version"] for m in messages]
    assert versions == sorted(set(versions)) and versions[0] > version
    events = [m["event"] for m in messages]
    assert "tournament_finished" in events
    # the last round announces its end, the stage's and the event's, in that order; the awards
    # follow, and the last event is the one that holds them all
    finish = events.index("tournament_finished")
    assert events[finish - 2 : finish] == ["round_finished", "stage_finished"]
    assert events[-1] == "tournament_completed" and events.count("tournament_completed") == 1
    assert sorted(m["data"]["what"] for m in messages if m["event"] == "awards_computed") == [
        "prize_pool",
        "ranks",
        "ratings",
    ]
    completed = messages[-1]["data"]
    (first, second) = completed["final_standings"]["rows"]
    assert (first["place"], second["place"]) == (1, 2)
    assert all(row["player_id"] for row in (first, second))
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_private_tournament_is_refused_to_an_outsider_and_open_to_its_players(
    outsider: User, eager_jobs: None
) -> None:
    live = await database_sync_to_async(start_live_table)(is_public=False)
    for user in (None, outsider):
        # to them it does not exist: the answer of a missing tournament, as the API's 404
        comm = await open_feed(live.tournament.slug, user)
        assert await refusal(comm) == ("not_found", 4404)
    comm = await open_feed(live.tournament.slug, live.user_at(0))
    connected, _ = await comm.connect(timeout=10)
    assert connected
    assert (await comm.receive_json_from(timeout=5))["type"] == "hello"
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_missing_tournament_and_a_bad_token_are_refused(live_table: LiveTable) -> None:
    comm = await open_feed("no-such-event")
    assert await refusal(comm) == ("not_found", 4404)
    comm = await open_feed(live_table.tournament.slug, token="not-a-token")
    assert await refusal(comm) == ("authentication_failed", 4401)


@pytest.mark.django_db(transaction=True)
async def test_the_feed_only_sends(live_table: LiveTable) -> None:
    comm = await open_feed(live_table.tournament.slug)
    await comm.connect(timeout=10)
    await comm.receive_json_from(timeout=5)
    await comm.send_json_to({"type": "sync"})
    answer = await comm.receive_json_from(timeout=5)
    assert (answer["type"], answer["code"]) == ("error", "read_only")
    await comm.disconnect()


# --- the version ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_visible_change_bumps_the_version_once() -> None:
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок версий")
    start = version_of(tournament)
    services.entry_register(tournament=tournament, player=PlayerFactory.create())
    assert version_of(tournament) == start + 1
    services.tournament_close_registration(tournament=tournament)
    services.tournament_open_registration(tournament=tournament)
    services.tournament_update(tournament=tournament, actor=None, name="Кубок версий 2")
    assert version_of(tournament) == start + 4
    tournament.refresh_from_db()
    assert tournament.changed_at is not None


@pytest.mark.django_db
def test_an_announcement_makes_deliveries_in_the_same_transaction_with_few_queries() -> None:
    tournament = make_tournament(PlayerFactory.create_batch(2), name="Кубок запросов")
    for n in range(3):
        Webhook.objects.create(
            tournament=tournament, url=f"https://example.com/{n}", secret="s", events=[]
        )
    Webhook.objects.create(
        tournament=tournament, url="https://example.com/x", secret="s", events=["round_paired"]
    )
    Webhook.objects.create(
        tournament=tournament, url="https://example.com/off", secret="s", is_active=False
    )
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        version = tournament_changed(tournament_id=tournament.pk, event="entries_changed")
    # the update, the version, the log's row, the webhooks, one insert of the deliveries
    assert len(queries) <= 5 + 2  # (savepoint and release)
    deliveries = WebhookDelivery.objects.filter(webhook__tournament=tournament)
    assert deliveries.count() == 3
    # one opaque id per webhook for this change
    assert set(deliveries.values_list("event_id", flat=True)) == {
        event_id(hook_id, tournament.pk, version)
        for hook_id in deliveries.values_list("webhook_id", flat=True)
    }
    assert len(set(deliveries.values_list("event_id", flat=True))) == 3
    payload: dict[str, Any] = deliveries.first().payload  # type: ignore[union-attr]
    assert payload["version"] == version and payload["tournament"] == tournament.slug
