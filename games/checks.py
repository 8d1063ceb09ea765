"""System checks of the games app (``manage.py check``; ``serve`` runs them before it starts)."""

from __future__ import annotations

import os
from typing import Any

from django.core import checks

from games.engine import native


@checks.register()
def engine_build(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """games.W001: a compiled build of the engine is there but not used (stale or broken).

    No build at all is no warning: the pure Python engine is the default, correct everywhere.
    """
    if native.STATUS.startswith("compiled") or os.environ.get("DURAK_ENGINE") == "python":
        return []
    directory = native.configured_dir()
    if not directory.exists():
        return []
    return [
        checks.Warning(
            f"the rules engine runs as pure Python: {native.problem(directory) or native.STATUS}",
            hint=f"{native.REMEDY} (or .venv/bin/python tools/build_engine.py)",
            id="games.W001",
        )
    ]
