"""The fault suite's own services and processes: a Redis server and a PostgreSQL cluster on free
ports in a temporary directory (the shared services are never touched), and the project's Celery
workers and beat on them, which the tests kill.

Standard library and the project's command lines (``durak_site.processes``) only; the fixtures
that build these are in ``tests/chaos/conftest.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from durak_site.processes import (
    asgi_command,
    beat_command,
    free_port,
    wait_serving,
    worker_command,
)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PG_BIN = Path(os.environ.get("DURAK_PG_BIN", "/usr/lib/postgresql/15/bin"))
QUEUE = "chaos"


def chaos_skip_reason(real_stack: bool) -> str | None:
    """Why the fault suite does not run here (None: it runs). It needs ``redis-server`` and
    PostgreSQL's ``initdb``/``pg_ctl``; it runs in the PostgreSQL + Redis pass of the suite (CI
    runs the suite twice; the faults once), or wherever ``DURAK_CHAOS=1`` asks for it;
    ``DURAK_CHAOS=0`` switches it off."""
    wanted = os.environ.get("DURAK_CHAOS", "")
    if wanted == "0":
        return "DURAK_CHAOS=0"
    if shutil.which("redis-server") is None:
        return "the fault suite needs redis-server"
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        return f"the fault suite needs PostgreSQL's initdb and pg_ctl in {PG_BIN} (DURAK_PG_BIN)"
    if wanted != "1" and not real_stack:
        return "the fault suite runs in the PostgreSQL + Redis pass (DURAK_CHAOS=1 runs it here)"
    return None


def service_port() -> int:
    """A free port for a private service, below the ephemeral range (32768 and up on Linux):
    a port taken from that range (``free_port``) can be handed out again, before the service
    binds it, as the source port of any outgoing connection on the machine."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, 32000)
        with contextlib.closing(socket.socket()) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return free_port()


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its tools as the ``postgres`` user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


class PrivateRedis:
    """A ``redis-server`` of our own: no persistence (as in CI), killable and restartable on
    the same port."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = service_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=(self.dir / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_until(self.answers, 10, f"redis-server on {self.port} did not start")

    def answers(self) -> bool:
        try:
            import redis  # noqa: PLC0415 (a test dependency only here)

            return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
        except Exception:
            return False

    def kill(self) -> None:
        """``kill -9``: its data is gone (no persistence)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None


class PrivatePostgres:
    """A PostgreSQL cluster of our own (``initdb`` in the work directory, ``pg_ctl`` on a free
    port, trust authentication on 127.0.0.1, fsync off: durability is not under test here)."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "postgres"
        self.dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self.data = self.dir / "data"
        self.port = service_port()

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def init(self) -> None:
        subprocess.run(
            _as_postgres(
                [
                    str(PG_BIN / "initdb"),
                    "-D",
                    str(self.data),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--locale=C.UTF-8",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        subprocess.run(
            _as_postgres(
                [
                    str(PG_BIN / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-o",
                    options,
                    "-l",
                    str(self.dir / "postgres.log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )

    def stop(self, mode: str = "immediate") -> None:
        subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "stop"]),
            check=False,
            capture_output=True,
        )

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def wait_until(condition: Any, timeout: float, failure: str, pause: float = 0.05) -> float:
    """Wait for ``condition()``; the seconds it took, ``RuntimeError(failure)`` past
    ``timeout``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise RuntimeError(failure)
        time.sleep(pause)
    return time.monotonic() - started


@dataclass
class Stack:
    """The private services, the environment of the processes that use them, and a place for
    their logs."""

    workdir: Path
    redis: PrivateRedis
    postgres: PrivatePostgres
    database_url: str
    env: dict[str, str] = field(default_factory=dict)

    def manage(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``manage.py`` on the private services (raises with its output if it fails)."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done

    def scene(self, *args: str, timeout: float = 300) -> Any:
        """``python -m tests.chaos.scenes ...`` on the private services: its JSON answer."""
        done = subprocess.run(
            [sys.executable, "-m", "tests.chaos.scenes", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"scene {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """Rows of ``query`` on the private database (its own short connection)."""
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            return conn.execute(query, params).fetchall()


class CeleryProcess:
    """A worker or beat process of the project on the private services, in a process group of
    its own, so that :meth:`kill` takes its pool processes with it as a machine's death would."""

    counter = 0

    def __init__(self, stack: Stack, kind: str, concurrency: int = 2) -> None:
        CeleryProcess.counter += 1
        self.stack = stack
        self.kind = kind
        self.name = f"{kind}{CeleryProcess.counter}@chaos"
        self.log = stack.workdir / f"{kind}-{CeleryProcess.counter}.log"
        if kind == "worker":
            command = worker_command(sys.executable, queue=QUEUE, name=self.name)
            command += ["--concurrency", str(concurrency)]
        else:
            command = beat_command(sys.executable, stack.workdir / "beat-schedule")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            command,
            cwd=ROOT,
            env=stack.env,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.ready_at: float | None = None

    def wait_ready(self, timeout: float = 60) -> float:
        """Wait until the worker says it is ready (beat: until it runs); the monotonic time."""

        def ready() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} died at start: see {self.log}")
            return self.kind == "beat" or b" ready." in self.log.read_bytes()

        wait_until(ready, timeout, f"{self.name} not ready within {timeout} s: see {self.log}")
        self.ready_at = time.monotonic()
        return self.ready_at

    def kill(self) -> None:
        """``kill -9`` of the process and its pool processes."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self.kill()


class AsgiServer:
    """The project's ASGI server on the private services, always on the same port (so that a
    client reconnects to the address it knew), in a process group of its own."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.log = stack.workdir / f"asgi-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 40) -> float:
        """Start it and wait until it answers ``/healthz``; the seconds that took."""
        started = time.monotonic()
        self.proc = subprocess.Popen(
            asgi_command(sys.executable, "127.0.0.1", self.port),
            cwd=ROOT,
            env=self.stack.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_serving(self.address, self.proc, timeout, str(self.log))
        return time.monotonic() - started

    def kill(self) -> None:
        """``kill -9``: its sockets drop without a close frame."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self.kill()
        self.proc = None


class Figures:
    """What the fault suite measured, by test: printed at the end of the run and written to
    ``tests/chaos/artifacts/figures.json``."""

    def __init__(self) -> None:
        self.by_test: dict[str, dict[str, Any]] = {}
        self.started = time.monotonic()

    def record(self, test: str, **values: Any) -> None:
        self.by_test.setdefault(test, {}).update(values)

    def seconds(self) -> float:
        """Since the suite's first fixture was built (its services' start included)."""
        return round(time.monotonic() - self.started, 1)

    def write(self) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / "figures.json"
        body = {"suite_seconds": self.seconds(), "tests": self.by_test}
        path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
        return path
