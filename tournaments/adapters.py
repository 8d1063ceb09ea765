"""Rows to the pure domain objects and back: the thin bridge around ``pairing`` and ``scoring``.

Nothing here decides anything: it only translates, so that the pure code stays testable without
a database and the services stay short.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from games.engine.errors import RulesError
from games.engine.rules import Rules
from tournaments.models import Stage, Tournament
from tournaments.pairing.config import AdvanceRule, StageConfig, StageFormat
from tournaments.scoring.points import ScoringConfig
from tournaments.scoring.prizes import PayoutStructure, PoolRules, currency


def stage_config(stage: Stage, *, team_size: int = 1) -> StageConfig:
    advance: AdvanceRule | None = None
    if stage.advance_mode == Stage.AdvanceMode.TOP_N:
        advance = AdvanceRule(top=stage.advance_count)
    elif stage.advance_mode == Stage.AdvanceMode.TOP_K_PER_TABLE:
        advance = AdvanceRule(per_group=stage.advance_count)
    return StageConfig(
        format=StageFormat(stage.format),
        table_size=stage.table_size,
        team_size=team_size,
        rounds=stage.rounds_planned,
        groups=stage.groups,
        advance_per_table=stage.knockout_advance,
        advance=advance,
    )


def scoring_config(stage: Stage) -> ScoringConfig:
    scoring: dict[str, Any] = stage.scoring or {}
    tables = {int(size): tuple(values) for size, values in scoring.get("tables", {}).items()}
    kwargs: dict[str, Any] = {"tables": tables}
    if "fool_pogony_penalty" in scoring:
        kwargs["fool_pogony_penalty"] = scoring["fool_pogony_penalty"]
    if "bye_points" in scoring:
        kwargs["bye_points"] = scoring["bye_points"]
    if stage.tiebreaks:
        kwargs["tie_breaks"] = tuple(stage.tiebreaks)
    return ScoringConfig(**kwargs)


def pool_rules(tournament: Tournament) -> PoolRules:
    return PoolRules(
        currency=currency(tournament.currency),
        rake_percent=Decimal(tournament.rake_percent),
        guaranteed_minimum=Decimal(tournament.guarantee) if tournament.guarantee else None,
        re_entries=bool(tournament.reentry_fee),
    )


def payout_structure(tournament: Tournament, field_size: int) -> PayoutStructure:
    if tournament.payout_structure:
        return PayoutStructure.from_percentages([str(p) for p in tournament.payout_structure])
    return PayoutStructure.default(field_size)


def table_rules(tournament: Tournament, seats: int, *, teams: bool = False) -> Rules:
    """The engine rules of one table: the tournament's options for ``seats`` players."""
    options = dict(tournament.rules or {})
    options["players"] = seats
    if teams:
        options["teams"] = [list(range(0, seats, 2)), list(range(1, seats, 2))]
    return Rules.from_dict(options)


def table_rules_problems(
    tournament: Tournament, seats: int, *, teams: bool = False
) -> list[RulesError]:
    """Every problem of the tournament's options at a table of ``seats`` (``Rules.problems``)."""
    options = dict(tournament.rules or {})
    options["players"] = seats
    if teams:
        options["teams"] = [list(range(0, seats, 2)), list(range(1, seats, 2))]
    return Rules.problems(options)
