"""Compile the engine's hot modules with mypyc: ``python3 dev.py engine`` runs this.

    .venv/bin/python tools/build_engine.py [--if-stale] [--check]

Compiles ``games/engine/game.py`` and ``state.py`` (``games.engine.native.COMPILED``) into C
extension modules with mypyc (part of mypy, a pinned development requirement) and the system's
C compiler, into ``games/engine/_build/<platform tag>/``, and writes ``build.json`` there with
the digest of the engine sources the build is of (``games/engine/native.py`` says how the
engine picks it up, and falls back to its pure Python modules when the build is stale).

The build runs in a scratch directory; the new build replaces the old one only once it has
compiled and a fresh interpreter has imported it (``DURAK_ENGINE=compiled``) and played a
game with it.  A lock file keeps two builds (two test passes started at once) from racing.

``--if-stale`` does nothing when the build is fresh.  ``--check`` only says whether it is
(exit 0 fresh, 1 stale or missing).  Exit 3: no C compiler or no Python headers (``gcc`` and
``python3-dev`` on Debian); the engine then runs as pure Python.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# This process imports the engine's sources, never a build (which DURAK_ENGINE=compiled would
# require, stale or not); the smoke test's interpreter gets its own setting.
os.environ["DURAK_ENGINE"] = "python"

from games.engine import native  # noqa: E402 (the project root is put on the path first)

NO_TOOLCHAIN = 3


def toolchain_problem() -> str:
    """What is missing to compile C extensions here ("" if nothing)."""
    compiler = str(sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}): apt-get install gcc"
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.is_file():
        return f"no Python headers ({include}): apt-get install python3-dev"
    return ""


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    native.BUILD_ROOT.mkdir(parents=True, exist_ok=True)
    with (native.BUILD_ROOT / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def compile_into(out: Path) -> None:
    """Run mypyc and the C compiler; leave the build's files under ``out / "lib"``.

    Runs in this process (setuptools and mypyc print to stdout): :func:`build` calls it in a
    child and shows its output only if it fails.
    """
    from mypyc.build import mypycify  # noqa: PLC0415 (a development requirement)
    from setuptools import setup  # noqa: PLC0415

    os.chdir(ROOT)
    sources = [f"games/engine/{name}.py" for name in native.COMPILED]
    # Our own pyproject settings are for checking (plugins, other packages): not read here.
    options = ["--config-file", os.devnull, "--strict", "--cache-dir", str(out / "cache")]
    extensions = mypycify(
        [*options, *sources], group_name=native.GROUP, target_dir=str(out / "c"), opt_level="3"
    )
    setup(
        name="durak-engine-build",
        packages=[],
        py_modules=[],
        ext_modules=extensions,
        script_args=["-q", "build_ext", "--build-lib", str(out / "lib"), "--build-temp", str(out)],
    )


SMOKE = (
    "import random\n"
    "from games.engine import Rules, apply, legal_moves, native, new_game\n"
    "from games.engine import game\n"
    "assert native.STATUS == 'compiled (mypyc)' and game.__file__.endswith('.so'), game.__file__\n"
    "rng = random.Random(1)\n"
    "s = new_game(Rules(players=4, variant='transfer'), rng)\n"
    "while s.result is None:\n"
    "    s = apply(s, rng.choice(legal_moves(s)))\n"
)


def build() -> Path:
    """Compile, try the result in a fresh interpreter, then put it in place; return its path."""
    target = native.build_dir()
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = native.source_digest()
    with tempfile.TemporaryDirectory(prefix="engine-build-", dir=target.parent) as scratch:
        out = Path(scratch)
        run = subprocess.run(
            [sys.executable, __file__, "--compile-into", str(out)],
            capture_output=True,
            text=True,
        )
        if run.returncode:
            sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
            raise SystemExit(f"the engine did not compile (exit {run.returncode})")
        lib = out / "lib"
        stamp = {
            "sources": digest,
            "modules": list(native.COMPILED),
            "python": sys.version.split()[0],
            "mypy": _mypy_version(),
            "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        (lib / native.STAMP).write_text(json.dumps(stamp, indent=2) + "\n")
        _smoke(lib)
        old = target.with_name(target.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if target.exists():
            target.rename(old)
        lib.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    if native.source_digest() != digest:
        raise SystemExit("an engine module changed during the build: run it again")
    return target


def _smoke(lib: Path) -> None:
    """Import the build in a fresh interpreter and play one game with it."""
    env = {**os.environ, "DURAK_ENGINE": "compiled", "DURAK_ENGINE_BUILD": str(lib)}
    run = subprocess.run(
        [sys.executable, "-c", SMOKE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if run.returncode:
        sys.stderr.write(run.stderr[-4000:])
        raise SystemExit("the compiled engine did not load or play")


def _mypy_version() -> str:
    from mypy.version import __version__  # noqa: PLC0415

    return str(__version__)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--if-stale", action="store_true", help="build only if stale or missing")
    parser.add_argument("--check", action="store_true", help="only say whether it is fresh")
    parser.add_argument("--compile-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compile_into is not None:
        compile_into(args.compile_into)
        return 0
    if args.check:
        why = native.problem(native.build_dir())
        print(why or f"fresh: {native.build_dir()}")
        return 1 if why else 0
    missing = toolchain_problem()
    if missing:
        print(f"the engine runs as pure Python: {missing}")
        return NO_TOOLCHAIN
    with _locked():
        # (under the lock: another build may have finished meanwhile)
        if args.if_stale and not native.problem(native.build_dir()):
            return 0
        start = time.perf_counter()
        path = build()
        print(f"compiled the engine with mypyc in {time.perf_counter() - start:.0f} s: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
