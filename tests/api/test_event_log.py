"""The tournament's event log (``tournaments.models.FeedEvent``): every version a reader can see
has its event, written in the change's transaction, read back as the socket's message."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.builders import TWO_SEATS, LiveTable, make_tournament
from tests.factories import PlayerFactory
from tournaments import notifications, services
from tournaments.models import FeedEvent, Tournament
from tournaments.notifications import Change, Listener
from tournaments.selectors.feed import EventsExpired, VersionAhead, events_since
from tournaments.services.feed import player_changed, tournament_changed


class Heard(Listener):
    name = "test-heard"

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def stage(self, change: Change) -> None:  # (a test's transaction never commits)
        self.messages.extend(change.message(stamp) for stamp in change.stamps)


@pytest.fixture
def heard() -> Any:
    listener = notifications.register(Heard())
    yield listener
    notifications.unregister(Heard.name)


@pytest.mark.django_db
def test_every_version_has_its_event_read_back_as_its_message(heard: Heard) -> None:
    # given a tournament open for registration (its changes so far logged)
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок журнала")
    heard.messages.clear()
    start = Tournament.objects.get(pk=tournament.pk).version
    # when three more changes are announced
    services.entry_register(tournament=tournament, player=PlayerFactory.create())
    services.tournament_close_registration(tournament=tournament)
    services.tournament_update(tournament=tournament, actor=None, name="Кубок журнала 2")
    tournament.refresh_from_db()
    assert tournament.version == start + 3
    # then the log holds one event per version, from the first, without a gap
    assert list(
        FeedEvent.objects.filter(tournament=tournament).values_list("version", flat=True)
    ) == list(range(1, tournament.version + 1))
    # and read after ``start`` they are exactly the messages the channels got
    assert events_since(tournament, start, 100) == heard.messages
    assert [m["event"] for m in heard.messages] == [
        "entries_changed",
        "registration_closed",
        "tournament_updated",
    ]
    # with the REST answers' form of a time
    assert all(m["at"].endswith("Z") and "+00:00" not in m["at"] for m in heard.messages)
    # a limit, the current version, a version ahead
    assert events_since(tournament, start, 2) == heard.messages[:2]
    assert events_since(tournament, tournament.version, 100) == []
    with pytest.raises(VersionAhead):
        events_since(tournament, tournament.version + 1, 100)


@pytest.mark.django_db
def test_a_rolled_back_change_leaves_no_event() -> None:
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок отката")
    before = FeedEvent.objects.filter(tournament=tournament).count()
    with pytest.raises(RuntimeError), transaction.atomic():
        tournament_changed(tournament_id=tournament.pk, event="tournament_updated")
        raise RuntimeError("the change fails after its announcement")
    assert FeedEvent.objects.filter(tournament=tournament).count() == before


@pytest.mark.django_db
def test_a_pruned_prefix_is_reported_not_skipped() -> None:
    # given a log whose first events are no longer kept
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок забытого")
    tournament.refresh_from_db()
    assert tournament.version >= 3
    FeedEvent.objects.filter(tournament=tournament, version__lte=2).delete()
    # then a reader from before them is told, and one from the first kept is served
    with pytest.raises(EventsExpired):
        events_since(tournament, 0, 100)
    with pytest.raises(EventsExpired):
        events_since(tournament, 1, 100)
    assert events_since(tournament, 2, 100)[0]["version"] == 3


@pytest.mark.django_db
def test_one_change_of_many_tournaments_logs_them_in_one_insert() -> None:
    # given a player in three tournaments
    player = PlayerFactory.create()
    tournaments = [
        make_tournament([player, PlayerFactory.create()], TWO_SEATS, name=f"Кубок {n}")
        for n in range(3)
    ]
    # when its name changes, announced to them all
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        versions = player_changed(player_id=player.pk, fields=["display_name"])
    # then each has its event at its new version, in one insert
    assert set(versions) == {t.pk for t in tournaments}
    for tournament in tournaments:
        row = FeedEvent.objects.get(tournament=tournament, version=versions[tournament.pk])
        assert (row.event, row.data) == (
            "people_changed",
            {"player": player.pk, "fields": ["display_name"]},
        )
    inserts = [q for q in queries if 'INSERT INTO "tournaments_feedevent"' in q["sql"]]
    assert len(inserts) == 1


@pytest.mark.django_db(transaction=True)
def test_a_whole_event_logs_every_version(live_table: LiveTable) -> None:
    # when the one table's result finishes the event (rounds, stage, awards: jobs in-process)
    seated = list(live_table.table.seats.order_by("position").values_list("entry_id", flat=True))
    services.table_record_result(table=live_table.table, places=seated, fool=seated[-1])
    tournament = Tournament.objects.get(pk=live_table.tournament.pk)
    # then every version up to the last has its event
    logged = list(FeedEvent.objects.filter(tournament=tournament).values_list("version", "event"))
    assert [v for v, _ in logged] == list(range(1, tournament.version + 1))
    assert "tournament_finished" in {e for _, e in logged}


# --- GET /api/v1/tournaments/{slug}/events/ ------------------------------------------------------


def events_url(tournament: Tournament, query: str = "") -> str:
    return f"/api/v1/tournaments/{tournament.slug}/events/{query}"


@pytest.mark.django_db
def test_the_log_over_rest_fills_a_gap_page_by_page(client: Any, heard: Heard) -> None:
    # given a public event with three changes a client missed after ``start``
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок ленты REST")
    start = Tournament.objects.get(pk=tournament.pk).version
    heard.messages.clear()
    services.entry_register(tournament=tournament, player=PlayerFactory.create())
    services.tournament_close_registration(tournament=tournament)
    services.tournament_update(tournament=tournament, actor=None, name="Кубок ленты REST 2")
    # when it reads the log after ``start``, two at a time
    first = client.get(events_url(tournament, f"?since={start}&limit=2"))
    assert first.status_code == 200
    page = first.json()
    assert page["version"] == start + 3 and page["more"] is True
    second = client.get(events_url(tournament, f"?since={page['events'][-1]['version']}&limit=2"))
    rest = second.json()
    assert rest["more"] is False
    # then it has every event, exactly as the socket and the webhooks had them
    assert page["events"] + rest["events"] == heard.messages
    # and the answer is conditional, as every read of the tournament
    etag = first["ETag"]
    with CaptureQueriesContext(connection) as queries:
        again = client.get(
            events_url(tournament, f"?since={start}&limit=2"), HTTP_IF_NONE_MATCH=etag
        )
    assert again.status_code == 304
    assert not [q for q in queries if "feedevent" in q["sql"].lower()]  # the log is not read
    # a version ahead of the tournament's is a 400 naming ``since``; past the end, nothing
    ahead = client.get(events_url(tournament, f"?since={start + 4}"))
    assert ahead.status_code == 400 and "since" in ahead.json()["fields"]
    assert client.get(events_url(tournament, f"?since={start + 3}")).json()["events"] == []
    # a bad value or an unknown parameter: 400 (the contract)
    for query in ("?since=-1", "?limit=0", "?limit=501", "?since=x", "?foo=1"):
        assert client.get(events_url(tournament, query)).status_code == 400, query


@pytest.mark.django_db
def test_a_gap_the_log_no_longer_holds_is_a_410(client: Any) -> None:
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок 410")
    FeedEvent.objects.filter(tournament=tournament, version__lte=1).delete()
    gone = client.get(events_url(tournament, "?since=0"))
    assert gone.status_code == 410 and gone.json()["code"] == "events_expired"
    assert client.get(events_url(tournament, "?since=1")).status_code == 200
    stream = client.get(events_url(tournament, "stream/?since=0"))
    assert stream.status_code == 410 and stream.json()["code"] == "events_expired"


@pytest.mark.django_db
def test_a_private_events_log_is_missing_for_an_outsider(client: Any, outsider: Any) -> None:
    tournament = make_tournament(
        PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок тайный", is_public=False
    )
    client.force_login(outsider)
    for path in ("", "stream/"):
        assert client.get(events_url(tournament, path)).status_code == 404
