"""Many random events with random incidents, each checked against the invariants.

    python -m bench.incidents [--events 200] [--seed 1] [--largest 15]

Each event is ``manage.py simulate_tournament`` with options drawn by
``tournaments.simulation.events.random_event`` (swiss / round robin / knockout, tables of 2 to 6,
teams, series formats, odd fields) and ``--incidents-seed`` (withdrawals, also mid-game;
disqualifications; late entries; re-entries; corrections with and without a re-pair; results
over the board under the two-person rule; seat swaps; adjudicated draws). Jobs run in-process on
a fresh SQLite file of its own. Printed: how many events ran,
the incidents per kind (done, refused as the console would refuse them, never found their
moment), each failed event with the command line that replays it, and the time. It runs on the
embedded defaults whatever the environment says (a SQLite file of its own, jobs in-process, the
in-memory cache), so it never touches another database.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from io import StringIO
from typing import Any

import django
from django.core.management import call_command
from django.core.management.base import CommandError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--largest", type=int, default=15, help="the largest field drawn")
    args = parser.parse_args(argv)
    folder = tempfile.TemporaryDirectory(prefix="durak-incidents-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER"):
        os.environ.pop(name, None)
    os.environ["DURAK_SQLITE_PATH"] = os.path.join(folder.name, "db.sqlite3")
    django.setup()  # after the environment above: the settings read it
    call_command("migrate", "--noinput", verbosity=0)

    # The models, after django.setup():
    from tournaments.management.commands.simulate_tournament import Command  # noqa: PLC0415
    from tournaments.simulation.events import (  # noqa: PLC0415
        RandomPicker,
        command_line,
        random_event,
    )

    rng = random.Random(f"bench.incidents:{args.seed}")
    kinds: dict[str, Counter[str]] = {}
    failed: list[tuple[str, str]] = []
    started = time.monotonic()
    for number in range(1, args.events + 1):
        options: dict[str, Any] | None = None
        while options is None:
            options = random_event(RandomPicker(rng), largest=args.largest)
        command = Command()
        out = StringIO()
        try:
            call_command(command, no_progress=True, timeout=600, stdout=out, **options)
        except CommandError as exc:
            failed.append((command_line(options), str(exc)))
            print(f"event {number}: FAILED {exc}\n  replay: {command_line(options)}", flush=True)
        except Exception as exc:  # a defect: report it with its replay, go on
            failed.append((command_line(options), repr(exc)))
            print(f"event {number}: CRASHED {exc!r}\n  replay: {command_line(options)}", flush=True)
        injector = getattr(command, "injector", None)
        if injector is not None:
            for kind, counts in injector.summary().items():
                kinds.setdefault(kind, Counter()).update(counts)
    elapsed = time.monotonic() - started
    print(f"{args.events} events (seed {args.seed}) in {elapsed:.1f} s")
    print("incidents per kind:")
    for kind, counts in sorted(kinds.items()):
        print(f"  {kind:<22} " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items())))
    print(f"events failing an invariant or stopped: {len(failed)}")
    for replay, problem in failed:
        print(f"  {problem[:300]}\n    {replay}")
    folder.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
