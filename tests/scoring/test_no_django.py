"""The scoring package is pure: no Django, and doctests that run."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tournaments.scoring

PACKAGE = Path(tournaments.scoring.__file__).parent
ROOT = PACKAGE.parent.parent
# The standard library, ourselves, the pure rules engine (one rank ladder for series and
# leagues) and openskill for the ratings: nothing else may be imported.
ALLOWED_THIRD_PARTY = {"openskill"}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_source_imports_only_stdlib_openskill_and_itself(path: Path) -> None:
    for name in _imported_modules(path):
        top = name.split(".")[0]
        assert top != "django", f"{path.name} imports {name}"
        assert (
            top in sys.stdlib_module_names
            or top in ALLOWED_THIRD_PARTY
            or name.startswith(("tournaments.scoring", "games.engine"))
        ), f"{path.name} imports {name}, which is neither the standard library nor openskill"


def test_importing_the_package_loads_no_django() -> None:
    # given a fresh interpreter, so modules loaded by pytest-django do not hide anything
    code = (
        "import sys, tournaments.scoring, tournaments.scoring.ratings;"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'));"
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    # when it imports every scoring module
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    # then no django module was loaded
    assert done.returncode == 0, f"django modules loaded: {done.stdout}{done.stderr}"


def test_doctests_pass() -> None:
    failed = 0
    for info in pkgutil.iter_modules([str(PACKAGE)]):
        module = importlib.import_module(f"tournaments.scoring.{info.name}")
        failed += doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed
    failed += doctest.testmod(tournaments.scoring).failed
    assert failed == 0
