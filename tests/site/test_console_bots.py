"""The console's bot actions as an organiser and a referee see them: the hand-over's message
names the round or the table it was for, "play to the end" is the organiser's, and the setting
of bots for absent players is on the event's change page while it runs."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from tests.builders import ConsoleEvent
from tests.site.test_console_plan import SWISS, plan_data, save
from tournaments.models import AuditEvent, Table, Tournament

pytestmark = pytest.mark.django_db


def act(client: Client, user: User, model: str, action: str, *, pk: int, reason: str) -> list[str]:
    """Post ``action`` on object ``pk`` with ``reason`` as ``user`` (in Russian, the site's
    language); the messages it left."""
    client.force_login(user)
    changelist = reverse(f"admin:tournaments_{model}_changelist")
    data = {"action": action, helpers.ACTION_CHECKBOX_NAME: [pk], "index": 0}
    assert client.post(changelist, data).status_code == 200  # the reason first
    done = client.post(changelist, {**data, "post": "yes", "reason": reason})
    assert done.status_code == 302
    return [str(m) for m in get_messages(done.wsgi_request)]


def test_handing_a_round_to_bots_names_the_round(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    event = console_events[0]
    # round 1: table 1 has its result, table 2 plays (two seats)
    said = act(
        client, event_referee, "round", "hand_round_to_bots", pk=event.round.pk, reason="ушли"
    )
    assert said == ["Швейцарская система · Тур 1: ботам передано 2 места."]
    # again: nothing left to hand over, and it says so
    said = act(
        client, event_referee, "round", "hand_round_to_bots", pk=event.round.pk, reason="ушли"
    )
    assert said == ["Швейцарская система · Тур 1: боты уже играли за все места."]


def test_handing_a_table_to_bots_names_the_table(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    table = Table.objects.get(round=console_events[0].round, number=2)
    said = act(client, event_referee, "table", "hand_table_to_bots", pk=table.pk, reason="ушли")
    assert said == ["Швейцарская система · Тур 1 · Стол 2: ботам передано 2 места."]


def test_the_organiser_plays_the_event_to_the_end_with_a_reason(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    tournament = console_events[0].tournament
    said = act(
        client, organiser, "tournament", "play_to_end", pk=tournament.pk, reason="демонстрация"
    )
    assert said == ["Кубок А: боты играют за все места до конца турнира."]
    assert Tournament.objects.get(pk=tournament.pk).absent_bots == Tournament.AbsentBots.ALL
    edit = AuditEvent.objects.get(tournament=tournament, action=AuditEvent.Action.TOURNAMENT_EDIT)
    assert (edit.actor, edit.reason) == (organiser, "демонстрация")


def test_the_bots_setting_is_editable_on_a_running_event_s_page(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    tournament = console_events[0].tournament
    client.force_login(organiser)
    page = client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    settings = page.context["adminform"].form.plan.settings  # the plan's own form
    assert not settings.fields["absent_bots"].disabled
    assert not settings.fields["absent_bots_seconds"].disabled
    assert settings.fields["entry_fee"].disabled  # the money stays fixed while it runs
    assert "Боты играют за отсутствующих" in page.content.decode()


def test_the_add_form_sets_bots_for_absent_players(client: Client, organiser: User) -> None:
    client.force_login(organiser)
    data = plan_data(SWISS, absent_bots="absent", absent_bots_seconds="20")
    assert save(client, data).status_code == 302
    tournament = Tournament.objects.get()
    assert (tournament.absent_bots, tournament.absent_bots_seconds) == ("absent", 20)
    # left as the form offers it: off, with the default delay
    assert save(client, plan_data(SWISS, name="Кубок Тулы 2")).status_code == 302
    other = Tournament.objects.get(name="Кубок Тулы 2")
    assert (other.absent_bots, other.absent_bots_seconds) == ("off", 30)
