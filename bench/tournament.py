"""A whole tournament of bots, its jobs run by N real Celery worker processes (default one).

    python -m bench.tournament [--players 1024] [--workers 2] [--plan swiss:4:3:top=256,...]
                               [--timeout 3600]

The tournament is ``manage.py simulate_tournament`` (every game through the live services, every
pairing, round completion, prize, rank and rating job through the broker), run in this process;
the workers (``durak_site.processes.worker_command``, each one solo process) listen on a queue of
their own, so no other worker on the same Redis takes a job. The default plan has three stages up
to 1,024 players and four above (:func:`default_plan`). Printed: the wall time and the top three
places, payouts and ranks.

It needs PostgreSQL and Redis: ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/durak_bench``, created if missing and migrated) and
``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``).
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import subprocess
import sys
import time
from pathlib import Path

import django
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections

from bench import production_env
from bench.live_tables import ensure_database
from durak_site.processes import worker_command

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/durak_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_PLAN = "swiss:4:3:top=256,swiss:4:2:top=64,knockout:4:2"
#: Above 1,024 players: a quarter after three rounds, about a quarter of that after two, 64
#: after two more, then a knockout of 16 tables (64 → 32 → 16 → 8 → final of 4).
LARGE_PLAN = "swiss:4:3:top={first},swiss:4:2:top={second},swiss:4:2:top=64,knockout:4:2"


def default_plan(players: int) -> str:
    """The plan of ``players``: :data:`DEFAULT_PLAN` up to 1,024, else four stages.

    >>> default_plan(10_000)
    'swiss:4:3:top=2500,swiss:4:2:top=640,swiss:4:2:top=64,knockout:4:2'
    """
    if players <= 1024:
        return DEFAULT_PLAN
    first = players // 4 - players // 4 % 4
    second = max(64, -(-first // 256) * 64)  # a quarter, rounded up to a multiple of 64
    return LARGE_PLAN.format(first=first, second=second)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=1, help="Celery worker processes")
    parser.add_argument(
        "--plan", default="", help="simulate_tournament's --plan (default: by --players)"
    )
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds before giving up")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    plan = args.plan or default_plan(args.players)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    os.environ["DURAK_CELERY_QUEUE"] = queue = f"bench-{secrets.token_hex(4)}"
    os.environ.pop("CELERY_TASK_ALWAYS_EAGER", None)
    # The bench and its workers with production's settings (DEBUG off: no debug cursor).
    os.environ.update(production_env())
    ensure_database(os.environ["DATABASE_URL"])
    django.setup()  # after the environment above: the settings read it
    call_command("migrate", "--noinput", verbosity=0)
    connections.close_all()
    workers = [
        subprocess.Popen(
            worker_command(
                sys.executable, queue=queue, name=f"{queue}-{i}@%h", solo=True, loglevel="warning"
            ),
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        for i in range(args.workers)
    ]
    print(
        f"simulate_tournament --players {args.players} --plan {plan} "
        f"({args.workers} worker process{'es' if args.workers > 1 else ''})"
    )
    started = time.monotonic()
    try:
        call_command(
            "simulate_tournament",
            players=args.players,
            plan=plan,
            timeout=args.timeout,
            no_progress=True,
            top=3,
        )
    except CommandError as exc:
        print(f"the tournament did not finish: {exc}", file=sys.stderr)
        return 1
    finally:
        _stop(workers)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, once they are waited for
    print(
        f"tournament of {args.players} players, {args.workers} worker(s): "
        f"{time.monotonic() - started:.1f} s wall time, "
        f"{used.ru_utime + used.ru_stime:.1f} s CPU of the workers"
    )
    return 0


def _stop(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


if __name__ == "__main__":
    sys.exit(main())
