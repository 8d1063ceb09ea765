"""The reconciler (``tournaments.reconcile``): work that is due and not done is found from the
database and its job sent, so that a lost job costs seconds; the leases keep it from sending a
job that is queued or running; the waiting commands name what did not finish.

"Lost" here: the fixture :func:`lost_jobs` drops every job a service asks for after its commit
(as a killed worker or a dead Redis would), while the jobs the reconciler sends run (eagerly).
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from celery.signals import task_received
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.db import transaction
from django.utils import timezone

from durak_site import jobs
from durak_site.jobs import Due
from games import services as game_services
from games.models import Game
from tests.builders import make_tournament
from tests.factories import console_group
from tests.tournaments.test_whole_tournament import assert_finished_correctly, snapshot
from tournaments import reconcile, services
from tournaments.management.commands import demo
from tournaments.models import (
    FairplayState,
    GameEvidenceRow,
    League,
    PairEvidence,
    Player,
    RankRecord,
    Round,
    Table,
    Tournament,
)
from tournaments.models.fairplay import EVIDENCE_VERSION

pytestmark = pytest.mark.django_db(transaction=True)

LATER = timedelta(hours=1)  # "now" for the reconciler: every grace long passed
TWO_ROUNDS = [{"format": "swiss", "table_size": 4, "rounds": 2}]


@pytest.fixture(autouse=True)
def _no_leases() -> Iterator[None]:
    """Each test starts with no job lease in the shared cache (Redis on the real stack)."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def lost_jobs(monkeypatch: pytest.MonkeyPatch, eager_jobs: None) -> None:
    """Every job a service asks for after its commit is lost; the reconciler's run."""
    monkeypatch.setattr(jobs, "transaction", SimpleNamespace(on_commit=lambda *a, **k: None))


def losing(monkeypatch: pytest.MonkeyPatch, *words: str) -> None:
    """Lose the jobs asked for after commit whose task name contains one of ``words``."""

    def on_commit(func: Any, *args: Any, **kwargs: Any) -> None:
        names = [getattr(c.cell_contents, "name", "") for c in func.__closure__ or ()]
        if not any(word in name for word in words for name in names):
            transaction.on_commit(func, *args, **kwargs)

    monkeypatch.setattr(jobs, "transaction", SimpleNamespace(on_commit=on_commit))


def reconcile_until_done(limit: int = 200) -> list[Due]:
    """Run the reconciler until it finds nothing more to send; every item it sent, in order."""
    sent: list[Due] = []
    for _ in range(limit):
        found = reconcile.reconcile(now=timezone.now() + LATER)
        if not found:
            return sent
        sent += found
    raise AssertionError(f"the reconciler never settled: {sent[-10:]}")


def due_tasks(**kwargs: Any) -> set[str]:
    return {d.task for d in reconcile.due_jobs(now=timezone.now() + LATER, **kwargs)}


# --- every job lost: the reconciler alone plays a tournament to its end -------------------------


def test_a_tournament_whose_every_job_is_lost_is_finished_by_the_reconciler(
    bot_players: list[Player], lost_jobs: None
) -> None:
    # given a swiss then knockout event of a league, every job of which is lost
    league = League.objects.create(name="Лига", slug="liga", season="2026")
    tournament = make_tournament(bot_players, league=league)
    services.tournament_start(tournament=tournament)
    assert Round.objects.get(stage__tournament=tournament).status == Round.Status.PENDING
    # when only the reconciler runs
    sent = reconcile_until_done()
    # then the tournament is played, completed and awarded exactly as by the normal path
    assert_finished_correctly(tournament)
    # the league's ranks came with the tournament's (its only event: the same players)
    ranked = RankRecord.objects.filter(tournament=tournament).values_list("player", "rank")
    assert set(RankRecord.objects.filter(league=league).values_list("player", "rank")) == set(
        ranked
    )
    assert {d.task for d in sent} == {
        "tournaments.round_pair",
        "games.game_play_bots",
        "games.game_finished",
        "tournaments.round_complete",
        "tournaments.prize_pool_compute",
        "tournaments.tournament_ranks_compute",
        "tournaments.ratings_update",
        "tournaments.fairplay_count",
    }
    # each round paired once, each job sent once per piece of work
    rounds = Round.objects.filter(stage__tournament=tournament)
    assert [d.args[0] for d in sent if d.task == "tournaments.round_pair"] == sorted(
        rounds.exclude(stage__format="knockout", number__gt=1).values_list("pk", flat=True)
    )
    assert len(sent) == len(set(sent))
    # and, finished, nothing is due any more: a later run changes nothing
    before = snapshot(tournament)
    assert reconcile.due_jobs(now=timezone.now() + LATER) == []
    assert snapshot(tournament) == before


