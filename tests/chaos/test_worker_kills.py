"""Issue #13, the fault suite: Celery workers killed with ``kill -9`` lose no work.

On private Redis and PostgreSQL (``tests/chaos/conftest.py``), with real worker processes and
beat (whose reconciler, ``tournaments.reconcile``, is what brings lost work back):

- a 64-player three-stage tournament of bots played by ``simulate_tournament`` while its worker
  is killed at random moments, a new one started each time: the tournament finishes, every
  round paired once, the payouts summing exactly to the pool, ranks and ratings computed; for
  each kill the jobs it interrupted (their leases said "running") are followed until their work
  is done, and the time from the new worker's start to that is under 30 s;
- 20 tournaments of one league finishing at once on two workers, one of them killed in the
  middle of their end-of-tournament jobs: no prize pool, ranks or ratings left undone.

``DURAK_CHAOS_KILLS`` sets the number of kills (default 20, the issue's: the suite takes about
three minutes on two CPUs); ``DURAK_CHAOS_SEED`` replays a run's moments.
"""

from __future__ import annotations

import os
import pickle
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from tests.chaos.conftest import SKIP
from tests.chaos.stack import ROOT, CeleryProcess, Figures, Stack, wait_until
from tournaments.models.fairplay import EVIDENCE_VERSION

pytestmark = [
    pytest.mark.chaos,
    pytest.mark.slow,
    pytest.mark.skipif(bool(SKIP), reason=SKIP or ""),
]

KILLS = int(os.environ.get("DURAK_CHAOS_KILLS", "20"))
SEED = int(os.environ.get("DURAK_CHAOS_SEED", str(int(time.time()))))
RECOVERY_LIMIT = 30.0  # seconds from a new worker's start to the interrupted work done
PLAYERS = 64
PLAN = "swiss:4:6:top=32,swiss:4:3:top=16,knockout:4:2"  # long enough for 20 kills
SERIES = "best_of:3"


# --- what a killed worker was doing, and whether it has been done since --------------------------


@dataclass(frozen=True)
class Job:
    task: str
    args: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.task}{self.args}"


def running_jobs(stack: Stack) -> dict[Job, float]:
    """The jobs whose leases in the shared cache say "running" (``durak_site.jobs``; Django's
    cache keys are ``durak:1:job:<task>:<args>``), with when each lease expires (monotonic). A
    killed job's lease stays until it expires; a job started again renews it."""
    client = redis.Redis.from_url(stack.redis.url(0))
    now, found = time.monotonic(), {}
    for key in client.scan_iter("durak:1:job:*"):
        value, ttl = client.get(key), client.pttl(key)
        if not isinstance(value, bytes) or ttl < 0 or pickle.loads(value) != "running":
            continue
        _, _, _, task, *args = key.decode().split(":")
        found[Job(task, tuple(_arg(a) for a in args))] = now + ttl / 1000
    return found


def _arg(text: str) -> int:
    """A job's argument as its lease key spells it: an id, or a flag (``True``/``False``: the
    fair-play job's ``full``)."""
    return int(text == "True") if text in ("True", "False") else int(text)


AWARD_DONE = {
    "tournaments.tournament_places_compute": (
        "SELECT NOT EXISTS (SELECT 1 FROM tournaments_entry e WHERE e.tournament_id = %s"
        " AND e.final_place IS NULL"
        " AND EXISTS (SELECT 1 FROM tournaments_stageentry s WHERE s.entry_id = e.id))"
    ),
    "tournaments.tournament_ranks_compute": (
        "SELECT ranks_computed_at IS NOT NULL FROM tournaments_tournament WHERE id = %s"
    ),
    "tournaments.ratings_update": (
        "SELECT ratings_applied_at IS NOT NULL FROM tournaments_tournament WHERE id = %s"
    ),
    "tournaments.prize_pool_compute": (
        "SELECT EXISTS (SELECT 1 FROM tournaments_prizepool WHERE tournament_id = %s AND final)"
    ),
}


FAIRPLAY_DONE = (
    "SELECT NOT EXISTS (SELECT 1 FROM games_game g"
    " JOIN tournaments_table t ON g.table_id = t.id JOIN tournaments_round r ON t.round_id = r.id"
    " JOIN tournaments_stage s ON r.stage_id = s.id"
    " WHERE s.tournament_id = %s AND r.status = 'finished'"
    " AND g.status IN ('finished', 'adjudicated') AND NOT EXISTS (SELECT 1 FROM"
    " tournaments_gameevidencerow e WHERE e.game_id = g.id"
    f" AND e.version = {EVIDENCE_VERSION}))"
)


