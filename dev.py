#!/usr/bin/env python3
"""The project's commands, runnable on a fresh machine with nothing but Python 3.11+.

    python3 dev.py demo     the service with a demo on the embedded defaults (127.0.0.1:8000)
    python3 dev.py test     the test suite (add pytest arguments after it)
    python3 dev.py stack    the full stack on PostgreSQL + Redis: ASGI, Celery worker and beat
                            (--host 127.0.0.1 --port 8000)
    python3 dev.py serve    production: checks, migrate, collectstatic, then worker, beat and
                            the ASGI server (python -m durak_site.serve; DJANGO_DEBUG=0)
    python3 dev.py lint     ruff (lint + format check), mypy, the import contracts
    python3 dev.py bench    the benchmarks (prints figures)
    python3 dev.py engine   compile the engine's hot modules with mypyc (tools/build_engine.py)

Each command first makes sure ``.venv`` exists and holds exactly the pinned requirements
(re-installing only when a requirements file changed); all but ``lint`` then compile the engine
when its build is missing or stale (``games/engine/native.py``: with no C compiler, or with
``DURAK_ENGINE=python``, the engine runs as pure Python).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import secrets
import signal
import socket
import subprocess
import sys
import types
import venv
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent


def _load(name: str, path: Path) -> types.ModuleType:
    """A standard-library-only module of ours by its path: importing its package would import
    what only the virtual environment has (``durak_site`` imports Celery), or run its package's
    set-up (``games.engine`` activates its build)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_processes = _load("durak_processes", ROOT / "durak_site" / "processes.py")
