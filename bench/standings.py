"""A big swiss stage's standings, uncached: the selector, the API and the pages (issue 23).

    python -m bench.standings [--entries 10000] [--rounds 3] [--profile FILE]

It builds a 4-seat swiss event of ``--entries`` entries after ``--rounds`` finished rounds in
a few bulk statements (players, entries, the stage's entries, rounds, tables, seats and
confirmed results with a pogony now and then: the rows the services write, without playing or
pairing: the standings read only them), then times, medians of 3, each with the cache cleared
before it:

Uncached: the shared cache of built answers and the standings a process keeps
(``selectors.standings.forget_kept``) are both cleared before each run.

1. **selector**: ``selectors.standings.stage_standings`` (names, every tie-break, pogony);
2. **rows**: ``selectors.standings.standing_rows`` (what the services pair, advance and place
   by: the turnover's share);
3. **API**: ``GET /api/v1/tournaments/<slug>/stages/1/standings/`` (every row, JSON);
4. **embed**: ``GET /embed/tournaments/<slug>/standings/?stage=1`` (a page of rows, HTML;
   ``embed all``: ``&limit=200&page=50``, the largest page, the last of 10,000);
5. **page**: ``GET /tournaments/<slug>/`` (the tournament page: the standings and the last
   round's tables paginated; ``page, find``: with ``?find=`` a player's name);
6. **API, kept**: the API with the shared cache cleared but the standings the process keeps
   still there: what a request sees during an event, when the feed has computed them after
   the last result;
7. **final API, final embed, final page**: the event then finished in bulk (every entry
   placed as the standings order it, the top 15 % paid, a rank record each): the final
   standings (``GET /api/v1/tournaments/<slug>/standings/``, every row), the embed (a page of
   final places) and the tournament page;

through Django's test client in this process, with this process's CPU time (what a shared
machine stretches least; PostgreSQL's is not in it) and the SQL queries of each. Target (issue 23,
at 10,000 entries): the API and the pages < 300 ms uncached. ``--profile FILE`` writes a
cProfile of one uncached request (the API's; ``--profile-path`` another path, e.g. the page's).

It needs PostgreSQL: ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/durak_standbench``, created if missing and migrated) and
``REDIS_URL`` (default ``redis://127.0.0.1:6379/6``) for the cache it clears.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/durak_standbench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"
SEATS = 4
RUNS = 3


def build(entries: int, rounds: int, label: str) -> Any:
    """A running 4-seat swiss event of ``entries`` entries whose first ``rounds`` rounds are
    finished, every table with a confirmed result (one in ten with pogony)."""
    from django.db import connection, transaction  # noqa: PLC0415 (after django.setup())
    from django.utils import timezone  # noqa: PLC0415 (after django.setup())

    from tournaments import services  # noqa: PLC0415 (after django.setup())
    from tournaments.models import (  # noqa: PLC0415 (after django.setup())
        Entry,
        Player,
        Round,
        Seat,
        Stage,
        StageEntry,
        Table,
        TableResult,
        Tournament,
    )

    tournament = services.tournament_create(
        name=f"Standings {label}",
        stages=[
            {
                "format": "swiss",
                "table_size": SEATS,
                "rounds": rounds + 2,
                "series": {"format": "single"},
            }
        ],
        entry_fee="100",
        rake_percent="10",
        move_clock_seconds=0,
        seed=label,
    )
    rng = random.Random(label)
    now = timezone.now()
    with transaction.atomic():
        players = Player.objects.bulk_create(
            (Player(display_name=f"Игрок {label} {i + 1}") for i in range(entries)),
            batch_size=2000,
        )
        made = Entry.objects.bulk_create(
            (
                Entry(tournament=tournament, player=p, paid=True, seed=i + 1)
                for i, p in enumerate(players)
            ),
            batch_size=2000,
        )
        stage = tournament.stages.get()
        StageEntry.objects.bulk_create(
            (StageEntry(stage=stage, entry=e, seed=i + 1) for i, e in enumerate(made)),
            batch_size=2000,
        )
        Tournament.objects.filter(pk=tournament.pk).update(
            status=Tournament.Status.RUNNING, started_at=now
        )
        Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.RUNNING)
        player_of = {e.pk: p.pk for e, p in zip(made, players, strict=True)}
        ids = [e.pk for e in made]
        for number in range(1, rounds + 1):
            round_ = Round.objects.create(
                stage=stage,
                number=number,
                status=Round.Status.FINISHED,
                paired_at=now,
                finished_at=now,
            )
            rng.shuffle(ids)
            groups = [ids[i : i + SEATS] for i in range(0, len(ids), SEATS)]
            tables = Table.objects.bulk_create(
                (
                    Table(round=round_, number=n + 1, status=Table.Status.FINISHED, finished_at=now)
                    for n in range(len(groups))
                ),
                batch_size=2000,
            )
            Seat.objects.bulk_create(
                (
                    Seat(table=table, position=p, entry_id=e, player_id=player_of[e])
                    for table, group in zip(tables, groups, strict=True)
                    for p, e in enumerate(group)
                ),
                batch_size=4000,
            )
            results = []
            for table, group in zip(tables, groups, strict=True):
                places = list(group)
                rng.shuffle(places)
                pogony = []
                if len(places) > 1 and rng.random() < 0.1:
                    pogony = [{"by": places[0], "on": [places[-1]], "rank": "6"}]
                results.append(
                    TableResult(
                        table=table,
                        places=places,
                        pogony=pogony,
                        fool_entry_id=places[-1] if len(places) > 1 else None,
                        source=TableResult.Source.BOT
                        if len(places) > 1
                        else TableResult.Source.BYE,
                    )
                )
            TableResult.objects.bulk_create(results, batch_size=2000)
        Round.objects.create(stage=stage, number=rounds + 1)
    # What autovacuum does after such inserts (it is off on the benchmark machine): without
    # statistics the planner takes the seats of 24 tables for 7,000 and hash-joins every
    # entry and player of the database to them.
    with connection.cursor() as cursor:
        for model in (Player, Entry, StageEntry, Round, Table, Seat, TableResult):
            cursor.execute(f"ANALYZE {model._meta.db_table}")
    return Tournament.objects.get(pk=tournament.pk)


def finish(tournament: Any) -> None:
    """The event as its end leaves it, in bulk: every entry placed as the stage's standings
    order it, the top 15 % paid, a rank record per player; the tournament finished."""
    from django.db import connection, transaction  # noqa: PLC0415 (after django.setup())
    from django.utils import timezone  # noqa: PLC0415 (after django.setup())

    from tournaments.models import Entry, Payout, RankRecord, Tournament  # noqa: PLC0415
    from tournaments.selectors.standings import stage_standings  # noqa: PLC0415

    lines = stage_standings(tournament.stages.select_related("tournament").get())
    paid = len(lines) * 15 // 100
    with transaction.atomic():
        entries = list(Entry.objects.filter(tournament=tournament).only("pk", "player_id"))
        place = {line.entry_id: line.place for line in lines}
        for entry in entries:
            entry.final_place = place[entry.pk]
        Entry.objects.bulk_update(entries, ["final_place"], batch_size=2000)
        Payout.objects.bulk_create(
            (
                Payout(
                    tournament=tournament,
                    entry_id=line.entry_id,
                    place=line.place,
                    amount=Decimal(paid - i) * Decimal("10.125"),
                    final=True,
                )
                for i, line in enumerate(lines[:paid])
            ),
            batch_size=2000,
        )
        RankRecord.objects.bulk_create(
            (
                RankRecord(
                    tournament=tournament,
                    player_id=line.player_id,
                    rank="",
                    pogony_given=line.pogony_given,
                    pogony_received=line.pogony_received,
                )
                for line in lines
                if line.player_id is not None  # an individual event: every line has one
            ),
            batch_size=2000,
        )
        Tournament.objects.filter(pk=tournament.pk).update(
            status=Tournament.Status.FINISHED, finished_at=timezone.now()
        )
    with connection.cursor() as cursor:
        for model in (Entry, Payout, RankRecord):
            cursor.execute(f"ANALYZE {model._meta.db_table}")
    tournament.refresh_from_db()


def timed(work: Callable[[], Any], *, kept: bool = False) -> tuple[float, float, int]:
    """Median seconds of ``RUNS`` runs of ``work``, the cache cleared before each (and the
    standings the process keeps, unless ``kept``); the median CPU seconds of this process
    (a machine shared with other work stretches the wall time, much less this); the SQL
    queries of the last."""
    from django.core.cache import cache  # noqa: PLC0415 (after django.setup())
    from django.db import connection  # noqa: PLC0415 (after django.setup())
    from django.test.utils import CaptureQueriesContext  # noqa: PLC0415

    from tournaments.selectors.standings import forget_kept  # noqa: PLC0415

    seconds = []
    cpu = []
    queries = 0
    for _ in range(RUNS):
        cache.clear()
        if not kept:
            forget_kept()
        with CaptureQueriesContext(connection) as captured:
            started, used = time.perf_counter(), time.process_time()
            work()
            seconds.append(time.perf_counter() - started)
            cpu.append(time.process_time() - used)
        queries = len(captured)
    return statistics.median(seconds), statistics.median(cpu), queries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", help="write a cProfile of one uncached request here")
    parser.add_argument(
        "--profile-path",
        help="the request --profile profiles ({slug}: the event's; default: the API's)",
        default="/api/v1/tournaments/{slug}/stages/1/standings/",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    os.environ["DURAK_API_RATE_ANON"] = os.environ["DURAK_API_RATE_USER"] = "off"
    from bench.live_tables import ensure_database  # noqa: PLC0415 (psycopg: PostgreSQL only)

    ensure_database(os.environ["DATABASE_URL"])
    import django  # noqa: PLC0415 (only once the environment above is set)

    django.setup()
    from django.core.cache import cache  # noqa: PLC0415 (after django.setup())
    from django.core.management import call_command  # noqa: PLC0415 (after django.setup())
    from django.test import Client  # noqa: PLC0415 (after django.setup())

    from tournaments.selectors import standings  # noqa: PLC0415 (after django.setup())

    call_command("migrate", "--noinput", verbosity=0)
    label = f"{args.entries}-{time.time_ns() % 10**9}"
    started = time.perf_counter()
    tournament = build(args.entries, args.rounds, label)
    built = time.perf_counter() - started
    slug = tournament.slug
    client = Client()

    def get(path: str) -> Callable[[], Any]:
        def work() -> None:
            response = client.get(path, HTTP_ACCEPT_LANGUAGE="en")
            assert response.status_code == 200, (path, response.status_code)

        return work

    def stage() -> Any:
        return tournament.stages.select_related("tournament").get()

    figures = {
        "selector": timed(lambda: standings.stage_standings(stage())),
        "rows": timed(lambda: standings.standing_rows(stage())),
        "API": timed(get(f"/api/v1/tournaments/{slug}/stages/1/standings/")),
        "embed": timed(get(f"/embed/tournaments/{slug}/standings/?stage=1")),
        "embed all": timed(get(f"/embed/tournaments/{slug}/standings/?stage=1&limit=200&page=50")),
        "page": timed(get(f"/tournaments/{slug}/")),
        "page, find": timed(get(f"/tournaments/{slug}/?find=Игрок+{label}+777")),
        # What a request sees during an event: the shared cache of built answers is emptied at
        # every change, while the process still keeps the standings the feed computed after it.
        "API, kept": timed(get(f"/api/v1/tournaments/{slug}/stages/1/standings/"), kept=True),
    }
    finish(tournament)
    figures |= {
        "final API": timed(get(f"/api/v1/tournaments/{slug}/standings/")),
        "final embed": timed(get(f"/embed/tournaments/{slug}/standings/")),
        "final page": timed(get(f"/tournaments/{slug}/")),
    }
    if args.profile:
        cache.clear()
        standings.forget_kept()
        profiler = cProfile.Profile()
        profiler.runcall(get(args.profile_path.format(slug=slug)))
        profiler.dump_stats(args.profile)
    print(
        f"standings of a 4-seat swiss of {args.entries:,} entries after {args.rounds} rounds "
        f"(built in {built:.1f} s), uncached, medians of {RUNS}:"
    )
    for name, (seconds, cpu, queries) in figures.items():
        cpu_ms = cpu * 1000
        print(f"{name:<11} {seconds * 1000:8.1f} ms  {cpu_ms:8.1f} ms CPU  {queries:>3} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
