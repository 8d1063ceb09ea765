"""Stage validation and cuts between stages (no database)."""

from __future__ import annotations

import pytest

from tournaments.pairing import (
    AdvanceRule,
    ConfigError,
    PairingError,
    StageConfig,
    StageFormat,
    StandingRow,
    top_overall,
    top_per_group,
    validate_stages,
)

SWISS = StageFormat.SWISS
KO = StageFormat.KNOCKOUT
RR = StageFormat.ROUND_ROBIN


def test_a_sound_event_passes() -> None:
    validate_stages(
        [
            StageConfig(SWISS, 4, rounds=5, advance=AdvanceRule(top=64)),
            StageConfig(KO, 4, advance_per_table=2),
        ],
        entries=1000,
    )


@pytest.mark.parametrize(
    ("stages", "entries", "message"),
    [
        ([StageConfig(SWISS, 7, rounds=3)], None, "table size must be 2 to 6"),
        ([StageConfig(SWISS, 1, rounds=3)], None, "table size must be 2 to 6"),
        ([StageConfig(KO, 4, advance_per_table=4)], None, "below the table size"),
        (
            [StageConfig(SWISS, 4, rounds=3, advance=AdvanceRule(top=50))],
            None,
            "no stage to advance to",
        ),
        (
            [
                StageConfig(SWISS, 4, rounds=3, advance=AdvanceRule(top=50)),
                StageConfig(KO, 4, advance_per_table=2),
            ],
            40,
            "only 40 take part",
        ),
        (
            [
                StageConfig(KO, 4, advance_per_table=2),
                StageConfig(SWISS, 4, rounds=3),
            ],
            None,
            "no stage can follow",
        ),
        ([StageConfig(SWISS, 4, rounds=0)], None, "at least one round"),
        (
            [StageConfig(SWISS, 4, rounds=3, advance=AdvanceRule(top=8, per_group=2))],
            None,
            "either the top N",
        ),
        (
            [
                StageConfig(SWISS, 4, rounds=3, advance=AdvanceRule(per_group=4)),
                StageConfig(KO, 4, advance_per_table=2),
            ],
            None,
            "per table advance",
        ),
        ([StageConfig(SWISS, 6, team_size=2, rounds=3)], None, "has 4 seats, not 6"),
        ([StageConfig(RR, 4, groups=5)], 8, "cannot fill 5 groups"),
        ([], None, "at least one stage"),
    ],
)
def test_bad_configurations_are_refused_with_a_clear_message(
    stages: list[StageConfig], entries: int | None, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        validate_stages(stages, entries)


def test_config_error_is_a_pairing_error_and_a_value_error() -> None:
    assert issubclass(ConfigError, PairingError)
    assert issubclass(PairingError, ValueError)


def test_top_overall_and_per_group() -> None:
    rows = [
        StandingRow(10, 1, "A", 1),
        StandingRow(20, 2, "B", 1),
        StandingRow(11, 3, "A", 2),
        StandingRow(21, 4, "B", 2),
        StandingRow(12, 5, "A", 3),
        StandingRow(22, 6, "B", 3),
    ]
    assert top_overall(rows, 3) == [10, 20, 11]
    assert top_per_group(rows, 1) == [10, 20]
    assert top_per_group(rows, 2) == [10, 20, 11, 21]
    with pytest.raises(PairingError, match="only 6 entries"):
        top_overall(rows, 7)
    with pytest.raises(PairingError, match="fewer than 4"):
        top_per_group(rows, 4)
    with pytest.raises(PairingError, match="share a rank"):
        top_overall([StandingRow(1, 1), StandingRow(2, 1)], 1)
