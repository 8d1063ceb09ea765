"""A failed end-of-event job (issue #18): stored, shown on the console's progress page in the
reader's language with a "recompute" action, announced on the feed, sent again by the reconciler
only once something changed, flagged in the console's tournament list; a success clears it.

The cause here: a payout structure that does not add up to 100 (written past the plan's
validation, as an old row or a bug would), which the prize pool job refuses.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.builders import make_tournament, run_jobs
from tests.factories import BotPlayerFactory
from tournaments import reconcile, services
from tournaments.models import (
    AuditEvent,
    AwardsFailure,
    Payout,
    PrizePool,
    Tournament,
    Webhook,
    WebhookDelivery,
)
from tournaments.services import failures

pytestmark = pytest.mark.django_db

BROKEN = ["50", "30"]  # adds up to 80


def broken_event(owner: User, referee: User) -> Tournament:
    """A finished 8-bot swiss of ``owner``'s, refereed by ``referee``, whose prize pool failed;
    a webhook of it takes every event of its feed."""
    tournament = make_tournament(
        BotPlayerFactory.create_batch(8),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=owner,
    )
    tournament.referees.set([referee])
    Webhook.objects.create(tournament=tournament, url="https://example.com/hook", secret="s" * 32)
    services.tournament_start(tournament=tournament)
    Tournament.objects.filter(pk=tournament.pk).update(payout_structure=BROKEN)
    run_jobs(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament


def due_for(tournament: Tournament) -> list[str]:
    return [d.task for d in reconcile.due_jobs(grace=timedelta(0), tournament_id=tournament.pk)]


def announced(tournament: Tournament) -> int:
    return WebhookDelivery.objects.filter(
        webhook__tournament=tournament, event="awards_failed"
    ).count()


def progress(user: User, tournament: Tournament, language: str) -> tuple[int, str]:
    client = Client()
    client.force_login(user)
    url = reverse("admin:tournaments_tournament_progress", args=[tournament.pk])
    response = client.get(url, headers={"Accept-Language": language})
    return response.status_code, response.content.decode()


def recompute(user: User, tournament: Tournament) -> int:
    client = Client()
    client.force_login(user)
    url = reverse("admin:tournaments_tournament_recompute", args=[tournament.pk])
    return client.post(url, {"recompute": "1"}, headers={"Accept-Language": "en"}).status_code


def test_a_failed_prize_pool_is_stored_announced_and_sent_again_only_after_a_change(
    organiser: User, event_referee: User
) -> None:
    # given a finished event whose prize pool job failed
    tournament = broken_event(organiser, event_referee)

    # then the failure is stored with its code, its message's parameters and its inputs
    failure = AwardsFailure.objects.get(tournament=tournament)
    assert failure.job == AwardsFailure.Job.PRIZE_POOL
    assert failure.code == "payout_sum"
    assert failure.params == {"total": "80"}
    assert failure.attempts == 1
    assert failure.fingerprint == failures.awards_inputs(tournament.pk)
    assert not PrizePool.objects.filter(tournament=tournament, final=True).exists()
    # announced once on the feed
    assert announced(tournament) == 1
    # the other jobs did their part
    assert tournament.ranks_computed_at is not None
    assert tournament.ratings_applied_at is not None

    # when nothing changes, the reconciler does not send it again (however often it looks)
    assert due_for(tournament) == []
    assert due_for(tournament) == []
    # a run anyway (the job sent by hand) counts the attempt and announces nothing new
    assert failures.awards_job(AwardsFailure.Job.PRIZE_POOL, tournament.pk) is None
    failure.refresh_from_db()
    assert failure.attempts == 2
    assert announced(tournament) == 1
    assert due_for(tournament) == []

    # when something changes (here the cause is removed), it is sent again
    Tournament.objects.filter(pk=tournament.pk).update(payout_structure=["50", "30", "20"])
    assert due_for(tournament) == ["tournaments.prize_pool_compute"]
    run_jobs(tournament)
    # and its success clears the failure: the pool is final, paid out exactly
    assert not AwardsFailure.objects.filter(tournament=tournament).exists()
    pool = PrizePool.objects.get(tournament=tournament)
    assert pool.final and pool.total == Decimal("720")
    paid = sum(Payout.objects.filter(tournament=tournament).values_list("amount", flat=True))
    assert paid == pool.total
    assert due_for(tournament) == []


def test_another_change_sends_a_failed_job_again_and_a_new_failure_is_announced(
    organiser: User, event_referee: User
) -> None:
    tournament = broken_event(organiser, event_referee)
    # when an input changes but the cause stays (another wrong structure)
    Tournament.objects.filter(pk=tournament.pk).update(payout_structure=["60", "30"])
    assert due_for(tournament) == ["tournaments.prize_pool_compute"]
    run_jobs(tournament)
    # then it failed again, on the new inputs, announced again; and is not sent a third time
    failure = AwardsFailure.objects.get(tournament=tournament)
    assert failure.params == {"total": "90"}
    assert failure.attempts == 2
    assert announced(tournament) == 2
    assert due_for(tournament) == []


def test_the_progress_page_shows_the_failure_in_the_readers_language(
    organiser: User, event_referee: User
) -> None:
    tournament = broken_event(organiser, event_referee)
    status, english = progress(organiser, tournament, "en")
    assert status == 200
    assert 'id="awards-failures"' in english
    assert "Prize pool and payouts" in english
    assert "the payout structure&#x27;s percentages add up to 80, not 100" in english
    assert 'name="recompute"' in english
    status, russian = progress(event_referee, tournament, "ru")
    assert status == 200
    assert "Призовой фонд и выплаты" in russian
    assert "проценты структуры выплат в сумме дают 80, а не 100" in russian
    assert "Пересчитать" in russian


def test_recompute_is_for_the_events_organiser_and_referee_and_fixes_it(
    organiser: User, event_referee: User, other_organiser: User, other_referee: User
) -> None:
    tournament = broken_event(organiser, event_referee)
    # another organiser or another event's referee may not (not theirs to see: as missing)
    assert recompute(other_organiser, tournament) == 404
    assert recompute(other_referee, tournament) == 404
    missing = reverse("admin:tournaments_tournament_recompute", args=[tournament.pk + 1000])
    client = Client()
    client.force_login(organiser)
    assert client.post(missing, {"recompute": "1"}).status_code == 404
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.AWARDS_RECOMPUTE).exists()

    # the organiser recomputes while the cause is still there: it still fails, audited
    assert recompute(organiser, tournament) == 302
    assert AwardsFailure.objects.get(tournament=tournament).attempts == 2
    audit = AuditEvent.objects.get(action=AuditEvent.Action.AWARDS_RECOMPUTE)
    assert audit.actor == organiser
    assert audit.before == {"failures": ["prize_pool: payout_sum"]}

    # once the cause is removed, the event's referee recomputes it: fixed
    Tournament.objects.filter(pk=tournament.pk).update(payout_structure=["50", "30", "20"])
    assert recompute(event_referee, tournament) == 302
    assert not AwardsFailure.objects.filter(tournament=tournament).exists()
    assert PrizePool.objects.get(tournament=tournament).final
    _status, page = progress(organiser, tournament, "en")
    assert 'id="awards-problems"' not in page
    assert AuditEvent.objects.filter(action=AuditEvent.Action.AWARDS_RECOMPUTE).count() == 2


def test_the_tournament_list_flags_failed_and_missing_awards(
    organiser: User, event_referee: User
) -> None:
    broken = broken_event(organiser, event_referee)
    fine = make_tournament(
        BotPlayerFactory.create_batch(4),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=organiser,
        name="Кубок без бед",
    )
    services.tournament_start(tournament=fine)
    run_jobs(fine)
    lacking = make_tournament(
        BotPlayerFactory.create_batch(4),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=organiser,
        name="Кубок без рейтинга",
    )
    services.tournament_start(tournament=lacking)
    run_jobs(lacking)
    Tournament.objects.filter(pk=lacking.pk).update(ratings_applied_at=None)

    client = Client()
    client.force_login(organiser)
    url = reverse("admin:tournaments_tournament_changelist")
    page = client.get(url, headers={"Accept-Language": "en"}).content.decode()
    assert "column-awards" in page
    row = page[page.index(broken.name) :]
    assert "Failed" in row[: row.index("</tr>")]

    def listed(value: str) -> set[str]:
        answer = client.get(url, {"awards": value}, headers={"Accept-Language": "en"})
        return {t.name for t in answer.context["cl"].result_list}

    assert listed("failed") == {broken.name}
    assert listed("missing") == {lacking.name}
    assert listed("problem") == {broken.name, lacking.name}
    assert listed("complete") == {fine.name}


@pytest.mark.parametrize(
    ("action", "english", "russian"),
    [
        ("withdraw", "eliminated at the stage it is in", "выбывает на том этапе"),
        ("disqualify", "is placed last", "получает последнее место"),
    ],
)
def test_the_withdraw_and_disqualify_pages_say_what_they_do_to_places_and_money(
    organiser: User, action: str, english: str, russian: str
) -> None:
    tournament = make_tournament(BotPlayerFactory.create_batch(4), created_by=organiser)
    entry = tournament.entries.first()
    assert entry is not None
    client = Client()
    client.force_login(organiser)
    url = reverse("admin:tournaments_entry_changelist")
    for language, words in (("en", english), ("ru", russian)):
        page = client.post(
            url,
            {"action": action, "_selected_action": [entry.pk]},
            headers={"Accept-Language": language},
        ).content.decode()
        assert 'id="action-consequences"' in page
        assert words in page
