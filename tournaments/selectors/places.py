"""A tournament's final places: the one builder the console's progress page, the API (and its
exports) and the public pages read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.db.models import Exists, Max, OuterRef, QuerySet, TextChoices
from django.utils.translation import pgettext_lazy

from tournaments import adapters
from tournaments.models import (
    Entry,
    Payout,
    RankRecord,
    Stage,
    StageEntry,
    TableResult,
    TeamMember,
    Tournament,
)
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.points import totals
from tournaments.scoring.results import TableResult as PureResult
from tournaments.scoring.results import effective_results
from tournaments.selectors import pure_result, result_values
from tournaments.selectors.standings import StandingLine, collector_paused
from tournaments.values import frozen


class FinalStatus(TextChoices):
    """How an entry ended the event (``docs/leaving.md``), from its ``Entry.status`` once the
    event is over: an entry still registered or checked in then has played to the end."""

    FINISHED = "finished", pgettext_lazy("final status", "Played to the end")
    ELIMINATED = "eliminated", pgettext_lazy("final status", "Did not advance from a stage")
    WITHDRAWN = "withdrawn", pgettext_lazy("final status", "Withdrawn after the start")
    DISQUALIFIED = "disqualified", pgettext_lazy("final status", "Disqualified")


def final_status(status: str) -> FinalStatus:
    """An entry's ``Entry.status`` at the end as its :class:`FinalStatus`.

    >>> final_status("checked_in"), final_status("withdrawn")
    (FinalStatus.FINISHED, FinalStatus.WITHDRAWN)
    """
    if status in Entry.ACTIVE:
        return FinalStatus.FINISHED
    return FinalStatus(status)


@dataclass(frozen=True)
class FinalPlace:
    place: int  # competition ranking (1, 2, 2, 4)
    entry_id: int
    player_id: int | None  # an individual event's player
    team_id: int | None  # a team event's team
    name: str
    status: FinalStatus
    # The points of its results in the stage it left (``stage``): the stage whose order placed
    # it. A swiss or round-robin stage: its standings' points; a knockout: what its tables there
    # scored by the stage's scoring (byes and walkovers their bye points). 0 without a result.
    points: Fraction
    stage: int | None  # the order of the stage it left (its last); None: it had none
    pogony_given: int
    pogony_received: int
    rank: str  # the rank (звание) earned here; "" for a team (its members each have theirs)
    payout: Decimal | None  # None: paid nothing


@dataclass(frozen=True)
class FinalPlaces:
    lines: list[FinalPlace]  # by place
    paid_out: Decimal  # every payout of the tournament, added up


def field_entries(tournament: Tournament) -> QuerySet[Entry]:
    """The entries of ``tournament``'s field: every entry that started. Before the start, every
    entry not withdrawn (the provisional field)."""
    entries = Entry.objects.filter(tournament=tournament)
    started = tournament.started_at is not None or tournament.status in (
        Tournament.Status.RUNNING,
        Tournament.Status.FINISHED,
    )
    if not started:
        return entries.exclude(status=Entry.Status.WITHDRAWN)
    # EXISTS, not a join made distinct: counting a 10,000-entry field took a third longer.
    return entries.filter(Exists(StageEntry.objects.filter(entry=OuterRef("pk"))))


def stage_points(
    stages: Iterable[Stage], results: Iterable[Sequence[Any]]
) -> dict[int, dict[int, Fraction]]:
    """Points by stage order, then by entry, from ``results`` (``RESULT_FIELDS`` values, each
    followed by its stage's order; confirmed ones, corrections with them): every stage's
    results in force, scored by that stage's scoring. A stage whose stored scoring the scoring
    refuses scores nothing."""
    by_stage: dict[int, list[PureResult]] = {}
    for *fields, stage_order in results:
        by_stage.setdefault(stage_order, []).append(pure_result(fields))
    points: dict[int, dict[int, Fraction]] = {}
    for stage in stages:
        tally = points.setdefault(stage.order, {})
        try:
            config = adapters.scoring_config(stage)
            in_force = effective_results(by_stage.get(stage.order, []))
            for entry, value in totals(in_force, config).items():
                tally[int(entry)] = value
        except ScoringError:
            continue
    return points


def final_places(
    tournament: Tournament, standings: Mapping[int, Iterable[StandingLine]] | None = None
) -> FinalPlaces:
    """The final places with the entry's final status, its points in the stage it left,
    pogony, rank (звание) and payout: at most eight queries, however many entries.
    ``standings``: stages' standings the caller has built already (``stage_standings``, by
    stage order): their points are theirs (the same scoring over the same results), the
    stages' results not read and scored again (the tournament page shows both)."""
    with collector_paused():  # a line per entry, and the results scored
        placed = list(_placed(tournament))
        lines, prizes = _final_lines(tournament, dict(standings or {}), placed, None)
        return FinalPlaces(lines, sum(prizes.values(), Decimal(0)))


@dataclass(frozen=True)
class FinalPlacesPage:
    """A page of :func:`final_places` (:func:`final_places_page`)."""

    lines: list[FinalPlace]  # the page's, by place
    podium: list[FinalPlace]  # every line placed 1 to 3, by place
    paid_out: Decimal  # every payout of the tournament, added up
    # How many stages the placed entries left (an entry without a stage counts as one): at 1,
    # every line's points are of the same stage.
    stages_left: int


