"""The engine's compiled build: where it lives, whether it matches the sources, and loading it.

``game.py`` and ``state.py`` are plain, strictly typed Python, and that is what runs by default.
``python3 dev.py engine`` (``tools/build_engine.py``) also compiles them to C extension modules
with mypyc (the compiler that ships with mypy): the same code, about three times as fast.  The
build goes to ``_build/<platform tag>/`` beside this file (never into the source tree, so an
edited ``.py`` is never shadowed by an old ``.so``), with ``build.json``: the digest of every
engine source it was compiled from.

At import, ``games.engine`` calls :func:`activate`.  It puts the build ahead of the sources on
the package's search path only if the build's digest is that of the sources on disk now; any
edit of an engine module makes the build stale and the pure Python modules run until the next
``dev.py engine``.  ``DURAK_ENGINE`` chooses:

- ``auto`` (the default): the build if it is fresh, else pure Python;
- ``python``: pure Python, whatever is built;
- ``compiled``: the build, or ``ImportError`` saying why not (CI uses it so that a missing build
  fails rather than quietly running the other engine).

``DURAK_ENGINE_BUILD`` names another build directory (the builder tries a new build with it
before putting it in place).

:data:`STATUS` says which engine runs and why (the benchmark prints it; ``manage.py check``
warns when a build is stale).  Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
from collections.abc import MutableSequence
from pathlib import Path

__all__ = [
    "BUILD_ROOT",
    "COMPILED",
    "GROUP",
    "MODES",
    "REMEDY",
    "STAMP",
    "STATUS",
    "activate",
    "build_dir",
    "configured_dir",
    "problem",
    "source_digest",
]

PACKAGE_DIR = Path(__file__).resolve().parent
BUILD_ROOT = PACKAGE_DIR / "_build"
"""Where builds go, one directory per platform tag (ignored by git)."""
COMPILED = ("game", "state")
"""The modules mypyc compiles: the hot path (``apply``, the listings, the state's copy)."""
GROUP = "durak_engine"
"""mypyc's group name: the shared library is the top-level module ``durak_engine__mypyc``."""
MODES = ("auto", "python", "compiled")
STAMP = "build.json"
REMEDY = "python3 dev.py engine"
"""What builds it (``tools/build_engine.py``)."""

STATUS = "pure Python (not activated)"
"""Which engine this process runs, and why: set by :func:`activate`."""


def build_dir(root: Path = BUILD_ROOT) -> Path:
    """The build directory for this interpreter (``cpython-311-x86_64-linux-gnu``)."""
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")
    return root / suffix.removesuffix(".so").strip(".")


def configured_dir() -> Path:
    """``$DURAK_ENGINE_BUILD`` if set, else :func:`build_dir`: where :func:`activate` looks."""
    override = os.environ.get("DURAK_ENGINE_BUILD")
    return Path(override) if override else build_dir()


def source_digest(package_dir: Path = PACKAGE_DIR) -> str:
    """SHA-256 over every engine module (name and bytes): a build is fresh only for these.

    Every module, not just the compiled ones: mypyc reads the others' types and constants.
    """
    digest = hashlib.sha256()
    for path in sorted(package_dir.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def problem(directory: Path, package_dir: Path = PACKAGE_DIR) -> str:
    """Why the build in ``directory`` cannot be used for the sources in ``package_dir``
    ("" if it can)."""
    try:
        stamp = json.loads((directory / STAMP).read_text())
    except FileNotFoundError:
        return "no compiled build"
    except (OSError, ValueError) as exc:
        return f"unreadable {STAMP} ({exc})"
    if not isinstance(stamp, dict) or stamp.get("sources") != source_digest(package_dir):
        return "the compiled build is stale (an engine module changed)"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    missing = [
        name
        for name in (f"{GROUP}__mypyc", *(f"games/engine/{m}" for m in COMPILED))
        if not (directory / (name + suffix)).is_file()
    ]
    if missing:
        return f"the compiled build lacks {', '.join(missing)}"
    return ""


def activate(package_path: MutableSequence[str], directory: Path | None = None) -> str:
    """Put a fresh build ahead of the sources on ``package_path`` (``games.engine.__path__``),
    as ``DURAK_ENGINE`` says; set and return :data:`STATUS`."""
    global STATUS  # noqa: PLW0603 (one fact per process, set once at import)
    mode = os.environ.get("DURAK_ENGINE", "auto") or "auto"
    if mode not in MODES:
        raise ImportError(f"DURAK_ENGINE={mode!r}: one of {', '.join(MODES)}")
    if mode == "python":
        STATUS = "pure Python (DURAK_ENGINE=python)"
        return STATUS
    directory = configured_dir() if directory is None else directory
    why = problem(directory)
    if not why:
        why = _load_group(directory)
    if why:
        if mode == "compiled":
            raise ImportError(f"DURAK_ENGINE=compiled, but {why}: {REMEDY}")
        STATUS = f"pure Python ({why}: {REMEDY})"
        return STATUS
    package_path.insert(0, str(directory / "games" / "engine"))
    STATUS = "compiled (mypyc)"
    return STATUS


def _load_group(directory: Path) -> str:
    """Import the build's shared library (the compiled modules' code) by its path; "" if done.

    The modules' own small extension files import it by name, so it must be in
    ``sys.modules`` before the first of them is imported.
    """
    name = f"{GROUP}__mypyc"
    loaded = sys.modules.get(name)
    if loaded is not None:  # a second activation in one process: only of the same build
        same = Path(str(loaded.__file__)).parent == directory
        return "" if same else "another compiled build is loaded in this process"
    path = directory / (name + importlib.machinery.EXTENSION_SUFFIXES[0])
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            return f"cannot load {path.name}"
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError as exc:  # built by another interpreter or against another runtime
        return f"the compiled build does not load ({exc})"
    sys.modules[name] = module
    return ""
