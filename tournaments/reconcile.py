"""The reconciler: the database, not the broker, says what must happen next.

Every few seconds (beat: ``durak_site.celery``) :func:`reconcile` looks for every piece of work
that is due and not done, and sends the idempotent job that does it. The normal path sends each
job on an event (a game ends, a table finishes, a round completes); this finds the work whose
job was lost on the way: a worker killed mid-job, a Redis that lost its messages, a publish that
failed while Redis was down. Work comes back within seconds, not at the broker's visibility
timeout (``durak_site.jobs`` says why, and how the jobs' leases keep the reconciler from sending
a job that is queued or running).

What is found (each only after it has waited longer than the grace, ``durak_site.jobs.GRACE``,
so that a job on its way is left to arrive):

=========================================================  ====================================
due and not done                                           job
=========================================================  ====================================
a clock past its deadline (``games.reconcile``)            ``games.game_clock_expire``
a bot to move (``games.reconcile``)                        ``games.game_play_bots``
a finished game whose table still plays: its series has    ``games.game_finished`` (records it,
not advanced                                               deals the next game or the result)
a complete round (no table playing or waiting) not         ``tournaments.round_complete``
completed
a round due for pairing (pending, its stage running; a     ``tournaments.round_pair``
knockout's first round only) not paired
a seat still a person's at a table in play of an event    ``tournaments.tournament_bots_apply``
that bots play to the end
a seat left empty at a game with bots for absent players  ``games.game_absent_check``
(``games.reconcile``)
a finished tournament without its final places, prize     ``tournaments.`` +
pool, ranks (with its league's) or ratings, or whose job   ``tournament_places_compute``,
failed and whose inputs changed since (finished in the     ``prize_pool_compute``,
last :data:`AWARDS_WINDOW`, unless asked about it alone)   ``tournament_ranks_compute``,
                                                           ``ratings_update``
a finished tournament (in the same window) with a counted  ``tournaments.fairplay_count``
game (finished, adjudicated) without fair-play evidence
of the current version, or whose pairs rest on another
number of games than it has counted: the last round's job
was lost
a running tournament with a counted game of a round that   ``tournaments.fairplay_count``
finished in the last :data:`ROUNDS_WINDOW` without         (not in full: as the round's job)
evidence of the current version: the round's job was lost
(older ones are counted by the next round's job)
=========================================================  ====================================

Only running tournaments' games and rounds are looked at (a cancelled event's tables stay as
they are). Cheap when nothing is due: eleven indexed queries, whatever the number of events (the
running events' fair-play one reads the games of the rounds of the last :data:`ROUNDS_WINDOW`).
Safe to run concurrently (two beats, a slow run overlapping the next): a job's lease is taken
with ``cache.add`` before it is sent, and every job is idempotent anyway.

The waiting commands (``simulate_tournament``, ``demo``) read :func:`unfinished_work` to name
what did not finish.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from durak_site.jobs import GRACE, Due, enqueue_due
from games import reconcile as games_reconcile
from games.models import Game
from tournaments.models import (
    AwardsFailure,
    Entry,
    FairplayState,
    GameEvidenceRow,
    PrizePool,
    Round,
    Seat,
    Stage,
    Table,
    Tournament,
)
from tournaments.models.fairplay import EVIDENCE_VERSION
from tournaments.services import failures, fairplay
from tournaments.services.failures import Job

log = logging.getLogger(__name__)

#: A tournament that finished longer ago than this is left as it is, awards or not: the
#: reconciler recovers lost jobs, it does not rate old events imported without their stamps.
AWARDS_WINDOW = timedelta(days=3)
#: A running event's rounds that finished longer ago than this are not looked at for games
#: without fair-play evidence: the next round's job counts them anyway, and the query stays
#: bounded by the rounds of the last three hours, however long the event.
ROUNDS_WINDOW = timedelta(hours=3)


def due_jobs(
    *,
    now: datetime | None = None,
    grace: timedelta = GRACE,
    tournament_id: int | None = None,
) -> list[Due]:
    """Every piece of work due since before ``now - grace`` and not done, with its job; only
    tournament ``tournament_id``'s when given (then no game without a table, and its awards
    however long ago it finished)."""
    now = now or timezone.now()
    cutoff = now - grace
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    if tournament_id is not None:
        running = running.filter(pk=tournament_id)
    tables = list(
        Table.objects.filter(
            round__stage__tournament__in=running, status=Table.Status.PLAYING, is_bye=False
        ).values_list("pk", flat=True)
    )
    return [
        *games_reconcile.due_jobs(cutoff=cutoff, tables=tables, tableless=tournament_id is None),
        *_games_over(tables, cutoff),
        *_seats_for_bots(running, cutoff),
        *_rounds_complete(running, cutoff),
        *_rounds_to_pair(running, cutoff),
        *_awards(now, cutoff, tournament_id),
        *_fairplay(now, cutoff, tournament_id),
        *_fairplay_running(running, now, cutoff),
    ]


def reconcile(*, now: datetime | None = None) -> list[Due]:
    """Send the job of every piece of due work (:func:`due_jobs`) whose job is not queued or
    running already; returns what was sent, each logged (a lost job found is worth a line)."""
    sent = enqueue_due(due_jobs(now=now))
    for item in sent:
        log.warning("reconcile: sent %s", item)
    return sent


def _games_over(tables: list[int], cutoff: datetime) -> list[Due]:
    """Playing tables whose latest game is over: ``games.game_finished`` was lost."""
    latest = Game.objects.filter(table=OuterRef("pk")).order_by("-number", "-pk").values("pk")
    games = Table.objects.filter(pk__in=tables).annotate(game=Subquery(latest[:1])).values("game")
    over = Game.objects.filter(pk__in=games, status__in=Game.OVER, finished_at__lte=cutoff)
    return [
        Due("games.game_finished", (pk,), f"game {pk} is over and its table still plays")
        for pk in over.values_list("pk", flat=True)
    ]


def _seats_for_bots(running: QuerySet[Tournament], cutoff: datetime) -> list[Due]:
    """Events that bots play to the end with a person's seat at a table in play, their last
    change before ``cutoff``: their job was lost, or a round was seated as the setting changed."""
    quiet = running.filter(absent_bots=Tournament.AbsentBots.ALL).filter(
        Q(changed_at__lte=cutoff) | Q(changed_at__isnull=True)
    )
    seats = Seat.objects.filter(
        table__round__stage__tournament__in=quiet,
        table__status=Table.Status.PLAYING,
        table__is_bye=False,
        bot_kind="",
        player__is_bot=False,
    )
    ids = seats.order_by().values_list("table__round__stage__tournament_id", flat=True).distinct()
    return [
        Due("tournaments.tournament_bots_apply", (pk,), "a person's seat in an event of bots")
        for pk in ids
    ]


def _rounds_complete(running: QuerySet[Tournament], cutoff: datetime) -> list[Due]:
    """Playing rounds with no table playing or waiting, the last finished before ``cutoff``."""
    rounds = (
        Round.objects.filter(status=Round.Status.PLAYING, stage__tournament__in=running)
        .exclude(tables__status__in=[Table.Status.PLAYING, Table.Status.WAITING])
        .annotate(last=Max("tables__finished_at"))
        .filter(Q(last__lte=cutoff) | Q(last__isnull=True))
    )
    return [
        Due("tournaments.round_complete", (pk,), f"round {pk}: every table has finished")
        for pk in rounds.values_list("pk", flat=True)
    ]


def _rounds_to_pair(running: QuerySet[Tournament], cutoff: datetime) -> list[Due]:
    """Pending rounds of running stages that their pairing job should have seated (a later
    knockout round is seated by its feeders instead). A round has no time of its own: its
    tournament's last change (the round before it finishing, a correction) must be older than
    ``cutoff``."""
    quiet = running.filter(Q(changed_at__lte=cutoff) | Q(changed_at__isnull=True))
    rounds = Round.objects.filter(
        status=Round.Status.PENDING,
        stage__status=Stage.Status.RUNNING,
        stage__tournament__in=quiet,
    ).exclude(stage__format=Stage.Format.KNOCKOUT, number__gt=1)
    return [
        Due("tournaments.round_pair", (pk,), f"round {pk} waits for its pairing")
        for pk in rounds.values_list("pk", flat=True)
    ]


def _finished(now: datetime, cutoff: datetime, tournament_id: int | None) -> QuerySet[Tournament]:
    """Tournaments finished before ``cutoff``, in the last :data:`AWARDS_WINDOW` (or
    ``tournament_id`` alone, however long ago)."""
    finished = Tournament.objects.filter(status=Tournament.Status.FINISHED, finished_at__lte=cutoff)
    if tournament_id is None:
        return finished.filter(finished_at__gte=now - AWARDS_WINDOW)
    return finished.filter(pk=tournament_id)  # asked about one tournament: however old


def _awards(now: datetime, cutoff: datetime, tournament_id: int | None) -> list[Due]:
    """Finished tournaments without their final places, prize pool, ranks or ratings, or with a
    stored failure of one of them; a failed job is sent again only once its inputs have changed
    (``services.failures.awards_inputs``), not every few seconds for the same failure."""
    finished = _finished(now, cutoff, tournament_id)
    unplaced = Entry.objects.filter(
        tournament=OuterRef("pk"), final_place__isnull=True, stage_entries__isnull=False
    )
    rows = (
        finished.annotate(
            pool=Exists(PrizePool.objects.filter(tournament=OuterRef("pk"), final=True)),
            unplaced=Exists(unplaced),
            failed=Exists(AwardsFailure.objects.filter(tournament=OuterRef("pk"))),
        )
        .filter(
            Q(pool=False)
            | Q(unplaced=True)
            | Q(failed=True)
            | Q(ranks_computed_at__isnull=True)
            | Q(ratings_applied_at__isnull=True)
        )
        .values_list("pk", "pool", "unplaced", "ranks_computed_at", "ratings_applied_at")
    )
    due = []
    for pk, pool, unplaced_entries, ranked, rated in rows:
        wanted = {
            Job.PLACES: "entries without a final place" if unplaced_entries else "",
            Job.PRIZE_POOL: "" if pool else "no final prize pool",
            Job.RANKS: "" if ranked else "no ranks",
            Job.RATINGS: "" if rated else "no ratings",
        }
        failed = dict(
            AwardsFailure.objects.filter(tournament_id=pk).values_list("job", "fingerprint")
        )
        inputs = failures.awards_inputs(pk) if failed else ""
        for job, missing in wanted.items():
            if job in failed:
                if failed[job] == inputs:
                    continue  # failed on these very inputs: shown, not retried
                missing = "failed, and its inputs have changed since"  # noqa: PLW2901
            if missing:
                due.append(Due(failures.TASKS[job], (pk,), missing))
    return due


def _uncounted_games(**where: Any) -> QuerySet[Game]:
    """The counted games (finished, adjudicated) filtered by ``where`` without fair-play
    evidence of the current version."""
    current = GameEvidenceRow.objects.filter(game=OuterRef("pk"), version=EVIDENCE_VERSION)
    return Game.objects.filter(status__in=fairplay.COUNTED, **where).exclude(Exists(current))


def _fairplay(now: datetime, cutoff: datetime, tournament_id: int | None) -> list[Due]:
    """Finished tournaments with a counted game (finished or adjudicated) without fair-play
    evidence of the current version, or whose pairs were computed from another number of games
    than it has counted (``FairplayState.games_counted``): the last round's job was lost, or
    died between counting and scoring."""
    uncounted = _uncounted_games(table__round__stage__tournament=OuterRef("pk"))
    rows = (
        GameEvidenceRow.objects.filter(tournament=OuterRef("pk"))
        .order_by()
        .values("tournament")
        .annotate(n=Count("pk"))
        .values("n")
    )
    scored = FairplayState.objects.filter(tournament=OuterRef("pk")).values("games_counted")
    found = (
        _finished(now, cutoff, tournament_id)
        .annotate(
            uncounted=Exists(uncounted),
            rows=Coalesce(Subquery(rows), 0),
            scored=Coalesce(Subquery(scored), 0),
        )
        .filter(Q(uncounted=True) | ~Q(rows=F("scored")))
        .values_list("pk", "uncounted")
    )
    return [
        Due(
            "tournaments.fairplay_count",
            (pk,),
            "games without fair-play evidence" if uncounted_games else "fair-play pairs stale",
        )
        for pk, uncounted_games in found
    ]


def _fairplay_running(running: QuerySet[Tournament], now: datetime, cutoff: datetime) -> list[Due]:
    """Running tournaments with a counted game of a round finished between
    :data:`ROUNDS_WINDOW` ago and ``cutoff`` without fair-play evidence of the current version:
    the round's ``fairplay_count`` was lost (a worker killed mid-job). Sent as the round's job
    is (not in full), so that one lease covers both."""
    uncounted = _uncounted_games(
        table__round__status=Round.Status.FINISHED,
        table__round__finished_at__gt=now - ROUNDS_WINDOW,
        table__round__finished_at__lte=cutoff,
        table__round__stage__tournament__in=running,
    )
    rounds: dict[int, list[int]] = {}
    for pk, round_id in (
        uncounted.order_by("table__round_id")
        .values_list("table__round__stage__tournament_id", "table__round_id")
        .distinct()
    ):
        rounds.setdefault(pk, []).append(round_id)
    return [
        Due(
            "tournaments.fairplay_count",
            (pk, False),
            f"games of round {', '.join(map(str, ids))} without fair-play evidence",
        )
        for pk, ids in rounds.items()
    ]


# --- for the waiting commands -------------------------------------------------------------------


def awards_missing(tournament: Tournament) -> list[str]:
    """What a finished tournament still lacks of its awards, in words (empty: all there)."""
    fresh = Tournament.objects.get(pk=tournament.pk)
    missing = []
    unplaced = Entry.objects.filter(
        tournament=fresh, final_place__isnull=True, stage_entries__isnull=False
    )
    if unplaced.exists():
        missing.append("the final places")
    if not PrizePool.objects.filter(tournament=fresh, final=True).exists():
        missing.append("the final prize pool")
    if fresh.ranks_computed_at is None:
        missing.append("the ranks")
    if fresh.ratings_applied_at is None:
        missing.append("the ratings")
    for failure in AwardsFailure.objects.filter(tournament=fresh).order_by("job"):
        missing.append(f"{failure.job} failed ({failure.attempts}x): {failure.message}")
    return missing


def unfinished_work(tournament: Tournament) -> list[str]:
    """What a tournament has not finished, in words, for a command that waited for it: its
    rounds not finished (with their tables still playing), its missing awards, and the due work
    the reconciler would send (with no grace: everything due now)."""
    fresh = Tournament.objects.get(pk=tournament.pk)
    lines = []
    rounds = (
        Round.objects.filter(stage__tournament=fresh)
        .exclude(status=Round.Status.FINISHED)
        .select_related("stage")
        .order_by("stage__order", "number")
    )
    for round_ in rounds:
        playing = list(
            round_.tables.filter(status__in=[Table.Status.PLAYING, Table.Status.WAITING])
            .order_by("number")
            .values_list("number", flat=True)
        )
        where = f"stage {round_.stage.order} round {round_.number}"
        if round_.status == Round.Status.PENDING:
            lines.append(f"{where}: not paired")
        else:
            tables = ", ".join(map(str, playing)) or "none"
            lines.append(f"{where}: playing (tables not finished: {tables})")
    if fresh.status == Tournament.Status.FINISHED:
        lines += [f"missing: {what}" for what in awards_missing(fresh)]
    lines += [
        f"due and not done: {item}" for item in due_jobs(grace=timedelta(0), tournament_id=fresh.pk)
    ]
    return lines
