"""Pure pairing and seeding for tournaments: standard library only, no Django.

The DB layer loads entries and earlier rounds into the plain objects of `models`, calls one of
the functions below and saves what comes back (Tabbycat's draw generator / manager split).
`PairingError` is for the referee; assertions mean a bug here.
"""

from .advance import StandingRow, top_overall, top_per_group
from .check import repeat_free_seating, repeat_pairs
from .config import AdvanceRule, StageConfig, StageFormat, stage_problems, validate_stages
from .errors import ConfigError, PairingError
from .knockout import (
    Bracket,
    BracketTable,
    Feed,
    TableRef,
    bracket_order,
    build_bracket,
    next_round_seating,
    snake_deal,
    validate_knockout,
)
from .models import (
    Compromise,
    CompromiseKind,
    Entry,
    History,
    HistoryRound,
    Pairing,
    Table,
    balanced_table_sizes,
)
from .round_robin import (
    RoundRobinSchedule,
    group_count,
    group_name,
    round_robin,
    snake_groups,
)
from .swiss import SwissOptions, pair_swiss, rank_entries, repeat_cost, table_compromises
from .teams import team_seating

__all__ = [
    "AdvanceRule",
    "Bracket",
    "BracketTable",
    "Compromise",
    "CompromiseKind",
    "ConfigError",
    "Entry",
    "Feed",
    "History",
    "HistoryRound",
    "Pairing",
    "PairingError",
    "RoundRobinSchedule",
    "StageConfig",
    "StageFormat",
    "StandingRow",
    "SwissOptions",
    "Table",
    "TableRef",
    "balanced_table_sizes",
    "bracket_order",
    "build_bracket",
    "group_count",
    "group_name",
    "next_round_seating",
    "pair_swiss",
    "rank_entries",
    "repeat_cost",
    "repeat_free_seating",
    "repeat_pairs",
    "round_robin",
    "snake_deal",
    "snake_groups",
    "stage_problems",
    "table_compromises",
    "team_seating",
    "top_overall",
    "top_per_group",
    "validate_knockout",
    "validate_stages",
]
