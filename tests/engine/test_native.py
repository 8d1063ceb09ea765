"""The engine's compiled build (``games/engine/native.py``, ``tools/build_engine.py``).

The build is used only when it is of the sources on disk; otherwise the pure Python modules
run, or, with ``DURAK_ENGINE=compiled``, the import fails saying why.  And the two builds are
one engine: the same listings, states, views and errors, step by step, over random games of
every rule set of ``test_random_play`` (CI compiles the engine and runs this in both passes).
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import native

ROOT = Path(__file__).resolve().parents[2]
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _fake_build(directory: Path, digest: str, *, files: bool = True) -> Path:
    """A build directory with a stamp for ``digest`` and (empty) module files."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / native.STAMP).write_text(json.dumps({"sources": digest}))
    if files:
        (directory / "games" / "engine").mkdir(parents=True, exist_ok=True)
        (directory / f"{native.GROUP}__mypyc{SUFFIX}").write_bytes(b"")
        for module in native.COMPILED:
            (directory / "games" / "engine" / f"{module}{SUFFIX}").write_bytes(b"")
    return directory


def test_a_build_is_used_only_for_the_sources_it_was_made_of(tmp_path: Path) -> None:
    assert native.problem(tmp_path / "none") == "no compiled build"
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / native.STAMP).write_text("{not json")
    assert native.problem(broken).startswith("unreadable build.json")
    fresh = _fake_build(tmp_path / "fresh", native.source_digest())
    assert native.problem(fresh) == ""
    stale = _fake_build(tmp_path / "stale", "0" * 64)
    assert native.problem(stale) == "the compiled build is stale (an engine module changed)"
    partial = _fake_build(tmp_path / "partial", native.source_digest(), files=False)
    assert native.problem(partial).startswith("the compiled build lacks durak_engine__mypyc")


def test_any_engine_module_edited_makes_the_build_stale(tmp_path: Path) -> None:
    """Not only the compiled modules: mypyc reads the others' types and constants."""
    sources = tmp_path / "engine"
    shutil.copytree(native.PACKAGE_DIR, sources, ignore=shutil.ignore_patterns("_build", "*.pyc"))
    build = _fake_build(tmp_path / "build", native.source_digest(sources))
    assert native.problem(build, sources) == ""
    cards = sources / "cards.py"
    cards.write_text(cards.read_text() + "\n# edited\n")
    assert "stale" in native.problem(build, sources)


def test_the_mode_chooses_and_a_required_build_that_cannot_run_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "STATUS", native.STATUS)  # restored after the test
    stale = _fake_build(tmp_path / "stale", "0" * 64)
    path: list[str] = []

    monkeypatch.setenv("DURAK_ENGINE", "python")
    assert native.activate(path, _fake_build(tmp_path / "ok", native.source_digest())) == (
        "pure Python (DURAK_ENGINE=python)"
    )
    monkeypatch.setenv("DURAK_ENGINE", "auto")
    assert native.activate(path, stale) == (
        "pure Python (the compiled build is stale (an engine module changed):"
        " python3 dev.py engine)"
    )
    monkeypatch.setenv("DURAK_ENGINE", "compiled")
    with pytest.raises(ImportError, match="DURAK_ENGINE=compiled, but the compiled build is stale"):
        native.activate(path, stale)
    monkeypatch.setenv("DURAK_ENGINE", "fast")
    with pytest.raises(ImportError, match="one of auto, python, compiled"):
        native.activate(path, stale)
    assert path == []  # nothing was put ahead of the sources


def test_a_build_that_does_not_load_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fresh by its stamp, but not a loadable library (another interpreter's, a torn copy)."""
    monkeypatch.setattr(native, "STATUS", native.STATUS)
    monkeypatch.setenv("DURAK_ENGINE", "auto")
    path: list[str] = []
    status = native.activate(path, _fake_build(tmp_path / "torn", native.source_digest()))
    assert status.startswith("pure Python (")
    assert "does not load" in status or "another compiled build is loaded" in status
    assert path == []


EQUIVALENCE = """
import hashlib, json, random
from games.engine import Action, EngineError, Rules, apply, legal_moves, native, new_game, view
from tests.engine.test_random_play import CONFIGS, candidates

digest = hashlib.sha256()
def note(value):
    digest.update(json.dumps(value, sort_keys=True, default=str).encode() + b"\\n")

odd = [Action("0", "take"), Action(9, "take"), Action(0, "bogus"), Action(0, "attack", ("6S",)),
       Action(0, "defend", (20,), None), Action(0, "attack", (99,)), Action(0, "attack", ())]
steps = 0
for number, options in enumerate(CONFIGS):
    rules = Rules(**options)
    rng = random.Random(number)
    for _ in range(4):
        state = new_game(rules, rng)
        for action in odd:
            try:
                apply(state, action)
                note("accepted")
            except EngineError as exc:
                note([exc.code, str(exc)])
        while state.result is None:
            moves = legal_moves(state)
            note([str(m) for m in moves])
            if state.t_att:  # malformed covers and throws mid-bout, past the first checks
                d, a, first = state.defender, state.attacker, state.t_att[0]
                for action in (Action(d, "defend", ("TS",), first), Action(d, "defend", (0,), "6S"),
                               Action(a, "throw", ("6S",)), Action(a, "throw", [first]),
                               Action(d, "transfer", ("6S",)), Action(d, "show_trump", (None,))):
                    try:
                        apply(state, action)
                        note("accepted")
                    except EngineError as exc:
                        note([exc.code, str(exc)])
            for candidate in candidates(state, steps % rules.players):
                try:
                    note(apply(state, candidate).to_dict())
                except EngineError as exc:
                    note([exc.code, str(exc)])
            state = apply(state, rng.choice(moves))
            steps += 1
        note([state.to_dict(), view(state, 0), view(state, None), state.result.to_json()])
print(json.dumps({"engine": native.STATUS, "steps": steps, "digest": digest.hexdigest()}))
"""


def _play(mode: str) -> dict[str, object]:
    env = {**os.environ, "DURAK_ENGINE": mode}
    env.pop("DURAK_ENGINE_BUILD", None)
    run = subprocess.run(
        [sys.executable, "-c", EQUIVALENCE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-3000:]
    answer: dict[str, object] = json.loads(run.stdout)
    return answer


def test_the_compiled_and_the_pure_engine_play_alike() -> None:
    why = native.problem(native.build_dir())
    if why and os.environ.get("DURAK_ENGINE") != "compiled":
        pytest.skip(f"{why}: python3 dev.py engine (CI builds it)")
    compiled, pure = _play("compiled"), _play("python")
    assert compiled["engine"] == "compiled (mypyc)"
    assert pure["engine"] == "pure Python (DURAK_ENGINE=python)"
    assert isinstance(pure["steps"], int) and pure["steps"] > 5_000
    assert compiled["steps"] == pure["steps"]
    assert compiled["digest"] == pure["digest"]


def test_the_builder_says_whether_the_build_is_fresh() -> None:
    """``dev.py engine --check`` (``tools/build_engine.py --check``): exit 0 only if fresh."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_engine.py"), "--check"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "DURAK_ENGINE_BUILD"},
    )
    why = native.problem(native.build_dir())
    assert run.returncode == (1 if why else 0)
    assert run.stdout.strip() == (why or f"fresh: {native.build_dir()}")
