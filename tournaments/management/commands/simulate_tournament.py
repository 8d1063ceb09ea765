"""Play a whole tournament of bots through the live services and jobs, with a progress bar.

    python manage.py simulate_tournament --players 64 --plan swiss:4:3:top=16,knockout:4:2

Stages in ``--plan`` (comma-separated):
  swiss:TABLE:ROUNDS[:top=N|per_table=K]     rr:TABLE:GROUPS[:top=N|per_table=K]
  knockout:TABLE:ADVANCE_PER_TABLE           (a knockout is the last stage: it ends in a final)
Series per table: ``--series single|best_of:3|first_to:5|long``. ``--team-size 2`` makes a team
event (``--players`` teams of bots).

**Incidents** (``--incidents-seed S``): what organisers and referees do in real events, injected
at random moments drawn from the seed (``tournaments.simulation.incidents``): withdrawals and
disqualifications (also mid-game), late registrations and re-entries where the plan allows them
(``--late-registration-rounds``, ``--reentry-fee``), corrections with and without a re-pair,
results played over the board (``--two-person-rule``), seat swaps, adjudicated draws; counts per
kind with ``--incidents withdraw=2,draw=1`` (``all=N``), at a ``--incident-rate`` per step. With
incidents (or ``--check``) the invariants of ``tournaments.simulation.invariants`` are checked
after every step and at the end; any violation fails the command (exit 1) after the report,
which lists the incidents.

**Colluding pairs** (issue 24, for the fair-play evidence): ``--collusion-pairs N`` makes N pairs
of the bots colluders (``--collusion-policy`` collude, soft or squeeze; ``--collusion-strength``,
the share of their decisions that collude; ``--collusion-seed`` draws who). Partners are not
seated apart; ``--collusion-seating group`` draws both partners of a pair from one group of a
first round-robin stage (friends who entered one group: the fresh bots' equal ratings seed them in
the order they are made, and the run checks that the groups came out so). Which entries collude
is printed at the end and, with ``--collusion-out FILE``, written there as JSON; nothing a player
sees names them (their names are the other bots').

The games are played by the engine's bots through the same services as live results, and the
jobs run on whatever is configured: in-process (eager) on the embedded defaults, on real Celery
workers with ``REDIS_URL`` (start them first, with beat for the reconciler, e.g.
``python3 dev.py stack``).

The command waits for the tournament and its end-of-tournament jobs (prize pool, ranks,
ratings); past ``--timeout`` it fails (exit 1) naming what did not finish: the rounds and tables
still open, the missing awards, and the due work the reconciler would send
(``tournaments.reconcile.unfinished_work``).
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import close_old_connections
from tqdm import tqdm

from durak_site.errors import ServiceError
from durak_site.jobs import after_each_eager_job, in_process
from tournaments import services
from tournaments.models import Entry, Payout, RankRecord, Table, Tournament
from tournaments.pairing import group_count, snake_groups
from tournaments.reconcile import awards_missing, unfinished_work
from tournaments.scoring.prizes import currency
from tournaments.selectors.standings import standing_rows
from tournaments.services.rounds import stage_groups
from tournaments.simulation.collusion import CollusionPlan
from tournaments.simulation.incidents import DEFAULT_COUNTS, Cast, Injector, parse_counts
from tournaments.simulation.invariants import InvariantChecker

FORMATS = {
    "swiss": "swiss",
    "rr": "round_robin",
    "round_robin": "round_robin",
    "knockout": "knockout",
}


def parse_plan(text: str, series: dict[str, Any]) -> list[dict[str, Any]]:
    stages = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        bits = part.split(":")
        if bits[0] not in FORMATS or len(bits) < 3:
            raise CommandError(f"cannot read stage {part!r}: see --help")
        try:
            table, number = int(bits[1]), int(bits[2])
        except ValueError:
            raise CommandError(f"stage {part!r}: table size and count are numbers") from None
        stage: dict[str, Any] = {"format": FORMATS[bits[0]], "table_size": table, "series": series}
        if stage["format"] == "swiss":
            stage["rounds"] = number
        elif stage["format"] == "round_robin":
            stage["groups"] = number
        else:
            stage["advance_per_table"] = number
        for extra in bits[3:]:
            key, _, value = extra.partition("=")
            if key not in ("top", "per_table") or not value.isdigit():
                raise CommandError(f"stage {part!r}: {extra!r} is not top=N or per_table=K")
            stage["advance"] = {key: int(value)}
        stages.append(stage)
    return stages


def parse_series(text: str) -> dict[str, Any]:
    name, _, target = text.partition(":")
    series: dict[str, Any] = {"format": name}
    if target:
        if not target.isdigit():
            raise CommandError(f"--series {text!r}: the target is a number")
        series["target"] = int(target)
    return series


def default_plan(players: int) -> str:
    if players <= 6:
        return f"knockout:{max(2, players)}:1"
    cut = max(4, min(64, players // 4))
    cut -= cut % 4
    return f"swiss:4:3:top={cut},knockout:4:2"


class Command(BaseCommand):
    help = "Create a tournament of N bot players, play it to the end and print the results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=32)
        parser.add_argument("--plan", default="", help="stages, e.g. swiss:4:3:top=16,knockout:4:2")
        parser.add_argument("--series", default="single")
        parser.add_argument(
            "--rules", default="", help='engine options as JSON, e.g. {"variant": "transfer"}'
        )
        parser.add_argument("--name", default="")
        parser.add_argument("--seed", default="")
        parser.add_argument("--fee", default="100")
        parser.add_argument("--rake", default="10")
        parser.add_argument("--currency", default="RUB")
        parser.add_argument("--bots", default="heuristic,random", help="bot kinds, dealt in turn")
        parser.add_argument(
            "--player-name",
            default="",
            help="the players' names before their numbers (default: their bot kind)",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=3600.0,
            help="seconds for the whole tournament and the jobs after its end (exit 1 past it)",
        )
        parser.add_argument(
            "--organiser", default="", help="username of the organiser who owns the event"
        )
        parser.add_argument(
            "--referee", default="", help="username of a referee (group referee) to assign"
        )
        parser.add_argument("--no-progress", action="store_true")
        parser.add_argument("--top", type=int, default=8, help="standings rows to print")
        parser.add_argument("--team-size", type=int, default=1, help="2 or 3: a team event")
        parser.add_argument("--late-registration-rounds", type=int, default=0)
        parser.add_argument("--reentry-fee", default="0")
        parser.add_argument(
            "--two-person-rule", action="store_true", help="a referee's result needs a second"
        )
        parser.add_argument(
            "--incidents-seed", default="", help="inject incidents drawn from this seed"
        )
        parser.add_argument(
            "--incidents",
            default="",
            help="counts per kind, e.g. withdraw=2,correct_repair=1 or all=2 (default: one each)",
        )
        parser.add_argument(
            "--incident-rate", type=float, default=0.15, help="chance of an incident per step"
        )
        parser.add_argument(
            "--check", action="store_true", help="check the invariants (on with incidents)"
        )
        parser.add_argument(
            "--collusion-pairs", type=int, default=0, help="pairs of colluding bots (issue 24)"
        )
        parser.add_argument(
            "--collusion-policy", default="collude", help="collude, soft or squeeze"
        )
        parser.add_argument(
            "--collusion-strength",
            type=float,
            default=1.0,
            help="share of a colluder's decisions that collude, 0 to 1",
        )
        parser.add_argument(
            "--collusion-seed", default="", help="draws the colluders (default: --seed, or 1)"
        )
        parser.add_argument(
            "--collusion-seating",
            choices=("anywhere", "group"),
            default="anywhere",
            help="group: both partners in one group of the first (round-robin) stage",
        )
        parser.add_argument(
            "--collusion-out", default="", help="write the colluding pairs (entries) here as JSON"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count = options["players"]
        if count < 2:
            raise CommandError("--players must be at least 2")
        series = parse_series(options["series"])
        plan = parse_plan(options["plan"] or default_plan(count), series)
        try:
            rules = json.loads(options["rules"]) if options["rules"] else {}
        except json.JSONDecodeError as exc:
            raise CommandError(f"--rules is not JSON: {exc}") from None
        kinds = [k.strip() for k in options["bots"].split(",") if k.strip()]
        name = options["name"] or f"Симуляция на {count} игроков"
        owner, referee = (self._user(options, key) for key in ("organiser", "referee"))
        try:
            counts = parse_counts(options["incidents"]) if options["incidents"] else DEFAULT_COUNTS
        except ValueError as exc:
            raise CommandError(f"--incidents: {exc}") from None
        team_size = options["team_size"]
        collusion = self._collusion(options, count, team_size, plan[0])
        try:
            tournament = services.tournament_create(
                name=name,
                stages=plan,
                rules=rules,
                entry_fee=options["fee"],
                rake_percent=options["rake"],
                currency=options["currency"],
                seed=options["seed"],
                move_clock_seconds=0,
                created_by=owner,
                team_size=team_size,
                late_registration_rounds=options["late_registration_rounds"],
                reentry_fee=options["reentry_fee"],
                two_person_rule=options["two_person_rule"],
            )
            if referee is not None:
                services.tournament_set_referees(
                    tournament=tournament, actor=owner, referees=[referee]
                )
            services.tournament_open_registration(tournament=tournament)
            players = []
            for i in range(count * team_size):
                kind = kinds[i % len(kinds)]
                # A colluder keeps the name its place in the rotation gives: no hint.
                players.append(
                    services.player_create(
                        display_name=f"{options['player_name'] or kind.capitalize()} {i + 1}",
                        club=f"Клуб {i % 7 + 1}",
                        bot_kind=collusion.kinds.get(i, kind) if collusion else kind,
                    )
                )
            entries = {}
            for i in range(count):
                if team_size > 1:
                    team = services.team_create(
                        name=f"Команда {i + 1}",
                        players=players[i * team_size : (i + 1) * team_size],
                    )
                    services.entry_register(tournament=tournament, team=team)
                else:
                    entry = services.entry_register(tournament=tournament, player=players[i])
                    entries[i] = (entry.pk, players[i].pk, players[i].display_name)
            services.prize_pool_compute(tournament_id=tournament.pk)
        except ServiceError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from None
        self.incidents_seed = options["incidents_seed"]
        self.checker: InvariantChecker | None = None
        self.injector: Injector | None = None
        if options["incidents_seed"] or options["check"]:
            self.checker = InvariantChecker(tournament)
        if options["incidents_seed"]:
            self.injector = Injector(
                tournament=tournament,
                cast=Cast.for_event(tournament),
                counts=counts,
                rng=random.Random(f"incidents:{options['incidents_seed']}"),
                rate=options["incident_rate"],
                after_each=self.checker.step if self.checker else None,
            )
            self.injector.before_start()
        self.collusion_key = collusion.report(entries) if collusion else None
        if self.collusion_key is not None and options["collusion_out"]:
            with open(options["collusion_out"], "w", encoding="utf-8") as out:
                json.dump(self.collusion_key, out, ensure_ascii=False, indent=1)
        started = time.monotonic()
        try:
            self._run(tournament, options)
        except CommandError:
            self._log_incidents()  # what led there
            raise
        elapsed = time.monotonic() - started
        tournament.refresh_from_db()
        if collusion is not None and options["collusion_seating"] == "group":
            self._check_grouped(tournament)
        self._report(tournament, elapsed, options["top"])
        self._log_collusion()
        self._check_and_log()

    @staticmethod
    def _collusion(
        options: dict[str, Any], count: int, team_size: int, first: dict[str, Any]
    ) -> CollusionPlan | None:
        """The colluding pairs the options ask for (None: no ``--collusion-pairs``)."""
        if not options["collusion_pairs"]:
            return None
        if team_size > 1:
            raise CommandError("--collusion-pairs: not in a team event")
        within = None
        if options["collusion_seating"] == "group":
            if first["format"] != "round_robin":
                raise CommandError("--collusion-seating group: the first stage is not rr")
            within = snake_groups(list(range(count)), group_count(count, first["groups"]))
        try:
            return CollusionPlan.draw(
                players=count,
                pairs=options["collusion_pairs"],
                policy=options["collusion_policy"],
                strength=options["collusion_strength"],
                seed=options["collusion_seed"] or options["seed"] or "1",
                within=within,
            )
        except ValueError as exc:
            raise CommandError(f"--collusion-*: {exc}") from None

    def _check_grouped(self, tournament: Tournament) -> None:
        """``--collusion-seating group``: each pair's partners were dealt into one group."""
        first = tournament.stages.order_by("order").first()
        assert first is not None and self.collusion_key is not None
        group_of = {e: i for i, group in enumerate(stage_groups(first)) for e in group}
        for pair in self.collusion_key["pairs"]:
            a, b = pair["entries"]
            if group_of.get(a) != group_of.get(b):
                raise CommandError(
                    f"the partners {a} and {b} were dealt into different groups: the first "
                    "stage did not seed the bots in the order they were made"
                )

    def _log_collusion(self) -> None:
        """The answer key: which entries colluded (the benchmark's recall reads it)."""
        key = self.collusion_key
        if key is None:
            return
        self.stdout.write(
            f"Colluding pairs ({key['policy']}, strength {key['strength']}, seed {key['seed']!r}):"
        )
        for pair in key["pairs"]:
            names, ids = pair["names"], pair["entries"]
            self.stdout.write(f"  {names[0]} + {names[1]} (entries {ids[0]}, {ids[1]})")

    def _step(self) -> None:
        """A moment of the run: perhaps an incident, then the invariants of every moment."""
        if self.injector is not None:
            self.injector.step()
        if self.checker is not None:
            self.checker.step()

    @contextlib.contextmanager
    def _stepping_after_jobs(self) -> Iterator[None]:
        """In-process jobs: a step after each of them (in the thread that runs them)."""
        if (self.injector or self.checker) and in_process():
            with after_each_eager_job(self._step):
                yield
        else:
            yield

    def _log_incidents(self) -> None:
        if self.injector is not None:
            self.stdout.write(
                f"Incidents (seed {self.incidents_seed!r}, {self.injector.steps} steps):"
            )
            for line in self.injector.report_lines():
                self.stdout.write(f"  {line}")

    def _check_and_log(self) -> None:
        out = self.stdout
        self._log_incidents()
        if self.checker is None:
            return
        self.checker.final()
        if self.checker.violations:
            for violation in self.checker.violations:
                out.write(self.style.ERROR(f"  invariant: {violation}"))
            raise CommandError(
                f"{len(self.checker.violations)} invariant(s) failed: "
                + "; ".join(self.checker.violations)
            )
        out.write(f"Invariants held ({self.checker.steps} checks).")

    def _run(self, tournament: Tournament, options: dict[str, Any]) -> None:
        errors: list[BaseException] = []

        def start() -> None:
            try:
                services.tournament_start(tournament=tournament)
            except BaseException as exc:  # shown below; the thread must not die silently
                errors.append(exc)
            finally:
                close_old_connections()

        # Eager jobs run inside tournament_start; a thread lets the bar move meanwhile.
        worker = threading.Thread(target=start, daemon=True)
        with self._stepping_after_jobs():
            worker.start()
            self._wait(tournament, options, worker, errors)

    def _wait(
        self,
        tournament: Tournament,
        options: dict[str, Any],
        worker: threading.Thread,
        errors: list[BaseException],
    ) -> None:
        eager = in_process()
        deadline = time.monotonic() + options["timeout"]
        bar = tqdm(total=0, unit="table", disable=options["no_progress"], desc=tournament.name)
        while True:
            tables = Table.objects.filter(round__stage__tournament=tournament, is_bye=False)
            total, done = tables.count(), tables.filter(status=Table.Status.FINISHED).count()
            bar.total = max(total, 1)
            bar.n = done
            bar.refresh()
            status = Tournament.objects.values_list("status", flat=True).get(pk=tournament.pk)
            if errors:
                bar.close()
                raise CommandError(f"the tournament stopped: {errors[0]!r}") from errors[0]
            if status == Tournament.Status.FINISHED and not worker.is_alive():
                break
            if not eager and status == Tournament.Status.RUNNING and not worker.is_alive():
                self._step()  # a worker runs the jobs: the moments are the polls
            if time.monotonic() > deadline:
                bar.close()
                raise CommandError(
                    f"{tournament.name} not finished after {options['timeout']:.0f} s "
                    f"(status {status}, {done} of {total} tables finished): "
                    + "; ".join(unfinished_work(tournament))
                )
            time.sleep(0.25)
        bar.close()
        self._wait_for_final_jobs(tournament, deadline)  # done already when jobs run eagerly

    def _user(self, options: dict[str, Any], key: str) -> Any:
        """The user named by ``--organiser``/``--referee`` (None when not given)."""
        if not options[key]:
            return None
        user = get_user_model().objects.filter(username=options[key]).first()
        if user is None:
            raise CommandError(f"--{key}: there is no user {options[key]!r}")
        return user

    def _wait_for_final_jobs(self, tournament: Tournament, deadline: float) -> None:
        """The end of a tournament starts the prize, rank and rating jobs; wait for all three
        (``CommandError`` naming the missing ones, and the due work, at the deadline)."""
        while True:
            missing = awards_missing(tournament)
            if not missing:
                return
            if time.monotonic() > deadline:
                due = [line for line in unfinished_work(tournament) if line.startswith("due")]
                raise CommandError(
                    f"{tournament.name} finished, but these jobs did not within the timeout: "
                    + ", ".join(missing)
                    + (f" ({'; '.join(due)})" if due else "")
                )
            time.sleep(0.25)

    def _report(self, tournament: Tournament, elapsed: float, top: int) -> None:
        out = self.stdout
        out.write(self.style.SUCCESS(f"{tournament.name}: {tournament.status} in {elapsed:.1f} s"))
        last = tournament.stages.order_by("-order").first()
        entries = Entry.objects.filter(tournament=tournament, final_place__isnull=False)
        out.write("Final places:")
        for entry in entries.select_related("player").order_by("final_place", "pk")[:top]:
            out.write(f"  {entry.final_place:>4}  {entry.name}")
        if last is not None and last.format != "knockout":
            rows = standing_rows(last)[:top]
            out.write(f"Standings of {last}: " + ", ".join(f"{r.entry}={r.points}" for r in rows))
        pool = getattr(tournament, "prize_pool", None)
        if pool is not None:
            quantum = currency(pool.currency).quantum
            out.write(
                f"Prize pool: {pool.total.quantize(quantum)} {pool.currency} "
                f"(rake {pool.rake.quantize(quantum)}, final {pool.final})"
            )
            for payout in Payout.objects.filter(tournament=tournament).select_related(
                "entry__player"
            )[:top]:
                out.write(
                    f"  place {payout.place:>4}: {payout.amount.quantize(quantum)} {pool.currency}"
                    f"  {payout.entry.name}"
                )
        ranks = (
            RankRecord.objects.filter(tournament=tournament)
            .exclude(rank="")
            .select_related("player")
        )
        out.write(f"Ranks ({ranks.count()} players wear pogony):")
        for record in ranks.order_by("-pogony_received", "player__display_name")[:top]:
            out.write(
                f"  {record.player.display_name}: {record.rank} "
                f"(received {record.pogony_received}, given {record.pogony_given})"
            )
