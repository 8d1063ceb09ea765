"""A big event's turnover between rounds, and its end: what an organiser waits for (issue 23).

    python -m bench.turnover [--sizes 1024,4096,10000] [--profile FILE]

For each size N it builds a 4-seat swiss event of N entries and two rounds (players and entries
bulk-created: registering thousands one by one through the services is not what is measured),
starts it (round 1 seated and dealt by the real pairing job), then records every table's result
and times **the turnover**: from the last table's result to the next round seated and dealt.
The last result goes through the real service (``results.table_record_result``, as a bots'
table ends: source ``bot``); the tables before it are written in one bulk statement each (their
``TableResult`` rows and the tables finished, the rows the service writes; their per-table
``table_finished`` feed events are left out: they are announced as those tables finish, before
the turnover begins). The turnover is broken down by phase: the round's completion, standings,
pairing, seating, dealing (the games and their seed commitments), the feed (its facts and event
rows) and the broadcasts (the games' states to their tables' groups, the feed's message); "other"
is the rest (job dispatch, transactions, commits).

**The jobs run in process** (Celery eager): the figure is the work itself, without a broker's
or a worker's latency (a real worker adds a message per job: milliseconds). The same round 2 is
then played the same way to the event's end, and its end-of-event jobs are timed each: final
places, the prize pool (with the payouts), ranks and ratings. Last, the standings API
(``/api/v1/tournaments/<slug>/standings/``) and the public standings page
(``/embed/tournaments/<slug>/standings/``) and tournament page (``/tournaments/<slug>/``) at N
rows, uncached (the cache cleared before each request): medians of 3, through Django's test
client.

Targets (issue 23, at 10,000 entries): turnover < 10 s, the end-of-event jobs < 30 s, the
standings API and page < 300 ms uncached. ``--profile FILE`` writes cProfiles of the largest
size's turnover (``FILE``), end of event (``FILE.end``) and requests (``FILE.<request>``).

It needs PostgreSQL and Redis: ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/durak_turnover``, created if missing and migrated) and
``REDIS_URL`` (default ``redis://127.0.0.1:6379/6``; the broadcasts go through its channel
layer). On SQLite (``DATABASE_URL=sqlite:///...``, no Redis) it runs too: the suite's test does.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import functools
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/durak_turnover"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"
ROUNDS = 2
SEATS = 4

#: The phases of a turnover, each the functions whose time (less that of the functions of
#: other phases they call) counts for it: ``(module, function name)``.
PHASES: dict[str, tuple[tuple[str, str], ...]] = {
    "completion": (("tournaments.services.progression", "round_complete"),),
    "standings": (
        ("tournaments.selectors.standings", "standing_rows"),
        ("tournaments.selectors.standings", "stage_standings"),
        ("tournaments.selectors.standings", "standings_change"),
    ),
    "pairing": (
        ("tournaments.services.rounds", "round_pair"),
        ("tournaments.services.rounds", "_plan_swiss"),
    ),
    "seating": (
        ("tournaments.services.rounds", "_create_tables"),
        ("tournaments.services.seating", "table_seat"),
        ("tournaments.services.seating", "tables_seat"),
    ),
    "dealing": (
        ("tournaments.services.seating", "table_series_start"),
        ("tournaments.services.seating", "tables_series_start"),
        ("tournaments.services.seating", "series_deal"),
        ("games.services.play", "game_create"),
        ("games.services.play", "games_create"),
    ),
    "feed": (
        ("tournaments.services.feed", "tournament_changed"),
        ("tournaments.selectors.facts", "result_facts"),
        ("tournaments.selectors.facts", "paired_facts"),
        ("tournaments.selectors.facts", "round_facts"),
    ),
    "broadcast": (
        ("games.broadcast", "_send"),
        ("games.broadcast", "_send_many"),
        ("tournaments.notifications", "publish"),
    ),
}
END_JOBS: dict[str, tuple[str, str]] = {
    "places": ("tournaments.services.placing", "places_store"),
    "pool+payouts": ("tournaments.services.awards", "prize_pool_compute"),
    "ranks": ("tournaments.services.awards", "tournament_ranks_compute"),
    "ratings": ("tournaments.services.awards", "ratings_update"),
}


class PhaseClock:
    """Exclusive time per phase: a function of one phase called inside another's stops the
    outer phase's clock while it runs."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stack: list[list[Any]] = []  # [phase, started]

    def wrap(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            now = time.perf_counter()
            if self._stack:
                outer = self._stack[-1]
                self.seconds[outer[0]] = self.seconds.get(outer[0], 0.0) + now - outer[1]
            self._stack.append([phase, now])
            try:
                return function(*args, **kwargs)
            finally:
                end = time.perf_counter()
                _, started = self._stack.pop()
                self.seconds[phase] = self.seconds.get(phase, 0.0) + end - started
                if self._stack:
                    self._stack[-1][1] = end

        return timed

    def reset(self) -> None:
        self.seconds = {}


@contextlib.contextmanager
def timed_phases(
    clock: PhaseClock, phases: dict[str, tuple[tuple[str, str], ...]]
) -> Iterator[None]:
    """Every reference to the phases' functions, in every loaded module of the project, replaced
    by a timed one for the block (a module that imported the function by name holds its own
    reference)."""
    replaced: list[tuple[Any, str, Any]] = []
    for phase, functions in phases.items():
        for module_name, name in functions:
            module = sys.modules.get(module_name) or __import__(module_name, fromlist=[name])
            original = getattr(module, name, None)
            if original is None:
                continue  # not in this version of the code
            timed = clock.wrap(phase, original)
            for loaded in list(sys.modules.values()):
                loaded_name = getattr(loaded, "__name__", "")
                if not loaded_name.startswith(("tournaments", "games", "durak_site")):
                    continue
                for attr, value in list(vars(loaded).items()):
                    if value is original:
                        replaced.append((vars(loaded), attr, value))
                        vars(loaded)[attr] = timed
                    elif isinstance(value, dict):  # a table of jobs (``failures.JOBS``)
                        for key, item in list(value.items()):
                            if item is original:
                                replaced.append((value, key, item))
                                value[key] = timed
    try:
        yield
    finally:
        for where, key, value in reversed(replaced):
            where[key] = value


@dataclass
class Figures:
    size: int
    tables: int = 0
    turnover: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)
    end_jobs: dict[str, float] = field(default_factory=dict)
    end_total: float = 0.0
    requests: dict[str, float] = field(default_factory=dict)
    seated: int = 0  # tables of round 2 with their seats
    dealt: int = 0  # their games, each with its seed commitment
    queries: int = 0
    reconcile: float = 0.0  # the reconciler's scan between the rounds, median of 3


