"""What a plan would do, before anything is stored: the tables of each stage's rounds and the
provisional payouts by place, for an expected number of entries.

Computed here, from the pure pairing and scoring packages, on the unsaved rows of a plan
(``services.plans.plan_rows``); the console's plan page only words them (``console.plan``).
Nothing is read from or written to the database.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Literal

from tournaments import adapters, plan_words
from tournaments.errors import ConfigurationError
from tournaments.models import Stage, Tournament
from tournaments.pairing import (
    ConfigError,
    PairingError,
    balanced_table_sizes,
    build_bracket,
    round_robin,
    snake_groups,
    stage_problems,
)
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.prizes import Payment, compute_prizes

__all__ = [
    "PayoutPlace",
    "PayoutPreview",
    "RoundSeating",
    "StageSeating",
    "payout_preview",
    "plan_seating",
    "preview_fields",
    "smallest_field",
    "stage_seating",
]

# Round-robin groups up to this size get their schedule built for the preview (32: 0.1 s);
# larger ones show the fewest rounds any schedule needs.
SCHEDULED_GROUP = 32


@dataclass(frozen=True)
class RoundSeating:
    """The tables of one round: ``kind`` "every" for every round of a swiss or round-robin
    stage (``groups``: a round robin's groups, else 0), "round" (``number``) or "final" for a
    knockout's rounds. ``sizes``: the seats (entries) at each table."""

    kind: Literal["every", "round", "final"]
    tables: int
    sizes: tuple[int, ...]
    byes: int = 0
    number: int = 0
    groups: int = 0


@dataclass(frozen=True)
class StageSeating:
    """A stage with ``entries`` entries: how many rounds it plays (``rounds``; the fewest any
    schedule needs when not ``rounds_exact``), its rounds' tables, how many go on (None: its
    final standings), or the pairing code's ``problem`` with it (then nothing else)."""

    order: int
    name: str
    format: str
    table_size: int
    entries: int
    rounds: int = 0
    rounds_exact: bool = True
    lines: tuple[RoundSeating, ...] = ()
    advancing: int | None = None
    problem: str = ""


@dataclass(frozen=True)
class PayoutPlace:
    place: int
    percent: Decimal
    amount: Decimal


@dataclass(frozen=True)
class PayoutPreview:
    currency: str
    entries: int
    gross: Decimal
    rake: Decimal
    topup: Decimal
    total: Decimal
    places: list[PayoutPlace]


# The field sizes a preview shows when no number of entries is expected: the fewest the plan
# can run with, then the first few of these above it.
USUAL_FIELDS = (8, 16, 32, 64, 128, 256)
# The fewest entries are looked for up to this many (a plan needing more is shown at none).
SMALLEST_FIELD_LIMIT = 4096


def smallest_field(
    tournament: Tournament, stages: Sequence[Stage], limit: int = SMALLEST_FIELD_LIMIT
) -> int | None:
    """The fewest entries every stage of the plan can be paired with (the pairing code's
    checks, ``stage_problems``), up to ``limit``; None: none up to it."""
    configs = [adapters.stage_config(s, team_size=tournament.team_size) for s in stages]
    return next((n for n in range(2, limit + 1) if not stage_problems(configs, n)), None)


def preview_fields(tournament: Tournament, stages: Sequence[Stage], count: int = 3) -> list[int]:
    """The field sizes to preview a plan at without an expected number: the fewest it can run
    with and ``count`` usual sizes above it (within the max entries); empty if it cannot run.

    >>> from tournaments.models import Stage, Tournament
    >>> swiss = Stage(order=1, format="swiss", table_size=4, rounds_planned=3)
    >>> preview_fields(Tournament(team_size=1), [swiss])
    [2, 8, 16, 32]
    """
    fewest = smallest_field(tournament, stages)
    if fewest is None:
        return []
    most = tournament.max_entries
    usual = [n for n in USUAL_FIELDS if n > fewest and (most is None or n <= most)]
    return [fewest, *usual[:count]]


def plan_seating(
    tournament: Tournament, stages: Sequence[Stage], entries: int
) -> list[StageSeating]:
    """Each stage in order with the entries the one before lets through, from ``entries``; stops
    after a stage whose advancing count is not known (its final standings, or a problem)."""
    shown: list[StageSeating] = []
    count: int | None = entries
    for stage in stages:
        if count is None:
            break
        seating = stage_seating(tournament, stage, count)
        shown.append(seating)
        count = seating.advancing
    return shown


def _seated(n: int, per_table: int) -> tuple[list[int], int]:
    """Table sizes and byes for ``n`` entries (a bye only when 2-seat tables meet an odd n)."""
    byes = 1 if n == 1 or (per_table == 2 and n % 2) else 0
    return balanced_table_sizes(n - byes, per_table), byes


def stage_seating(tournament: Tournament, stage: Stage, n: int) -> StageSeating:
    """The tables ``stage`` seats for ``n`` entries (``tournament``: its teams and seed)."""
    # Entries per table: players, or two teams at a team table.
    per_table = 2 if tournament.team_size > 1 else stage.table_size
    head = StageSeating(
        order=stage.order,
        name=stage.name,
        format=stage.format,
        table_size=stage.table_size,
        entries=n,
    )
    try:
        if stage.format == Stage.Format.SWISS:
            return _swiss(head, stage, n, per_table)
        if stage.format == Stage.Format.ROUND_ROBIN:
            return _round_robin(head, tournament, stage, n, per_table)
        return _knockout(head, stage, n, per_table)
    except ConfigError as exc:
        return replace(head, problem=plan_words.stage_problem(exc))
    except PairingError as exc:
        return replace(head, problem=plan_words.stage_problem(ConfigError(str(exc))))


def _advancing(stage: Stage, per_table_sizes: Sequence[int], groups: int) -> int | None:
    if stage.advance_mode == Stage.AdvanceMode.TOP_N:
        return stage.advance_count
    if stage.advance_mode == Stage.AdvanceMode.TOP_K_PER_TABLE:
        if stage.format == Stage.Format.ROUND_ROBIN:
            return stage.advance_count * groups
        return sum(min(stage.advance_count, size) for size in per_table_sizes)
    return None


def _swiss(head: StageSeating, stage: Stage, n: int, per_table: int) -> StageSeating:
    sizes, byes = _seated(n, per_table)
    line = RoundSeating("every", len(sizes), tuple(sizes), byes)
    return replace(
        head,
        rounds=stage.rounds_planned or 0,
        lines=(line,),
        advancing=_advancing(stage, sizes, 1),
    )


def _round_robin(
    head: StageSeating, tournament: Tournament, stage: Stage, n: int, per_table: int
) -> StageSeating:
    groups = snake_groups(list(range(n)), stage.groups or 1)
    sizes: list[int] = []
    byes = 0
    exact, fewest = 0, 0
    schedules: dict[int, int] = {}
    for group in groups:
        seated, bye = _seated(len(group), per_table)
        sizes += seated
        byes += bye
        fewest = max(fewest, -(-(len(group) - 1) // (per_table - 1)))
        if per_table == 2:
            # The circle method: every pair once, a bye a round for an odd group.
            schedules[len(group)] = len(group) - 1 + len(group) % 2
        elif len(group) not in schedules and len(group) <= SCHEDULED_GROUP:
            rng = random.Random(f"{tournament.seed}:{stage.order}:0")
            schedules[len(group)] = round_robin(group, table_size=per_table, rng=rng).round_count
        exact = max(exact, schedules.get(len(group), 0))
    scheduled = len(schedules) == len({len(g) for g in groups})
    line = RoundSeating("every", len(sizes), tuple(sizes), byes, groups=len(groups))
    return replace(
        head,
        rounds=exact if scheduled else fewest,
        rounds_exact=scheduled,
        lines=(line,),
        advancing=_advancing(stage, sizes, len(groups)),
    )


def _knockout(head: StageSeating, stage: Stage, n: int, per_table: int) -> StageSeating:
    bracket = build_bracket(
        list(range(1, n + 1)), table_size=per_table, advance=stage.knockout_advance or 1
    )
    lines = []
    last = len(bracket.rounds)
    for number, tables in enumerate(bracket.rounds, start=1):
        lines.append(
            RoundSeating(
                "final" if number == last else "round",
                len(tables),
                tuple(t.seats for t in tables),
                len(bracket.byes) if number == 1 else 0,
                number=number,
            )
        )
    return replace(head, rounds=last, lines=tuple(lines), advancing=None)


def payout_preview(tournament: Tournament, entries: int) -> PayoutPreview:
    """The provisional payouts by place for ``entries`` entries, each paying the entry fee.
    Raises ``ConfigurationError`` on the entry fee when the pool cannot take it (not a whole
    number of the currency's minor units)."""
    try:
        report = compute_prizes(
            adapters.pool_rules(tournament),
            [Payment("entry", Decimal(tournament.entry_fee))] * entries,
            field_size=entries,
            structure=adapters.payout_structure(tournament, entries),
        )
    except ScoringError as exc:
        message = plan_words.pool_problem(exc)
        raise ConfigurationError(message, fields={"entry_fee": [message]}) from exc
    pool = report.pool
    shares = report.structure.percentages
    places = []
    for line in report.by_place:
        if pool.total:
            percent = (line.amount * 100 / pool.total).quantize(Decimal("0.01"))
        else:
            percent = shares[line.place - 1]
        places.append(PayoutPlace(line.place, percent, line.amount))
    return PayoutPreview(
        currency=pool.currency.code,
        entries=entries,
        gross=pool.gross,
        rake=pool.rake,
        topup=pool.topup,
        total=pool.total,
        places=places,
    )