_native = _load("durak_engine_native", ROOT / "games" / "engine" / "native.py")
asgi_command, beat_command, worker_command, trusted_proxies_in = (
    _processes.asgi_command,
    _processes.beat_command,
    _processes.worker_command,
    _processes.trusted_proxies_in,
)
VENV = ROOT / ".venv"
PY = VENV / "bin" / "python"
REQUIREMENTS = [ROOT / "requirements.txt", ROOT / "requirements-dev.txt"]
STAMP = VENV / ".requirements.sha256"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/durak"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def say(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def ensure_venv() -> None:
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in REQUIREMENTS)).hexdigest()
    if PY.exists() and STAMP.exists() and STAMP.read_text().strip() == digest:
        return
    if not PY.exists():
        say(f"creating the virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    say("installing the pinned requirements (first run only)")
    subprocess.run(
        [
            str(PY),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-q",
            "-r",
            str(ROOT / "requirements-dev.txt"),
        ],
        check=True,
    )
    STAMP.write_text(digest)


BUILD_ENGINE = ROOT / "tools" / "build_engine.py"


def ensure_engine() -> None:
    """Compile the engine when its build is missing or stale (a few seconds, once per change of
    ``games/engine``); if it cannot be compiled here, say so: the pure Python engine runs."""
    if os.environ.get("DURAK_ENGINE") == "python" or not _native.problem(_native.build_dir()):
        return
    say("compiling the rules engine with mypyc (once per change of games/engine)")
    if subprocess.call([str(PY), str(BUILD_ENGINE), "--if-stale"], cwd=ROOT):
        say("the rules engine runs as pure Python (the reason is above)")


def cmd_engine(args: list[str]) -> int:
    """``tools/build_engine.py`` (compile now; ``--check`` only says whether the build is fresh)."""
    return subprocess.call([str(PY), str(BUILD_ENGINE), *args], cwd=ROOT)


def manage(*args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run([str(PY), "manage.py", *args], cwd=ROOT, check=True, env=env)


def cmd_demo(args: list[str]) -> int:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    manage("migrate", "--noinput", "-v", "0", env=env)
    manage("demo", *args, env=env)
    say("serving on http://127.0.0.1:8000  (Ctrl-C stops)")
    command = asgi_command(PY, "127.0.0.1", 8000, trusted_proxies=trusted_proxies_in(env))
    return subprocess.call(command, cwd=ROOT, env=env)


def cmd_test(args: list[str]) -> int:
    env = dict(os.environ)
    # A queue of its own, so that a developer's running worker never steals the tests' tasks.
    env.setdefault("DURAK_CELERY_QUEUE", f"durak-test-{secrets.token_hex(4)}")
    mode = "PostgreSQL + Redis, real Celery worker" if env.get("REDIS_URL") else "embedded defaults"
    say(f"running the tests on {mode}")
    return subprocess.call([str(PY), "-m", "pytest", *args], cwd=ROOT, env=env)


def cmd_lint(args: list[str]) -> int:
    steps = [
        [str(PY), "-m", "ruff", "check", "."],
        [str(PY), "-m", "ruff", "format", "--check", "."],
        [str(PY), "-m", "mypy"],  # the files and strictness are in pyproject.toml
        [str(VENV / "bin" / "lint-imports")],  # the layering contracts in .importlinter
    ]
    worst = 0
    for step in steps:
        say(" ".join(step[1:]))
        worst = max(worst, subprocess.call(step, cwd=ROOT))
    return worst


def cmd_bench(args: list[str]) -> int:
    """The ``bench`` package: engine, pairing, random events with incidents and the live table
    page's weight, then a simulated tournament, the live-table load and the API's standings on
    PostgreSQL + Redis (skipped with a message when those are unreachable).

    ``python3 dev.py bench --players 1024`` sets the tournament's size (default 1024);
    ``--tables 50,200`` the load benchmark's table counts; ``--skip-tournament`` runs only the
    pure benchmarks. ``--turnover`` adds a big event's turnover between rounds and its end
    (``bench.turnover``, minutes at 10,000 entries) at ``--turnover-sizes`` (default
    1024,4096,10000).
    """
    players = "1024"
    if "--players" in args:
        players = args[args.index("--players") + 1]
    tables = "50,200"
    if "--tables" in args:
        tables = args[args.index("--tables") + 1]
    worst = 0
    for module in ("bench.engine", "bench.pairing"):
        worst = max(worst, run_bench([module]))
    # Random events with random incidents against the invariants (SQLite, in-process).
    worst = max(worst, run_bench(["bench.incidents", "--events", "20"]))
    # The live table page's weight and its first state over the socket (SQLite, chromium).
    worst = max(worst, run_bench(["bench.table_page"]))
    if "--skip-tournament" in args:
        return worst
    down = [
        name
        for name, url in (
            ("PostgreSQL", os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)),
            ("Redis", os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)),
        )
        if not reachable(url)
    ]
    if down:
        say(f"skipping the tournament and live-table benchmarks: {' and '.join(down)} unreachable")
        return worst
    # Each of these two has its own default database and Redis number (see its docstring).
    worst = max(worst, run_bench(["bench.tournament", "--players", players]))
    # Saturated (every client answers at once: the servers' throughput), then at a player's pace
    # on two server processes (the round-trip target: p99 under 100 ms at 200 tables).
    for extra in ([], ["--servers", "2", "--think-ms", "2000"]):
        command = ["bench.live_tables", "--tables", tables, "--seconds", "10", *extra]
        worst = max(worst, run_bench(command))
    # The API's final standings of a finished tournament beside a plain view (bench/api.py).
    worst = max(worst, run_bench(["bench.api", "--players", players]))
    if "--turnover" in args:
        sizes = "1024,4096,10000"
        if "--turnover-sizes" in args:
            sizes = args[args.index("--turnover-sizes") + 1]
        worst = max(worst, run_bench(["bench.turnover", "--sizes", sizes]))
    return worst


def run_bench(command: list[str]) -> int:
    say("python -m " + " ".join(command))
    return subprocess.call([str(PY), "-m", *command], cwd=ROOT)


def reachable(url: str) -> bool:
    """Whether something listens at the host and port of ``url``."""
    parts = urlsplit(url)
    default = 5432 if parts.scheme.startswith("postgres") else 6379
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default), 3):
            return True
    except OSError:
        return False