# --- each kind of work, within and past the grace -----------------------------------------------


def started(players: list[Player], **kw: Any) -> Tournament:
    tournament = make_tournament(players, stages=TWO_ROUNDS, **kw)
    services.tournament_start(tournament=tournament)
    return tournament


def test_a_round_whose_pairing_was_lost_is_paired_once(
    bot_players: list[Player], lost_jobs: None
) -> None:
    tournament = started(bot_players[:8])
    round_1 = Round.objects.get(stage__tournament=tournament)
    # within the grace the pairing job is taken to be on its way; past it, it is sent
    assert reconcile.due_jobs() == []
    due = reconcile.due_jobs(now=timezone.now() + LATER)
    assert [(d.task, d.args) for d in due] == [("tournaments.round_pair", (round_1.pk,))]
    assert len(jobs.enqueue_due(due)) == 1
    round_1.refresh_from_db()
    assert round_1.status == Round.Status.PLAYING and round_1.tables.count() == 2
    # the round's games are now due for their bots, nothing else
    assert due_tasks(tournament_id=tournament.pk) == {"games.game_play_bots"}


def test_a_finished_game_whose_table_still_plays_is_recorded(
    bot_players: list[Player], lost_jobs: None
) -> None:
    tournament = started(bot_players[:4])
    pair_first_round(tournament)
    table = Table.objects.get(round__stage__tournament=tournament)
    game = table.games.get()
    game_services.game_play_bots(game_id=game.pk)
    game.refresh_from_db()
    assert game.is_over
    # the game is over, the table does not know: its series has not advanced
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    due = reconcile.due_jobs(now=timezone.now() + LATER, tournament_id=tournament.pk)
    assert [(d.task, d.args) for d in due] == [("games.game_finished", (game.pk,))]
    jobs.enqueue_due(due)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    # then the round is complete and not completed: that is due next
    assert due_tasks(tournament_id=tournament.pk) == {"tournaments.round_complete"}


def pair_first_round(tournament: Tournament) -> None:
    (round_1,) = Round.objects.filter(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_1.pk)


