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

__all__ = ["AdvanceRule", "StageConfig", "StageFormat", "stage_problems", "validate_stages"]


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


def _problem(
    stage: StageConfig, number: int, text: str, field: str, reason: str, **params: int | str
) -> ConfigError:
    # The message leads with the stage, as a referee reads it: "stage 2 (knockout): ...".
    name = f"stage {number} ({stage.format})"
    message = text.replace("{name}", name)
    return ConfigError(message, stage=number, field=field, reason=reason, params=params)


def _entries_problems(stage: StageConfig, number: int, entries: int) -> list[ConfigError]:
    if entries < 2:
        return [
            _problem(
                stage,
                number,
                f"{{name}} would start with {entries} entries; it needs at least 2",
                "",
                "too_few_entries",
                entries=entries,
            )
        ]
    found = []
    groups = stage.groups
    if stage.format is StageFormat.ROUND_ROBIN and groups is not None and entries < 2 * groups:
        found.append(
            _problem(
                stage,
                number,
                f"{{name}}: {entries} entries cannot fill {groups} groups of at least 2",
                "groups",
                "groups_unfilled",
                entries=entries,
                groups=groups,
            )
        )
    rule = stage.advance
    if rule is None:
        return found
    if rule.top is not None and rule.top > entries:
        found.append(
            _problem(
                stage,
                number,
                f"{{name}}: {rule.top} are to advance but only {entries} take part",
                "advance",
                "advance_over_entries",
                top=rule.top,
                entries=entries,
            )
        )
    if rule.per_group is not None and stage.format is StageFormat.ROUND_ROBIN:
        smallest = entries // (stage.groups or 1)
        if rule.per_group >= smallest:
            found.append(
                _problem(
                    stage,
                    number,
                    f"{{name}}: {rule.per_group} per group advance but the smallest group has "
                    f"{smallest} entries",
                    "advance",
                    "advance_over_group",
                    advance=rule.per_group,
                    smallest=smallest,
                )
            )
    return found


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


def _shape_problems(stage: StageConfig, number: int, last: bool) -> list[ConfigError]:
    """The problems of one stage's own settings (its place in the plan aside from entries)."""
    found = []

    def add(text: str, field: str, reason: str, **params: int | str) -> None:
        found.append(_problem(stage, number, text, field, reason, **params))

    size_ok = 2 <= stage.table_size <= 6
    if not size_ok:
        add(
            f"{{name}}: table size must be 2 to 6, not {stage.table_size}",
            "table_size",
            "table_size",
            size=stage.table_size,
        )
    if stage.team_size not in (1, 2, 3):
        add(
            f"{{name}}: teams have 2 or 3 players, not {stage.team_size}",
            "",
            "team_size",
            team_size=stage.team_size,
        )
    elif stage.team_size > 1 and stage.table_size != 2 * stage.team_size:
        add(
            f"{{name}}: a team table of {stage.team_size}x{stage.team_size} has "
            f"{2 * stage.team_size} seats, not {stage.table_size}",
            "table_size",
            "team_table",
            team_size=stage.team_size,
            seats=2 * stage.team_size,
            size=stage.table_size,
        )
    if stage.format is StageFormat.SWISS and (stage.rounds is None or stage.rounds < 1):
        add("{name}: a swiss stage needs at least one round", "rounds", "rounds")
    if stage.format is StageFormat.ROUND_ROBIN and (stage.groups is None or stage.groups < 1):
        add("{name}: a round-robin stage needs at least one group", "groups", "groups")
    if stage.format is StageFormat.KNOCKOUT:
        if stage.advance_per_table is None:
            add("{name}: say how many of each table advance", "advance_per_table", "knockout")
        elif size_ok:
            # Team knockouts seat two teams per table: one team goes on.
            seats = 2 if stage.team_size > 1 else stage.table_size
            try:
                validate_knockout(seats, stage.advance_per_table)
            except ConfigError as exc:
                found.append(
                    ConfigError(
                        f"stage {number} ({stage.format}): {exc}",
                        stage=number,
                        field=exc.field,
                        reason=exc.reason,
                        params=exc.params,
                    )
                )
        if not last:
            add(
                "{name} ends with the final table: no stage can follow it",
                "format",
                "knockout_not_last",
            )
        if stage.advance is not None:
            add(
                "{name}: a knockout ends with its final; nothing advances",
                "advance",
                "knockout_advances",
            )
    rule = stage.advance
    if rule is not None and stage.format is not StageFormat.KNOCKOUT:
        if (rule.top is None) == (rule.per_group is None):
            add(
                "{name}: advance either the top N overall or top K per group",
                "advance",
                "advance_rule",
            )
        elif (rule.top or 1) < 1 or (rule.per_group or 1) < 1:
            add("{name}: at least one entry must advance", "advance", "advance_none")
        elif (
            rule.per_group is not None
            and stage.format is StageFormat.SWISS
            and rule.per_group >= stage.table_size
        ):
            add(
                f"{{name}}: {rule.per_group} per table advance but tables seat {stage.table_size}",
                "advance",
                "advance_per_table",
                advance=rule.per_group,
                size=stage.table_size,
            )
        if last:
            add(
                "{name} is the last stage: there is no stage to advance to",
                "advance",
                "last_advances",
            )
    if not last and rule is None and stage.format is not StageFormat.KNOCKOUT:
        add(
            f"{{name}}: say who advances to stage {number + 1}",
            "advance",
            "no_advance",
            next=number + 1,
        )
    return found


def stage_problems(stages: Sequence[StageConfig], entries: int | None = None) -> list[ConfigError]:
    """Every problem of a tournament's stages, each stage's own and those of the entries that
    reach it (a stage after one with a problem is not checked for its entries: they are not
    known).

    >>> [e.reason for e in stage_problems([
    ...     StageConfig(StageFormat.SWISS, 4, rounds=0),
    ...     StageConfig(StageFormat.KNOCKOUT, 4, advance_per_table=4),
    ... ])]
    ['rounds', 'no_advance', 'knockout_advance_all']
    """
    if not stages:
        return [ConfigError("a tournament needs at least one stage", reason="no_stages")]
    found: list[ConfigError] = []
    count = entries
    for number, stage in enumerate(stages, start=1):
        own = _shape_problems(stage, number, number == len(stages))
        if not own and count is not None:
            own = _entries_problems(stage, number, count)
        found += own
        count = None if own else _advancing(stage, count)
    return found


def validate_stages(stages: Sequence[StageConfig], entries: int | None = None) -> None:
    """Raise `ConfigError` for the first problem in a tournament's stages
    (:func:`stage_problems` gives them all).

    ``entries`` is the number of registered entries if known (checks that need it are skipped
    otherwise).

    >>> validate_stages([StageConfig(StageFormat.KNOCKOUT, 4, advance_per_table=4)])
    Traceback (most recent call last):
    ...
    tournaments.pairing.errors.ConfigError: stage 1 (knockout): advance (4) must be below the \
table size (4): otherwise nobody is knocked out
    """
    problems = stage_problems(stages, entries)
    if problems:
        raise problems[0]