def ensure_postgres_database(url: str) -> None:
    """Create the database named in ``url`` when it does not exist yet."""
    code = (
        "import sys, psycopg; from urllib.parse import urlsplit\n"
        "u = urlsplit(sys.argv[1]); name = u.path.lstrip('/')\n"
        "admin = u._replace(path='/postgres').geturl()\n"
        "with psycopg.connect(admin, autocommit=True) as c:\n"
        "    if not c.execute('SELECT 1 FROM pg_database WHERE datname=%s', [name]).fetchone():\n"
        "        c.execute(f'CREATE DATABASE \"{name}\"')\n"
    )
    subprocess.run([str(PY), "-c", code, url], check=True)


def cmd_stack(args: list[str]) -> int:
    """Migrate, start the Celery worker and beat, seed the demo while they run (its jobs need the
    worker), then serve. Ctrl-C, SIGTERM or SIGHUP stops every child; so does the exit of any
    of them, or a demo that fails (its exit code is returned)."""
    parser = argparse.ArgumentParser(prog="dev.py stack")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args(args)
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    env.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    env["PYTHONUNBUFFERED"] = "1"
    address = f"{options.host}:{options.port}"
    say(f"database {env['DATABASE_URL']}, redis {env['REDIS_URL']}")
    running: dict[str, subprocess.Popen[bytes]] = {}

    def start(name: str, command: list[str]) -> subprocess.Popen[bytes]:
        # A process group of its own, so that stopping it also reaches its children (the
        # worker's pool processes) and a terminal's Ctrl-C reaches only dev.py, which stops
        # everything in order.
        proc = subprocess.Popen(command, cwd=ROOT, env=env, process_group=0)
        running[name] = proc
        say(f"{name} started (pid {proc.pid})")
        return proc

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    try:
        if env["DATABASE_URL"].startswith("postgres"):
            ensure_postgres_database(env["DATABASE_URL"])
        manage("migrate", "--noinput", "-v", "0", env=env)
        start("worker", [*worker_command(PY), "--concurrency", "2"])
        start("beat", beat_command(PY, ROOT / f".celerybeat-schedule-{options.port}"))
        demo = start("demo", [str(PY), "manage.py", "demo", "--base-url", f"http://{address}"])
        code = watch(running, until=demo)
        del running["demo"]
        if code != 0:
            say(f"the demo did not finish (exit {code}); stopping")
            return code
        proxies = trusted_proxies_in(env)
        start("asgi", asgi_command(PY, options.host, options.port, trusted_proxies=proxies))
        say(f"serving on http://{address} with a Celery worker and beat (Ctrl-C stops all)")
        return watch(running)
    except KeyboardInterrupt:
        say("stopping")
        return 0
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)  # a second signal must not cut the stop short
        stop(running.values())


def cmd_serve(args: list[str]) -> int:
    """Production's start, ``durak_site/serve.py`` (which says what it does) in the venv."""
    return subprocess.call([str(PY), "-m", "durak_site.serve", *args], cwd=ROOT)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def watch(
    running: dict[str, subprocess.Popen[bytes]], until: subprocess.Popen[bytes] | None = None
) -> int:
    """``processes.watch``, saying what it does as dev.py says things."""
    code: int = _processes.watch(running, until, say)
    return code


def stop(procs: Iterable[subprocess.Popen[bytes]], grace: float = 15.0) -> None:
    """``processes.stop``: SIGTERM, ``grace`` seconds, then SIGKILL to what is left."""
    _processes.stop(procs, grace, say)


COMMANDS = {
    "demo": cmd_demo,
    "test": cmd_test,
    "stack": cmd_stack,
    "serve": cmd_serve,
    "lint": cmd_lint,
    "bench": cmd_bench,
    "engine": cmd_engine,
}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py runs before any venv exists)
        print("Python 3.11 or newer is needed", file=sys.stderr)
        return 2
    ensure_venv()
    if sys.argv[1] not in ("lint", "engine"):
        ensure_engine()
    try:
        trusted_proxies_in(os.environ)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
