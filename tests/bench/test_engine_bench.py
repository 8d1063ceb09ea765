"""The engine benchmark (``bench.engine``): its tables for every configuration, and the
comparison with ``durakgame`` through the real worker script (``tools/durakgame_driver.py``, its
alarm and its restarts) against a stand-in for the package, which is outside this project."""

from __future__ import annotations

import doctest
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench import engine as bench

STANDIN = Path(__file__).parent / "durakgame_standin"


def test_the_table_has_every_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    # when
    bench.main(["--games", "6", "--no-vs-durakgame"])
    # then: one line per configuration, every figure positive, no game capped
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[:2] for line in lines] == [
        [variant, f"{players}p"] for variant, players in bench.CONFIGS
    ]
    for line in lines:
        assert all(float(x) > 0 for x in line.split()[2:6]) and "capped" not in line


def test_the_comparison_counts_blowups_and_takes_the_median_of_our_passes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # given: the stand-in on the worker's path, its blow-ups known in advance
    monkeypatch.setenv("PYTHONPATH", str(STANDIN))
    sys.path.insert(0, str(STANDIN))
    try:
        import durakgame  # noqa: PLC0415 (the stand-in)

        games, seed = 9, 4
        expected = sum(durakgame.blows_up(seed * 1_000_003 + i) for i in range(games))
    finally:
        sys.path.remove(str(STANDIN))
        sys.modules.pop("durakgame", None)
    assert 0 < expected < games
    # when
    bench.compare_durakgame(sys.executable, games, seed, 0.2, 0, passes=3)
    # then
    out = capsys.readouterr().out
    theirs = re.search(r"durakgame\s+(\d+)\s.*\s(\d+) \((\d+) over 0.2 s", out)
    assert theirs is not None, out
    median_us, blowups, timeouts = map(int, theirs.groups())
    assert (blowups, timeouts) == (expected, expected)
    assert 1000 <= median_us < 100_000  # the median game is one of the stand-in's milliseconds
    ours = re.search(r"ours\s+(\d+)\s.*the passes' medians ([\d, ]+) µs", out)
    assert ours is not None, out
    passes = sorted(int(m) for m in ours.group(2).split(", "))
    assert len(passes) == 3 and int(ours.group(1)) == passes[1]
    ratio = re.search(r"speed ratio .*: ([\d.]+)x", out)
    assert ratio is not None and float(ratio.group(1)) > 0


def test_against_a_revision_alternates_the_two_engines(capsys: pytest.CaptureFixture[str]) -> None:
    # when: this tree against its own last commit
    bench.main(["--against", "HEAD", "--games", "3", "--rounds", "2"])
    # then: a median per round for each, a ratio, the revision's modules gone again
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out if line.startswith(("at ", "this tree"))]
    assert [row[:2] for row in rows] == [["at", "HEAD"], ["this", "tree"]]
    assert all(len(row) == 4 and float(row[2]) > 0 and float(row[3]) > 0 for row in rows)
    assert any(line.startswith("speed ratio (median at HEAD") for line in out)
    assert not any(name.startswith("engine_at_rev") for name in sys.modules)


def test_an_engine_without_legal_moves_is_listed_seat_by_seat() -> None:
    # given: this engine as one from before legal_moves (no such function)
    engine = sys.modules["games.engine"]
    older = SimpleNamespace(
        Rules=engine.Rules,
        apply=engine.apply,
        new_game=engine.new_game,
        legal_actions=engine.legal_actions,
    )
    # then: its games play through the listing seat by seat
    assert bench._cpu_per_game(older, 5, 1) > 0


def test_the_modules_examples_hold() -> None:
    failed, attempted = doctest.testmod(bench)
    assert attempted and not failed
