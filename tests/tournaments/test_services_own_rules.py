"""Services own their rules: each write service checks its actor and writes its own audit row,
whichever face calls it (the console's actions only call it and render).

Per service: an assigned referee who is not a superuser, an outside organiser and the anonymous
visitor are refused (``Forbidden``) and leave no row; the one who may is audited once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User

from durak_site.errors import Forbidden
from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.console.csv_import import Row
from tournaments.models import AuditEvent, Entry, Round, Tournament, Webhook
from tournaments.services.imports import ImportRefused, entries_import
from tournaments.services.webhooks import management as webhooks

pytestmark = pytest.mark.django_db

SWISS = [{"format": "swiss", "table_size": 2, "rounds": 1}]


@pytest.fixture
def open_event(organiser: User, event_referee: User) -> Tournament:
    """An open event of ``organiser``'s, refereed by ``event_referee``, two players in."""
    tournament = make_tournament(
        PlayerFactory.create_batch(2), stages=SWISS, created_by=organiser, reentry_fee="50"
    )
    tournament.referees.add(event_referee)
    return tournament


def outsiders(other_organiser: User, event_referee: User) -> list[Any]:
    return [other_organiser, event_referee, AnonymousUser()]


def after(row: AuditEvent) -> dict[str, Any]:
    assert isinstance(row.after, dict)
    return row.after


def rows(tournament: Tournament, action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(tournament=tournament, action=action))


MANAGER_CHANGES: dict[str, tuple[Callable[..., Any], str, dict[str, Any]]] = {
    "close": (services.tournament_close_registration, AuditEvent.Action.TOURNAMENT_CLOSE, {}),
    "start": (services.tournament_start, AuditEvent.Action.TOURNAMENT_START, {}),
    "cancel": (
        services.tournament_cancel,
        AuditEvent.Action.TOURNAMENT_CANCEL,
        {"reason": "зал закрыт"},
    ),
}


@pytest.mark.parametrize("name", MANAGER_CHANGES)
def test_a_status_change_is_the_organisers_and_audited_by_the_service(
    name: str, open_event: Tournament, organiser: User, other_organiser: User, event_referee: User
) -> None:
    change, action, extra = MANAGER_CHANGES[name]
    before = open_event.status
    for actor in outsiders(other_organiser, event_referee):
        with pytest.raises(Forbidden):
            change(tournament=open_event, actor=actor, **extra)
    assert not rows(open_event, action)
    change(tournament=open_event, actor=organiser, **extra)
    (row,) = rows(open_event, action)
    assert row.actor == organiser and row.target_id == open_event.pk
    assert row.before == {"status": before}
    assert row.reason == extra.get("reason", "")
    # the system (no actor) is not audited
    assert AuditEvent.objects.filter(actor__isnull=True).count() == 0


def test_opening_registration_is_audited_by_the_service(
    organiser: User, other_organiser: User, event_referee: User
) -> None:
    draft = services.tournament_create(name="Черновик", stages=SWISS, created_by=organiser)
    draft.referees.add(event_referee)
    for actor in outsiders(other_organiser, event_referee):
        with pytest.raises(Forbidden):
            services.tournament_open_registration(tournament=draft, actor=actor)
    assert not rows(draft, AuditEvent.Action.TOURNAMENT_OPEN)
    services.tournament_open_registration(tournament=draft, actor=organiser)
    (row,) = rows(draft, AuditEvent.Action.TOURNAMENT_OPEN)
    assert (row.before, row.after) == ({"status": "draft"}, {"status": "registration"})


def test_a_disqualification_is_a_referees_and_audited_by_the_service(
    open_event: Tournament, other_organiser: User, event_referee: User, other_referee: User
) -> None:
    entry = Entry.objects.filter(tournament=open_event).first()
    assert entry is not None
    for actor in (other_organiser, other_referee, AnonymousUser()):
        with pytest.raises(Forbidden):
            services.entry_disqualify(entry=entry, reason="карты", actor=actor)
    assert not rows(open_event, AuditEvent.Action.ENTRY_DISQUALIFY)
    services.entry_disqualify(entry=entry, reason="карты", actor=event_referee)
    (row,) = rows(open_event, AuditEvent.Action.ENTRY_DISQUALIFY)
    assert row.actor == event_referee and row.reason == "карты"
    assert row.after == {"status": Entry.Status.DISQUALIFIED}


def test_a_reentry_is_the_organisers_and_audited_by_the_service(
    open_event: Tournament, organiser: User, other_organiser: User, event_referee: User
) -> None:
    entry = Entry.objects.filter(tournament=open_event).first()
    assert entry is not None
    for actor in outsiders(other_organiser, event_referee):
        with pytest.raises(Forbidden):
            services.entry_reenter(entry=entry, actor=actor)
    assert not rows(open_event, AuditEvent.Action.ENTRY_REENTER)
    services.entry_reenter(entry=entry, actor=organiser)
    (row,) = rows(open_event, AuditEvent.Action.ENTRY_REENTER)
    assert row.actor == organiser and row.after == {"reentries": 1}