def done(stack: Stack, job: Job) -> bool:
    """Whether the work ``job`` was doing is done, read from the database."""
    first = job.args[0]

    def one(query: str) -> Any:
        return stack.sql(query, first)[0]

    if job.task in ("games.game_play_bots", "games.game_clock_expire"):
        version, status = one("SELECT version, status FROM games_game WHERE id = %s")
        return bool(status != "active" or version > job.args[1])
    if job.task == "games.game_finished":
        status, series = one(
            "SELECT t.status, t.series_state FROM tournaments_table t "
            "JOIN games_game g ON g.table_id = t.id WHERE g.id = %s"
        )
        return bool(status == "finished" or first in series.get("game_ids", []))
    if job.task in ("tournaments.round_pair", "tournaments.round_complete"):
        (status,) = one("SELECT status FROM tournaments_round WHERE id = %s")
        return bool(status != "pending" if job.task.endswith("pair") else status == "finished")
    if job.task in AWARD_DONE:
        return bool(one(AWARD_DONE[job.task])[0])
    if job.task == "tournaments.fairplay_count":
        # the games of the event's finished rounds counted (a round's job counts what has
        # finished; the games of the round in play are the next job's)
        return bool(one(FAIRPLAY_DONE)[0])
    raise AssertionError(f"no check for {job}")


def due(stack: Stack, job: Job) -> bool:
    """Whether ``job`` had work to do at all (a round's completion job runs, and does nothing,
    after each of its tables; only the last one's is work)."""
    if job.task != "tournaments.round_complete":
        return not done(stack, job)
    playing = stack.sql(
        "SELECT count(*) FROM tournaments_table WHERE round_id = %s AND status <> 'finished'",
        job.args[0],
    )[0][0]
    return bool(playing == 0 and not done(stack, job))


def progress(stack: Stack) -> tuple[int, ...]:
    """A fingerprint of the tournaments' progress: moves made, tables finished, rounds paired
    and finished, and once the last round is over their awards (final places, final prize
    pools, ranks, ratings): a kill in the awards phase changes none of the first four."""
    ((moves, tables, paired, rounds, placed, pools, ranked, rated),) = stack.sql(
        "SELECT (SELECT count(*) FROM games_gameaction),"
        " (SELECT count(*) FROM tournaments_table WHERE status = 'finished'),"
        " (SELECT count(*) FROM tournaments_round WHERE status <> 'pending'),"
        " (SELECT count(*) FROM tournaments_round WHERE status = 'finished'),"
        " (SELECT count(*) FROM tournaments_entry WHERE final_place IS NOT NULL),"
        " (SELECT count(*) FROM tournaments_prizepool WHERE final),"
        " (SELECT count(*) FROM tournaments_tournament WHERE ranks_computed_at IS NOT NULL),"
        " (SELECT count(*) FROM tournaments_tournament WHERE ratings_applied_at IS NOT NULL)"
    )
    return tuple(int(n) for n in (moves, tables, paired, rounds, placed, pools, ranked, rated))


def recovered(
    stack: Stack, waiting: dict[Job, tuple[float, int]], recoveries: dict[str, float]
) -> None:
    """Move the waiting jobs whose work is done to ``recoveries``, each with its kill's number
    and the seconds from the new worker's start."""
    for job, (since, kill) in list(waiting.items()):
        if done(stack, job):
            recoveries[f"{job} at kill {kill}"] = time.monotonic() - since
            del waiting[job]


# --- the tests ---------------------------------------------------------------------------------


