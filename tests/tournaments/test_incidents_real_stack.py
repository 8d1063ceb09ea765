"""``simulate_tournament`` with incidents on PostgreSQL + Redis, its jobs run by a real worker
process: the incidents happen between the simulator's polls while the worker plays, pairs and
pays in another process (real races, real row locks), and the invariants hold at the end."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tournaments.models import AuditEvent, Entry, Tournament


@pytest.mark.real_stack
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_48_players_with_incidents_finish_on_a_real_worker(celery_worker: None) -> None:
    out = StringIO()
    call_command(
        "simulate_tournament",
        players=48,
        incidents_seed="18",
        incidents="all=1,withdraw=2,withdraw_mid_game=2,disqualify=2",
        incident_rate=0.3,
        late_registration_rounds=1,
        reentry_fee="50",
        two_person_rule=True,
        no_progress=True,
        timeout=900,
        stdout=out,
    )
    output = out.getvalue()
    print(output)  # the incidents' log, for -s
    assert "Invariants held" in output, output
    tournament = Tournament.objects.get()
    assert tournament.status == Tournament.Status.FINISHED
    # the incidents happened, each by a person (an organiser or referee, not a superuser)
    left = Entry.objects.filter(
        tournament=tournament, status__in=[Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED]
    )
    assert left.exists(), output
    actors = AuditEvent.objects.filter(tournament=tournament).exclude(actor=None)
    assert actors.exists()
    assert not actors.filter(actor__is_superuser=True).exists()
