"""Reads of the tournament domain: standings are derived from results here, never stored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.utils.translation import gettext

from tournaments import adapters
from tournaments.models import (
    Entry,
    Round,
    Seat,
    Stage,
    StageEntry,
    Table,
    TableResult,
    Tournament,
)
from tournaments.permissions import tournaments_for
from tournaments.scoring import points as scoring_points
from tournaments.scoring.results import Pogony, effective_results
from tournaments.scoring.results import TableResult as PureResult


def effective_result(table: Table) -> TableResult | None:
    """The table's result in force: the newest confirmed one of its correction chain (a result
    waiting for a second referee, or rejected by one, does not count)."""
    return TableResult.objects.filter(table=table).effective().order_by("-id").first()


def result_entry_ids(result: TableResult) -> list[int]:
    """Every entry a result names: places, drawn, the losing team, pogony, the fool."""
    hung = [i for h in result.pogony or [] for i in [h.get("by"), *h.get("on", [])]]
    ids = [*result.places, *result.drawn, *result.team_lost, *hung, result.fool_entry_id]
    return [int(i) for i in ids if isinstance(i, int)]


@dataclass(frozen=True)
class NamedResult:
    """A result with entries' names for ids, as people read it."""

    places: list[str]  # first out first
    fool: str  # "" on a draw
    drawn: list[str]
    team_lost: list[str]
    pogony: list[str]  # "Ann on Bob (6)"


def named_result(result: TableResult, names: Mapping[int, str]) -> NamedResult:
    """``result`` with the ``names`` of its entries (``result_entry_ids``; an unknown id shows
    as ``#id``)."""

    def name(entry: Any) -> str:
        return names.get(entry, f"#{entry}")

    return NamedResult(
        places=[name(e) for e in result.places],
        fool=name(result.fool_entry_id) if result.fool_entry_id else "",
        drawn=[name(e) for e in result.drawn],
        team_lost=[name(e) for e in result.team_lost],
        pogony=[
            gettext("%(by)s on %(on)s (%(rank)s)")
            % {
                "by": name(h.get("by")),
                "on": ", ".join(name(e) for e in h.get("on", [])),
                "rank": "10" if h.get("rank") == "T" else h.get("rank", "—"),
            }
            for h in result.pogony or []
            if isinstance(h, dict)
        ],
    )


def to_pure_result(result: TableResult) -> PureResult:
    """A stored result as the scoring code's value (entries as strings)."""
    pogony = None
    entries = {str(e) for e in result.places}
    fool = str(result.fool_entry_id) if result.fool_entry_id else None
    for hung in result.pogony or []:
        # The table's scoring pogony: the one hung on the table's fool (the last one wins).
        on = tuple(str(e) for e in hung["on"] if str(e) in entries)
        if fool is not None and fool in on and str(hung["by"]) in entries:
            pogony = Pogony(by=str(hung["by"]), on=on, rank=str(hung.get("rank", "")))
    return PureResult(
        id=str(result.pk),
        places=tuple(str(e) for e in result.places),
        fool=fool,
        drawn=tuple(str(e) for e in result.drawn),
        pogony=pogony,
        team_lost=tuple(str(e) for e in result.team_lost),
        supersedes=str(result.supersedes_id) if result.supersedes_id else None,
        reason=result.reason,
    )


def stage_results(stage: Stage) -> list[PureResult]:
    rows = TableResult.objects.filter(table__round__stage=stage).counted().order_by("id")
    return effective_results([to_pure_result(r) for r in rows])


def stage_entry_ids(stage: Stage) -> list[int]:
    """The stage's entries in seed order."""
    return list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )


def stage_standings(stage: Stage) -> list[scoring_points.StandingRow]:
    """The stage's standings from its effective results, tie-broken as configured."""
    return scoring_points.standings(
        stage_results(stage),
        adapters.scoring_config(stage),
        seed=f"{stage.tournament.seed}:{stage.order}",
        entries=[str(e) for e in stage_entry_ids(stage)],
    )