def build(size: int, label: str) -> Any:
    """A 4-seat swiss event of ``size`` entries in registration, its people bulk-created."""
    from tournaments import services  # noqa: PLC0415 (after django.setup())
    from tournaments.models import Entry, Player  # noqa: PLC0415 (after django.setup())

    tournament = services.tournament_create(
        name=f"Turnover {label}",
        stages=[
            {
                "format": "swiss",
                "table_size": SEATS,
                "rounds": ROUNDS,
                "series": {"format": "single"},
            }
        ],
        entry_fee="100",
        rake_percent="10",
        move_clock_seconds=0,
        seed=label,
    )
    services.tournament_open_registration(tournament=tournament)
    rng = random.Random(label)
    players = Player.objects.bulk_create(
        Player(
            display_name=f"Игрок {label} {i + 1}",
            club=f"Клуб {i % 37 + 1}",
            rating_mu=25.0 + rng.uniform(-5, 5),
        )
        for i in range(size)
    )
    Entry.objects.bulk_create(Entry(tournament=tournament, player=p, paid=True) for p in players)
    return tournament


def finish_round(round_: Any, rng: random.Random) -> float:
    """Every table's result of ``round_``: all but the last in bulk, the last through the
    service; returns the seconds of that last one (the jobs it starts included)."""
    from django.db import transaction  # noqa: PLC0415 (after django.setup())
    from django.utils import timezone  # noqa: PLC0415 (after django.setup())

    from tournaments.models import Seat, Table, TableResult  # noqa: PLC0415
    from tournaments.services.results import table_record_result  # noqa: PLC0415

    tables = list(Table.objects.filter(round=round_, is_bye=False).order_by("number"))
    seated: dict[int, list[int]] = {}
    for table_id, entry_id in (
        Seat.objects.filter(table__in=tables)
        .order_by("table_id", "position")
        .values_list("table_id", "entry_id")
    ):
        seated.setdefault(table_id, []).append(entry_id)

    def order(table: Any) -> list[int]:
        places = list(seated[table.pk])
        rng.shuffle(places)
        return places

    *before, last = tables
    with transaction.atomic():
        results = []
        for table in before:
            places = order(table)
            results.append(
                TableResult(
                    table=table,
                    places=places,
                    fool_entry_id=places[-1],
                    source=TableResult.Source.BOT,
                )
            )
        TableResult.objects.bulk_create(results, batch_size=2000)
        Table.objects.filter(pk__in=[t.pk for t in before]).update(
            status=Table.Status.FINISHED, finished_at=timezone.now()
        )
    places = order(last)
    started = time.perf_counter()
    table_record_result(table=last, places=places, fool=places[-1], source=TableResult.Source.BOT)
    return time.perf_counter() - started


