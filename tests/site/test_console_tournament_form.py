"""A tournament's change page: the add page's own forms (the same fields and widgets, the same
checks), each setting editable while the service's window for it is open, a locked one disabled
with why, every change through ``tournament_update`` with its audit row."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from games import services as game_services
from games.models import Game
from tests.builders import make_tournament, start_live_table
from tests.factories import PlayerFactory
from tests.site.console_pages import page_forms, posted_back
from tournaments import services
from tournaments.console.forms import PlanForms
from tournaments.models import AuditEvent, Tournament

if TYPE_CHECKING:
    pass

pytestmark = pytest.mark.django_db

MONEY_LOCKED = (
    "Cannot be changed once the tournament starts: the fees are collected and the prize split "
    "was announced to those who paid."
)


@pytest.fixture(autouse=True)
def _in_english(client: Client) -> None:
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


def event(organiser: User, *, started: bool = False, draft: bool = False) -> Tournament:
    """An organiser's swiss event of four players: open for registration, or running."""
    if draft:
        return services.tournament_create(
            name="Черновик",
            stages=[{"format": "swiss", "table_size": 2, "rounds": 2}],
            created_by=organiser,
        )
    tournament = make_tournament(
        PlayerFactory.create_batch(4),
        stages=[{"format": "swiss", "table_size": 2, "rounds": 2}],
        created_by=organiser,
        payout_structure=["60", "40"],
    )
    if started:
        services.tournament_start(tournament=tournament)
    return Tournament.objects.get(pk=tournament.pk)


def change_url(tournament: Tournament) -> str:
    return reverse("admin:tournaments_tournament_change", args=[tournament.pk])


def edits(tournament: Tournament) -> list[AuditEvent]:
    return list(
        AuditEvent.objects.filter(tournament=tournament, action=AuditEvent.Action.TOURNAMENT_EDIT)
    )


def test_the_add_and_the_change_page_have_the_same_fields_and_widgets(organiser: User) -> None:
    # given the add page's forms and a tournament's
    new = PlanForms(None, user=organiser)
    existing = PlanForms(None, user=organiser, tournament=event(organiser))

    def shape(plan: PlanForms) -> list[tuple[str, str, str]]:
        fields = [*plan.settings.fields.items(), *plan.rules.fields.items()]
        return [(n, type(f).__name__, type(f.widget).__name__) for n, f in fields]

    # then they are the same but for the preview's count, which only a new plan has
    assert shape(existing) == [row for row in shape(new) if row[0] != "expected_entries"]
    assert {n: w for n, _, w in shape(existing)}["payout_structure"] == "TextInput"


def test_the_change_page_shows_the_settings_in_their_widgets_not_json(
    client: Client, organiser: User
) -> None:
    tournament = event(organiser)
    client.force_login(organiser)
    page = client.get(change_url(tournament)).content.decode()
    assert 'name="payout_structure" value="60, 40"' in page
    assert '<select name="currency"' in page
    assert 'name="rules-hand_size"' in page
    assert 'name="starts_at"' in page and 'type="datetime-local"' in page
    assert "<textarea" not in page  # no JSON box


def test_a_change_of_the_two_person_rule_after_the_start_is_saved_with_an_audit_row(
    client: Client, organiser: User
) -> None:
    # given a running tournament's page
    tournament = event(organiser, started=True)
    client.force_login(organiser)
    page = client.get(change_url(tournament))
    # when the organiser ticks the two-person rule and saves
    response = client.post(change_url(tournament), posted_back(page, two_person_rule="on"))
    # then it is stored, with its audit row, and nothing else changed
    assert response.status_code == 302, page_forms(response).plan.settings.errors
    assert Tournament.objects.get(pk=tournament.pk).two_person_rule is True
    [row] = edits(tournament)
    assert (row.before, row.after) == ({"two_person_rule": False}, {"two_person_rule": True})


def test_after_the_start_a_locked_setting_is_disabled_with_why_and_refused_if_sent(
    client: Client, organiser: User
) -> None:
    tournament = event(organiser, started=True)
    client.force_login(organiser)
    page = client.get(change_url(tournament))
    settings = page_forms(page).plan.settings
    # the money is locked, with why as the field's help; the refereeing is not
    assert settings.fields["entry_fee"].disabled
    assert settings.fields["entry_fee"].help_text == MONEY_LOCKED
    assert MONEY_LOCKED in page.content.decode()
    assert not settings.fields["two_person_rule"].disabled
    assert not settings.fields["move_clock_seconds"].disabled
    assert all(field.disabled for field in page_forms(page).plan.rules.fields.values())
    # when a request made by hand sends a new fee
    response = client.post(change_url(tournament), {**posted_back(page), "entry_fee": "1"})
    # then it is refused at the field, with the reason, and nothing changes
    assert page_forms(response).plan.settings.errors["entry_fee"] == [MONEY_LOCKED]
    assert Tournament.objects.get(pk=tournament.pk).entry_fee == 100
    assert not edits(tournament)


def test_every_problem_is_shown_at_its_field_in_one_submit(client: Client, organiser: User) -> None:
    # given a draft (its rules may still change)
    tournament = event(organiser, draft=True)
    client.force_login(organiser)
    page = client.get(change_url(tournament))
    # when a fee, the payouts and a rule are wrong at once
    response = client.post(
        change_url(tournament),
        posted_back(
            page, entry_fee="-5", payout_structure="50, 30, 30", **{"rules-hand_size": "40"}
        ),
    )
    # then each is shown at its field, and nothing is stored
    plan = page_forms(response).plan
    assert set(plan.settings.errors) == {"entry_fee", "payout_structure"}
    assert "100" in plan.settings.errors["payout_structure"][0]
    assert set(plan.rules.errors) == {"hand_size"}
    assert "Please correct the errors below." in response.content.decode()
    assert not edits(tournament)


def test_a_referee_sees_the_settings_read_only(
    client: Client, organiser: User, event_referee: User
) -> None:
    tournament = event(organiser, started=True)
    tournament.referees.set([event_referee])
    client.force_login(event_referee)
    page = client.get(change_url(tournament))
    plan = page_forms(page).plan
    assert all(field.disabled for field in plan.settings.fields.values())
    assert plan.settings.fields["two_person_rule"].help_text == (
        "Only the tournament's organiser can change its settings."
    )
    assert client.post(change_url(tournament), posted_back(page)).status_code == 403


@pytest.mark.django_db(transaction=True)
def test_a_new_move_clock_applies_to_the_games_dealt_after_it(
    eager_jobs: None, referee: User
) -> None:
    # given a running table whose game was dealt with a 60-second clock
    live = start_live_table(clock=60, referees=[referee])
    assert live.game.clock_seconds == 60
    # when the clock is changed to 20 seconds and the game is voided (the table deals again)
    services.tournament_update(tournament=live.tournament, actor=None, move_clock_seconds=20)
    game_services.game_void(game_id=live.game.pk, reason="телефон", referee=referee)
    # then the dealt game has the new clock, the first one kept its own
    games = list(Game.objects.filter(table=live.table).order_by("number"))
    assert [g.clock_seconds for g in games] == [60, 20]


def test_a_finished_tournaments_settings_say_why_they_are_locked(
    client: Client, organiser: User
) -> None:
    tournament = event(organiser, started=True)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    client.force_login(organiser)
    settings = page_forms(client.get(change_url(tournament))).plan.settings
    assert all(field.disabled for field in settings.fields.values())
    assert settings.fields["two_person_rule"].help_text == (
        "Cannot be changed once the tournament is over."
    )
    assert settings.fields["entry_fee"].help_text == MONEY_LOCKED
