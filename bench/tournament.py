"""A whole tournament of bots in three stages, its jobs run by ONE real Celery worker process.

    python -m bench.tournament [--players 1024] [--plan swiss:4:3:top=256,...] [--timeout 3600]

The tournament is ``manage.py simulate_tournament`` (every game through the live services, every
pairing, round completion, prize, rank and rating job through the broker), run in this process;
the worker (``durak_site.processes.worker_command``) listens on a queue of its own, so no other
worker on the same Redis takes a job. Printed: the wall time and the top three places, payouts
and ranks.

It needs PostgreSQL and Redis: ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/durak_bench``, created if missing and migrated) and
``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``).
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import django
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections

from bench.live_tables import ensure_database
from durak_site.processes import worker_command

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/durak_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_PLAN = "swiss:4:3:top=256,swiss:4:2:top=64,knockout:4:2"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1024)
    parser.add_argument("--plan", default=DEFAULT_PLAN, help="simulate_tournament's --plan")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds before giving up")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    os.environ["DURAK_CELERY_QUEUE"] = queue = f"bench-{secrets.token_hex(4)}"
    os.environ.pop("CELERY_TASK_ALWAYS_EAGER", None)
    ensure_database(os.environ["DATABASE_URL"])
    django.setup()  # after the environment above: the settings read it
    call_command("migrate", "--noinput", verbosity=0)
    connections.close_all()
    worker = subprocess.Popen(
        worker_command(sys.executable, queue=queue, solo=True, loglevel="warning"),
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    print(f"simulate_tournament --players {args.players} --plan {args.plan} (1 worker process)")
    started = time.monotonic()
    try:
        call_command(
            "simulate_tournament",
            players=args.players,
            plan=args.plan,
            timeout=args.timeout,
            no_progress=True,
            top=3,
        )
    except CommandError as exc:
        print(f"the tournament did not finish: {exc}", file=sys.stderr)
        return 1
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
    print(f"tournament of {args.players} players: {time.monotonic() - started:.1f} s wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
