"""The protocol process, driven through a real subprocess, and the conformance scenarios."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
DEAL = {
    "hands": [["6S", "9H"], ["7S", "8C"]],
    "stock": [],
    "trump": "D",
    "attacker": 0,
}


def converse(*lines: Any) -> list[dict[str, Any]]:
    """Send each line (a str as is, anything else as JSON) to one protocol process."""
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine.protocol"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        check=True,
    )
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_protocol_bad_input_keeps_going_and_changes_nothing() -> None:
    new = {"cmd": "new", "rules": {}, "deal": DEAL}
    answers = converse(
        "this is not json",
        {"cmd": "state"},
        new,
        {"cmd": "dance"},
        ["not", "an", "object"],
        {"cmd": "act", "action": {"seat": 0, "type": "attack", "cards": ["ZZ"]}},
        {"cmd": "act", "action": {"seat": 0, "type": "attack", "cards": ["AS"]}},
        {"cmd": "act", "action": {"seat": 7, "type": "attack", "cards": ["6S"]}},
        {"cmd": "legal", "seat": 9},
        {"cmd": "view", "seat": -1},
        {"cmd": "check", "action": {"seat": 0, "type": "attack", "cards": ["6S"]}},
        {"cmd": "state"},
        {"cmd": "act", "action": {"seat": 0, "type": "attack", "cards": ["6S"]}},
        {"cmd": "act", "action": {"seat": 1, "type": "defend", "cards": ["7S"], "target": "6S"}},
        {"cmd": "act", "action": {"seat": 0, "type": "pass"}},
        {"cmd": "act", "action": {"seat": 1, "type": "attack", "cards": ["8C"]}},
        {"cmd": "act", "action": {"seat": 0, "type": "take"}},
        {"cmd": "act", "action": {"seat": 1, "type": "attack", "cards": ["8C"]}},
        {"cmd": "new", "rules": {"colour": "red"}, "seed": 1},
        {"cmd": "new", "rules": {}, "seed": 1, "deal": DEAL},
        {"cmd": "state"},
    )
    codes = [a.get("error", "ok") for a in answers]
    assert codes == [
        "bad_request",  # not JSON
        "bad_request",  # no game yet
        "ok",
        "bad_request",  # unknown cmd
        "bad_request",  # not an object
        "bad_request",  # unknown card
        "card_not_in_hand",
        "bad_request",  # seat out of range
        "bad_request",
        "bad_request",
        "ok",  # check
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
        "game_over",
        "bad_request",  # unknown rule option
        "bad_request",  # deal and seed
        "ok",
    ]
    assert answers[11]["state"]["table"] == []  # check and refusals changed nothing
    assert answers[-1]["state"]["finished"] is True  # the refused `new` kept the old game
    assert all(isinstance(a.get("message", ""), str) for a in answers)


def test_protocol_seeded_game_legal_and_view() -> None:
    answers = converse(
        {"cmd": "new", "rules": {"players": 3}, "seed": 42},
        {"cmd": "state"},
        {"cmd": "view", "seat": None},
        {"cmd": "view", "seat": 1},
    )
    state = answers[1]["state"]
    attacker = state["attacker"]
    legal = converse(
        {"cmd": "new", "rules": {"players": 3}, "seed": 42}, {"cmd": "legal", "seat": attacker}
    )[1]
    assert {a["cards"][0] for a in legal["actions"]} == set(state["hands"][attacker])
    assert answers[2]["view"]["hand"] is None and "hands" not in answers[2]["view"]
    assert sorted(answers[3]["view"]["hand"]) == sorted(state["hands"][1])


@pytest.mark.skipif(not (SHARED / "conformance").is_dir(), reason="shared/ not beside the repo")
def test_conformance_scenarios_pass() -> None:
    proc = subprocess.run(
        [sys.executable, str(SHARED / "conformance" / "check.py"), str(SHARED / "conformance")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "conformance").is_dir(), reason="shared/ not beside the repo")
def test_our_scenarios_pass() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(SHARED / "conformance" / "check.py"),
            str(ROOT / "tests" / "engine" / "scenarios"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
