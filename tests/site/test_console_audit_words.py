"""The console's audit log reads as words in the reader's language: each changed setting by
its name, flags as yes/no, money to its currency's minor unit, a league by its name, referees by
their names, payouts as shares by place, "—" for nothing; never the stored JSON."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.builders import make_tournament
from tests.factories import PlayerFactory, console_user
from tests.site.test_console_language import visible_text
from tests.site.test_console_paper import hall_round, row, url
from tournaments import services
from tournaments.models import AuditEvent, Table, Tournament
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.selectors.audit import ChangeRow, audit_change_rows


def _event(action: str, target_type: str, before: object, after: object) -> AuditEvent:
    return AuditEvent(
        action=action,
        target_type=target_type,
        tournament=Tournament(currency="RUB"),
        before=before,
        after=after,
    )


def test_settings_of_a_tournament_in_russian() -> None:
    event = _event(
        AuditEvent.Action.TOURNAMENT_EDIT,
        "tournament",
        {
            "two_person_rule": False,
            "entry_fee": "1000.000",
            "payout_structure": [],
            "league": None,
            "rake_percent": "10.000",
        },
        {
            "two_person_rule": True,
            "entry_fee": "1500.500",
            "payout_structure": ["40", "25", "20", "15"],
            "league": {"id": 3, "name": "Осенняя лига 2026"},
            "rake_percent": "12.5",
        },
    )
    with translation.override("ru"):
        rows = audit_change_rows(event)
    assert rows == [
        ChangeRow("Правило двух судей", "нет", "да"),
        ChangeRow("Взнос", "1\xa0000,00\xa0₽", "1\xa0500,50\xa0₽"),
        ChangeRow("Распределение призовых", "—", "1. 40 %, 2. 25 %, 3. 20 %, 4. 15 %"),
        ChangeRow("Лига", "—", "Осенняя лига 2026"),
        ChangeRow("Комиссия, %", "10 %", "12,5 %"),
    ]


def test_a_status_a_result_and_a_seat_swap_in_english() -> None:
    status = _event(
        AuditEvent.Action.ENTRY_WITHDRAW, "entry", {"status": "registered"}, {"status": "withdrawn"}
    )
    result = _event(
        AuditEvent.Action.RESULT_CONFIRM,
        "table",
        {"status": "pending"},
        {"places": ["Ann", "Bob"], "fool": "Bob", "pogony": [], "status": "confirmed"},
    )
    swap = _event(
        AuditEvent.Action.SEAT_SWAP,
        "round",
        {"1": ["Ann", "Bob"], "2": ["Cid", "Dan"]},
        {
            "1": ["Cid", "Bob"],
            "2": ["Ann", "Dan"],
            "compromises": [{"kind": "repeat", "names": ["Cid", "Bob"], "times": 1}],
        },
    )
    with translation.override("en"):
        assert audit_change_rows(status) == [ChangeRow("Status", "Registered", "Withdrawn")]
        assert audit_change_rows(result) == [
            ChangeRow("Status", "Waiting for a second referee", "Counts"),
            ChangeRow("Places (first out first)", "—", "1. Ann, 2. Bob"),
            ChangeRow("Fool", "—", "Bob"),
            ChangeRow("Pogony", "—", "—"),
        ]
        assert audit_change_rows(swap) == [
            ChangeRow("Table 1", "Ann, Bob", "Cid, Bob"),
            ChangeRow("Table 2", "Cid, Dan", "Ann, Dan"),
            ChangeRow("Compromises", "—", "Cid and Bob meet again (met 1 time before)"),
        ]


def test_a_value_that_is_not_a_mapping_and_an_unknown_key_are_shown_as_words() -> None:
    odd = _event(AuditEvent.Action.TOURNAMENT_EDIT, "tournament", None, ["a", 2, True])
    newer = _event(AuditEvent.Action.TOURNAMENT_EDIT, "tournament", {}, {"shiny": {"x": 1}})
    with translation.override("ru"):
        assert audit_change_rows(odd) == [ChangeRow("", "—", "a, 2, да")]
        assert audit_change_rows(newer) == [ChangeRow("shiny", "—", "x: 1")]


@pytest.mark.django_db
def test_referees_are_named_and_a_japanese_fee_has_no_decimals() -> None:
    User.objects.create_user(username="ivanova", first_name="Анна", last_name="Иванова")
    referees = _event(
        AuditEvent.Action.TOURNAMENT_REFEREES,
        "tournament",
        {"referees": []},
        {"referees": ["ivanova", "gone"]},
    )
    fee = AuditEvent(
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        target_type="tournament",
        tournament=Tournament(currency="JPY"),
        before={"entry_fee": "1500.000"},
        after={"entry_fee": "2000.000"},
    )
    with translation.override("ru"):
        assert audit_change_rows(referees) == [ChangeRow("Судьи", "—", "Анна Иванова, gone")]
        assert audit_change_rows(fee) == [ChangeRow("Взнос", "1\xa0500\xa0JPY", "2\xa0000\xa0JPY")]


@pytest.mark.django_db
def test_the_console_audit_pages_show_words_not_json(client: Client) -> None:
    # given an organiser's event whose fee, two-person rule and referees were changed
    organiser = console_user("organiser", ORGANISER)
    referee = console_user("referee", REFEREE)
    referee.first_name, referee.last_name = "Пётр", "Судейкин"
    referee.save()
    tournament = make_tournament([], name="Кубок", created_by=organiser)
    services.tournament_update(tournament=tournament, actor=organiser, entry_fee=Decimal("1000"))
    services.tournament_set_referees(tournament=tournament, actor=organiser, referees=[referee])
    client.force_login(organiser)

    # when the audit log and the fee change's record are opened (in Russian, the default)
    listing = visible_text(client, reverse("admin:tournaments_auditevent_changelist"))
    fee_change = AuditEvent.objects.get(
        tournament=tournament, action=AuditEvent.Action.TOURNAMENT_EDIT
    )
    record = visible_text(
        client, reverse("admin:tournaments_auditevent_change", args=[fee_change.pk])
    ).replace("\xa0", " ")

    # then the values are words
    assert "Судьи: — → Пётр Судейкин" in listing
    assert "Взнос: 100,00 ₽ → 1 000,00 ₽" in listing.replace("\xa0", " ")
    assert "Взнос 100,00 ₽ 1 000,00 ₽" in record
    for raw in ('["', "[]", "referees:", "entry_fee", "1000.000", '"100"'):
        assert raw not in listing and raw not in record, raw
    assert "записей журнала" in listing or "записи журнала" in listing


# --- the console's list, through the services -----------------------------------------------


def audit_page(user: User, tournament: Tournament, language: str) -> str:
    client = Client(headers={"Accept-Language": language})
    client.force_login(user)
    url = reverse("admin:tournaments_auditevent_changelist")
    response = client.get(f"{url}?tournament__id__exact={tournament.pk}")
    assert response.status_code == 200
    return response.content.decode()


def test_a_status_change_and_a_setting_are_listed_in_words(organiser: User) -> None:
    tournament = services.tournament_create(
        name="Кубок клуба",
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        created_by=organiser,
    )
    services.tournament_open_registration(tournament=tournament, actor=organiser)
    for player in PlayerFactory.create_batch(2):
        services.entry_register(tournament=tournament, player=player)
    services.tournament_close_registration(tournament=tournament, actor=organiser)
    services.tournament_start(tournament=tournament, actor=organiser)
    row = AuditEvent.objects.get(action=AuditEvent.Action.TOURNAMENT_START)
    assert (row.before, row.after) == ({"status": "registration"}, {"status": "running"})

    russian = audit_page(organiser, tournament, "ru")
    assert "Статус: Регистрация → Идёт" in russian
    assert "status:" not in russian and "registration →" not in russian
    english = audit_page(organiser, tournament, "en")
    assert "Status: Registration → Running" in english


def test_a_result_from_the_grid_without_a_reason_is_played_over_the_board_in_russian(
    organiser: User,
) -> None:
    round_ = hall_round(organiser, [])
    table = Table.objects.filter(round=round_).order_by("number")[0]
    client = Client(headers={"Accept-Language": "ru"})
    client.force_login(organiser)
    response = client.post(url(round_, "results"), row(table, [1, 2, 3]))
    assert response.status_code == 302
    entered = AuditEvent.objects.get(action=AuditEvent.Action.RESULT_ENTER)
    assert entered.reason == "сыграно за живым столом"
    assert "сыграно за живым столом" in audit_page(organiser, round_.stage.tournament, "ru")
