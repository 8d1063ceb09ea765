"""What an overlay shows of a tournament now, in one read: the current stage and round, the
stage's standings, the tables in play with their games and series scores, the prize pool, and
once the tournament has finished its final places with the payouts. A bounded number of queries
whatever the event's size (about a dozen; a test counts them), each part read by the selector
every other face reads it with (``standings``, ``tables``, ``places``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tournaments.models import PrizePool, Round, Stage, Table, Tournament
from tournaments.selectors.places import FinalPlaces, final_places
from tournaments.selectors.standings import StandingLine, stage_standings
from tournaments.selectors.tables import TableFacts, tables_facts
from tournaments.wording import stage_names


@dataclass(frozen=True)
class Overlay:
    stage: Stage | None  # the stage in play, else the last one begun, else the first
    stage_name: str
    round: Round | None  # of ``stage``: the round in play, else the last one paired
    standings: list[StandingLine]  # ``stage``'s (none for a knockout or a pending stage)
    tables: list[TableFacts]  # ``round``'s tables in play, by number
    pool: PrizePool | None  # as last computed
    final: FinalPlaces | None  # once the tournament has finished


def _current_stage(stages: list[Stage]) -> Stage | None:
    playing = [s for s in stages if s.status == Stage.Status.RUNNING]
    if playing:
        return playing[0]
    begun = [s for s in stages if s.status != Stage.Status.PENDING]
    if begun:
        return begun[-1]
    return stages[0] if stages else None


def _current_round(rounds: list[Round]) -> Round | None:
    playing = [r for r in rounds if r.status == Round.Status.PLAYING]
    if playing:
        return playing[-1]
    paired = [r for r in rounds if r.status != Round.Status.PENDING]
    return paired[-1] if paired else None


def overlay(tournament: Tournament) -> Overlay:
    """``tournament`` as an overlay shows it now (see the module)."""
    stages = list(tournament.stages.order_by("order"))
    stage = _current_stage(stages)
    round_ = None
    tables: list[TableFacts] = []
    standings: list[StandingLine] = []
    name = ""
    if stage is not None:
        name = stage_names(stages)[stage.order]
        round_ = _current_round(list(stage.rounds.order_by("number")))
        standings = stage_standings(stage)
    if round_ is not None and round_.status == Round.Status.PLAYING:
        tables = tables_facts(
            round_.tables.filter(status=Table.Status.PLAYING, is_bye=False).order_by("number")
        )
    finished = tournament.status == Tournament.Status.FINISHED
    return Overlay(
        stage=stage,
        stage_name=name,
        round=round_,
        standings=standings,
        tables=tables,
        pool=PrizePool.objects.filter(tournament=tournament).first(),
        final=final_places(tournament) if finished else None,
    )