def test_a_pairing_request_is_a_referees(
    open_event: Tournament, organiser: User, other_organiser: User, event_referee: User
) -> None:
    services.tournament_start(tournament=open_event)
    round_ = Round.objects.get(stage__tournament=open_event)
    for actor in (other_organiser, AnonymousUser()):
        with pytest.raises(Forbidden) as refused:
            services.round_request_pairing(round_=round_, actor=actor)
        assert refused.value.code == "permission_denied"  # the API's answer (tests/api)
    assert not rows(open_event, AuditEvent.Action.ROUND_PAIR)
    services.round_request_pairing(round_=round_, actor=event_referee)
    (row,) = rows(open_event, AuditEvent.Action.ROUND_PAIR)
    assert row.actor == event_referee


def test_creating_a_tournament_is_an_organisers_and_audited_by_the_service(
    organiser: User, other_organiser: User, event_referee: User
) -> None:
    league = services.league_create(name="Лига", season="2027", actor=organiser)
    for actor in (event_referee, AnonymousUser()):
        with pytest.raises(Forbidden):
            services.tournament_create(name="Чужой", stages=SWISS, created_by=actor)
    with pytest.raises(Forbidden):  # an outside organiser, into another's league
        services.tournament_create(
            name="Чужой", stages=SWISS, league=league, created_by=other_organiser
        )
    assert not Tournament.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.TOURNAMENT_CREATE).exists()
    created = services.tournament_create(
        name="Кубок", stages=SWISS, league=league, created_by=organiser
    )
    (row,) = rows(created, AuditEvent.Action.TOURNAMENT_CREATE)
    assert row.actor == organiser and after(row)["name"] == "Кубок"
    assert after(row)["league"] == league.pk


def test_a_webhook_is_the_organisers_and_its_changes_are_audited_by_the_service(
    open_event: Tournament, organiser: User, other_organiser: User, event_referee: User
) -> None:
    url = "https://hooks.example.com/durak"
    for actor in outsiders(other_organiser, event_referee):
        with pytest.raises(Forbidden):
            webhooks.webhook_create(tournament=open_event, url=url, actor=actor)
    assert not Webhook.objects.exists()
    hook = webhooks.webhook_create(tournament=open_event, url=url, actor=organiser)
    (created,) = rows(open_event, AuditEvent.Action.TOURNAMENT_EDIT)
    assert created.target_type == "webhook" and after(created)["url"] == url
    assert hook.secret not in str(created.after)
    for actor in outsiders(other_organiser, event_referee):
        with pytest.raises(Forbidden):
            webhooks.webhook_update(webhook=hook, actor=actor, is_active=False)
    webhooks.webhook_update(webhook=hook, actor=organiser, url=url, is_active=False)
    edits = rows(open_event, AuditEvent.Action.TOURNAMENT_EDIT)
    assert len(edits) == 2
    changed = next(row for row in edits if row.pk != created.pk)
    assert (changed.before, changed.after) == ({"is_active": True}, {"is_active": False})
    webhooks.webhook_update(webhook=hook, actor=organiser, is_active=False)  # no change
    assert len(rows(open_event, AuditEvent.Action.TOURNAMENT_EDIT)) == 2


def test_importing_players_is_the_organisers_one_transaction_audited_per_entry(
    open_event: Tournament, organiser: User, other_organiser: User, event_referee: User
) -> None:
    rows = [Row(2, "Иван", "Ферзь", 1600.0), Row(3, "Пётр"), Row(4, "", errors=("no name",))]
    for actor in outsiders(other_organiser, event_referee):
        with pytest.raises(Forbidden):
            entries_import(actor=actor, tournament=open_event, rows=rows, paid=True)
    assert not rows_of_import(open_event)
    assert entries_import(actor=organiser, tournament=open_event, rows=rows, paid=True) == 2
    audit = rows_of_import(open_event)
    assert [(row.actor, after(row)["line"]) for row in audit] == [(organiser, 2), (organiser, 3)]
    # a refused line stores nothing: the event is full now
    Tournament.objects.filter(pk=open_event.pk).update(max_entries=5)
    more = [Row(5, "Анна"), Row(6, "Олег")]
    with pytest.raises(ImportRefused) as refused:
        entries_import(actor=organiser, tournament=open_event, rows=more, paid=True)
    assert refused.value.line == 6
    assert len(rows_of_import(open_event)) == 2
    assert not Entry.objects.filter(tournament=open_event, player__display_name="Анна").exists()


def rows_of_import(tournament: Tournament) -> list[AuditEvent]:
    return sorted(
        AuditEvent.objects.filter(
            tournament=tournament, action=AuditEvent.Action.ENTRY_REGISTER, reason="CSV import"
        ),
        key=lambda row: after(row)["line"],
    )


def test_a_league_is_created_by_an_organiser_only_and_audited(
    organiser: User, event_referee: User
) -> None:
    # the anonymous visitor is a person, not the system (None): refused like a referee
    for actor in (event_referee, AnonymousUser()):
        with pytest.raises(Forbidden):
            services.league_create(name="Лига", season="2027", actor=actor)
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.LEAGUE_CREATE).exists()
    league = services.league_create(name="Лига", season="2027", actor=organiser)
    (row,) = AuditEvent.objects.filter(league=league, action=AuditEvent.Action.LEAGUE_CREATE)
    assert row.actor == organiser and league.created_by == organiser