def median_request(client: Any, path: str) -> float:
    from django.core.cache import cache  # noqa: PLC0415 (after django.setup())

    seconds = []
    for _ in range(3):
        cache.clear()
        started = time.perf_counter()
        response = client.get(path, HTTP_ACCEPT_LANGUAGE="en")
        seconds.append(time.perf_counter() - started)
        assert response.status_code == 200, (path, response.status_code)
    return statistics.median(seconds)


def reconcile_scan() -> float:
    """Seconds of the reconciler's scan (``reconcile.due_jobs``: every piece of due work
    listed, nothing sent) with the event running and its first round past the grace, median of
    3: the periodic job's cost at this size."""
    from django.utils import timezone  # noqa: PLC0415 (after django.setup())

    from durak_site.jobs import GRACE  # noqa: PLC0415 (after django.setup())
    from tournaments import reconcile  # noqa: PLC0415 (after django.setup())

    now = timezone.now() + 2 * GRACE
    seconds = []
    for _ in range(3):
        started = time.perf_counter()
        reconcile.due_jobs(now=now)
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def measure(size: int, *, profile: str | None = None) -> Figures:
    """Build, start and play an event of ``size`` entries; its figures."""
    from django.db import connection  # noqa: PLC0415 (after django.setup())
    from django.test import Client  # noqa: PLC0415 (after django.setup())

    from durak_site.celery import app  # noqa: PLC0415 (after django.setup())
    from games.models import Game  # noqa: PLC0415 (after django.setup())
    from tournaments import services  # noqa: PLC0415 (after django.setup())
    from tournaments.models import Round, Seat, Table  # noqa: PLC0415

    figures = Figures(size)
    label = f"{size}-{time.time_ns() % 10**9}"
    rng = random.Random(label)
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        tournament = build(size, label)
        services.tournament_start(tournament=tournament)
        stage = tournament.stages.get()
        first = Round.objects.get(stage=stage, number=1)
        assert first.status == Round.Status.PLAYING, "round 1 was not paired"
        clock = PhaseClock()
        profiler = cProfile.Profile() if profile else None
        queries: list[str] = []

        def counted(execute: Any, sql: str, *rest: Any) -> Any:
            queries.append(sql)
            return execute(sql, *rest)

        with timed_phases(clock, PHASES), connection.execute_wrapper(counted):
            if profiler is not None:
                profiler.enable()
            figures.turnover = finish_round(first, rng)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(profile or "")
        figures.queries = len(queries)
        figures.phases = dict(clock.seconds)
        figures.phases["other"] = figures.turnover - sum(clock.seconds.values())
        second = Round.objects.get(stage=stage, number=2)
        figures.tables = Table.objects.filter(round=second, is_bye=False).count()
        seated = Seat.objects.filter(table__round=second, table__is_bye=False)
        figures.seated = (
            Table.objects.filter(round=second, is_bye=False, status=Table.Status.PLAYING)
            .filter(pk__in=seated.values("table_id"))
            .count()
        )
        figures.dealt = (
            Game.objects.filter(table__round=second, number=1, version=0)
            .exclude(seed_commitment="")
            .count()
        )
        assert second.status == Round.Status.PLAYING, "round 2 was not paired"
        figures.reconcile = reconcile_scan()
        jobs = PhaseClock()
        profiler = cProfile.Profile() if profile else None
        with timed_phases(jobs, {name: (where,) for name, where in END_JOBS.items()}):
            started = time.perf_counter()
            if profiler is not None:
                profiler.enable()
            finish_round(second, rng)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(f"{profile}.end")
            figures.end_total = time.perf_counter() - started
        figures.end_jobs = dict(jobs.seconds)
        tournament.refresh_from_db()
        assert tournament.status == tournament.Status.FINISHED, "the event did not finish"
    finally:
        app.conf.task_always_eager = eager
    client = Client()
    slug = tournament.slug
    for name, path in (
        ("standings API", f"/api/v1/tournaments/{slug}/standings/"),
        ("standings page", f"/embed/tournaments/{slug}/standings/"),
        ("tournament page", f"/tournaments/{slug}/"),
    ):
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        figures.requests[name] = median_request(client, path)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(f"{profile}.{name.replace(' ', '-')}")
    return figures


