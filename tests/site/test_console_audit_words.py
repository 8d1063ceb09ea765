"""The audit log says a change in its reader's words: a field by its name, a value of its
choices by its label (the stored row keeps the codes); a result entered without a reason has the
reason the console's reader would give, in their language."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.factories import PlayerFactory
from tests.site.test_console_paper import hall_round, row, url
from tournaments import services
from tournaments.models import AuditEvent, Table, Tournament

pytestmark = pytest.mark.django_db


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
    assert "статус: Регистрация → Идёт" in russian
    assert "status:" not in russian and "registration →" not in russian
    english = audit_page(organiser, tournament, "en")
    assert "status: Registration → Running" in english


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
