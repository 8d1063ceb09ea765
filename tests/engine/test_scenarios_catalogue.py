"""Our own scenarios (``tests/engine/scenarios``): they pass, and together they cover rules.md.

Every scenario names the rules.md section or option it checks and the seed text it comes from
(``../shared/seeds``) in its ``source``.  ``next_game_first`` is the one option no scenario can
check: it picks the first attacker of the *next* game of a series, and the engine protocol plays
one game at a time (a scenario's fixed deal names its attacker); ``tests/engine/test_game_rules.py``
covers it through ``next_game_attacker``.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine.cards import DECK_SIZES
from games.engine.rules import THROW_IN_BY, VARIANTS, Rules

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "engine" / "scenarios"
CHECK = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "check.py"

NOT_CHECKABLE = {"next_game_first": "a series option: the protocol plays one game at a time"}


def _scenarios() -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.name, json.loads(path.read_text(encoding="utf-8")))
        for path in sorted(SCENARIOS.glob("*.json"))
    ]


@pytest.mark.skipif(not CHECK.is_file(), reason=f"{CHECK} is absent (shared/ not beside the repo)")
@pytest.mark.slow
def test_every_scenario_passes_check_py() -> None:
    proc = subprocess.run(
        [sys.executable, str(CHECK), "-v", str(SCENARIOS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    last = proc.stdout.strip().splitlines()[-1:] or [""]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert last[0].endswith(" 0 failed"), proc.stdout
    assert last[0] == f"{len(_scenarios())} passed, 0 failed"


def test_every_scenario_names_its_rule_and_seed() -> None:
    for name, scenario in _scenarios():
        source = scenario.get("source")
        assert isinstance(source, str) and source.strip(), f"{name}: no source"
        assert "seed" in source, f"{name}: the source names no seed text"
        assert "rules.md" in source, f"{name}: the source names no rules.md section"
        assert scenario.get("name"), f"{name}: no name"
        assert ("deal" in scenario) != ("seed" in scenario), f"{name}: a deal or a seed"
        if "seed" in scenario:
            assert f"seed {scenario['seed']}" in source, f"{name}: say which seed is dealt"
        Rules.from_dict(scenario.get("rules", {}))  # valid options only


def test_every_option_appears_in_some_scenario() -> None:
    names = set(Rules.option_names())
    assert set(NOT_CHECKABLE) <= names
    seen: set[str] = set()
    for _name, scenario in _scenarios():
        seen |= set(scenario.get("rules", {}))
        seen |= {option for option in names if option in scenario["source"]}
    missing = sorted(names - seen - set(NOT_CHECKABLE))
    assert not missing, f"no scenario names the option(s) {missing}"


def test_every_option_value_is_played() -> None:
    """Each value of a choice option, and both values of a flag, is in force in some scenario."""
    effective = [Rules.from_dict(s.get("rules", {})) for _name, s in _scenarios()]
    wanted: dict[str, tuple[Any, ...]] = {
        "variant": VARIANTS,
        "deck_size": DECK_SIZES,
        "throw_in_by": THROW_IN_BY,
        "pogony_min_cards": (1, 2),
        "players": (2, 3, 4, 5, 6, 7, 8),
    }
    for field in dataclasses.fields(Rules):
        if field.type in ("bool", bool):
            wanted[field.name] = (False, True)
    for option, values in wanted.items():
        played = {getattr(rules, option) for rules in effective}
        assert set(values) <= played, f"{option}: no scenario plays {set(values) - played}"
    team_sizes = {len(r.teams[0]) for r in effective if r.teams is not None}
    assert {2, 3} <= team_sizes, "teams 2x2 and 3x3"
    assert {r.hand_size for r in effective} - {6}, "a hand_size other than 6"
    assert {r.bout_limit for r in effective} - {6}, "a bout_limit other than 6"
    assert {r.first_bout_limit for r in effective} - {5}, "a first_bout_limit other than 5"
