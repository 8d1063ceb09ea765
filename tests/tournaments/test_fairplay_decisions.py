"""A referee's decision on a flagged pair (issue 24): only the event's referees and organiser,
with a reason, audited; a disqualification goes through ``entry_disqualify``; the job keeps it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from durak_site.errors import Forbidden
from tests.builders import ConsoleEvent, console_event
from tests.factories import PlayerFactory, console_user, referee_user
from tournaments.errors import FairPlayError
from tournaments.models import AuditEvent, Entry, PairEvidence
from tournaments.permissions import ORGANISER
from tournaments.services.fairplay import pair_decide, pairs_recompute

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(organiser: User, referee: User) -> ConsoleEvent:
    return console_event(owner=organiser, referees=[referee], name="Fair")


def _pair(event: ConsoleEvent) -> PairEvidence:
    a, b = sorted(e.player_id for e in event.entries[:2] if e.player_id is not None)
    return PairEvidence.objects.create(
        tournament=event.tournament, first_id=a, second_id=b, z=4.2, games_counted=3
    )


def test_the_events_referee_and_organiser_decide_with_a_reason_audited(
    event: ConsoleEvent, organiser: User, referee: User
) -> None:
    pair = _pair(event)
    pair_decide(pair=pair, decision="warned", reason="spared each other", actor=referee)
    pair.refresh_from_db()
    assert (pair.decision, pair.decision_reason) == ("warned", "spared each other")
    assert (pair.decided_by, pair.decided_on_games) == (referee, 3)
    pair_decide(pair=pair, decision="cleared", reason="seats explain it", actor=organiser)
    pair.refresh_from_db()
    assert (pair.decision, pair.decided_by) == ("cleared", organiser)
    audit = list(AuditEvent.objects.filter(action=AuditEvent.Action.FAIRPLAY_DECIDE).order_by("pk"))
    assert [(a.actor, a.reason, (a.after or {})["decision"]) for a in audit] == [
        (referee, "spared each other", "warned"),
        (organiser, "seats explain it", "cleared"),
    ]
    assert audit[1].before == {"decision": "warned", "reason": "spared each other"}
    assert all(a.tournament == event.tournament and a.target_id == pair.pk for a in audit)
    # no entry changed for a warning or a clearance
    assert not Entry.objects.filter(status=Entry.Status.DISQUALIFIED).exists()


@pytest.mark.parametrize("who", ["other_referee", "other_organiser", "player", "system"])
def test_anybody_else_is_refused(event: ConsoleEvent, who: str) -> None:
    pair = _pair(event)
    actors = {
        "other_referee": referee_user("someone-else"),
        "other_organiser": console_user("other-organiser", ORGANISER),
        "player": PlayerFactory.create().user,
        "system": None,
    }
    error = FairPlayError if who == "system" else Forbidden
    with pytest.raises(error):
        pair_decide(pair=pair, decision="cleared", reason="fine", actor=actors[who])
    pair.refresh_from_db()
    assert pair.decision == ""
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.FAIRPLAY_DECIDE).exists()


@pytest.mark.parametrize(("decision", "reason"), [("warned", "  "), ("banned", "cheats")])
def test_a_decision_needs_a_reason_and_a_known_kind(
    event: ConsoleEvent, referee: User, decision: str, reason: str
) -> None:
    pair = _pair(event)
    with pytest.raises(FairPlayError):
        pair_decide(pair=pair, decision=decision, reason=reason, actor=referee)


def test_disqualified_disqualifies_both_entries_through_the_service(
    event: ConsoleEvent, referee: User
) -> None:
    pair = _pair(event)
    pair_decide(pair=pair, decision="disqualified", reason="chip dumping", actor=referee)
    disqualified = Entry.objects.filter(status=Entry.Status.DISQUALIFIED)
    assert sorted(e.player_id or 0 for e in disqualified) == [pair.first_id, pair.second_id]
    assert all(e.status_reason == "fair play: chip dumping" for e in disqualified)
    assert (
        AuditEvent.objects.filter(action=AuditEvent.Action.ENTRY_DISQUALIFY, actor=referee).count()
        == 2
    )
    # deciding again does not disqualify them twice
    pair_decide(pair=pair, decision="disqualified", reason="confirmed", actor=referee)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.ENTRY_DISQUALIFY).count() == 2


def test_the_job_keeps_a_decided_pair(event: ConsoleEvent, referee: User) -> None:
    pair = _pair(event)
    other = PairEvidence.objects.create(
        tournament=event.tournament,
        first_id=min(e.player_id or 0 for e in event.entries[2:]),
        second_id=max(e.player_id or 0 for e in event.entries[2:]),
    )
    pair_decide(pair=pair, decision="warned", reason="watch them", actor=referee)
    # when: the pairs are recomputed from no counted game
    pairs_recompute(tournament_id=event.tournament.pk)
    # then: the undecided pair is gone, the decided one kept with its decision
    assert not PairEvidence.objects.filter(pk=other.pk).exists()
    pair.refresh_from_db()
    assert pair.decision == "warned"
