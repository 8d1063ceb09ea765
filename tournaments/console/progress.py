"""The console's read-only pages of how things stand: an event's progress and a league's table.

**An event's progress** (``admin/tournaments/tournament/<id>/progress/``), for whoever may see
the event in the console: its stages in order, and for each its rounds (status, when paired and
finished, how many tables have finished, are playing, wait for their feeders or have stalled, as
the live tables page has it: ``selectors.live.is_stalled``) and each round's tables (the players by
seat, the score group, what the pairing had to give up, the result in force, first out first and
the fool marked) with the round's pairing explanation in words; the standings of each swiss or
round-robin stage (``selectors.standings.stage_standings``); a knockout stage as a tree, a column
per round, each table fed by the places of the tables before it; once the event has finished, its
final places with the prizes, the prize pool and the ranks (звания) earned.
:func:`tournament_progress` reads it in a fixed number of queries however many tables the event
has (a few per stage, none per table or round).

**A league's table** (``admin/tournaments/league/<id>/table/``), for whoever sees the league: the
league's tournaments its user may see, and the league table of all its finished tournaments
(``scoring.league_table`` on their final places, by the league's points scale), with each
player's rank in the league and current rating.

Both pages only read. A missing object is a 404, and so is one outside its user's scope (another
organiser's event: the same answer as the admin's own pages give, so that the page tells nothing
about which it is); a 403 only for a user who sees the object but lacks the model's view
permission (``ConsoleAdmin.has_view_permission``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Model, Prefetch, Q, QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
)
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import Forbidden, ServiceError
from games.actors import Actor
from tournaments import selectors
from tournaments.models import (
    AwardsFailure,
    Entry,
    League,
    PrizePool,
    RankRecord,
    Round,
    Seat,
    Stage,
    Table,
    TableResult,
    Tournament,
)
from tournaments.money import money
from tournaments.permissions import can_referee
from tournaments.selectors import AwardsState
from tournaments.selectors.events import prize_pool
from tournaments.selectors.leagues import league_standings
from tournaments.selectors.live import is_stalled, live_games
from tournaments.selectors.places import final_places
from tournaments.selectors.standings import (
    StandingLine,
    has_standings,
    stage_standings,
    stage_tie_breaks,
)
from tournaments.selectors.visibility import tournaments_managed_by
from tournaments.services.failures import failure_text, tournament_awards_recompute
from tournaments.wording import (
    TIE_BREAK_LABELS,
    compromise_lines,
    decided_by_label,
    explanation_words,
    group_label,
    points_text,
    rank_title,
    round_name,
    stage_names,
)

TOURNAMENT_TEMPLATE = "admin/tournaments/progress/tournament.html"
LEAGUE_TEMPLATE = "admin/tournaments/progress/league.html"

_M = TypeVar("_M", bound=Model)


# --- an event's progress --------------------------------------------------------------------------


@dataclass(frozen=True)
class Placing:
    """An entry of a table's result: its place (first out first) and how it ended."""

    place: int
    name: str
    fool: bool = False
    drawn: bool = False
    advances: bool = False  # a knockout table's: goes on to the next round


@dataclass(frozen=True)
class TableLine:
    pk: int
    number: int
    status: str  # Table.Status's value: the page's style hooks
    status_label: str
    stalled: bool
    is_bye: bool
    group: str  # the score group, in words
    players: list[str]  # the seated players' names, by seat
    feeds: list[str]  # a knockout table waiting for its feeders: where its players come from
    placings: list[Placing]  # the result in force, if any
    compromises: list[str]


@dataclass(frozen=True)
class RoundLine:
    round: Round
    tables: list[TableLine]
    explanation: list[tuple[str, list[str]]]  # the pairing explanation: (what, lines)
    last: bool  # the last round of its stage (a knockout's final)
    title: str = ""  # "Round 2", a knockout's "Semi-final" (``wording.round_name``)

    def _count(self, status: str) -> int:
        return sum(t.status == status for t in self.tables)

    @property
    def finished(self) -> int:
        return self._count(Table.Status.FINISHED)

    @property
    def playing(self) -> int:
        return self._count(Table.Status.PLAYING)

    @property
    def waiting(self) -> int:
        return self._count(Table.Status.WAITING)

    @property
    def stalled(self) -> int:
        return sum(t.stalled for t in self.tables)