@pytest.mark.timeout(120 + 20 * KILLS)
def test_a_worker_killed_at_random_moments_of_a_tournament_loses_nothing(
    chaos_stack: Stack, processes: list[CeleryProcess], chaos_figures: Figures
) -> None:
    stack, rng, name = chaos_stack, random.Random(SEED), f"Хаос {SEED}"
    started = time.monotonic()
    processes.append(CeleryProcess(stack, "beat"))
    worker = CeleryProcess(stack, "worker")
    processes.append(worker)
    worker.wait_ready()
    # given a 64-player three-stage tournament of bots, played through the jobs
    simulation = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "simulate_tournament",
            f"--players={PLAYERS}",
            f"--plan={PLAN}",
            f"--series={SERIES}",
            f"--name={name}",
            "--no-progress",
            "--timeout=600",
        ],
        cwd=ROOT,
        env=stack.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    kills: list[dict[str, Any]] = []
    # interrupted work not yet done -> the new worker's start, and the kill's number
    waiting: dict[Job, tuple[float, int]] = {}
    leases: dict[Job, float] = {}  # when the lease of each interrupted job expires
    recoveries: dict[str, float] = {}  # each interrupted job -> seconds to its work done
    resumed: list[float] = []
    try:
        # when its worker is killed at random moments, a new one started each time
        while len(kills) < KILLS and simulation.poll() is None:
            time.sleep(rng.uniform(0.2, 1.2))
            if simulation.poll() is not None:
                break
            running = running_jobs(stack)
            # a lease left by an earlier kill is not a job killed again: only a renewed one is
            interrupted = [
                job
                for job, expires in running.items()
                if expires > leases.get(job, 0) + 0.5 and due(stack, job)
            ]
            before = progress(stack)
            worker.kill()
            killed_at = time.monotonic()
            time.sleep(rng.uniform(0.0, 0.5))
            worker = CeleryProcess(stack, "worker")
            processes.append(worker)
            ready = worker.wait_ready()
            for job in interrupted:
                # killed (again): its clock starts with this worker
                waiting[job] = (ready, len(kills) + 1)
                leases[job] = running[job]
            kills.append(
                {
                    "after_s": round(killed_at - started, 1),
                    "interrupted": [str(j) for j in interrupted],
                }
            )
            resumed.append(
                wait_until(
                    lambda b=before: progress(stack) != b or simulation.poll() is not None,
                    60,
                    "no progress after a kill",
                )
            )
            # the interrupted work is done in time (followed while the next kills happen)
            recovered(stack, waiting, recoveries)
        deadline = time.monotonic() + 120
        while waiting and time.monotonic() < deadline:
            recovered(stack, waiting, recoveries)
            time.sleep(0.1)
        output, _ = simulation.communicate(timeout=600)
    finally:
        if simulation.poll() is None:
            simulation.kill()
    # then the tournament finished whole, with nothing lost
    assert len(kills) == KILLS, f"the tournament ended after {len(kills)} kills: {output}"
    assert simulation.returncode == 0, output
    assert waiting == {}, f"interrupted work never done: {waiting}"
    checked = stack.scene("check", name)
    assert checked["status"] == "finished" and checked["stages"] == 3
    assert checked["rounds_paired_once"], checked
    assert checked["placed"] == checked["entries"] == PLAYERS
    assert checked["pool_final"] and checked["payouts_exact"], checked
    assert checked["ranks_computed"] and checked["ratings_applied"], checked
    assert checked["rated_players"] == PLAYERS
    assert checked["unfinished"] == []
    # and each interrupted piece of work was done within 30 s of the new worker's start
    slowest = sorted(recoveries.items(), key=lambda item: -item[1])[:3]
    assert recoveries and slowest[0][1] < RECOVERY_LIMIT, (SEED, slowest, kills)
    chaos_figures.record(
        "worker kills during a 64-player 3-stage tournament",
        seed=SEED,
        kills_survived=len(kills),
        interrupted_jobs=sum(len(k["interrupted"]) for k in kills),
        work_lost=0,
        recovery_s_max=round(slowest[0][1], 1),
        recovery_s_median=round(statistics.median(recoveries.values()), 1),
        slowest_recoveries={job: round(s, 1) for job, s in slowest},
        queue_resumed_s_max=round(max(resumed), 1),
        rounds=checked["rounds"],
        tables=checked["tables"],
        seconds=round(time.monotonic() - started, 1),
        kills=kills,
    )


def test_twenty_tournaments_finishing_at_once_on_two_workers_one_killed(
    chaos_stack: Stack, processes: list[CeleryProcess], chaos_figures: Figures
) -> None:
    stack, rng = chaos_stack, random.Random(SEED + 1)
    started = time.monotonic()
    # given 20 one-table tournaments of a league, their players shared, seated and playing
    built = stack.scene("league", "--count", "20")
    ids = [str(pk) for pk in built["ids"]]
    processes.append(CeleryProcess(stack, "beat"))
    workers = [CeleryProcess(stack, "worker") for _ in range(2)]
    processes.extend(workers)
    for worker in workers:
        worker.wait_ready()
    # when their last tables finish in one commit (20 round jobs, then 60 award jobs at once)
    stack.scene("finish", *ids)
    finished_at = time.monotonic()
    # and one of the two workers is killed in the middle of it, and a new one started
    time.sleep(rng.uniform(0.3, 1.5))
    running = sorted(str(j) for j in running_jobs(stack))  # on either worker
    workers[0].kill()
    replacement = CeleryProcess(stack, "worker")
    processes.append(replacement)
    ready = replacement.wait_ready()

    # then every tournament gets its prize pool, ranks and ratings
    def all_done() -> bool:
        (awarded,) = stack.sql(
            "SELECT count(*) FROM tournaments_tournament t WHERE t.id = ANY(%s)"
            " AND t.ranks_computed_at IS NOT NULL AND t.ratings_applied_at IS NOT NULL"
            " AND EXISTS (SELECT 1 FROM tournaments_prizepool p"
            "            WHERE p.tournament_id = t.id AND p.final)",
            [int(i) for i in ids],
        )[0]
        return int(awarded) == len(ids)

    wait_until(all_done, 90, "awards left undone", pause=0.2)
    all_done_at = time.monotonic()
    checked = stack.scene("awards", *ids)
    assert checked["missing"] == {} and checked["finished"] == 20
    assert checked["pools_exact"] and checked["ratings_chained"], checked
    assert checked["rating_changes"] == 20 * 4 and checked["league_ranks_fold_all"], checked
    chaos_figures.record(
        "20 tournaments finishing at once on two workers, one killed",
        seed=SEED + 1,
        jobs_running_at_the_kill=running,
        work_lost=0,
        all_awarded_s_after_finish=round(all_done_at - finished_at, 1),
        all_awarded_s_after_new_worker=round(all_done_at - ready, 1),
        seconds=round(time.monotonic() - started, 1),
    )