def tournament_history(stage: Stage, *, before: Round | None = None) -> list[list[list[int]]]:
    """Every earlier round of the whole tournament as seat-ordered tables of entry ids."""
    rounds = Round.objects.filter(stage__tournament=stage.tournament).exclude(
        status=Round.Status.PENDING
    )
    if before is not None:
        rounds = rounds.exclude(pk=before.pk)
    out: list[list[list[int]]] = []
    for rnd in rounds.order_by("stage__order", "number").prefetch_related(
        Prefetch("tables", queryset=Table.objects.filter(is_bye=False).order_by("number")),
        Prefetch("tables__seats", queryset=Seat.objects.order_by("position")),
    ):
        tables = []
        for table in rnd.tables.all():
            ids: list[int] = []
            for seat in table.seats.all():
                if seat.entry_id not in ids:
                    ids.append(seat.entry_id)
            if len(ids) > 1:
                tables.append(ids)
        out.append(tables)
    return out


def round_tables(round_: Round) -> QuerySet[Table]:
    return round_.tables.order_by("number").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("entry", "player"))
    )


def entries_by_id(ids: Iterable[int]) -> dict[int, Entry]:
    return Entry.objects.select_related("player", "team").in_bulk(list(ids))


def entry_names(ids: Iterable[int]) -> dict[int, str]:
    """Entries' names (player or team) by id, in one query."""
    return {pk: entry.name for pk, entry in entries_by_id(set(ids)).items()}


@dataclass(frozen=True)
class StandingLine:
    position: int
    rank: int
    name: str
    points: str
    played: int
    first_places: int
    fools: int


@dataclass(frozen=True)
class TournamentOverview:
    tournament: Tournament
    stage: Stage | None
    round: Round | None
    tables: list[Table]
    standings: list[StandingLine]


def tournaments_visible_to(user: Any) -> QuerySet[Tournament]:
    """The tournaments ``user`` may read on the public faces (the pages, the API): the public
    ones that are out of draft; a private one, or a draft, only for those who see it in the
    console (its organiser, its referees) and its own players."""
    public = Q(is_public=True) & ~Q(status=Tournament.Status.DRAFT)
    if user is None or not user.is_authenticated:
        return Tournament.objects.filter(public)
    if getattr(user, "is_superuser", False):
        return Tournament.objects.all()
    own = Entry.objects.filter(Q(player__user=user) | Q(team__members__user=user))
    return Tournament.objects.filter(
        public
        | Q(pk__in=tournaments_for(user).values("pk"))
        | Q(pk__in=own.values("tournament_id"))
    )


def tournament_visible_to(tournament: Tournament, user: Any) -> bool:
    """Whether ``user`` may read ``tournament`` (:func:`tournaments_visible_to`)."""
    return tournaments_visible_to(user).filter(pk=tournament.pk).exists()


def current_stage(tournament: Tournament) -> Stage | None:
    """The running stage, else the last one that has started, else the first."""
    stages = list(tournament.stages.order_by("order"))
    running = [s for s in stages if s.status == Stage.Status.RUNNING]
    started = [s for s in stages if s.status != Stage.Status.PENDING]
    candidates = running or started[-1:] or stages[:1]
    return candidates[0] if candidates else None


def tournament_overview(*, slug: str, user: Any) -> TournamentOverview | None:
    """The tournament page's data, or None if there is no such tournament for ``user``."""
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None or not tournament_visible_to(tournament, user):
        return None
    stage = current_stage(tournament)
    round_ = None if stage is None else stage.rounds.order_by("-number").first()
    tables = list(round_tables(round_)) if round_ is not None else []
    standings: list[StandingLine] = []
    if stage is not None and stage.status != Stage.Status.PENDING:
        rows = stage_standings(stage)
        names = entries_by_id(int(r.entry) for r in rows)
        standings = [
            StandingLine(
                position=r.position,
                rank=r.rank,
                name=names[int(r.entry)].name if int(r.entry) in names else r.entry,
                points=_number(r.points),
                played=r.played,
                first_places=r.first_places,
                fools=r.fools,
            )
            for r in rows
        ]
    return TournamentOverview(tournament, stage, round_, tables, standings)


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):.2f}"


def public_tournaments(limit: int = 30) -> list[tuple[str, list[Tournament]]]:
    """Public tournaments grouped by status for the front page, newest first in each group."""
    order = [
        Tournament.Status.RUNNING,
        Tournament.Status.REGISTRATION,
        Tournament.Status.FINISHED,
    ]
    rows = Tournament.objects.filter(is_public=True, status__in=order).order_by("-created_at")
    return [(status, list(rows.filter(status=status)[:limit])) for status in order]


def table_with_tournament(table_id: int) -> Table:
    return Table.objects.select_related("round__stage__tournament").get(pk=table_id)