def test_a_finished_tournament_without_its_awards_gets_them(
    bot_players: list[Player], eager_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a tournament that finished and whose ranks and ratings jobs were lost
    losing(monkeypatch, "ranks", "ratings")
    tournament = started(bot_players[:8])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.ranks_computed_at is None and tournament.ratings_applied_at is None
    # then both are due (not the prize pool, which is there), past the grace only
    assert due_tasks() == {"tournaments.tournament_ranks_compute", "tournaments.ratings_update"}
    assert reconcile.due_jobs() == []
    reconcile_until_done()
    tournament.refresh_from_db()
    assert tournament.ranks_computed_at and tournament.ratings_applied_at


def test_a_running_events_lost_round_fair_play_job_is_sent_again_before_the_next_round_ends(
    bot_players: list[Player], lost_jobs: None
) -> None:
    # given a running event whose first round has finished, every job lost on the way
    tournament = started(bot_players[:8])
    round_1 = Round.objects.get(stage__tournament=tournament)
    while Round.objects.get(pk=round_1.pk).status != Round.Status.FINISHED:
        assert jobs.enqueue_due(
            [d for d in reconcile.due_jobs(now=timezone.now() + LATER) if "fairplay" not in d.task]
        )
    round_1.refresh_from_db()
    counted = Game.objects.filter(table__round=round_1)
    assert counted.count() == 2 and not GameEvidenceRow.objects.exists()
    # then its games' counting is due (as the round's job: not in full), past the grace only
    fair_play = [d for d in reconcile.due_jobs(now=timezone.now() + LATER) if "fair" in d.task]
    assert [(d.task, d.args) for d in fair_play] == [
        ("tournaments.fairplay_count", (tournament.pk, False))
    ]
    assert f"round {round_1.pk} " in fair_play[0].why
    assert not [d for d in reconcile.due_jobs() if "fair" in d.task]
    # a round that finished before the window is left to the next round's job
    Round.objects.filter(pk=round_1.pk).update(finished_at=timezone.now() - reconcile.ROUNDS_WINDOW)
    assert not [d for d in reconcile.due_jobs() if "fair" in d.task]
    Round.objects.filter(pk=round_1.pk).update(finished_at=round_1.finished_at)
    # and the job it sends counts the round's games before the next round has finished
    jobs.enqueue_due(fair_play)
    assert set(GameEvidenceRow.objects.values_list("game_id", flat=True)) == set(
        counted.values_list("pk", flat=True)
    )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    round_2 = Round.objects.get(stage__tournament=tournament, number=2)
    assert round_2.status != Round.Status.FINISHED
    assert not [d for d in reconcile.due_jobs(now=timezone.now() + LATER) if "fair" in d.task]


def test_a_finished_event_whose_fair_play_job_was_lost_is_counted_and_scored(
    bot_players: list[Player], eager_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a finished event whose every fair-play job was lost (the last round's too)
    losing(monkeypatch, "fairplay")
    tournament = started(bot_players[:8])
    games = Game.objects.filter(table__round__stage__tournament=tournament)
    assert games.count() == 4 and not GameEvidenceRow.objects.exists()
    # then its counting is due, past the grace only
    assert due_tasks() == {"tournaments.fairplay_count"}
    assert reconcile.due_jobs() == []
    (due,) = reconcile.due_jobs(now=timezone.now() + LATER)
    assert due.args == (tournament.pk,) and "without fair-play evidence" in due.why
    # and the reconciler's job counts every game and scores the pairs, once
    sent = reconcile_until_done()
    assert [d.task for d in sent] == ["tournaments.fairplay_count"]
    assert set(GameEvidenceRow.objects.values_list("game_id", flat=True)) == set(
        games.values_list("pk", flat=True)
    )
    scored = list(PairEvidence.objects.order_by("pk").values_list("first_id", "second_id", "z"))
    assert scored and FairplayState.objects.get(tournament=tournament).games_counted == 4
    # a game counted by an older version of the counting is due again
    GameEvidenceRow.objects.filter(game=games.first()).update(version=0)
    assert due_tasks() == {"tournaments.fairplay_count"}
    reconcile_until_done()
    assert set(GameEvidenceRow.objects.values_list("version", flat=True)) == {EVIDENCE_VERSION}
    # pairs computed from fewer games than were counted (a job died between the two) are stale
    FairplayState.objects.filter(tournament=tournament).update(games_counted=3)
    (due,) = reconcile.due_jobs(now=timezone.now() + LATER)
    assert due.why == "fair-play pairs stale"
    reconcile_until_done()
    assert FairplayState.objects.get(tournament=tournament).games_counted == 4
    assert (
        list(PairEvidence.objects.order_by("pk").values_list("first_id", "second_id", "z"))
        == scored
    )
    assert due_tasks() == set()


def test_only_recent_tournaments_are_awarded_unless_asked_about(
    bot_players: list[Player], eager_jobs: None
) -> None:
    # an event that finished long ago without its ratings stamp (say, imported) is left alone
    tournament = started(bot_players[:8])
    Tournament.objects.filter(pk=tournament.pk).update(
        ratings_applied_at=None, finished_at=timezone.now() - reconcile.AWARDS_WINDOW * 2
    )
    assert due_tasks() == set()
    # unless somebody asks about it (the demo command does)
    assert due_tasks(tournament_id=tournament.pk) == {"tournaments.ratings_update"}


def test_a_cancelled_tournament_is_left_as_it_is(
    bot_players: list[Player], lost_jobs: None
) -> None:
    tournament = started(bot_players[:8])
    services.tournament_cancel(tournament=tournament)
    assert reconcile.due_jobs(now=timezone.now() + LATER) == []


def test_later_knockout_rounds_wait_for_their_feeders(
    bot_players: list[Player], lost_jobs: None
) -> None:
    tournament = make_tournament(
        bot_players, stages=[{"format": "knockout", "table_size": 4, "advance_per_table": 2}]
    )
    services.tournament_start(tournament=tournament)
    pair_first_round(tournament)
    assert Round.objects.filter(stage__tournament=tournament, status="pending").exists()
    # the pending later rounds are not "due for pairing": their tables are seated by feeders
    assert due_tasks(tournament_id=tournament.pk) == {"games.game_play_bots"}


# --- leases -------------------------------------------------------------------------------------


def test_a_job_sent_is_not_sent_again_while_queued_and_a_failed_one_waits(
    bot_players: list[Player], lost_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament = started(bot_players[:8])
    (due,) = reconcile.due_jobs(now=timezone.now() + LATER)
    sent: list[tuple[str, tuple[Any, ...]]] = []

    def queue(task: Any, *args: Any, **kwargs: Any) -> bool:
        sent.append((task.name, args))
        return True

    with monkeypatch.context() as queued:
        queued.setattr(jobs, "dispatch", queue)
        # two reconcilers at once send it once; the next ticks not while it waits in the queue
        assert jobs.enqueue_due([due]) == [due]
        assert jobs.enqueue_due([due]) == []
    assert sent == [("tournaments.round_pair", due.args)]
    assert cache.get(due.lease) == "queued"
    # a worker that takes the message shortens the lease (killed before the job starts, it
    # would hold the work for seconds, not the queued lease's two minutes); a delayed message
    # (held until due) leaves it
    received = SimpleNamespace(task_name=due.task, args=list(due.args), eta=None)
    delayed = SimpleNamespace(task_name=due.task, args=list(due.args), eta=timezone.now())
    task_received.send(sender=None, request=delayed)
    assert cache.get(due.lease) == "queued"
    with monkeypatch.context() as short:
        short.setattr(jobs, "RUNNING_LEASE", 1)
        task_received.send(sender=None, request=received)
    assert cache.get(due.lease) == "received"
    time.sleep(1.2)
    assert cache.get(due.lease) is None  # the next tick may send it again
    cache.set(due.lease, "queued", jobs.QUEUED_LEASE)
    # a job that fails in a worker (which logs the error) leaves a "failed" lease: it is sent
    # again only after a pause
    with monkeypatch.context() as broken:
        broken.setattr(services, "round_pair", lambda **kw: 1 / 0)
        jobs.registered(due.task).apply(args=due.args, throw=False)
    assert cache.get(due.lease) == "failed"
    assert jobs.enqueue_due([due]) == []
    # a job that succeeds drops its lease
    cache.delete(due.lease)
    assert jobs.enqueue_due([due]) == [due]
    assert cache.get(due.lease) is None
    assert Round.objects.get(stage__tournament=tournament).status == Round.Status.PLAYING


# --- the waiting commands -------------------------------------------------------------------------


def test_simulate_tournament_fails_naming_what_did_not_finish(lost_jobs: None) -> None:
    # given no job ever runs: the first round is never paired
    with pytest.raises(CommandError) as failed:
        call_command("simulate_tournament", players=8, timeout=0.5, no_progress=True)
    message = str(failed.value)
    assert "not finished after 0 s" in message
    assert "stage 1 round 1: not paired" in message
    assert "due and not done: tournaments.round_pair(" in message


def test_simulate_tournament_fails_naming_the_awards_that_did_not_come(
    eager_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the ratings job is lost (everything else runs)
    losing(monkeypatch, "ratings")
    with pytest.raises(CommandError) as failed:
        call_command("simulate_tournament", players=8, timeout=5, no_progress=True)
    message = str(failed.value)
    assert "finished, but these jobs did not within the timeout: the ratings (" in message
    assert "due and not done: tournaments.ratings_update(" in message


def test_unfinished_work_names_rounds_tables_and_due_jobs(
    bot_players: list[Player], lost_jobs: None
) -> None:
    tournament = started(bot_players[:8])
    pair_first_round(tournament)
    lines = reconcile.unfinished_work(tournament)
    assert lines[0] == "stage 1 round 1: playing (tables not finished: 1, 2)"
    assert [line.split("(")[0] for line in lines[1:]] == [
        "due and not done: games.game_play_bots"
    ] * 2


def test_demo_asks_again_for_the_awards_an_earlier_run_left_undone(
    bot_players: list[Player], eager_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the demo's finished event from an earlier run, its ratings job lost on the way
    with monkeypatch.context() as lossy:
        losing(lossy, "ratings")
        earlier = started(bot_players[:8], name=demo.FINISHED_NAME)
    earlier.refresh_from_db()
    assert earlier.status == Tournament.Status.FINISHED and earlier.ratings_applied_at is None
    # when the demo runs again (its console groups made again: a transactional test flushes them)
    for group in ("organiser", "referee"):
        console_group(group)
    out = io.StringIO()
    call_command("demo", players=8, timeout=30, stdout=out)
    # then it asked for the missing job instead of waiting for it in vain, and went on
    earlier.refresh_from_db()
    assert earlier.ratings_applied_at is not None
    assert "Your seat" in out.getvalue()
    # and a cup waits open for a new player to register
    opened = Tournament.objects.get(name=demo.OPEN_NAME)
    assert opened.status == Tournament.Status.REGISTRATION and opened.entries.count() == 5
    assert f"Open for registration: /tournaments/{opened.slug}/" in out.getvalue()
