"""A stage's standings: the one builder every face reads (the console's progress page, the API,
the public pages), and the scoring's rows the services decide who goes on by.

Derived from the stage's confirmed results, never stored; a few queries per stage, none per
entry or table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tournaments import adapters
from tournaments.models import Stage, StageEntry, TableResult
from tournaments.scoring import points as scoring_points
from tournaments.scoring.results import TableResult as PureResult
from tournaments.scoring.results import effective_results
from tournaments.selectors import stage_entry_ids, stage_results, to_pure_result


@dataclass(frozen=True)
class StandingLine:
    """One line of a stage's standings, every tie-break value with it (exact points: the faces
    round them as they show them)."""

    position: int  # strict (1, 2, 3, ...) after the seeded draw
    place: int  # shared by entries tied on every tie-break (1, 2, 2, 4)
    entry_id: int
    name: str
    points: Fraction
    played: int
    byes: int
    first_places: int
    fools: int
    buchholz: Fraction
    head_to_head: Fraction | None  # only for entries whose tie reached this criterion
    decided_by: str  # the criterion that put it below the line before ("draw"); "" on the first
    pogony_given: int
    pogony_received: int
    player_id: int | None = None  # the entry's player; None for a team


def stage_tie_breaks(stage: Stage) -> list[str]:
    """The stage's tie-breaks in the order they apply (points first; a seeded draw last)."""
    order = [str(c) for c in stage.tiebreaks or scoring_points.DEFAULT_TIE_BREAKS]
    return order if "points" in order else ["points", *order]


def has_standings(stage: Stage) -> bool:
    """A knockout stage, or one that has not begun, has no standings (its bracket tells)."""
    return stage.format != Stage.Format.KNOCKOUT and stage.status != Stage.Status.PENDING


def _scored(
    stage: Stage, results: list[PureResult], entry_ids: Iterable[int]
) -> list[scoring_points.StandingRow]:
    return scoring_points.standings(
        results,
        adapters.scoring_config(stage),
        seed=f"{stage.tournament.seed}:{stage.order}",
        entries=[str(e) for e in entry_ids],
    )


def standing_rows(stage: Stage) -> list[scoring_points.StandingRow]:
    """The scoring's rows of the stage (entries as strings), tie-broken as configured: what the
    services advance, place and pair by."""
    return _scored(stage, stage_results(stage), stage_entry_ids(stage))


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _pogony_counts(rows: Iterable[TableResult]) -> tuple[dict[int, int], dict[int, int]]:
    """Pogony given (one per entry hung on) and received, by entry, over ``rows``."""
    given: dict[int, int] = {}
    received: dict[int, int] = {}
    for result in rows:
        for hung in result.pogony or []:
            if not isinstance(hung, dict):
                continue
            on = [e for e in (_int(x) for x in hung.get("on", [])) if e is not None]
            by = _int(hung.get("by"))
            if by is not None:
                given[by] = given.get(by, 0) + len(on)
            for entry in on:
                received[entry] = received.get(entry, 0) + 1
    return given, received


def stage_standings(stage: Stage) -> list[StandingLine]:
    """The stage's standings with every tie-break value, the entries' names and the pogony each
    gave and received: two queries (three if ``stage`` came without its tournament). Empty for
    a stage without standings (:func:`has_standings`)."""
    if not has_standings(stage):
        return []
    stored = _stored(stage)
    return _lines(stage, stored, _stage_entries(stage))


def standings_change(stage: Stage, result_id: int) -> tuple[list[StandingLine], list[StandingLine]]:
    """The stage's standings before and after the result ``result_id`` (a table's first result
    or a correction, already stored and confirmed) took effect: the feed's moved rows. The
    queries of :func:`stage_standings`, whatever the stage's size; two empty lists for a stage
    without standings."""
    if not has_standings(stage):
        return [], []
    stored = _stored(stage)
    entries = _stage_entries(stage)
    before = _lines(stage, [r for r in stored if r.pk != result_id], entries)
    return before, _lines(stage, stored, entries)


def _stored(stage: Stage) -> list[TableResult]:
    return list(TableResult.objects.filter(table__round__stage=stage).counted().order_by("id"))


def _stage_entries(stage: Stage) -> list[StageEntry]:
    return list(
        StageEntry.objects.filter(stage=stage)
        .order_by("seed")
        .select_related("entry__player", "entry__team")
    )


def _lines(
    stage: Stage, stored: list[TableResult], entries: list[StageEntry]
) -> list[StandingLine]:
    pure = effective_results([to_pure_result(r) for r in stored])
    in_force = {int(r.id) for r in pure}
    given, received = _pogony_counts(r for r in stored if r.pk in in_force)
    names = {se.entry_id: se.entry.name for se in entries}
    players = {se.entry_id: se.entry.player_id for se in entries}
    lines = []
    for row in _scored(stage, pure, (se.entry_id for se in entries)):
        entry = int(row.entry)
        lines.append(
            StandingLine(
                position=row.position,
                place=row.rank,
                entry_id=entry,
                name=names.get(entry, f"#{entry}"),
                points=row.points,
                played=row.played,
                byes=row.byes,
                first_places=row.first_places,
                fools=row.fools,
                buchholz=row.buchholz,
                head_to_head=row.head_to_head,
                decided_by=row.decided_by or "",
                pogony_given=given.get(entry, 0),
                pogony_received=received.get(entry, 0),
                player_id=players.get(entry),
            )
        )
    return lines