@dataclass(frozen=True)
class StandingCells:
    """A standings line (``selectors.standings.StandingLine``) as the page's cells."""

    position: int
    rank: int
    name: str
    points: str
    played: int
    tie_breaks: list[str]  # one value per criterion of ``StageLine.tie_breaks``
    decided_by: str


@dataclass(frozen=True)
class StageLine:
    stage: Stage
    rounds: list[RoundLine]
    tie_breaks: list[str]  # the standings' tie-break columns, in the order they apply
    standings: list[StandingCells]
    name: str = ""  # among its event's stages (``wording.stage_names``)

    @property
    def is_knockout(self) -> bool:
        return self.stage.format == Stage.Format.KNOCKOUT


@dataclass(frozen=True)
class PlaceCells:
    place: int
    name: str
    prize: str  # the payout in the tournament's currency, "" for none


@dataclass(frozen=True)
class RankLine:
    name: str
    rank: str
    received: int
    given: int


@dataclass(frozen=True)
class FailureLine:
    """An end-of-event job that failed, in the reader's language."""

    job: str  # AwardsFailure.Job's value: the page's hooks
    label: str
    text: str
    attempts: int
    first_failed_at: dt.datetime
    last_failed_at: dt.datetime


@dataclass(frozen=True)
class Finish:
    """A finished event's outcome: places and prizes, the pool, the ranks earned; what of it
    failed or is missing, and whether its reader may compute it again."""

    failures: list[FailureLine]
    missing: list[str]  # the parts not computed (and not failed), in words
    can_recompute: bool
    places: list[PlaceCells]
    pool: PrizePool | None
    gross: str
    rake: str
    total: str
    paid_out: str
    ranks: list[RankLine]


@dataclass(frozen=True)
class TournamentProgress:
    tournament: Tournament
    stages: list[StageLine]
    finish: Finish | None


def explanation_lines(round_: Round, tournament: Tournament) -> list[tuple[str, list[str]]]:
    """The round's pairing explanation (``Round.explanation``) as lines a referee reads: the
    algorithm, the draw seed, the score groups, the byes and every compromise."""
    info = dict(round_.explanation or {})
    # The round's random choices are drawn from the tournament's seed, its stage and round.
    return explanation_words(info, seed=str(info.get("seed") or tournament.seed or ""))


def _placings(
    result: TableResult | None,
    names: dict[int, str],
    advance: int | None,
    still_in: set[int] | frozenset[int] = frozenset(),
) -> list[Placing]:
    """A table's result as lines; with ``advance`` (a knockout table before the final), those
    who go on are marked (``selectors.feed_order``: not an entry that left, ``still_in``)."""
    if result is None:
        return []
    drawn = {int(e) for e in result.drawn}
    going_on = set(selectors.feed_order(result.places, still_in)[:advance]) if advance else set()
    return [
        Placing(
            place=place,
            name=names.get(int(entry), "—"),
            fool=int(entry) == result.fool_entry_id,
            drawn=int(entry) in drawn,
            advances=int(entry) in going_on,
        )
        for place, entry in enumerate(result.places, 1)
    ]


def _feeds(table: Table, numbers: dict[int, int], names: dict[int, str]) -> list[str]:
    """Where a knockout table's players come from: a place at an earlier table, or a bye."""
    out = []
    for feed in table.feeds_from or []:
        if not isinstance(feed, dict):
            continue
        if "entry" in feed:
            out.append(gettext("%(name)s (bye)") % {"name": names.get(int(feed["entry"]), "—")})
        elif "table" in feed:
            places = feed.get("places") or [feed.get("place", 1)]
            for place in places:
                out.append(
                    gettext("Table %(table)s, place %(place)s")
                    % {"table": numbers.get(int(feed["table"]), "?"), "place": place}
                )
    return out


def _standing_cells(
    stage: Stage, rows: Sequence[StandingLine]
) -> tuple[list[str], list[StandingCells]]:
    """The standings' tie-break columns (the stage's order, points aside) and its lines."""
    criteria = [c for c in stage_tie_breaks(stage) if c in TIE_BREAK_LABELS and c != "points"]

    def value(row: StandingLine, criterion: str) -> str:
        if criterion == "first_places":
            return str(row.first_places)
        if criterion == "fewest_fools":
            return str(row.fools)
        if criterion == "buchholz":
            return points_text(row.buchholz)
        return "—" if row.head_to_head is None else points_text(row.head_to_head)

    lines = [
        StandingCells(
            position=row.position,
            rank=row.place,
            name=row.name,
            points=points_text(row.points),
            played=row.played,
            tie_breaks=[value(row, c) for c in criteria],
            decided_by=decided_by_label(row.decided_by),
        )
        for row in rows
    ]
    return [str(TIE_BREAK_LABELS[c]) for c in criteria], lines


