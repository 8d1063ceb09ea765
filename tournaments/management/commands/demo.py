"""Prepare the demo: three console logins (printed: a superuser, an organiser who owns the demo
events, a referee assigned to them), a finished tournament, a league season of two finished
tournaments, one in progress and one open for registration.

The finished cup is played by bots with ``simulate_tournament``. The league's two tournaments
are played by the same twelve bots through the same services, bots that keep their sixes (the
game's pogony rank) to go out with them (``games.engine.bots.PogonyBot``): they hang pogony in
most games, so the season's table shows ranks (сержант, старшина, ...); every deal is drawn
afresh (a game's seed stays secret until it ends), so the ranks differ from run to run. In the
one in progress the admin has a seat among seven of those bots, so its table waits for a person
to play in the browser, next to players who wear ranks. With real Celery workers (``REDIS_URL``)
the events need a running worker: the command waits for each finished event and its jobs (also
when an earlier run played it), then for the admin's seat, at most ``--timeout`` seconds in all,
and otherwise fails (exit 1) naming what did not happen (``tournaments.reconcile.unfinished_work``).
"""

from __future__ import annotations

import secrets
import time
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from durak_site.jobs import enqueue_due
from tournaments import services
from tournaments.models import League, Player, Seat, Tournament
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.reconcile import awards_missing, due_jobs, unfinished_work

DEMO_ADMIN, DEMO_ORGANISER, DEMO_REFEREE = "admin", "organiser", "referee"
FINISHED_NAME = "Демо: Кубок ботов"
LIVE_NAME = "Демо: турнир идёт"
OPEN_NAME = "Демо: запись открыта"
LEAGUE_NAME, LEAGUE_SEASON = "Демо-лига", "2026"
LEAGUE_EVENTS = ("Демо-лига: первый этап", "Демо-лига: второй этап")
# Four 3-seat tables a round (seed 004's double pogony can happen), two rounds an event; eight of
# the twelve bots go for pogony: the season's table then shows сержант and старшина in about 95
# runs of 100 (and higher ranks).
LEAGUE_PLAYERS = 12


