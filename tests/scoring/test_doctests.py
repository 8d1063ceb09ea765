"""The scoring package's doctests run. (Its purity is the import-linter's ``pure-packages``
contract in ``.importlinter``.)"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import tournaments.scoring

PACKAGE = Path(tournaments.scoring.__file__).parent


def test_doctests_pass() -> None:
    failed = 0
    for info in pkgutil.iter_modules([str(PACKAGE)]):
        module = importlib.import_module(f"tournaments.scoring.{info.name}")
        failed += doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed
    failed += doctest.testmod(tournaments.scoring).failed
    assert failed == 0
