"""Issue #13: the end-of-tournament jobs take their locks in one documented order
(``tournaments.services.awards``: league, tournament, players in id order, then their own rows,
all ``FOR NO KEY UPDATE``), so the ranks job and the ratings job no longer deadlock; and a job
that PostgreSQL keeps aborting is retried a bounded number of times, changes nothing, and is
finished by the reconciler.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from durak_site import dbretry, jobs
from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tests.tournaments.test_finishing_race import ONE_TABLE, deadlock, record_result, seated_table
from tournaments import reconcile, services
from tournaments.models import League, Player, RankRecord, RatingChange, Tournament
from tournaments.services import awards

pytestmark = pytest.mark.django_db(transaction=True)
postgres_only = pytest.mark.skipif(not settings.USES_POSTGRES, reason="row locks: PostgreSQL")

LOCK = re.compile(r'FROM "(tournaments_\w+)".* FOR (NO KEY UPDATE|UPDATE|SHARE|KEY SHARE)', re.S)


AWARDS = {
    "tournaments.prize_pool_compute",
    "tournaments.tournament_ranks_compute",
    "tournaments.ratings_update",
}


def without_awards(monkeypatch: pytest.MonkeyPatch) -> None:
    """The end-of-tournament jobs asked for after commit are lost (the test runs them)."""

    def on_commit(func: Any, *args: Any, **kwargs: Any) -> None:
        names = {getattr(c.cell_contents, "name", "") for c in func.__closure__ or ()}
        if not names & AWARDS:
            transaction.on_commit(func, *args, **kwargs)

    monkeypatch.setattr(jobs, "transaction", SimpleNamespace(on_commit=on_commit))


def finished_events(count: int, league: League | None) -> list[Tournament]:
    """``count`` one-table tournaments of four, finished, their awards not computed; each
    player plays in two of them (neighbours share players)."""
    players = PlayerFactory.create_batch(max(4, count * 2), user=None)
    events = []
    for t in range(count):
        field = [players[(2 * t + k) % len(players)] for k in range(4)]
        tournament = make_tournament(field, stages=ONE_TABLE, name=f"Турнир {t}", league=league)
        events.append(tournament)
        record_result(seated_table(tournament))
    for tournament in events:
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED
        assert tournament.ranks_computed_at is None and tournament.ratings_applied_at is None
    return events


def locks_of(job: Callable[[], object]) -> list[tuple[str, str]]:
    """The row locks ``job`` takes, in order: (table, lock strength)."""
    with CaptureQueriesContext(connection) as queries:
        job()
    return [
        (m[1], m[2]) for q in queries.captured_queries if (m := LOCK.search(q["sql"])) is not None
    ]


@postgres_only
def test_each_job_locks_league_then_tournament_then_players_never_for_key_update(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    without_awards(monkeypatch)
    league = League.objects.create(name="Лига", slug="liga", season="2026")
    (tournament,) = finished_events(1, league)
    order = [
        locks_of(lambda: services.tournament_ranks_compute(tournament_id=tournament.pk)),
        locks_of(lambda: services.ratings_update(tournament_id=tournament.pk)),
        locks_of(lambda: services.prize_pool_compute(tournament_id=tournament.pk)),
        locks_of(lambda: services.league_ranks_compute(league_id=league.pk)),
    ]
    # the tables in the order their rows are first locked (step 3, the job's own rows, locks
    # each row it updates: rank records one by one, in player order)
    tables = [list(dict.fromkeys(table for table, _ in job)) for job in order]
    assert tables == [
        [
            "tournaments_league",
            "tournaments_tournament",
            "tournaments_player",
            "tournaments_rankrecord",
        ],
        ["tournaments_tournament", "tournaments_player"],
        ["tournaments_tournament", "tournaments_prizepool"],
        ["tournaments_league", "tournaments_player", "tournaments_rankrecord"],
    ]
    # FOR UPDATE on a league, tournament or player would conflict with the KEY SHARE that
    # inserting rank records and rating changes takes on those rows at commit (the deadlock of
    # issue #13); the job's own rows are referenced by nothing
    referenced = {"tournaments_league", "tournaments_tournament", "tournaments_player"}
    assert {s for job in order for table, s in job if table in referenced} == {"NO KEY UPDATE"}


@postgres_only
def test_ranks_and_ratings_racing_on_shared_players_never_deadlock(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None, caplog: pytest.LogCaptureFixture
) -> None:
    # given four finished tournaments of one league whose neighbours share players, none with
    # its ranks or ratings yet
    without_awards(monkeypatch)
    league = League.objects.create(name="Лига", slug="liga", season="2026")
    events = finished_events(4, league)
    calls: list[Callable[[], object]] = []
    for t in events:
        calls += [
            functools.partial(services.tournament_ranks_compute, tournament_id=t.pk),
            functools.partial(services.ratings_update, tournament_id=t.pk),
        ]
    calls.append(functools.partial(services.league_ranks_compute, league_id=league.pk))
    # (nine connections at once: the pool holds ten per process, one is the test's)
    assert len(calls) < settings.DATABASES["default"]["OPTIONS"]["pool"]["max_size"]
    barrier = threading.Barrier(len(calls))
    errors: list[BaseException] = []

    def run(call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=30)
            call()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    # when all their jobs start at the same moment, each in its own connection
    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    # then every job finished, none was aborted for a deadlock (none even needed a retry)
    assert errors == []
    assert [r.getMessage() for r in caplog.records if r.name == "durak_site.dbretry"] == []
    for tournament in Tournament.objects.filter(pk__in=[t.pk for t in events]):
        assert tournament.ranks_computed_at and tournament.ratings_applied_at
    # each player's two tournaments rated one after the other
    for player in Player.objects.filter(rating_changes__isnull=False).distinct():
        changes = list(RatingChange.objects.filter(player=player).order_by("created_at", "id"))
        assert len(changes) == 2 and changes[1].mu_before == changes[0].mu_after
    ranked = set(RankRecord.objects.filter(tournament__in=events).values_list("player", flat=True))
    assert set(RankRecord.objects.filter(league=league).values_list("player", flat=True)) == ranked


def test_a_job_the_database_keeps_aborting_changes_nothing_and_is_finished_later(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    without_awards(monkeypatch)
    (tournament,) = finished_events(1, None)
    ratings_before = list(Player.objects.order_by("pk").values_list("rating_mu", "rating_sigma"))
    slept: list[float] = []
    monkeypatch.setattr("durak_site.dbretry.time.sleep", slept.append)
    # given the ratings job is aborted for a deadlock at every attempt, after its first writes
    real_lock = awards._lock_players

    def aborted(ids: Any) -> Any:
        real_lock(ids)
        raise deadlock()

    with monkeypatch.context() as broken:
        broken.setattr(awards, "_lock_players", aborted)
        with pytest.raises(OperationalError):
            services.ratings_update(tournament_id=tournament.pk)
    # then it was tried a bounded number of times with growing pauses, and nothing of it stayed
    assert len(slept) == dbretry.ATTEMPTS - 1
    tournament.refresh_from_db()
    assert tournament.ratings_applied_at is None
    assert not RatingChange.objects.exists()
    assert list(Player.objects.order_by("pk").values_list("rating_mu", "rating_sigma")) == (
        ratings_before
    )
    # and the reconciler finds the tournament without its ratings and finishes it
    cache.clear()  # no job lease left by an earlier test
    later = timezone.now() + timedelta(hours=1)
    due = [d for d in reconcile.due_jobs(now=later) if d.task == "tournaments.ratings_update"]
    assert [d.args for d in due] == [(tournament.pk,)]
    jobs.enqueue_due(due)
    tournament.refresh_from_db()
    assert tournament.ratings_applied_at is not None
    assert RatingChange.objects.filter(tournament=tournament).count() == 4