class Command(BaseCommand):
    help = "Create (or reset) the demo admin account, print its login, and create demo events."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-simulation", action="store_true", help="only the admin login")
        parser.add_argument("--players", type=int, default=32)
        parser.add_argument(
            "--base-url", default="http://127.0.0.1:8000", help="where the site is served"
        )
        parser.add_argument(
            "--timeout", type=float, default=300.0, help="seconds to wait for the jobs, in all"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        base_url = options["base_url"].rstrip("/")
        user = self._login(base_url, DEMO_ADMIN, "", "a superuser, seated in the live event")
        organiser = self._login(base_url, DEMO_ORGANISER, ORGANISER, "owns the demo events")
        referee = self._login(base_url, DEMO_REFEREE, REFEREE, "referees the demo events")
        if options["no_simulation"]:
            return
        deadline = time.monotonic() + options["timeout"]
        # A demo event left unfinished by an interrupted run is cancelled and played afresh.
        for stale in Tournament.objects.filter(name=FINISHED_NAME).exclude(
            status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
        ):
            services.tournament_cancel(tournament=stale)
        if not Tournament.objects.filter(
            name=FINISHED_NAME, status=Tournament.Status.FINISHED
        ).exists():
            self.stdout.write("Playing a finished demo tournament with bots...")
            call_command(
                "simulate_tournament",
                players=options["players"],
                name=FINISHED_NAME,
                plan="swiss:4:2:top=8,knockout:4:2",
                bots="pogony,heuristic",
                player_name="Бот кубка",
                no_progress=True,
                top=3,
                timeout=options["timeout"],
                organiser=DEMO_ORGANISER,
                referee=DEMO_REFEREE,
                stdout=self.stdout,
            )
        finished = (
            Tournament.objects.filter(name=FINISHED_NAME, status=Tournament.Status.FINISHED)
            .order_by("-finished_at")
            .first()
        )
        if finished is not None:
            self._wait_for_awards(finished, deadline, options["timeout"])
        league, bots = self._league(organiser, referee, deadline, options["timeout"])
        self.stdout.write(
            self.style.SUCCESS(f"League season: /leagues/{league.slug}/{league.season}/")
        )
        live = Tournament.objects.filter(name=LIVE_NAME).first() or self._live(
            user, organiser, referee, bots
        )
        self.stdout.write(self.style.SUCCESS(f"Tournament in progress: /tournaments/{live.slug}/"))
        opened = Tournament.objects.filter(name=OPEN_NAME).first() or self._open(organiser, referee)
        self.stdout.write(
            self.style.SUCCESS(
                f"Open for registration: /tournaments/{opened.slug}/ "
                "(sign up as a player at /accounts/signup/ and register there)"
            )
        )
        seat = self._wait_for_seat(live, user, deadline, options["timeout"])
        self.stdout.write(
            self.style.SUCCESS(f"Your seat (log in as {DEMO_ADMIN}): /tables/{seat.table_id}/")
        )

    def _wait_for_seat(self, live: Tournament, user: Any, deadline: float, timeout: float) -> Seat:
        """The admin's seat in the live event, once its pairing job has run (at once when jobs
        are eager)."""
        while True:
            seat = (
                Seat.objects.filter(table__round__stage__tournament=live, player__user=user)
                .select_related("table")
                .order_by("-table__round__number")
                .first()
            )
            if seat is not None:
                return seat
            if time.monotonic() > deadline:
                raise CommandError(
                    f"{LIVE_NAME}: its first round was not paired within {timeout:.0f} s "
                    "(is a Celery worker running?): " + "; ".join(unfinished_work(live))
                )
            time.sleep(0.25)

    def _league(
        self, organiser: Any, referee: Any, deadline: float, timeout: float
    ) -> tuple[League, list[Player]]:
        """The demo league's season and its two tournaments, played by the same bots (created
        once; an event an interrupted run left unfinished is cancelled and played afresh)."""
        league = League.objects.filter(name=LEAGUE_NAME, season=LEAGUE_SEASON).first()
        if league is None:
            league = services.league_create(name=LEAGUE_NAME, season=LEAGUE_SEASON, actor=organiser)
        bots = list(
            Player.objects.filter(entries__tournament__league=league, is_bot=True)
            .distinct()
            .order_by("pk")
        )[:LEAGUE_PLAYERS]
        if len(bots) < LEAGUE_PLAYERS:
            bots = [
                services.player_create(
                    display_name=f"Бот лиги {i + 1}",
                    club=f"Клуб {i % 3 + 1}",
                    bot_kind="pogony" if i % 3 else "heuristic",
                )
                for i in range(LEAGUE_PLAYERS)
            ]
        for name in LEAGUE_EVENTS:
            for stale in Tournament.objects.filter(name=name, league=league).exclude(
                status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
            ):
                services.tournament_cancel(tournament=stale)
            event = Tournament.objects.filter(
                name=name, league=league, status=Tournament.Status.FINISHED
            ).first()
            if event is None:
                self.stdout.write(f"Playing {name} with bots...")
                # a swiss at 3-seat tables in the league (with in-process jobs it is played
                # to the end as it starts)
                event = started_swiss(
                    name, bots, organiser, referee, table_size=3, entry_fee="100", league=league
                )
                self._wait_for_end(event, deadline, timeout)
            self._wait_for_awards(event, deadline, timeout)
        return league, bots

    def _wait_for_end(self, event: Tournament, deadline: float, timeout: float) -> None:
        """Until ``event`` has finished (at once when jobs are eager)."""
        while not Tournament.objects.filter(
            pk=event.pk, status=Tournament.Status.FINISHED
        ).exists():
            if time.monotonic() > deadline:
                raise CommandError(
                    f"{event.name}: not finished within {timeout:.0f} s "
                    "(is a Celery worker running?): " + "; ".join(unfinished_work(event))
                )
            time.sleep(0.25)

    def _wait_for_awards(self, finished: Tournament, deadline: float, timeout: float) -> None:
        """The finished event's prize pool, ranks and ratings (a run interrupted before its jobs
        ran left them to a worker): their jobs are asked for again, then waited for."""
        enqueue_due(due_jobs(grace=timedelta(0), tournament_id=finished.pk))
        while missing := awards_missing(finished):
            if time.monotonic() > deadline:
                raise CommandError(
                    f"{finished.name}: not done within {timeout:.0f} s: "
                    + "; ".join([*missing, *unfinished_work(finished)])
                )
            time.sleep(0.25)

    def _login(self, base_url: str, username: str, group: str, role: str) -> Any:
        """Create (or reset) a console user with a fresh password and print its login; a
        superuser when ``group`` is empty, else a staff user in that group."""
        user_model = get_user_model()
        password = secrets.token_urlsafe(9)
        user, created = user_model.objects.get_or_create(username=username)
        user.is_staff = True
        user.is_superuser = not group
        user.set_password(password)
        user.save()
        if group:
            user.groups.add(Group.objects.get(name=group))
        verb = "created" if created else "reset"
        self.stdout.write(
            self.style.SUCCESS(
                f"Login {verb} ({role}): {base_url}/admin/  "
                f"user {username!r}  password {password!r}"
            )
        )
        return user

    def _open(self, organiser: Any, referee: Any) -> Tournament:
        """A cup open for registration (swiss, then a knockout of the top 8), five bots in it:
        a new player signs up and registers from its page."""
        tournament = services.tournament_create(
            name=OPEN_NAME,
            stages=[
                {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": 8}},
                {"format": "knockout", "table_size": 4, "advance_per_table": 2},
            ],
            entry_fee="100",
            max_entries=32,
            move_clock_seconds=60,
            # planned for the next full hour after tomorrow's: its page counts down to it
            starts_at=timezone.now().replace(minute=0, second=0, microsecond=0)
            + timedelta(days=1, hours=1),
            created_by=organiser,
        )
        services.tournament_set_referees(tournament=tournament, actor=organiser, referees=[referee])
        services.tournament_open_registration(tournament=tournament)
        for i in range(5):
            bot = services.player_create(
                display_name=f"Бот открытого {i + 1}", club=f"Клуб {i % 3 + 1}", bot_kind="random"
            )
            services.entry_register(tournament=tournament, player=bot)
        return tournament

    def _live(self, user: Any, organiser: Any, referee: Any, bots: list[Player]) -> Tournament:
        """Eight entries at 4-seat tables: the admin and seven of the league's bots (they wear
        its ranks); the admin's table waits."""
        me = Player.objects.filter(user=user).first() or services.player_create(
            display_name="Администратор", user=user, club="Демо"
        )
        return started_swiss(
            LIVE_NAME, [me, *bots[:7]], organiser, referee, table_size=4, entry_fee="50"
        )


def started_swiss(
    name: str,
    players: list[Player],
    organiser: Any,
    referee: Any,
    *,
    table_size: int,
    entry_fee: str,
    league: League | None = None,
) -> Tournament:
    """A swiss of two rounds without a move clock, run by ``organiser`` and refereed by
    ``referee``: ``players`` registered in order, its prize pool computed, started (with
    in-process jobs, bots play it to the end inside ``tournament_start``)."""
    tournament = services.tournament_create(
        name=name,
        league=league,
        stages=[{"format": "swiss", "table_size": table_size, "rounds": 2}],
        entry_fee=entry_fee,
        move_clock_seconds=0,
        created_by=organiser,
    )
    services.tournament_set_referees(tournament=tournament, actor=organiser, referees=[referee])
    services.tournament_open_registration(tournament=tournament)
    for player in players:
        services.entry_register(tournament=tournament, player=player)
    services.prize_pool_compute(tournament_id=tournament.pk)
    services.tournament_start(tournament=tournament)
    return tournament
