"""The notifications registry (``tournaments.notifications``): the feed publishes one change,
every registered channel stages it in the change's transaction and sends it after the commit
only, in the order they joined; the start-up channels are the sockets, the versions and the
webhooks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction

from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import notifications
from tournaments.models import Tournament, Webhook
from tournaments.notifications import Change, Listener
from tournaments.services.feed import UnknownEvent, tournament_changed, tournaments_changed

pytestmark = pytest.mark.django_db


class Recorder(Listener):
    """A channel that notes what it is told, and whether the change had committed by then."""

    name = "recorder"

    def __init__(self) -> None:
        self.staged: list[tuple[str, bool]] = []
        self.sent: list[Change] = []

    def stage(self, change: Change) -> None:
        self.staged.append((change.event, transaction.get_connection().in_atomic_block))

    def send(self, change: Change) -> None:
        self.sent.append(change)


class Broken(Listener):
    name = "broken"

    def send(self, change: Change) -> None:
        raise RuntimeError("the channel is down")


@pytest.fixture
def tournament() -> Tournament:
    return make_tournament(PlayerFactory.create_batch(2), name="Кубок оповещений")


@pytest.fixture
def recorder(tournament: Tournament) -> Iterator[Recorder]:
    """Registered once the tournament is made (its own announcements are not recorded)."""
    listener = Recorder()
    notifications.register(listener)
    yield listener
    notifications.unregister(Recorder.name)
    notifications.unregister(Broken.name)


def test_the_start_up_channels_are_registered_in_order() -> None:
    names = [listener.name for listener in notifications.listeners()]
    assert names[:3] == ["sockets", "versions", "webhooks"]


def test_a_channel_stages_in_the_transaction_and_sends_after_commit(
    recorder: Recorder, tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        version = tournament_changed(
            tournament_id=tournament.pk, event="round_paired", data={"round": 1}
        )
        assert recorder.staged == [("round_paired", True)]
        assert recorder.sent == []
    (change,) = recorder.sent
    (stamp,) = change.stamps
    assert (stamp.pk, stamp.slug, stamp.version) == (tournament.pk, tournament.slug, version)
    message = change.message(stamp)
    assert message["data"] == {"round": 1} and message["version"] == version


def test_a_rolled_back_change_is_never_sent(recorder: Recorder, tournament: Tournament) -> None:
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        tournament_changed(tournament_id=tournament.pk, event="round_paired")
        raise ZeroDivisionError
    assert recorder.staged and not recorder.sent


def test_a_failing_channel_does_not_stop_the_others(
    recorder: Recorder, tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    notifications.unregister(Recorder.name)
    notifications.register(Broken())
    notifications.register(recorder)  # after the broken one
    with django_capture_on_commit_callbacks(execute=True):
        tournament_changed(tournament_id=tournament.pk, event="round_paired")
    assert len(recorder.sent) == 1


def test_the_channels_send_before_the_delivery_jobs_are_asked_for(
    recorder: Recorder, tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    Webhook.objects.create(tournament=tournament, url="https://example.com/", secret="s")
    with django_capture_on_commit_callbacks() as callbacks:
        tournament_changed(tournament_id=tournament.pk, event="round_paired")
    # one callback for every channel's send, then one job per delivery
    assert len(callbacks) == 2
    callbacks[0]()
    assert len(recorder.sent) == 1


def test_a_change_for_several_tournaments_is_one_change(
    recorder: Recorder, tournament: Tournament
) -> None:
    other = make_tournament(PlayerFactory.create_batch(2), name="Кубок оповещений 2")
    recorder.staged.clear()
    with transaction.atomic():
        versions = tournaments_changed(
            tournament_ids=[other.pk, tournament.pk, other.pk], event="people_changed"
        )
    assert recorder.staged == [("people_changed", True)]
    assert set(versions) == {tournament.pk, other.pk}


def test_an_unknown_event_is_refused(tournament: Tournament) -> None:
    with pytest.raises(UnknownEvent), transaction.atomic():
        tournament_changed(tournament_id=tournament.pk, event="no_such_event")


@pytest.mark.django_db(transaction=True)
def test_a_change_outside_a_transaction_is_refused_before_it_writes() -> None:
    tournament = make_tournament(PlayerFactory.create_batch(2), name="Кубок без транзакции")
    tournament.refresh_from_db()
    with pytest.raises(notifications.OutsideTransaction):
        tournament_changed(tournament_id=tournament.pk, event="round_paired")
    assert Tournament.objects.get(pk=tournament.pk).version == tournament.version


def test_a_channel_hears_only_the_events_it_wants(
    recorder: Recorder, tournament: Tournament
) -> None:
    class Finals(Recorder):
        name = "finals"

        def wants(self, event: str) -> bool:
            return event == "tournament_finished"

    finals = notifications.register(Finals())
    try:
        with transaction.atomic():
            tournament_changed(tournament_id=tournament.pk, event="round_paired")
            tournament_changed(tournament_id=tournament.pk, event="tournament_finished")
    finally:
        notifications.unregister(Finals.name)
    assert isinstance(finals, Finals)
    assert finals.staged == [("tournament_finished", True)]
    assert [event for event, _ in recorder.staged] == ["round_paired", "tournament_finished"]


def test_a_listener_needs_a_name() -> None:
    with pytest.raises(ValueError, match="no name"):
        notifications.register(Listener())