def print_figures(figures: Figures, out: TextIO) -> None:
    ms = 1000.0
    print(
        f"\n{figures.size} entries, {figures.tables} tables of {SEATS}: round 2 seated "
        f"{figures.seated}/{figures.tables}, dealt {figures.dealt}/{figures.tables}",
        file=out,
    )
    print(
        f"  turnover (last result -> next round seated and dealt): {figures.turnover:.2f} s, "
        f"{figures.queries} queries",
        file=out,
    )
    for phase in (*PHASES, "other"):
        print(f"    {phase:<12} {figures.phases.get(phase, 0.0):8.2f} s", file=out)
    print(
        f"  the reconciler's scan between the rounds (median of 3): "
        f"{figures.reconcile * ms:.0f} ms",
        file=out,
    )
    print(f"  end of event (last result -> jobs done): {figures.end_total:.2f} s", file=out)
    for job in END_JOBS:
        print(f"    {job:<12} {figures.end_jobs.get(job, 0.0):8.2f} s", file=out)
    for name, seconds in figures.requests.items():
        print(f"  {name} (uncached, median of 3): {seconds * ms:.0f} ms", file=out)


def run(sizes: list[int], *, out: TextIO = sys.stdout, profile: str | None = None) -> list[Figures]:
    """Measure and print each size (Django set up, its database migrated)."""
    found = []
    for size in sizes:
        figures = measure(size, profile=profile if size == max(sizes) else None)
        print_figures(figures, out)
        found.append(figures)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1024,4096,10000", help="entries, comma-separated")
    parser.add_argument("--profile", default=None, help="cProfile of the largest turnover here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if any(size < SEATS * 2 or size % SEATS for size in sizes):
        parser.error(f"each size is a multiple of {SEATS}, at least {SEATS * 2}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    os.environ["DURAK_API_RATE_ANON"] = os.environ["DURAK_API_RATE_USER"] = "off"
    if os.environ["DATABASE_URL"].startswith("postgres"):
        from bench.live_tables import ensure_database  # noqa: PLC0415 (needs psycopg only here)

        ensure_database(os.environ["DATABASE_URL"])
    import django  # noqa: PLC0415 (only once the environment above is set)

    django.setup()
    from django.core.management import call_command  # noqa: PLC0415 (after django.setup())

    call_command("migrate", "--noinput", verbosity=0)
    print(f"turnover of a {SEATS}-seat swiss event, jobs in process (Celery eager)")
    run(sizes, profile=args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
