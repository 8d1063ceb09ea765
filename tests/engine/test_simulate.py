"""The simulation CLI runs and prints its figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Rules
from games.engine.simulate import main, simulate

ROOT = Path(__file__).resolve().parents[2]


def test_cli_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["--games", "40", "--players", "2", "--variant", "throw_in", "--bots", "heuristic,random"]
    )
    out = capsys.readouterr().out
    assert status == 0
    for word in ("heuristic", "random", "fool %", "first %", "draws", "pogony", "games/s"):
        assert word in out
    assert "actions and" in out and "bouts per game" in out


@pytest.mark.parametrize("series", ["single", "best_of:3", "first_to:2", "long"])
def test_cli_plays_series(series: str, capsys: pytest.CaptureFixture[str]) -> None:
    players = "3" if series == "long" else "2"
    status = main(["--games", "3", "--players", players, "--series", series, "--seed", "4"])
    out = capsys.readouterr().out
    assert status == 0
    assert "won %" in out and "in 3 series" in out


def test_cli_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "1", "--bots", "oracle"]) == 2
    assert main(["--games", "1", "--players", "9"]) == 2
    assert main(["--games", "1", "--series", "marathon"]) == 2
    assert main(["--games", "1", "--rules", "[1]"]) == 2
    assert "error:" in capsys.readouterr().err


def test_simulate_counts_add_up() -> None:
    report = simulate(Rules(players=3), ["heuristic", "random"], games=30, seed=2)
    assert report.games == 30
    assert sum(b.seat_games for b in report.bots.values()) == 90
    assert sum(b.fools for b in report.bots.values()) + report.draws + report.capped == 30
    assert sum(b.firsts for b in report.bots.values()) == 30 - report.capped
    assert report.bots["heuristic"].fool_rate < report.bots["random"].fool_rate
    assert report.actions > report.bouts > 0 and report.games_per_second > 0


def test_simulate_is_deterministic() -> None:
    a = simulate(Rules(), ["heuristic", "random"], games=20, seed=9, series="best_of:3")
    b = simulate(Rules(), ["heuristic", "random"], games=20, seed=9, series="best_of:3")
    assert (a.games, a.actions, a.bots == b.bots) == (b.games, b.actions, True)


def test_module_runs_as_a_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "games.engine.simulate", "--games", "20", "--bots", "random"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "games/s" in done.stdout
