"""Random events that can run: ``simulate_tournament``'s options for a plan (swiss, round robin,
knockout, one stage or two; tables of 2 to 6, team events, series formats, odd fields) and
random incidents. Drawn through a :class:`Picker`, so that the property test draws them with
hypothesis (which explores and replays) and ``bench.incidents`` with a seeded ``random.Random``.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, TypeVar

from tournaments.pairing import ConfigError
from tournaments.pairing.config import AdvanceRule, StageConfig, StageFormat, validate_stages
from tournaments.simulation.incidents import KINDS

T = TypeVar("T")

SHAPES = ("swiss", "swiss_ko", "rr", "rr_ko", "ko")


class Picker(Protocol):
    def integer(self, low: int, high: int) -> int: ...

    def choice(self, options: tuple[T, ...]) -> T: ...


class RandomPicker:
    """A :class:`Picker` over ``random.Random``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, options: tuple[T, ...]) -> T:
        return self.rng.choice(options)


def random_event(pick: Picker, *, largest: int = 15) -> dict[str, Any] | None:
    """``simulate_tournament``'s options for a random event with random incidents, or None if
    the plan drawn cannot run for its field (the pairing code's own check says so)."""
    team = pick.choice((1, 1, 1, 2))
    shape = pick.choice(SHAPES)
    players = pick.integer(5, largest)

    def table() -> int:
        return 4 if team == 2 else pick.integer(2, 6)

    parts: list[str] = []
    configs: list[StageConfig] = []
    goes_on = shape.endswith("_ko")
    if shape.startswith("swiss"):
        size, rounds, top = table(), pick.integer(1, 3), pick.choice((2, 4, 6))
        parts.append(f"swiss:{size}:{rounds}" + (f":top={top}" if goes_on else ""))
        advance = AdvanceRule(top=top) if goes_on else None
        configs.append(
            StageConfig(StageFormat.SWISS, size, team_size=team, rounds=rounds, advance=advance)
        )
    elif shape.startswith("rr"):
        size, groups, per = table(), pick.integer(1, 2), pick.integer(1, 2)
        parts.append(f"rr:{size}:{groups}" + (f":per_table={per}" if goes_on else ""))
        advance = AdvanceRule(per_group=per) if goes_on else None
        configs.append(
            StageConfig(
                StageFormat.ROUND_ROBIN, size, team_size=team, groups=groups, advance=advance
            )
        )
    if shape == "ko" or goes_on:
        size = table()
        per_table = pick.integer(1, max(1, size // 2))
        parts.append(f"knockout:{size}:{per_table}")
        configs.append(
            StageConfig(StageFormat.KNOCKOUT, size, team_size=team, advance_per_table=per_table)
        )
    try:
        validate_stages(configs, players - 1)  # a withdrawal before the start may come
        validate_stages(configs, players)
    except ConfigError:
        return None
    counts = {kind: pick.integer(0, 2) for kind in KINDS}
    counts["withdraw_before_start"] = min(counts["withdraw_before_start"], 1)
    return {
        "players": players,
        "plan": ",".join(parts),
        "team_size": team,
        "series": pick.choice(("single", "single", "best_of:3", "first_to:2")),
        "late_registration_rounds": pick.integer(0, 2),
        "reentry_fee": pick.choice(("0", "50")),
        "two_person_rule": pick.choice((False, True)),
        "seed": str(pick.integer(0, 10**6)),
        "incidents_seed": str(pick.integer(1, 10**6)),
        "incidents": ",".join(f"{kind}={n}" for kind, n in counts.items()),
        "incident_rate": pick.choice((0.2, 0.4)),
    }


def command_line(options: dict[str, Any]) -> str:
    """The ``manage.py`` line that replays ``options``."""
    flags = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is not False:
            flags.append(f"{flag} {value}")
    return "manage.py simulate_tournament " + " ".join(flags)
