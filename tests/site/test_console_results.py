"""The console's result page (enter, correct, confirm, reject), the seat-swap page and the
hand-to-bots actions, as each role (``tournaments.console.results``, ``console.seats``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from games.models import Game
from tests.builders import ConsoleEvent
from tournaments import selectors
from tournaments.models import AuditEvent, Seat, Table, TableResult, Tournament

pytestmark = pytest.mark.django_db


def result_url(table: Table) -> str:
    return reverse("admin:tournaments_table_result", args=[table.pk])


def playing_table(event: ConsoleEvent) -> Table:
    """Round 1's second table: seated, its game dealt, nothing played."""
    return Table.objects.get(round=event.round, number=2)


def entries(table: Table) -> list[int]:
    return list(table.seats.order_by("position").values_list("entry_id", flat=True))


def result_form(order: list[int], **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {f"place_{p}": str(e) for p, e in enumerate(order, 1)}
    return {"enter": "1", "reason": "", **data, **extra}


def login(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("persona", "status"),
    [
        ("superuser", 200),
        ("organiser", 200),
        ("event_referee", 200),
        ("other_referee", 404),
        ("other_organiser", 404),
        ("staff_without_group", 404),
    ],
)
def test_the_result_page_is_for_the_event_s_people(
    client: Client,
    request: pytest.FixtureRequest,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
    persona: str,
    status: int,
) -> None:
    login(client, request.getfixturevalue(persona))
    table = playing_table(console_events[0])
    response = client.get(result_url(table))
    assert response.status_code == status
    if status == 200:
        page = response.content.decode()
        for seat in table.seats.select_related("player"):
            assert seat.player.display_name in page
    posted = client.post(result_url(table), result_form(entries(table)))
    assert posted.status_code == (302 if status == 200 else status)


def test_the_outsider_is_sent_to_the_login(
    client: Client, outsider: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    login(client, outsider)
    response = client.get(result_url(playing_table(console_events[0])))
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]


def test_a_referee_enters_a_result_over_the_board_then_corrects_it_with_a_reason(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    login(client, event_referee)
    table = playing_table(console_events[0])
    a, b = entries(table)
    assert client.post(result_url(table), result_form([a, b])).status_code == 302
    first = selectors.effective_result(table)
    assert first is not None and first.places == [a, b] and first.entered_by == event_referee
    assert Game.objects.get(table=table).status == Game.Status.VOIDED
    # a correction without a reason is refused on the form, nothing stored
    response = client.post(result_url(table), result_form([b, a]))
    assert response.status_code == 200
    assert "errornote" in response.content.decode()
    assert TableResult.objects.filter(table=table).count() == 1
    done = client.post(result_url(table), result_form([b, a], reason="перепутали места"))
    assert done.status_code == 302
    fixed = selectors.effective_result(table)
    assert fixed is not None and fixed.places == [b, a] and fixed.supersedes_id == first.pk
    page = client.get(result_url(table)).content.decode()
    assert "перепутали места" in page
    audit = AuditEvent.objects.get(action=AuditEvent.Action.RESULT_CORRECT, target_id=table.pk)
    assert audit.actor == event_referee


def test_under_the_two_person_rule_the_enterer_cannot_confirm_and_another_referee_does(
    client: Client,
    event_referee: User,
    organiser: User,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
) -> None:
    event = console_events[0]
    Tournament.objects.filter(pk=event.tournament.pk).update(two_person_rule=True)
    table = playing_table(event)
    a, b = entries(table)
    login(client, event_referee)
    client.post(result_url(table), result_form([a, b]))
    pending = TableResult.objects.get(table=table)
    assert pending.status == TableResult.Status.PENDING
    page = client.get(result_url(table)).content.decode()
    assert 'name="confirm"' not in page  # the enterer gets no confirm button
    refused = client.post(result_url(table), {"confirm": "1", "note": ""})
    # the service's refusal, in the console's language (Russian by default)
    assert refused.status_code == 200
    assert "внесённый вами результат должен проверить другой судья" in refused.content.decode()
    pending.refresh_from_db()
    assert pending.status == TableResult.Status.PENDING
    login(client, organiser)
    assert 'name="confirm"' in client.get(result_url(table)).content.decode()
    assert client.post(result_url(table), {"confirm": "1", "note": ""}).status_code == 302
    pending.refresh_from_db()
    assert pending.status == TableResult.Status.CONFIRMED and pending.reviewed_by == organiser


def test_a_pending_result_is_rejected_with_a_reason(
    client: Client,
    event_referee: User,
    organiser: User,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
) -> None:
    event = console_events[0]
    Tournament.objects.filter(pk=event.tournament.pk).update(two_person_rule=True)
    table = playing_table(event)
    login(client, event_referee)
    client.post(result_url(table), result_form(entries(table)))
    login(client, organiser)
    without = client.post(result_url(table), {"reject": "1", "note": ""})
    assert without.status_code == 200
    assert client.post(result_url(table), {"reject": "1", "note": "не так"}).status_code == 302
    result = TableResult.objects.get(table=table)
    assert result.status == TableResult.Status.REJECTED and result.review_note == "не так"
    assert selectors.effective_result(table) is None


def test_seats_are_swapped_on_the_round_s_page(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    event = console_events[0]
    login(client, event_referee)
    address = reverse("admin:tournaments_round_swap_seats", args=[event.round.pk])
    table = playing_table(event)
    first, second = table.seats.order_by("position")
    assert client.get(address).status_code == 200
    # a seat of the finished table cannot move: the refusal shows on the form
    finished = event.table.seats.order_by("position")[0]
    data = {"first": finished.pk, "second": first.pk, "reason": "просьба"}
    refused = client.post(address, data)
    assert refused.status_code == 200 and "errornote" in refused.content.decode()
    swapped = client.post(address, {"first": first.pk, "second": second.pk, "reason": "просьба"})
    assert swapped.status_code == 302
    assert entries(table) == [second.entry_id, first.entry_id]
    assert AuditEvent.objects.filter(action=AuditEvent.Action.SEAT_SWAP).exists()


def swap_page(client: Client, event: ConsoleEvent) -> tuple[set[int], dict[int, Any], str]:
    """The seats the swap form offers, the round's tables as listed (by number) and the page."""
    page = client.get(reverse("admin:tournaments_round_swap_seats", args=[event.round.pk]))
    assert page.status_code == 200
    choices = page.context["form"].fields["first"].choices
    offered = {int(value) for value, _ in choices if value}
    rows = {row.table.number: row for row, _ in page.context["tables"]}
    return offered, rows, page.content.decode()


def test_the_swap_form_offers_only_the_seats_of_tables_where_nothing_is_played(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    # given: round 1's first table has its result, at its second one nothing is played yet
    event = console_events[0]
    login(client, event_referee)
    table = playing_table(event)
    # when: the referee opens the swap page
    offered, rows, html = swap_page(client, event)
    # then: only the second table's seats are offered; the first is listed apart with why
    assert offered == set(table.seats.values_list("pk", flat=True))
    assert rows[2].swappable and rows[2].moves == 0
    assert not rows[1].swappable and rows[1].refusal
    swappable, refused = html.split('id="not-swappable"')
    assert 'data-table="2"' in swappable and 'data-table="1"' not in swappable
    assert 'data-table="1"' in refused and rows[1].refusal in refused
    assert "Столы, где обмен невозможен" in html and "Сделано ходов" in html

    # given: three moves are made at the second table
    Game.objects.filter(table=table).update(version=3)
    # when: the page is opened again
    offered, rows, html = swap_page(client, event)
    # then: no seat is offered; the second table shows its three moves and why it stays
    assert offered == set()
    assert not rows[2].swappable and rows[2].moves == 3
    assert rows[2].refusal == "игра началась: ход сделан"
    refused = html.split('id="not-swappable"')[1]
    assert 'data-table="2"' in refused and "игра началась: ход сделан" in refused
    # and a swap of its seats posted anyway is refused on the form, nothing moves
    first, second = table.seats.order_by("position")
    address = reverse("admin:tournaments_round_swap_seats", args=[event.round.pk])
    posted = client.post(address, {"first": first.pk, "second": second.pk, "reason": "просьба"})
    assert posted.status_code == 200 and "errornote" in posted.content.decode()
    assert entries(table) == [first.entry_id, second.entry_id]


def test_a_referee_of_another_event_cannot_swap(
    client: Client, other_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    login(client, other_referee)
    address = reverse("admin:tournaments_round_swap_seats", args=[console_events[0].round.pk])
    assert client.get(address).status_code == 404


def test_a_table_s_seats_are_handed_to_bots_with_a_reason(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    table = playing_table(console_events[0])
    login(client, event_referee)
    data = {
        "action": "hand_table_to_bots",
        helpers.ACTION_CHECKBOX_NAME: [table.pk],
        "index": 0,
    }
    changelist = reverse("admin:tournaments_table_changelist")
    asked = client.post(changelist, data)
    assert asked.status_code == 200  # the reason first
    done = client.post(changelist, {**data, "post": "yes", "reason": "игроки ушли"})
    assert done.status_code == 302
    assert set(Seat.objects.filter(table=table).values_list("bot_kind", flat=True)) == {"heuristic"}
    game = Game.objects.get(table=table)
    assert set(game.bot_seats) == {"0", "1"}
