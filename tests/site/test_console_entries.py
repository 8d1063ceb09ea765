"""Entries in the console: a team registered for a team event, a re-entry where the plan takes
one (``console.registration``, ``console.admin_actions.reenter``)."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import AuditEvent, Entry

pytestmark = pytest.mark.django_db


def test_an_organiser_registers_a_team_for_a_team_event_and_not_a_player(
    client: Client, organiser: User
) -> None:
    tournament = make_tournament(
        [],
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        team_size=2,
        created_by=organiser,
    )
    ann, bob = PlayerFactory.create_batch(2)
    team = services.team_create(name="Тула", players=[ann, bob])
    client.force_login(organiser)
    address = reverse("admin:tournaments_entry_add")
    refused = client.post(address, {"tournament": tournament.pk, "player": ann.pk, "paid": "on"})
    assert refused.status_code == 200 and not Entry.objects.exists()
    done = client.post(address, {"tournament": tournament.pk, "team": team.pk, "paid": "on"})
    assert done.status_code == 302
    entry = Entry.objects.get()
    assert entry.team == team and entry.player is None
    assert AuditEvent.objects.filter(action=AuditEvent.Action.ENTRY_REGISTER).count() == 1


def test_a_re_entry_is_recorded_where_the_plan_takes_one(client: Client, organiser: User) -> None:
    players = PlayerFactory.create_batch(2)
    with_fee = make_tournament(players, reentry_fee="50", created_by=organiser)
    without = make_tournament(players, created_by=organiser, name="Без повторных")
    client.force_login(organiser)
    changelist = reverse("admin:tournaments_entry_changelist")
    for tournament in (with_fee, without):
        entry = Entry.objects.filter(tournament=tournament).first()
        assert entry is not None
        data = {"action": "reenter", helpers.ACTION_CHECKBOX_NAME: [entry.pk], "index": 0}
        assert client.post(changelist, data).status_code == 302
        entry.refresh_from_db()
        assert entry.reentries == (1 if tournament == with_fee else 0)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.ENTRY_REENTER).count() == 1
