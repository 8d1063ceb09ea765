"""Validation of a tournament's stages, run when the organiser saves them.

Every problem found here is a `ConfigError` with a message for the organiser; the pairing code
may then assume a valid configuration and only asserts.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import ConfigError
from .knockout import validate_knockout

__all__ = ["AdvanceRule", "StageConfig", "StageFormat", "validate_stages"]


class StageFormat(enum.StrEnum):
    """How a stage seats its rounds."""

    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    KNOCKOUT = "knockout"


@dataclass(frozen=True, slots=True)
class AdvanceRule:
    """Who goes on to the next stage: exactly one of ``top`` (overall) or ``per_group``.

    >>> AdvanceRule(top=16).top
    16
    """

    top: int | None = None
    per_group: int | None = None


@dataclass(frozen=True, slots=True)
class StageConfig:
    """A stage as configured. ``table_size`` counts seats; a team stage (``team_size`` 2 or 3)
    seats two teams per table, so its table size is twice the team size.

    ``rounds`` is for swiss, ``groups`` for round robin, ``advance_per_table`` for knockout,
    and ``advance`` says who reaches the next stage (none for the last stage).
    """

    format: StageFormat
    table_size: int
    team_size: int = 1
    rounds: int | None = None
    groups: int | None = None
    advance_per_table: int | None = None
    advance: AdvanceRule | None = None


def _stage_entries(stage: StageConfig, number: int, entries: int) -> None:
    name = f"stage {number} ({stage.format})"
    if entries < 2:
        raise ConfigError(f"{name} would start with {entries} entries; it needs at least 2")
    groups = stage.groups
    if stage.format is StageFormat.ROUND_ROBIN and groups is not None and entries < 2 * groups:
        raise ConfigError(f"{name}: {entries} entries cannot fill {groups} groups of at least 2")
    rule = stage.advance
    if rule is None:
        return
    if rule.top is not None and rule.top > entries:
        raise ConfigError(f"{name}: {rule.top} are to advance but only {entries} take part")
    if rule.per_group is not None and stage.format is StageFormat.ROUND_ROBIN:
        smallest = entries // (stage.groups or 1)
        if rule.per_group >= smallest:
            raise ConfigError(
                f"{name}: {rule.per_group} per group advance but the smallest group has "
                f"{smallest} entries"
            )


def _advancing(stage: StageConfig, entries: int | None) -> int | None:
    rule = stage.advance
    if rule is None:
        return None
    if rule.top is not None:
        return rule.top
    if entries is None or rule.per_group is None:
        return None
    if stage.format is StageFormat.ROUND_ROBIN:
        return rule.per_group * (stage.groups or 1)
    # Swiss tables: one cut per table of the last round.
    return rule.per_group * -(-entries // stage.table_size)


def validate_stages(stages: Sequence[StageConfig], entries: int | None = None) -> None:
    """Raise `ConfigError` for the first problem in a tournament's stages.

    ``entries`` is the number of registered entries if known (checks that need it are skipped
    otherwise).

    >>> validate_stages([StageConfig(StageFormat.KNOCKOUT, 4, advance_per_table=4)])
    Traceback (most recent call last):
    ...
    tournaments.pairing.errors.ConfigError: stage 1 (knockout): advance (4) must be below the \
table size (4): otherwise nobody is knocked out
    """
    if not stages:
        raise ConfigError("a tournament needs at least one stage")
    count = entries
    for number, stage in enumerate(stages, start=1):
        name = f"stage {number} ({stage.format})"
        last = number == len(stages)
        if not 2 <= stage.table_size <= 6:
            raise ConfigError(f"{name}: table size must be 2 to 6, not {stage.table_size}")
        if stage.team_size not in (1, 2, 3):
            raise ConfigError(f"{name}: teams have 2 or 3 players, not {stage.team_size}")
        if stage.team_size > 1 and stage.table_size != 2 * stage.team_size:
            raise ConfigError(
                f"{name}: a team table of {stage.team_size}x{stage.team_size} has "
                f"{2 * stage.team_size} seats, not {stage.table_size}"
            )
        if stage.format is StageFormat.SWISS and (stage.rounds is None or stage.rounds < 1):
            raise ConfigError(f"{name}: a swiss stage needs at least one round")
        if stage.format is StageFormat.ROUND_ROBIN and (stage.groups is None or stage.groups < 1):
            raise ConfigError(f"{name}: a round-robin stage needs at least one group")
        if stage.format is StageFormat.KNOCKOUT:
            if stage.advance_per_table is None:
                raise ConfigError(f"{name}: say how many of each table advance")
            # Team knockouts seat two teams per table: one team goes on.
            seats = 2 if stage.team_size > 1 else stage.table_size
            try:
                validate_knockout(seats, stage.advance_per_table)
            except ConfigError as exc:
                raise ConfigError(f"{name}: {exc}") from None
            if not last:
                raise ConfigError(f"{name} ends with the final table: no stage can follow it")
            if stage.advance is not None:
                raise ConfigError(f"{name}: a knockout ends with its final; nothing advances")
        rule = stage.advance
        if rule is not None:
            if (rule.top is None) == (rule.per_group is None):
                raise ConfigError(f"{name}: advance either the top N overall or top K per group")
            if (rule.top or 1) < 1 or (rule.per_group or 1) < 1:
                raise ConfigError(f"{name}: at least one entry must advance")
            per_table = rule.per_group
            if (
                per_table is not None
                and stage.format is StageFormat.SWISS
                and per_table >= stage.table_size
            ):
                raise ConfigError(
                    f"{name}: {per_table} per table advance but tables seat {stage.table_size}"
                )
        if last and rule is not None:
            raise ConfigError(f"{name} is the last stage: there is no stage to advance to")
        if not last and rule is None:
            raise ConfigError(f"{name}: say who advances to stage {number + 1}")
        if count is not None:
            _stage_entries(stage, number, count)
        count = _advancing(stage, count)
