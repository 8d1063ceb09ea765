"""The console, object by object: who sees which event's records, what may be added, changed or
run, and that every change goes through its service with an audit row (the whole surface is
walked in ``test_console_walk.py``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.db import models
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.models import Game, RefereeEvent
from tests.builders import ConsoleEvent, make_tournament
from tests.factories import PlayerFactory
from tests.site.console_pages import page_forms, posted_back
from tests.site.test_console_walk import MAKER_SEES, records, url
from tournaments import services
from tournaments.models import (
    AuditEvent,
    Entry,
    League,
    Payout,
    Player,
    RankRecord,
    Round,
    Table,
    TableResult,
    Tournament,
)

pytestmark = pytest.mark.django_db


def as_user(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def messages_of(response: HttpResponse) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]  # type: ignore[attr-defined]


def act(client: Client, model: type[models.Model], action: str, *objs: Any, **extra: Any) -> Any:
    data = {"action": action, helpers.ACTION_CHECKBOX_NAME: [o.pk for o in objs], **extra}
    if "post" not in extra:
        data["index"] = 0
    return client.post(url(model, "changelist"), data)


def listed(client: Client, model: type[models.Model], **params: Any) -> list[Any]:
    response = client.get(url(model, "changelist"), params)
    assert response.status_code == 200
    return list(response.context["cl"].result_list)


def registering(organiser: User, **kw: Any) -> Tournament:
    """An event of ``organiser`` open for registration, two players registered."""
    return make_tournament(PlayerFactory.create_batch(2), created_by=organiser, **kw)


def audit_rows(tournament: Tournament, action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(tournament=tournament, action=action))


# --- scope: whose records a persona sees ----------------------------------------------------------


def test_the_referee_of_a_gets_404_on_every_record_and_action_of_b(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, b = console_events
    as_user(client, event_referee)

    for model, obj in records(b).items():
        assert client.get(url(model, "change", obj.pk)).status_code == 404, model
    for model, obj in records(a).items():
        # a team in no event is its maker's (A's organiser), not its referee's
        seen = 404 if model in MAKER_SEES else 200
        assert client.get(url(model, "change", obj.pk)).status_code == seen, model
    assert act(client, Entry, "check_in", b.entries[0]).status_code == 404
    assert act(client, Round, "request_pairing", b.pending_round).status_code == 404
    assert act(client, Entry, "check_in", a.entries[0], b.entries[0]).status_code == 404
    assert Entry.objects.get(pk=a.entries[0].pk).status == Entry.Status.REGISTERED


def test_a_referee_cannot_manage_the_event_it_referees(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    as_user(client, event_referee)

    for action in ("start", "cancel", "open_registration", "close_registration"):
        assert act(client, Tournament, action, a.tournament).status_code == 403, action
    page = client.get(url(Tournament, "change", a.tournament.pk))
    assert page.status_code == 200 and not page.context["has_change_permission"]
    assert client.post(url(Tournament, "change", a.tournament.pk), {}).status_code == 403
    assert Tournament.objects.get(pk=a.tournament.pk).status == Tournament.Status.RUNNING


def test_an_organiser_sees_only_its_own_events(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, b = console_events
    as_user(client, organiser)

    assert listed(client, Tournament) == [a.tournament]
    assert {e.tournament_id for e in listed(client, Entry)} == {a.tournament.pk}
    assert listed(client, League) == [a.league]
    assert all(e.tournament_id in (a.tournament.pk, None) for e in listed(client, AuditEvent))
    assert b.tournament.name not in client.get(url(AuditEvent, "changelist")).content.decode()
    # the filters offer only its own events too
    page = client.get(url(Entry, "changelist")).content.decode()
    assert a.tournament.name in page and b.tournament.name not in page


def test_a_user_without_a_group_sees_nothing_and_gets_no_500(
    client: Client, staff_without_group: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    as_user(client, staff_without_group)
    index = client.get(reverse("admin:index"))
    assert index.status_code == 200 and index.context["app_list"] == []
    assert client.get(url(Tournament, "changelist")).status_code == 403
    assert client.get(url(Player, "changelist")).status_code == 403


# --- no raw writes: append-only rows, no deletes, frozen settings ------------------------------


def test_append_only_and_view_only_records_cannot_be_added(
    client: Client, superuser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    as_user(client, superuser)
    objects = records(console_events[0])
    for model in (Round, Table, Game, RefereeEvent, Payout, RankRecord, TableResult, AuditEvent):
        before = model._default_manager.count()
        assert client.get(url(model, "add")).status_code == 403, model
        assert client.post(url(model, "add"), {"number": "9"}).status_code == 403, model
        obj = objects[model]
        assert client.post(url(model, "change", obj.pk)).status_code == 403, model
        assert model._default_manager.count() == before


def test_nothing_is_deleted_not_even_by_a_superuser(
    client: Client, superuser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    as_user(client, superuser)
    for model, obj in records(a).items():
        assert client.get(url(model, "delete", obj.pk)).status_code == 403, model
        assert client.post(url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
        assert act(client, model, "delete_selected", obj, post="yes").status_code == 403
        assert model._default_manager.filter(pk=obj.pk).exists()


def test_a_running_tournaments_fee_cannot_be_changed(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    as_user(client, organiser)
    page = client.get(url(Tournament, "change", a.tournament.pk))
    settings = page_forms(page).plan.settings
    # the money is shown, locked with why; what changes nothing played stays open
    assert settings.fields["entry_fee"].disabled and settings.fields["entry_fee"].help_text
    assert not settings.fields["two_person_rule"].disabled
    assert "referees" in page_forms(page).fields
    data = {**posted_back(page), "entry_fee": "1", "name": "Другое"}
    response = client.post(url(Tournament, "change", a.tournament.pk), data)
    assert response.status_code == 200 and "entry_fee" in page_forms(response).plan.settings.errors
    tournament = Tournament.objects.get(pk=a.tournament.pk)
    assert (tournament.entry_fee, tournament.name) == (Decimal(100), "Кубок А")
    assert not audit_rows(tournament, AuditEvent.Action.TOURNAMENT_EDIT)


def test_settings_change_through_the_service_with_before_and_after(
    client: Client, organiser: User, other_organiser: User
) -> None:
    # in a league it does not own (another organiser's): kept, though not one it may choose
    league = services.league_create(name="Чужая лига", season="2026", actor=other_organiser)
    tournament = registering(organiser)
    # (put there by a superuser: the organiser may not choose it)
    Tournament.objects.filter(pk=tournament.pk).update(league=league)
    as_user(client, organiser)
    page = client.get(url(Tournament, "change", tournament.pk))
    plan = page_forms(page).plan
    assert not plan.settings.fields["entry_fee"].disabled
    # the rules are fixed once registration opened
    assert all(field.disabled for field in plan.rules.fields.values())
    data = posted_back(page, entry_fee="250", payout_structure="60, 40")

    response = client.post(url(Tournament, "change", tournament.pk), data)

    assert response.status_code == 302, page_forms(response).plan.settings.errors
    tournament.refresh_from_db()
    assert tournament.entry_fee == Decimal(250) and tournament.payout_structure == ["60", "40"]
    assert tournament.league == league
    [row] = audit_rows(tournament, AuditEvent.Action.TOURNAMENT_EDIT)
    assert row.actor == organiser
    assert row.before == {"entry_fee": "100.000", "payout_structure": []}
    assert row.after == {"entry_fee": "250.000", "payout_structure": ["60", "40"]}


def test_a_refused_setting_is_shown_on_its_field(client: Client, organiser: User) -> None:
    tournament = registering(organiser)
    as_user(client, organiser)
    page = client.get(url(Tournament, "change", tournament.pk))
    data = posted_back(page, rake_percent="150", payout_structure="60, 30")

    response = client.post(url(Tournament, "change", tournament.pk), data)

    # both refusals in one submit, each on its field
    assert response.status_code == 200
    assert {"rake_percent", "payout_structure"} <= set(page_forms(response).plan.settings.errors)
    tournament.refresh_from_db()
    assert tournament.rake_percent == Decimal(10) and tournament.payout_structure == []


def test_the_organiser_sets_the_referees_from_the_referee_group_only(
    client: Client,
    organiser: User,
    event_referee: User,
    other_referee: User,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
) -> None:
    a, _ = console_events
    as_user(client, organiser)
    page = client.get(url(Tournament, "change", a.tournament.pk))
    choices = {u.pk for u in page.context["adminform"].form.fields["referees"].queryset}
    assert choices == {event_referee.pk, other_referee.pk}

    data = posted_back(page, referees=[event_referee.pk, other_referee.pk])
    assert client.post(url(Tournament, "change", a.tournament.pk), data).status_code == 302
    assert set(a.tournament.referees.all()) == {event_referee, other_referee}
    [row] = audit_rows(a.tournament, AuditEvent.Action.TOURNAMENT_REFEREES)
    assert row.before == {"referees": ["event-referee"]}
    assert row.after == {"referees": ["event-referee", "other-referee"]}

    data["referees"] = [organiser.pk]
    response = client.post(url(Tournament, "change", a.tournament.pk), data)
    assert response.status_code == 200 and "referees" in page_forms(response).errors


def test_a_cancelled_event_is_read_only(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    services.tournament_cancel(tournament=a.tournament)
    as_user(client, organiser)
    page = client.get(url(Tournament, "change", a.tournament.pk))
    assert page.status_code == 200 and not page.context["has_change_permission"]
    assert client.post(url(Tournament, "change", a.tournament.pk), {}).status_code == 403


# --- registering an entry ------------------------------------------------------------------------


def test_an_organiser_registers_a_player_with_an_audit_row(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    open_event = registering(organiser)
    player = PlayerFactory.create()
    as_user(client, organiser)
    page = client.get(url(Entry, "add"))
    # only its own events that take entries: not its running event A, not B
    assert list(page.context["form"].fields["tournament"].queryset) == [open_event]

    response = client.post(url(Entry, "add"), {"tournament": open_event.pk, "player": player.pk})

    assert response.status_code == 302
    entry = Entry.objects.get(tournament=open_event, player=player)
    [row] = audit_rows(open_event, AuditEvent.Action.ENTRY_REGISTER)
    assert (row.target_id, row.actor) == (entry.pk, organiser)


def test_an_entry_cannot_be_added_to_a_draft_tournament(client: Client, organiser: User) -> None:
    draft = services.tournament_create(
        name="Черновик", stages=[{"format": "swiss", "rounds": 2}], created_by=organiser
    )
    player = PlayerFactory.create()
    as_user(client, organiser)

    response = client.post(url(Entry, "add"), {"tournament": draft.pk, "player": player.pk})

    assert response.status_code == 200
    assert "tournament" in response.context["form"].errors
    assert not Entry.objects.filter(tournament=draft).exists()


def test_a_refused_registration_shows_the_services_reason(client: Client, organiser: User) -> None:
    open_event = registering(organiser)
    registered = Entry.objects.filter(tournament=open_event)[0].player
    assert registered is not None
    as_user(client, organiser)

    response = client.post(
        url(Entry, "add"), {"tournament": open_event.pk, "player": registered.pk}
    )

    assert response.status_code == 200
    # the refusal in the console's language, Russian by default
    assert "уже в списке участников" in str(response.context["form"].non_field_errors())
    assert Entry.objects.filter(tournament=open_event).count() == 2


def test_a_referee_registers_no_one(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    as_user(client, event_referee)
    assert client.get(url(Entry, "add")).status_code == 403


# --- actions: one service each, audited, refusals as messages ---------------------------------


def test_cancelling_asks_for_a_reason_and_records_it(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    as_user(client, organiser)

    confirm = act(client, Tournament, "cancel", a.tournament)
    assert confirm.status_code == 200 and a.tournament.name in confirm.content.decode()
    no_reason = act(client, Tournament, "cancel", a.tournament, post="yes", reason=" ")
    assert no_reason.status_code == 200 and no_reason.context["form"].errors
    assert Tournament.objects.get(pk=a.tournament.pk).status == Tournament.Status.RUNNING

    done = act(client, Tournament, "cancel", a.tournament, post="yes", reason="the hall flooded")

    assert done.status_code == 302
    assert Tournament.objects.get(pk=a.tournament.pk).status == Tournament.Status.CANCELLED
    [row] = audit_rows(a.tournament, AuditEvent.Action.TOURNAMENT_CANCEL)
    assert (row.reason, row.before, row.after) == (
        "the hall flooded",
        {"status": "running"},
        {"status": "cancelled"},
    )


def test_a_services_refusal_is_an_error_message_not_a_500(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    as_user(client, organiser)

    response = act(client, Tournament, "open_registration", a.tournament)

    assert response.status_code == 302
    # the refusal in the console's language, Russian by default
    assert any("перевести его в «регистрация» нельзя" in m for m in messages_of(response))
    assert not audit_rows(a.tournament, AuditEvent.Action.TOURNAMENT_OPEN)


def test_open_and_start_an_event(client: Client, organiser: User) -> None:
    draft = services.tournament_create(
        name="Весна",
        stages=[{"format": "swiss", "rounds": 1, "table_size": 2}],
        created_by=organiser,
    )
    as_user(client, organiser)
    assert act(client, Tournament, "open_registration", draft).status_code == 302
    for player in PlayerFactory.create_batch(2):
        services.entry_register(tournament=draft, player=player)

    assert act(client, Tournament, "start", draft).status_code == 302

    assert Tournament.objects.get(pk=draft.pk).status == Tournament.Status.RUNNING
    [_] = audit_rows(draft, AuditEvent.Action.TOURNAMENT_OPEN)  # the service's one row
    [_] = audit_rows(draft, AuditEvent.Action.TOURNAMENT_CREATE)
    [row] = audit_rows(draft, AuditEvent.Action.TOURNAMENT_START)
    assert row.before == {"status": "registration"} and row.after == {"status": "running"}


def test_a_referee_checks_in_withdraws_and_disqualifies_with_audit_rows(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    first, second, third = a.entries[:3]
    as_user(client, event_referee)

    assert act(client, Entry, "check_in", first).status_code == 302
    assert act(client, Entry, "withdraw", second).status_code == 200  # asks why
    assert act(client, Entry, "withdraw", second, post="yes", reason="ill").status_code == 302
    assert act(client, Entry, "disqualify", third, post="yes", reason="").status_code == 200

    statuses = dict(Entry.objects.filter(tournament=a.tournament).values_list("pk", "status"))
    assert statuses[first.pk] == Entry.Status.CHECKED_IN
    assert statuses[second.pk] == Entry.Status.WITHDRAWN
    assert statuses[third.pk] == Entry.Status.REGISTERED
    [check_in] = audit_rows(a.tournament, AuditEvent.Action.ENTRY_CHECK_IN)
    [withdrawal] = audit_rows(a.tournament, AuditEvent.Action.ENTRY_WITHDRAW)
    assert check_in.actor == event_referee and withdrawal.reason == "ill"
    assert withdrawal.target_id == second.pk
    # a disqualification with its reason: one row, the service's
    assert act(client, Entry, "disqualify", third, post="yes", reason="карты").status_code == 302
    [disqualified] = audit_rows(a.tournament, AuditEvent.Action.ENTRY_DISQUALIFY)
    assert disqualified.actor == event_referee and disqualified.reason == "карты"


def test_pairing_is_requested_for_a_pending_round_only(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    as_user(client, event_referee)

    playing = act(client, Round, "request_pairing", a.round)
    assert playing.status_code == 302
    assert any("уже «идёт»" in m for m in messages_of(playing))
    assert act(client, Round, "request_pairing", a.pending_round).status_code == 302
    assert act(client, Tournament, "pair_next_round", a.tournament).status_code == 302

    rows = audit_rows(a.tournament, AuditEvent.Action.ROUND_PAIR)
    assert [r.target_id for r in rows] == [a.pending_round.pk] * 2


# --- names, not ids; the audit log --------------------------------------------------------------


def test_results_show_names_source_reason_and_who_entered_them(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _ = console_events
    names = [Entry.objects.get(pk=pk).name for pk in a.result.places]
    as_user(client, event_referee)

    for page in (url(TableResult, "changelist"), url(TableResult, "change", a.result.pk)):
        text = client.get(page).content.decode()
        assert f"1. {names[0]}, 2. {names[1]}" in text
        assert str(a.result.places) not in text
        assert "adjudicated at the table" in text and "organiser" in text
    game = client.get(url(Game, "change", a.game.pk)).content.decode()
    assert all(n in game for n in names) and a.game.seed not in game


def test_the_audit_log_is_its_events_own_and_read_only(
    client: Client,
    organiser: User,
    other_referee: User,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
) -> None:
    a, b = console_events
    as_user(client, organiser)
    page = client.get(url(AuditEvent, "change", a.audit_event.pk))
    text = page.content.decode()
    assert page.status_code == 200 and not page.context["has_change_permission"]
    with translation.override("ru"):  # the page's language; the values in words
        before, after = Tournament.Status.REGISTRATION.label, Tournament.Status.RUNNING.label
        assert f"<td>{before}</td><td>{after}</td>" in text
    assert not page.context["has_delete_permission"]
    filtered = listed(client, AuditEvent, action=AuditEvent.Action.TOURNAMENT_START, q="Кубок")
    assert filtered == [a.audit_event]

    as_user(client, other_referee)
    assert client.get(url(AuditEvent, "change", a.audit_event.pk)).status_code == 404
    theirs = listed(client, AuditEvent)  # B's rows: its creation (by the service) and the start
    assert b.audit_event in theirs
    assert {row.tournament_id for row in theirs} == {b.tournament.pk}


# --- people and leagues ------------------------------------------------------------------------


def test_an_organiser_adds_players_and_a_referee_does_not(
    client: Client, organiser: User, event_referee: User
) -> None:
    as_user(client, organiser)
    response = client.post(url(Player, "add"), {"display_name": "  Иван Петров ", "city": "Тула"})
    assert response.status_code == 302
    player = Player.objects.get(display_name="Иван Петров")
    assert (player.city, player.is_bot) == ("Тула", False)

    as_user(client, event_referee)
    assert client.get(url(Player, "changelist")).status_code == 200
    assert client.post(url(Player, "add"), {"display_name": "Пётр"}).status_code == 403


def test_leagues_belong_to_the_organiser_that_creates_them(
    client: Client,
    organiser: User,
    other_organiser: User,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
) -> None:
    a, _ = console_events
    as_user(client, organiser)
    response = client.post(
        url(League, "add"),
        {
            "name": "Лига Тулы",
            "season": "2027",
            "points_scale": "[25, 18, 15]",
            "rank_ladder": "[]",
        },
    )
    assert response.status_code == 302
    league = League.objects.get(name="Лига Тулы")
    assert (league.created_by, league.slug, league.points_scale) == (
        organiser,
        "liga-tuly",
        [25, 18, 15],
    )
    assert AuditEvent.objects.filter(league=league, action=AuditEvent.Action.LEAGUE_CREATE)
    page = client.get(url(League, "change", league.pk))
    data = {**posted_back(page), "points_scale": "[10, 20]"}
    refused = client.post(url(League, "change", league.pk), data)
    assert refused.status_code == 200 and "points_scale" in refused.context["adminform"].form.errors
    data = {**posted_back(page), "name": "Лига Тулы и области"}
    assert client.post(url(League, "change", league.pk), data).status_code == 302
    assert AuditEvent.objects.filter(league=league, action=AuditEvent.Action.LEAGUE_EDIT)
    assert a.tournament.name in client.get(url(League, "changelist")).content.decode()

    as_user(client, other_organiser)
    assert client.get(url(League, "change", league.pk)).status_code == 404


def test_the_pages_to_read_refuse_a_post(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    # given the organiser of event A on its progress page, its league's table and the live tables
    event = console_events[0]
    pages = [
        reverse("admin:tournaments_tournament_progress", args=[event.tournament.pk]),
        reverse("admin:tournaments_league_table", args=[event.league.pk]),
        reverse("admin:tournaments_tournament_live_tables"),
    ]
    as_user(client, organiser)
    for page in pages:
        assert client.get(page).status_code == 200, page
        # when it posts to one, then it is told the page takes no POST (not shown it again)
        assert client.post(page, {}).status_code == 405, page
    # and whoever is not staff is still sent to the login page first
    client.logout()
    assert client.post(pages[0], {})["Location"].startswith(reverse("admin:login"))
