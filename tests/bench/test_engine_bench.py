"""The engine benchmark (``bench.engine``): its tables for every configuration, and the
comparison with ``durakgame`` through the real worker script (``tools/durakgame_driver.py``, its
alarm and its restarts) against a stand-in for the package, which is outside this project."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from bench import engine as bench
from games.engine import native

STANDIN = Path(__file__).parent / "durakgame_standin"


def test_the_table_has_every_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    # when
    bench.main(["--games", "6", "--no-vs-durakgame"])
    # then: which engine ran, then one line per configuration, every figure positive, none capped
    engine, _header, *lines = capsys.readouterr().out.splitlines()
    assert engine == f"engine: {native.STATUS}"
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
    games, seed = 9, 4
    expected = sum(_standin().blows_up(seed * 1_000_003 + i) for i in range(games))
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


def _standin() -> ModuleType:
    """The stand-in package, imported here to know its games in advance."""
    sys.path.insert(0, str(STANDIN))
    try:
        return importlib.import_module("durakgame")
    finally:
        sys.path.remove(str(STANDIN))
        sys.modules.pop("durakgame", None)


def _driver() -> ModuleType:
    """The worker script as a module (it imports only the standard library at import time)."""
    spec = importlib.util.spec_from_file_location("durakgame_driver", bench.DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_new_worker_warms_up_before_its_first_timed_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given: the stand-in, whose first warm-up seeds that finish are known in advance
    monkeypatch.setenv("PYTHONPATH", str(STANDIN))
    blows_up = _standin().blows_up
    driver = _driver()
    tries = range(1, driver.WARMUP_TRIES + 1)
    expected = next(k for k in tries if not blows_up(driver.WARMUP_SEED + k))
    worker = bench.DurakgameWorker(sys.executable, 0)
    try:
        # when: a game that finishes, one that blows up (the worker is restarted), one more
        finishing = next(seed for seed in range(100) if not blows_up(seed))
        spinning = next(seed for seed in range(100) if blows_up(seed))
        statuses = [worker.play(seed, 0.2)[0] for seed in (finishing, spinning, finishing)]
    finally:
        worker.close()
    # then: each start warmed up until a game finished, before it answered
    assert statuses == ["ok", "timeout", "ok"]
    assert worker.starts == 2 and worker.warmups == [expected, expected]


def test_a_worker_that_cannot_import_the_package_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # given: a durakgame first on the worker's path that fails to import
    (tmp_path / "durakgame.py").write_text("raise ImportError('broken install')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    worker = bench.DurakgameWorker(sys.executable, 0)
    # then
    with pytest.raises(RuntimeError, match="did not warm up"):
        worker.play(1, 0.2)
    assert worker.proc is None


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
