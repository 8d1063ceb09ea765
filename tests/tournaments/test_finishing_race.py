"""Issue #9: tournaments finishing at once, their end-of-tournament jobs racing on two workers.

The four jobs of a tournament's end (prize pool, tournament ranks, ratings, league ranks) take
the locks of ``tournaments.services.awards``' contract and are retried on a deadlock or a
serialization failure by ``durak_site.dbretry``. The race runs 20 small tournaments of one league
whose players overlap (each plays in two of them), so that the jobs of different tournaments
also meet on shared player rows and on the league's rank rows.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import psycopg.errors
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.models import F
from pytest_django import DjangoDbBlocker

from durak_site import dbretry
from tests.builders import make_tournament
from tests.conftest import jobs_in_process, worker_process
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import (
    AuditEvent,
    Entry,
    FeedEvent,
    League,
    Payout,
    Player,
    PrizePool,
    RankRecord,
    RatingChange,
    Round,
    Table,
    TableResult,
    Tournament,
)
from tournaments.services import placing, progression, registration

TOURNAMENTS = 20
SEATS = 4  # one swiss round at one four-seat table: a tournament is one table
ONE_TABLE = [{"format": "swiss", "table_size": SEATS, "rounds": 1}]


# --- the retry helper -----------------------------------------------------------------------------


def wrapped(cause: Exception) -> OperationalError:
    """What Django raises for a psycopg error: its own class, the driver's as ``__cause__``."""
    try:
        raise OperationalError(str(cause)) from cause
    except OperationalError as exc:
        return exc


def deadlock() -> OperationalError:
    return wrapped(psycopg.errors.DeadlockDetected("deadlock detected"))