def _failures(tournament: Tournament) -> list[FailureLine]:
    return [
        FailureLine(
            job=failure.job,
            label=failure.get_job_display(),
            text=failure_text(failure),
            attempts=failure.attempts,
            first_failed_at=failure.first_failed_at,
            last_failed_at=failure.last_failed_at,
        )
        for failure in AwardsFailure.objects.filter(tournament=tournament).order_by("pk")
    ]


def _missing(
    tournament: Tournament, pool: PrizePool | None, places: Sequence[PlaceCells], failed: set[str]
) -> list[str]:
    """The parts of a finished event's awards that are neither computed nor failed."""
    Job = AwardsFailure.Job
    started = Entry.objects.filter(tournament=tournament, stage_entries__isnull=False)
    parts = [
        (Job.PLACES, len(places) < started.distinct().count()),
        (Job.PRIZE_POOL, pool is None or not pool.final),
        (Job.RANKS, tournament.ranks_computed_at is None),
        (Job.RATINGS, tournament.ratings_applied_at is None),
    ]
    return [str(job.label) for job, missing in parts if missing and job not in failed]


def _finish(tournament: Tournament, user: Actor) -> Finish | None:
    if tournament.status != Tournament.Status.FINISHED:
        return None
    pool = prize_pool(tournament)
    code = pool.currency if pool is not None else tournament.currency
    final = final_places(tournament)
    places = [
        PlaceCells(
            place=line.place,
            name=line.name,
            prize=money(line.payout, code) if line.payout else "",
        )
        for line in final.lines
    ]
    ranks = (
        RankRecord.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("-pogony_given", "pogony_received", "player__display_name")
    )
    none = money(Decimal(0), code)
    failures = _failures(tournament)
    return Finish(
        failures=failures,
        missing=_missing(tournament, pool, places, {f.job for f in failures}),
        can_recompute=can_referee(user, tournament),
        places=places,
        pool=pool,
        gross=money(pool.gross, code) if pool else none,
        rake=money(pool.rake, code) if pool else none,
        total=money(pool.total, code) if pool else none,
        paid_out=money(final.paid_out, code),
        ranks=[
            RankLine(
                r.player.display_name, rank_title(r.rank) or "—", r.pogony_received, r.pogony_given
            )
            for r in ranks
        ],
    )


