"""The feed's moved standings rows per table result, as a round's results arrive (issue 23).

    python -m bench.moved_rows [--entries 1024] [--rounds 3] [--results 64] [--profile FILE]

It bulk-builds a 4-seat swiss of ``--entries`` entries after ``--rounds`` finished rounds
(``bench.standings.build``), takes the last round's results out, then stores them again one by
one, each followed by ``selectors.facts.moved_standings`` as the feed calls it after a table's
result (the standings the process keeps from the result before it, as a worker has them).
Printed: the median and total wall and CPU time per result over the first ``--results`` of
them, and how many rows moved. ``--profile FILE`` writes a cProfile of those calls.

It needs PostgreSQL: ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/durak_standbench``, created if missing and migrated).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import statistics
import sys
import time
from typing import Any

from bench.standings import DEFAULT_DATABASE_URL, build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", type=int, default=64, help="results of the last round timed")
    parser.add_argument("--profile", help="write a cProfile of the timed calls here")
    args = parser.parse_args(argv)
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    from bench.live_tables import ensure_database  # noqa: PLC0415 (psycopg: PostgreSQL only)

    ensure_database(os.environ["DATABASE_URL"])
    import django  # noqa: PLC0415 (only once the environment above is set)

    django.setup()
    from django.core.management import call_command  # noqa: PLC0415 (after django.setup())

    from tournaments.models import TableResult  # noqa: PLC0415 (after django.setup())
    from tournaments.selectors import facts  # noqa: PLC0415 (after django.setup())
    from tournaments.selectors.standings import forget_kept  # noqa: PLC0415

    call_command("migrate", "--noinput", verbosity=0)
    label = f"moved-{args.entries}-{time.time_ns() % 10**9}"
    tournament = build(args.entries, args.rounds, label)
    stage = tournament.stages.select_related("tournament").get()
    last = TableResult.objects.filter(
        table__round__stage=stage, table__round__number=args.rounds
    ).order_by("id")
    kept: list[dict[str, Any]] = [
        dict(values)
        for values in last.values("table_id", "places", "pogony", "fool_entry_id", "source")
    ]
    last.delete()
    forget_kept()
    profiler = cProfile.Profile() if args.profile else None
    walls: list[float] = []
    cpus: list[float] = []
    moved: list[int] = []
    for number, values in enumerate(kept[: args.results + 1]):
        result = TableResult.objects.create(**values)
        wall, cpu = time.perf_counter(), time.process_time()
        if profiler is not None and number:
            profiler.enable()
        rows = facts.moved_standings(stage, result.pk)
        if profiler is not None:
            profiler.disable()
        if number:  # the first one finds nothing kept: a worker's first result of the stage
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            moved.append(len(rows["rows"]) + (1000 if rows["truncated"] else 0))
    if profiler is not None:
        profiler.dump_stats(args.profile)
    print(
        f"moved rows after each of {len(walls)} results of round {args.rounds} "
        f"({args.entries:,} entries): median {statistics.median(walls) * 1000:.1f} ms wall, "
        f"{statistics.median(cpus) * 1000:.1f} ms CPU; total {sum(walls):.2f} s wall, "
        f"{sum(cpus):.2f} s CPU; rows per result median {statistics.median(moved):.0f} "
        f"(truncated: {sum(m >= 1000 for m in moved)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