class Flaky:
    """Raises the given errors one per call, then answers ``"done"``; counts its calls."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        assert connection.in_atomic_block  # every attempt runs inside its own transaction
        if self.errors:
            raise self.errors.pop(0)
        return "done"


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr("durak_site.dbretry.time.sleep", slept.append)
    return slept


@pytest.mark.django_db(transaction=True)
def test_a_deadlock_twice_then_success_is_retried_with_growing_pauses(
    sleeps: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    job = Flaky(deadlock(), wrapped(psycopg.errors.SerializationFailure("could not serialize")))
    assert dbretry.run_atomic(job) == "done"
    assert job.calls == 3
    # jittered exponential backoff: each pause within its doubling cap
    assert len(sleeps) == 2
    assert 0 < sleeps[0] <= dbretry.BASE_DELAY
    assert 0 < sleeps[1] <= 2 * dbretry.BASE_DELAY
    retries = [r for r in caplog.records if r.name == "durak_site.dbretry"]
    assert len(retries) == 2 and "40P01" in retries[0].getMessage()
    assert "40001" in retries[1].getMessage()


@pytest.mark.django_db(transaction=True)
def test_a_deadlock_every_time_is_raised_after_the_last_attempt(sleeps: list[float]) -> None:
    job = Flaky(*(deadlock() for _ in range(10)))
    with pytest.raises(OperationalError) as raised:
        dbretry.run_atomic(job, attempts=4)
    assert job.calls == 4 and len(sleeps) == 3
    assert isinstance(raised.value.__cause__, psycopg.errors.DeadlockDetected)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "error",
    [
        wrapped(psycopg.errors.LockNotAvailable("could not obtain lock")),
        OperationalError("server closed the connection unexpectedly"),
        IntegrityError("duplicate key"),
        ValueError("not a database error"),
    ],
    ids=["lock-timeout", "connection", "integrity", "value"],
)
def test_other_errors_are_not_retried(sleeps: list[float], error: Exception) -> None:
    job = Flaky(error)
    with pytest.raises(type(error)):
        dbretry.run_atomic(job)
    assert job.calls == 1 and sleeps == []


@pytest.mark.django_db(transaction=True)
def test_inside_a_callers_transaction_nothing_is_retried(sleeps: list[float]) -> None:
    # the caller's transaction is what the database aborted: only its owner can run it again
    job = Flaky(deadlock())
    with pytest.raises(OperationalError), transaction.atomic():
        dbretry.run_atomic(job)
    assert job.calls == 1 and sleeps == []


@pytest.mark.django_db(transaction=True)
def test_the_decorator_keeps_the_services_signature(sleeps: list[float]) -> None:
    calls: list[int] = []

    @dbretry.atomic_retry
    def service(*, n: int) -> int:
        calls.append(n)
        if len(calls) == 1:
            raise deadlock()
        return n * 2

    assert service(n=21) == 42
    assert calls == [21, 21]
    assert service.__name__ == "service"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("leaving", ["withdraw", "disqualify"])
def test_an_entry_leaving_is_run_again_after_a_deadlock_from_its_stored_state(
    sleeps: list[float], monkeypatch: pytest.MonkeyPatch, referee: User, leaving: str
) -> None:
    """A withdrawal or disqualification takes the entry's row before the tournament's, the
    places job the other way round (CI met it): the aborted one runs again, as it was stored."""
    # given a running event, and an announcement that meets a deadlock the first time
    tournament = make_tournament(PlayerFactory.create_batch(4), stages=ONE_TABLE)
    tournament.referees.add(referee)
    services.tournament_start(tournament=tournament)
    entry = tournament.entries.order_by("pk")[0]
    before = entry.status
    announce = registration._entries_changed
    flaky = Flaky(deadlock())

    def meets_a_deadlock_once(changed: Entry, what: str) -> None:
        if flaky.errors:
            flaky()
        announce(changed, what)

    monkeypatch.setattr(registration, "_entries_changed", meets_a_deadlock_once)
    # when it leaves
    if leaving == "withdraw":
        services.entry_withdraw(entry=entry, reason="ушёл", actor=referee)
    else:
        services.entry_disqualify(entry=entry, reason="нарушение", actor=referee)
    # then it left once, its audit row saying from what it left
    entry.refresh_from_db()
    assert entry.status in (Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED)
    assert len(sleeps) == 1
    [row] = AuditEvent.objects.filter(target_id=entry.pk, actor=referee)
    assert row.before == {"status": before} and row.after == {"status": entry.status}


@pytest.mark.django_db(transaction=True)
def test_a_round_s_completion_is_run_again_after_a_deadlock(
    sleeps: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On two workers the completion met a table's result announcing on the tournament's row
    (``bench.tournament --workers 2``); every table's result sends the job,
    and only that of the last can finish it: the aborted completion runs again."""
    # given the last table of a one-round event, and a completion whose announcement meets a
    # deadlock the first time
    tournament = make_tournament(PlayerFactory.create_batch(4), stages=ONE_TABLE)
    table = seated_table(tournament)
    announce = progression._announce_finish
    flaky = Flaky(deadlock())

    def meets_a_deadlock_once(round_: Round, stage: Any, event: str) -> None:
        announce(round_, stage, event)
        if flaky.errors:
            flaky()

    monkeypatch.setattr(progression, "_announce_finish", meets_a_deadlock_once)
    # when its result is recorded (the completion job follows in-process)
    with jobs_in_process():
        record_result(table)
    # then the round and the event finished once
    assert len(sleeps) == 1
    assert Round.objects.get(pk=table.round_id).status == Round.Status.FINISHED
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    events = FeedEvent.objects.filter(tournament=tournament, event="round_finished")
    assert events.count() == 1


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="a real deadlock needs PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_real_deadlock_is_retried_and_both_transactions_commit() -> None:
    # given two transactions that lock the same two rows in opposite orders
    first, second = PlayerFactory.create_batch(2, user=None)
    barrier = threading.Barrier(2)
    attempts: list[str] = []
    errors: list[BaseException] = []

    def cross(name: str, lock: int, then: int) -> None:
        def body() -> None:
            attempts.append(name)
            Player.objects.select_for_update().get(pk=lock)
            if attempts.count(name) == 1:
                barrier.wait(timeout=10)  # both hold their first row: the cycle is closed
            Player.objects.filter(pk=then).update(rating_mu=F("rating_mu") + 1)

        try:
            dbretry.run_atomic(body)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=cross, args=("ab", first.pk, second.pk)),
        threading.Thread(target=cross, args=("ba", second.pk, first.pk)),
    ]
    # when they run at once
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    # then PostgreSQL aborted one, which ran again after the other and committed too
    assert errors == []
    assert len(attempts) == 3
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.rating_mu == second.rating_mu == 26.0