def tournament_progress(
    tournament: Tournament, *, user: Actor, now: dt.datetime | None = None
) -> TournamentProgress:
    """Everything the progress page shows, in a fixed number of queries."""
    now = now or timezone.now()
    stages = list(tournament.stages.order_by("order"))
    rounds = list(Round.objects.filter(stage__tournament=tournament).order_by("number"))
    seats = Seat.objects.select_related("player").order_by("position")
    # The result in force of each table (``selectors.effective_result``), all in one query.
    in_force = TableResult.objects.effective().order_by("-id")
    tables = list(
        Table.objects.filter(round__stage__tournament=tournament)
        .order_by("number")
        .prefetch_related(
            Prefetch("seats", queryset=seats),
            Prefetch("results", queryset=in_force, to_attr="in_force"),
        )
    )
    results: dict[int, TableResult | None] = {
        t.pk: next(iter(getattr(t, "in_force", [])), None) for t in tables
    }
    stalled = {
        game.table_id
        for game in live_games(user, tournament)
        if is_stalled(game, game.last_action_at, now)
    }
    standings = {stage.pk: stage_standings(stage) for stage in stages if has_standings(stage)}
    # One query for the names of every entry the page shows (the standings come with theirs).
    ids: list[int] = []
    for table in tables:
        result = results[table.pk]
        ids += selectors.result_entry_ids(result) if result is not None else []
        ids += [
            int(f["entry"]) for f in table.feeds_from or [] if isinstance(f, dict) and "entry" in f
        ]
    names = selectors.entry_names(ids)
    numbers = {table.pk: table.number for table in tables}
    still_in = set(
        Entry.objects.filter(tournament=tournament, status__in=Entry.ACTIVE).values_list(
            "pk", flat=True
        )
    )

    by_round: dict[int, list[Table]] = {}
    for table in tables:
        by_round.setdefault(table.round_id, []).append(table)
    by_stage: dict[int, list[Round]] = {}
    for round_ in rounds:
        by_stage.setdefault(round_.stage_id, []).append(round_)

    lines = []
    titles = stage_names(stages)
    for stage in stages:
        stage_rounds = by_stage.get(stage.pk, [])
        knockout = stage.format == Stage.Format.KNOCKOUT
        round_lines = []
        for round_ in stage_rounds:
            last = round_ is stage_rounds[-1]
            advance = stage.knockout_advance if knockout and not last else None
            tables_of_round = [
                TableLine(
                    pk=table.pk,
                    number=table.number,
                    status=table.status,
                    status_label=table.get_status_display(),
                    stalled=table.pk in stalled,
                    is_bye=table.is_bye,
                    group=group_label(table.score_group),
                    players=[seat.player.display_name for seat in table.seats.all()],
                    feeds=_feeds(table, numbers, names),
                    placings=_placings(results[table.pk], names, advance, still_in),
                    compromises=compromise_lines(table.compromises or []),
                )
                for table in by_round.get(round_.pk, [])
            ]
            explanation = explanation_lines(round_, tournament)
            title = round_name(round_.number, knockout=knockout, rounds=stage_rounds[-1].number)
            round_lines.append(RoundLine(round_, tables_of_round, explanation, last, title))
        headers, standing_cells = _standing_cells(stage, standings.get(stage.pk, []))
        lines.append(StageLine(stage, round_lines, headers, standing_cells, titles[stage.order]))
    return TournamentProgress(tournament, lines, _finish(tournament, user))


# --- a league's table -----------------------------------------------------------------------------


@dataclass(frozen=True)
class LeagueCells:
    """A league table's line (``selectors.leagues.LeagueLine``) as the page's cells."""

    position: int
    place: int  # shared by entries the tie-breaks could not separate
    name: str
    points: str
    played: int
    first_places: int
    places: list[int]  # its final place in each tournament, best first
    decided_by: str
    rank: str  # the player's rank (звание) in the league, "" for none
    rating: int | None  # the displayed rating (1500 + 40 (mu - 3 sigma)); None for a team
    mu: float | None
    sigma: float | None


@dataclass(frozen=True)
class LeagueStandings:
    league: League
    tournaments: Sequence[Tournament]  # the league's tournaments its user sees, newest first
    counted: int  # how many finished tournaments the table adds up
    lines: list[LeagueCells]
    ranks: list[RankLine]
    error: str  # why the table could not be computed, "" when it could


def league_table_page(league: League, *, user: Actor) -> LeagueStandings:
    """Everything the league table page shows: the table counts every finished tournament of
    the league (``selectors.leagues.league_standings``), the list those its user sees."""
    visible = list(
        tournaments_managed_by(user)
        .filter(league=league)
        .annotate(entry_count=Count("entries", distinct=True))
        .order_by("-created_at", "-pk")
    )
    table = league_standings(league, among=Tournament.objects.all())
    records = (
        RankRecord.objects.filter(league=league)
        .select_related("player")
        .order_by("-pogony_given", "pogony_received", "player__display_name")
    )
    lines = [
        LeagueCells(
            position=line.position,
            place=line.place,
            name=line.name,
            points=points_text(line.points),
            played=line.played,
            first_places=line.first_places,
            places=line.places,
            decided_by=decided_by_label(line.decided_by),
            rank=rank_title(line.rank),
            rating=line.rating.displayed if line.rating else None,
            mu=line.rating.mu if line.rating else None,
            sigma=line.rating.sigma if line.rating else None,
        )
        for line in table.lines
    ]
    return LeagueStandings(
        league=league,
        tournaments=visible,
        counted=table.counted,
        lines=lines,
        ranks=[
            RankLine(
                r.player.display_name, rank_title(r.rank) or "—", r.pogony_received, r.pogony_given
            )
            for r in records
        ],
        error=table.error,
    )


# --- the views ------------------------------------------------------------------------------------