def final_places_page(
    tournament: Tournament,
    start: int,
    stop: int,
    standings: Mapping[int, Iterable[StandingLine]] | None = None,
) -> FinalPlacesPage:
    """The lines ``start``..``stop`` (from 0; :func:`final_count` of them in all) of
    :func:`final_places` and those placed 1 to 3, the amount paid out and the stages left,
    counted in the database: a page of a 10,000-entry event reads its lines, not 10,000 (the
    public pages show one). ``standings``: as :func:`final_places`'."""
    placed = _placed(tournament)
    page = list(placed[start:stop]) if stop > start else []
    podium = list(placed.filter(final_place__lte=3))
    shown = page + podium
    with collector_paused():  # the results scored, when no standings are given
        lines, _ = _final_lines(tournament, dict(standings or {}), shown, {row[0] for row in shown})
    left = (
        Entry.objects.filter(tournament=tournament, final_place__isnull=False)
        .annotate(left=Max("stage_entries__stage__order"))
        .values("left")
        .distinct()
    )
    return FinalPlacesPage(
        lines=lines[: len(page)],
        podium=lines[len(page) :],
        paid_out=_paid_out(tournament),
        stages_left=left.count(),
    )


def final_count(tournament: Tournament) -> int:
    """How many lines :func:`final_places` has: the entries placed."""
    return Entry.objects.filter(tournament=tournament, final_place__isnull=False).count()


def _placed(tournament: Tournament) -> QuerySet[Entry, tuple[Any, ...]]:
    """The placed entries by place, as the values :func:`_final_lines` reads."""
    # Values, not instances: 10,000 entries with their players were a third of the answer.
    return (
        Entry.objects.filter(tournament=tournament, final_place__isnull=False)
        .order_by("final_place", "pk")
        .values_list(
            "pk",
            "final_place",
            "player_id",
            "team_id",
            "status",
            "player__display_name",
            "team__name",
        )
    )


def _paid_out(tournament: Tournament) -> Decimal:
    """Every payout of ``tournament`` added up (in Python: SQLite adds decimals as floats)."""
    amounts = Payout.objects.filter(tournament=tournament).values_list("amount", flat=True)
    return sum(amounts, Decimal(0))


def _final_lines(
    tournament: Tournament,
    known: Mapping[int, Iterable[StandingLine]],
    placed: list[tuple[Any, ...]],
    only: set[int] | None,
) -> tuple[list[FinalPlace], dict[int, Decimal]]:
    """The lines of the ``placed`` entries (:func:`_placed`'s values), and the payouts read by
    entry; ``only``: their ids, whose stages, payouts and rank records alone are read (None:
    every entry's)."""
    stages = [s for s in tournament.stages.all() if s.order not in known]
    points: dict[int, dict[int, Fraction]] = {
        order: {line.entry_id: line.points for line in lines} for order, lines in known.items()
    }
    if stages:
        results = result_values(
            TableResult.objects.filter(table__round__stage__in=stages).counted().order_by("id"),
            "table__round__stage__order",
        )
        points |= stage_points(stages, results)
    stage_entries = StageEntry.objects.filter(stage__tournament=tournament)
    payouts = Payout.objects.filter(tournament=tournament)
    ranks = RankRecord.objects.filter(tournament=tournament)
    # One filter() on the members' team's entries: one join (two would pair any two).
    of_team: dict[str, Any] = {"team__entries__tournament": tournament}
    if only is not None:
        stage_entries = stage_entries.filter(entry_id__in=only)
        payouts = payouts.filter(entry_id__in=only)
        of_team["team__entries__in"] = only
    team_members = TeamMember.objects.filter(**of_team)
    members: dict[int, list[int]] = {}
    if tournament.is_team_event:
        for team_id, player_id in team_members.values_list("team_id", "player_id"):
            members.setdefault(team_id, []).append(player_id)
    if only is not None:
        players = {row[2] for row in placed if row[2]}
        ranks = ranks.filter(player_id__in=players.union(*members.values()))
    left: dict[int, int] = {}
    for entry_id, order in stage_entries.values_list("entry_id", "stage__order"):
        left[entry_id] = max(order, left.get(entry_id, 0))
    prizes: dict[int, Decimal] = {}
    for entry_id, amount in payouts.values_list("entry_id", "amount"):
        prizes[entry_id] = prizes.get(entry_id, Decimal(0)) + amount
    # Values, not instances (10,000 rank records were a third of the answer): by player,
    # (rank, pogony given, pogony received).
    records: dict[int, tuple[str, int, int]] = {
        player: (rank, given, received)
        for player, rank, given, received in ranks.values_list(
            "player_id", "rank", "pogony_given", "pogony_received"
        )
    }
    statuses = {status: final_status(status) for status in {row[4] for row in placed}}
    zero = Fraction(0)
    lines = []
    for entry_id, place, player_id, team_id, status, player_name, team_name in placed:
        if player_id:
            rank, given, received = records.get(player_id, ("", 0, 0))
        else:  # a team: its members' pogony, no rank of its own
            own = [records[p] for p in members.get(team_id or 0, []) if p in records]
            rank, given, received = "", sum(r[1] for r in own), sum(r[2] for r in own)
        stage = left.get(entry_id)
        lines.append(
            frozen(  # FinalPlace(...), its fields written at once: 10,000 of them
                FinalPlace,
                {
                    "place": place or 0,
                    "entry_id": entry_id,
                    "player_id": player_id,
                    "team_id": team_id,
                    # Entry.name: the player's, else the team's.
                    "name": player_name if player_id else team_name,
                    "status": statuses[status],
                    "points": points.get(stage or 0, {}).get(entry_id, zero),
                    "stage": stage,
                    "pogony_given": given,
                    "pogony_received": received,
                    "rank": rank,
                    "payout": prizes.get(entry_id),
                },
            )
        )
    return lines, prizes