# --- the race on two real workers -----------------------------------------------------------------


@pytest.fixture(scope="module")
def second_celery_worker(celery_worker: None, django_db_blocker: DjangoDbBlocker) -> Iterator[None]:
    """A second worker process on the same queue and test database as ``celery_worker``: two
    processes take the end-of-tournament jobs at the same time, as in production."""
    name = f"test2-{os.getpid()}@{socket.gethostname()}"
    with worker_process(name, ".pytest-worker-2.log", django_db_blocker):
        yield


def seated_table(tournament: Tournament) -> Table:
    """Start the tournament and pair its round in-process: one table, seated and dealt."""
    with jobs_in_process():
        services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament)
    assert round_.status == Round.Status.PLAYING
    return Table.objects.get(round=round_)


def record_result(table: Table) -> None:
    """The table's result with two hangings on its fool, as a series would store it."""
    seats = list(table.seats.order_by("position"))
    entries = [s.entry_id for s in seats]
    fool = seats[-1]
    pogony = [
        {
            "by": seat.entry_id,
            "on": [fool.entry_id],
            "rank": rank,
            "by_player": seat.player_id,
            "on_players": [fool.player_id],
        }
        for seat, rank in zip(seats[:2], ["6", "7"], strict=True)
    ]
    services.table_record_result(
        table=table,
        places=entries,
        fool=fool.entry_id,
        pogony=pogony,
        source=TableResult.Source.BOT,
    )


def all_awarded(ids: list[int]) -> bool:
    done = Tournament.objects.filter(
        pk__in=ids,
        ranks_computed_at__isnull=False,
        ratings_applied_at__isnull=False,
        prize_pool__final=True,
    )
    return done.count() == len(ids)