def visible_or_refused(
    model_admin: admin.ModelAdmin[_M], request: HttpRequest, object_id: str
) -> _M:
    """The object ``object_id`` as the admin's own pages find it: a 404 if there is none or it
    is outside its user's scope (the admin's ``get_object`` over the scoped queryset, so that
    another organiser's event cannot be told from a missing one), a 403 if its user sees it
    but lacks the model's view permission."""
    obj = model_admin.get_object(request, object_id)
    if obj is None:  # ConsoleAdmin.get_object raises the 404 itself; any other admin returns None
        raise Http404(gettext("There is no such object."))
    if not model_admin.has_view_permission(request, obj):
        raise PermissionDenied
    return obj


def _render(
    model_admin: admin.ModelAdmin[Any],
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
) -> HttpResponse:
    site = model_admin.admin_site
    opts = model_admin.model._meta
    request.current_app = site.name
    return TemplateResponse(
        request,
        template,
        {**site.each_context(request), "opts": opts, "app_label": opts.app_label, **context},
    )


def tournament_progress_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest, object_id: str
) -> HttpResponse:
    """The progress page of the tournament ``object_id`` (a page to read: GET and HEAD)."""
    tournament = visible_or_refused(model_admin, request, object_id)
    progress = tournament_progress(tournament, user=request.user)
    return _render(
        model_admin,
        request,
        TOURNAMENT_TEMPLATE,
        {
            "title": gettext("Progress of %(name)s") % {"name": tournament.name},
            "subtitle": None,
            "original": tournament,
            "progress": progress,
        },
    )


def tournament_recompute_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest, object_id: str
) -> HttpResponse:
    """POST: run the end-of-event jobs of the tournament ``object_id`` again
    (``services.failures.tournament_awards_recompute``, which checks that its user organises or
    referees it), then back to its progress page with what came of it. An event out of the
    user's scope is a 404, as its progress page."""
    tournament = visible_or_refused(model_admin, request, object_id)
    awards_recompute(request, tournament)
    return HttpResponseRedirect(
        reverse("admin:tournaments_tournament_progress", args=[tournament.pk])
    )


def awards_recompute(request: HttpRequest, tournament: Tournament) -> None:
    """Run ``tournament``'s end-of-event jobs again as ``request``'s user
    (``services.failures.tournament_awards_recompute``) and say what came of it in a message;
    a user who may not is a 403."""
    try:
        left = tournament_awards_recompute(tournament=tournament, actor=request.user)
    except Forbidden:
        raise PermissionDenied from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if left:
            messages.warning(
                request,
                gettext("Recomputed; still failing: %(jobs)s.")
                % {"jobs": ", ".join(str(f.get_job_display()) for f in left)},
            )
        else:
            messages.success(
                request, gettext("The places, prize pool, ranks and ratings are computed.")
            )


class AwardsStateFilter(admin.SimpleListFilter):
    """The console's tournament list by the state of their awards: a finished event whose
    places, prize pool, ranks or ratings failed or are missing is found in one click."""

    title = _("awards")
    parameter_name = "awards"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]
    ) -> list[tuple[str, Any]]:
        return [
            (AwardsState.FAILED, _("Failed")),
            (AwardsState.MISSING, _("Missing")),
            ("problem", _("Failed or missing")),
            (AwardsState.COMPLETE, _("Complete")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value:
            return queryset
        states = [AwardsState.FAILED, AwardsState.MISSING] if value == "problem" else [value]
        # A lookup on the annotation (a name the type checker's model of Tournament lacks).
        if "awards_state" not in queryset.query.annotations:
            queryset = selectors.with_awards_state(queryset)
        return queryset.filter(Q(("awards_state__in", states)))


AWARDS_STATE_LABELS: dict[str, Any] = {
    AwardsState.FAILED: _("Failed"),
    AwardsState.MISSING: _("Missing"),
    AwardsState.COMPLETE: _("Complete"),
}


def awards_state_label(state: str) -> str:
    """The list column's words for ``awards_state`` ("" while the event has not finished)."""
    label = AWARDS_STATE_LABELS.get(state)
    return "" if label is None else str(label)


def league_table_view(
    model_admin: admin.ModelAdmin[League], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the league table of the league ``object_id``."""
    league = visible_or_refused(model_admin, request, object_id)
    return _render(
        model_admin,
        request,
        LEAGUE_TEMPLATE,
        {
            "title": gettext("League table of %(name)s") % {"name": league},
            "subtitle": None,
            "original": league,
            "standings": league_table_page(league, user=request.user),
        },
    )
