"""games.W001: ``manage.py check`` (and ``serve``, which runs it) says when a compiled build of
the engine is there but not used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.checks import engine_build
from games.engine import native


def test_a_stale_build_is_a_warning_and_no_build_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DURAK_ENGINE", raising=False)
    monkeypatch.setattr(native, "STATUS", "pure Python (the compiled build is stale)")
    stale = tmp_path / "build"
    stale.mkdir()
    (stale / native.STAMP).write_text(json.dumps({"sources": "0" * 64}))
    monkeypatch.setenv("DURAK_ENGINE_BUILD", str(stale))
    [warning] = engine_build()
    assert warning.id == "games.W001"
    assert warning.msg == (
        "the rules engine runs as pure Python: the compiled build is stale (an engine module"
        " changed)"
    )
    assert warning.hint is not None and "python3 dev.py engine" in warning.hint

    monkeypatch.setenv("DURAK_ENGINE_BUILD", str(tmp_path / "none"))
    assert engine_build() == []  # never built (no compiler here): the pure engine, no warning
    monkeypatch.setenv("DURAK_ENGINE_BUILD", str(stale))
    monkeypatch.setenv("DURAK_ENGINE", "python")
    assert engine_build() == []  # asked for
    monkeypatch.delenv("DURAK_ENGINE")
    monkeypatch.setattr(native, "STATUS", "compiled (mypyc)")
    assert engine_build() == []