@pytest.mark.real_stack
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_twenty_tournaments_finishing_at_once_all_get_their_awards(
    celery_worker: None, second_celery_worker: None
) -> None:
    # given 20 tournaments of one league, each one table of four seated and playing; each
    # player plays in two of them, so that neighbours share players
    league = League.objects.create(name="Лига", slug="liga", season="2025")
    players = PlayerFactory.create_batch(TOURNAMENTS * SEATS // 2, user=None)
    tables = []
    for t in range(TOURNAMENTS):
        field = [players[(2 * t + k) % len(players)] for k in range(SEATS)]
        tournament = make_tournament(field, stages=ONE_TABLE, name=f"Турнир {t}", league=league)
        tables.append(seated_table(tournament))
    ids = [table.round.stage.tournament_id for table in tables]
    # when their last tables finish in one commit: 20 round-completion jobs, then the 80
    # end-of-tournament jobs, all at once on the two workers
    started = time.monotonic()
    with transaction.atomic():
        for table in tables:
            record_result(table)
    deadline = started + 60
    while not all_awarded(ids) and time.monotonic() < deadline:
        time.sleep(0.2)
    # then every tournament has all its awards
    missing = {
        t.name: [
            what
            for what, done in [
                ("final prize pool", PrizePool.objects.filter(tournament=t, final=True).exists()),
                ("ranks", t.ranks_computed_at is not None),
                ("ratings", t.ratings_applied_at is not None),
            ]
            if not done
        ]
        for t in Tournament.objects.filter(pk__in=ids)
    }
    assert {name: m for name, m in missing.items() if m} == {}, "see .pytest-worker*.log"
    for tournament in Tournament.objects.filter(pk__in=ids):
        assert tournament.status == Tournament.Status.FINISHED
        entries = Entry.objects.filter(tournament=tournament)
        seated = set(entries.values_list("player_id", flat=True))
        pool = PrizePool.objects.get(tournament=tournament)
        assert pool.total == Decimal("360")  # 4 x 100 less 10 %
        assert sum(p.amount for p in Payout.objects.filter(tournament=tournament)) == pool.total
        # two hangers and their fool have ranks; the fool, hung twice, is старшина
        ranks = dict(
            RankRecord.objects.filter(tournament=tournament).values_list("player_id", "rank")
        )
        assert len(ranks) == 3 and set(ranks) <= seated
        assert sorted(ranks.values()) == ["", "", "старшина"]
        rated = RatingChange.objects.filter(tournament=tournament)
        assert set(rated.values_list("player_id", flat=True)) == seated
    # each player's rating went through both of its tournaments, one after the other
    for player in Player.objects.filter(pk__in=[p.pk for p in players]):
        changes = list(RatingChange.objects.filter(player=player).order_by("created_at", "id"))
        assert len(changes) == 2
        assert changes[1].mu_before == changes[0].mu_after
        assert (player.rating_mu, player.rating_sigma) == (
            changes[1].mu_after,
            changes[1].sigma_after,
        )
    # and the league's ranks fold every tournament's hangings: whoever hung or was hung anywhere
    ranked = set(
        RankRecord.objects.filter(tournament_id__in=ids).values_list("player_id", flat=True)
    )
    league_ranks = RankRecord.objects.filter(league=league)
    assert set(league_ranks.values_list("player_id", flat=True)) == ranked


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="row locks that wait need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_disqualification_waiting_on_the_end_of_the_event_places_the_field_again(
    referee: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end writes the places with the entries' rows locked; a disqualification that read
    the event as running waits for its entry's row, and once the end commits it must see the
    event finished and place the field again (CI's incidents run paid places with a gap)."""
    # given a running event of one four-seat table, whose end holds the entries' rows a moment
    tournament = make_tournament(PlayerFactory.create_batch(4), stages=ONE_TABLE)
    tournament.referees.add(referee)
    table = seated_table(tournament)
    leaving = Entry.objects.get(pk=table.seats.order_by("position")[0].entry_id)
    ending, disqualifying = threading.Event(), threading.Event()
    store = placing.places_store

    def places_held(ended: Tournament) -> list[tuple[int, int]]:
        placed = store(ended)
        ending.set()
        disqualifying.wait(timeout=10)
        time.sleep(0.5)  # the disqualification waits for its entry's row meanwhile
        return placed

    monkeypatch.setattr(progression, "places_store", places_held)
    errors: list[BaseException] = []

    def run(step: Any) -> None:
        try:
            with jobs_in_process():
                step()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    def disqualify() -> None:
        assert ending.wait(timeout=10)
        disqualifying.set()
        services.entry_disqualify(entry=leaving, reason="сговор", actor=referee)

    # when the table's result ends the event while the entry is disqualified
    threads = [
        threading.Thread(target=run, args=(lambda: record_result(table),)),
        threading.Thread(target=run, args=(disqualify,)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    # then the disqualified entry holds the last place alone, the others 1 to 3
    assert errors == []
    places = dict(tournament.entries.values_list("pk", "final_place"))
    assert places.pop(leaving.pk) == 4
    assert sorted(place or 0 for place in places.values()) == [1, 2, 3]
    # and the final prize pool pays those places, not the disqualified
    assert PrizePool.objects.get(tournament=tournament).final
    paid = set(Payout.objects.filter(tournament=tournament).values_list("entry_id", flat=True))
    assert paid and leaving.pk not in paid


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="row locks that wait need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_tables_result_does_not_wait_on_its_round_row() -> None:
    """A result locks its table's row alone: locking the round's and stage's rows too (a
    ``select_related`` under ``FOR UPDATE``) queued every table of a round on one row, behind
    the round-completion job, and was one side of the deadlocks CI saw."""
    # given a seated table whose round row another transaction holds (a round-completion job)
    table = seated_table(make_tournament(PlayerFactory.create_batch(4), stages=ONE_TABLE))
    held, release = threading.Event(), threading.Event()

    def hold_the_round() -> None:
        try:
            with transaction.atomic():
                Round.objects.select_for_update().get(pk=table.round_id)
                held.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_round)
    holder.start()
    assert held.wait(timeout=10)
    # when the table's result is recorded, waiting at most 3 s for any row lock
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '3s'")
            record_result(table)
            recorded = TableResult.objects.filter(table=table).count()
    finally:
        release.set()
        holder.join(timeout=30)
    # then it was recorded without waiting for the round
    assert recorded == 1
