#!/usr/bin/env python3
"""The project's commands, runnable on a fresh machine with nothing but Python 3.11+.

    python3 dev.py demo     the service with a demo on the embedded defaults (127.0.0.1:8000)
    python3 dev.py test     the test suite (add pytest arguments after it)
    python3 dev.py stack    the full stack on PostgreSQL + Redis: ASGI, Celery worker and beat
    python3 dev.py lint     ruff (lint + format check) and mypy
    python3 dev.py bench    the benchmarks (prints figures)

Each command first makes sure ``.venv`` exists and holds exactly the pinned requirements
(re-installing only when a requirements file changed).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import secrets
import signal
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def _load_processes():  # type: ignore[no-untyped-def]
    """``durak_site/processes.py`` by its path: importing the package would import Celery,
    which only the virtual environment has."""
    path = ROOT / "durak_site" / "processes.py"
    spec = importlib.util.spec_from_file_location("durak_processes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_processes = _load_processes()
asgi_command, beat_command, worker_command = (
    _processes.asgi_command,
    _processes.beat_command,
    _processes.worker_command,
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


def manage(*args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run([str(PY), "manage.py", *args], cwd=ROOT, check=True, env=env)


def cmd_demo(args: list[str]) -> int:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    manage("migrate", "--noinput", "-v", "0", env=env)
    manage("demo", *args, env=env)
    say("serving on http://127.0.0.1:8000  (Ctrl-C stops)")
    return subprocess.call(asgi_command(PY, "127.0.0.1", 8000), cwd=ROOT, env=env)


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
        [str(PY), "-m", "mypy", "games/engine", "tournaments/pairing", "tournaments/scoring"],
    ]
    worst = 0
    for step in steps:
        say(" ".join(step[1:]))
        worst = max(worst, subprocess.call(step, cwd=ROOT))
    return worst


def cmd_bench(args: list[str]) -> int:
    """Engine and pairing benchmarks, then a simulated tournament and the live-table load on
    PostgreSQL + Redis.

    ``python3 dev.py bench --players 1024`` sets the tournament's size (default 1024);
    ``--tables 50,200`` the load benchmark's table counts; ``--skip-tournament`` runs only the
    pure benchmarks.
    """
    players = "1024"
    if "--players" in args:
        players = args[args.index("--players") + 1]
    tables = "50,200"
    if "--tables" in args:
        tables = args[args.index("--tables") + 1]
    worst = 0
    for module in ("games.engine.bench", "tournaments.pairing.bench"):
        say(f"python -m {module}")
        worst = max(worst, subprocess.call([str(PY), "-m", module], cwd=ROOT))
    if "--skip-tournament" in args:
        return worst
    worst = max(worst, bench_tournament(players))
    return max(worst, bench_live_tables(tables))


def bench_live_tables(tables: str) -> int:
    """``games.loadbench``: bot clients over real WebSockets against real ASGI servers."""
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/durak_loadbench")
    env.setdefault("REDIS_URL", "redis://127.0.0.1:6379/5")
    down = [
        name
        for name, url in (("PostgreSQL", env["DATABASE_URL"]), ("Redis", env["REDIS_URL"]))
        if not reachable(url)
    ]
    if down:
        say(f"skipping the live-table load benchmark: {' and '.join(down)} unreachable")
        return 0
    worst = 0
    # Saturated (every client answers at once: the servers' throughput), then at a player's pace
    # on two server processes (the round-trip target: p99 under 100 ms at 200 tables).
    for extra in ([], ["--servers", "2", "--think-ms", "2000"]):
        command = ["-m", "games.loadbench", "--tables", tables, "--seconds", "10", *extra]
        say("python " + " ".join(command))
        worst = max(worst, subprocess.call([str(PY), *command], cwd=ROOT, env=env))
    return worst


def reachable(url: str) -> bool:
    """Whether something listens at the host and port of ``url``."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    default = 5432 if parts.scheme.startswith("postgres") else 6379
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default), 3):
            return True
    except OSError:
        return False


def bench_tournament(players: str) -> int:
    """A full tournament of bots in 3 stages with ONE real worker process on PostgreSQL + Redis."""
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/durak_bench")
    env.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    env["DURAK_CELERY_QUEUE"] = f"bench-{secrets.token_hex(4)}"
    ensure_postgres_database(env["DATABASE_URL"])
    manage("migrate", "--noinput", "-v", "0", env=env)
    worker = subprocess.Popen(
        [
            str(VENV / "bin" / "celery"),
            "-A",
            "durak_site",
            "worker",
            "-l",
            "warning",
            "-Q",
            env["DURAK_CELERY_QUEUE"],
            "--concurrency",
            "1",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
    )
    plan = "swiss:4:3:top=256,swiss:4:2:top=64,knockout:4:2"
    say(f"simulate_tournament --players {players} --plan {plan} (1 worker process)")
    started = time.monotonic()
    try:
        code = subprocess.call(
            [
                str(PY),
                "manage.py",
                "simulate_tournament",
                "--players",
                players,
                "--plan",
                plan,
                "--no-progress",
                "--top",
                "3",
            ],
            cwd=ROOT,
            env=env,
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    say(f"tournament of {players} players: {time.monotonic() - started:.1f} s wall time")
    return code


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
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    env.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    env["PYTHONUNBUFFERED"] = "1"
    say(f"database {env['DATABASE_URL']}, redis {env['REDIS_URL']}")
    if env["DATABASE_URL"].startswith("postgres"):
        ensure_postgres_database(env["DATABASE_URL"])
    manage("migrate", "--noinput", "-v", "0", env=env)
    manage("demo", env=env)
    processes = {
        "asgi": asgi_command(PY, "127.0.0.1", 8000),
        "worker": [*worker_command(PY), "--concurrency", "2"],
        "beat": beat_command(PY, ROOT / ".celerybeat-schedule"),
    }
    running = {name: subprocess.Popen(cmd, cwd=ROOT, env=env) for name, cmd in processes.items()}
    say("serving on http://127.0.0.1:8000 with a Celery worker and beat (Ctrl-C stops all)")
    exit_code = 0
    try:
        while True:
            for name, proc in running.items():
                if proc.poll() is not None:
                    say(f"{name} exited with {proc.returncode}; stopping the others")
                    exit_code = proc.returncode or 1
                    raise KeyboardInterrupt
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for proc in running.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.time() + 15
        for proc in running.values():
            try:
                proc.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                proc.kill()
    return exit_code


COMMANDS = {
    "demo": cmd_demo,
    "test": cmd_test,
    "stack": cmd_stack,
    "lint": cmd_lint,
    "bench": cmd_bench,
}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py runs before any venv exists)
        print("Python 3.11 or newer is needed", file=sys.stderr)
        return 2
    ensure_venv()
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
