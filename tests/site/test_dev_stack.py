"""``python3 dev.py stack`` on a fresh database: the worker comes up before the demo that needs
it, the demo finishes, the server answers, and a stop signal ends every process it started."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import urlsplit

import psycopg
import pytest
import redis

from durak_site.processes import free_port
from tests.conftest import ROOT, subprocess_env
from tournaments.management.commands.demo import FINISHED_NAME, LIVE_NAME

pytestmark = [pytest.mark.real_stack, pytest.mark.slow]

START_TIMEOUT = 240  # a fresh database: migrations, then the demo's bot tournament
STOP_TIMEOUT = 40  # dev.py gives its children 15 s, then kills what is left


@dataclass(frozen=True)
class Proc:
    """A process as /proc shows it; ``start`` (clock ticks after boot) tells a reused pid."""

    pid: int
    ppid: int
    start: int
    state: str
    cmdline: str


def read_proc(pid: int) -> Proc | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (OSError, UnicodeDecodeError):
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the name, in parentheses, may hold spaces
    return Proc(pid, int(fields[1]), int(fields[19]), fields[0], cmdline.strip())


def descendants(root: int) -> list[Proc]:
    procs = [p for p in map(read_proc, (int(d) for d in os.listdir("/proc") if d.isdigit())) if p]
    children: dict[int, list[Proc]] = {}
    for proc in procs:
        children.setdefault(proc.ppid, []).append(proc)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return found


def still_running(proc: Proc) -> bool:
    """The same process (not a reused pid) exists and is not a zombie (exited, not reaped)."""
    now = read_proc(proc.pid)
    return now is not None and now.start == proc.start and now.state != "Z"


@dataclass
class Stack:
    proc: subprocess.Popen[bytes]
    address: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self) -> str:
        return "\n".join(self.output().splitlines()[-40:])


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def stack_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A fresh PostgreSQL database of its own (dropped afterwards), Redis database 7 and a Celery
    queue of its own (its keys deleted afterwards)."""
    database = urlsplit(os.environ["DATABASE_URL"])
    name = f"durak_stack_{secrets.token_hex(4)}"
    admin = database._replace(path="/postgres").geturl()
    queue = f"durak-stack-{secrets.token_hex(4)}"
    redis_url = urlsplit(os.environ["REDIS_URL"])._replace(path="/7").geturl()
    env = subprocess_env(
        DATABASE_URL=database._replace(path=f"/{name}").geturl(),
        REDIS_URL=redis_url,
        DURAK_CELERY_QUEUE=queue,
    )
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    try:
        yield env
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        client = redis.Redis.from_url(redis_url)
        for key in client.scan_iter(f"*{queue}*"):
            client.delete(key)
        client.close()


def start_stack(env: dict[str, str], log: Path) -> Stack:
    port = free_port()
    python = shutil.which("python3") or sys.executable
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [python, "dev.py", "stack", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return Stack(proc, f"127.0.0.1:{port}", log)


def wait_healthy(stack: Stack) -> dict[str, object]:
    """Wait until dev.py says it serves and /healthz answers 200; its JSON body."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert stack.proc.poll() is None, f"dev.py stack exited early:\n{stack.tail()}"
        if "serving on" in stack.output():
            try:
                status, body = get(f"http://{stack.address}/healthz")
            except OSError:
                status, body = 0, b""
            if status == 200:
                health: dict[str, object] = json.loads(body)
                return health
        time.sleep(0.5)
    raise AssertionError(f"not serving after {START_TIMEOUT} s:\n{stack.tail()}")


def stop_and_check(stack: Stack, signum: int) -> None:
    """Send ``signum`` to dev.py alone; it and every process under it must end."""
    children = descendants(stack.proc.pid)
    kinds = {
        "asgi": [p for p in children if "uvicorn" in p.cmdline],
        "worker": [p for p in children if "celery" in p.cmdline and " worker" in p.cmdline],
        "beat": [p for p in children if "celery" in p.cmdline and " beat" in p.cmdline],
    }
    assert all(kinds.values()), f"missing among {[p.cmdline for p in children]}"
    stack.proc.send_signal(signum)
    try:
        code = stack.proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        stack.proc.kill()
        raise AssertionError(f"dev.py still running {STOP_TIMEOUT} s after {signum!r}") from None
    assert code == 0, stack.tail()
    deadline = time.monotonic() + 5  # a killed worker's pool processes go a moment later
    while (left := [p for p in children if still_running(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"still running after dev.py stopped: {[p.cmdline for p in left]}"


def kill_all(stack: Stack) -> None:
    """After a failure: nothing of this stack may outlive the test."""
    if stack.proc.poll() is None:
        for proc in descendants(stack.proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        stack.proc.kill()
        stack.proc.wait()


class DemoState(TypedDict):
    """Rows of the demo's two tournaments, read straight from the database."""

    finished: list[tuple[Any, ...]]  # status, slug, ranked, rated, final prize pool
    live: list[tuple[Any, ...]]  # status, seats


def demo_state(env: dict[str, str]) -> DemoState:
    with psycopg.connect(env["DATABASE_URL"]) as conn:
        finished = conn.execute(
            "SELECT t.status, t.slug, t.ranks_computed_at IS NOT NULL,"
            " t.ratings_applied_at IS NOT NULL, p.final"
            " FROM tournaments_tournament t LEFT JOIN tournaments_prizepool p"
            " ON p.tournament_id = t.id WHERE t.name = %s",
            [FINISHED_NAME],
        ).fetchall()
        live = conn.execute(
            "SELECT t.status, count(*) FROM tournaments_tournament t"
            " JOIN tournaments_stage st ON st.tournament_id = t.id"
            " JOIN tournaments_round r ON r.stage_id = st.id"
            " JOIN tournaments_table tb ON tb.round_id = r.id"
            " JOIN tournaments_seat s ON s.table_id = tb.id"
            " WHERE t.name = %s GROUP BY t.id, t.status",
            [LIVE_NAME],
        ).fetchall()
    return {"finished": finished, "live": live}


def test_the_stack_starts_on_a_fresh_database_and_stops_whole(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    # given a database that does not exist yet
    port_files: list[Path] = []
    try:
        # when the stack starts on it
        first = start_stack(stack_env, tmp_path / "first.log")
        port_files.append(ROOT / f".celerybeat-schedule-{first.address.rsplit(':', 1)[1]}")
        try:
            health = wait_healthy(first)
            # then the server is up with every part green, and the demo has finished: the bot
            # tournament and the jobs after its end, and the live event's first round is paired
            assert health["status"] == "ok", health
            output = first.output()
            assert "Your seat (log in as admin): /tables/" in output, first.tail()
            assert "DeprecationWarning" not in output  # e.g. uvicorn's legacy --ws websockets
            state = demo_state(stack_env)
            [(status, slug, ranked, rated, final_pool)] = state["finished"]
            assert (status, ranked, rated, final_pool) == ("finished", True, True, True)
            [(live_status, seats)] = state["live"]  # no row: its first round is not paired
            assert live_status == "running" and seats > 0
            assert get(f"http://{first.address}/tournaments/{slug}/")[0] == 200
            # and SIGTERM to dev.py alone ends it and every process under it
            stop_and_check(first, signal.SIGTERM)
        finally:
            kill_all(first)
        # when it starts again on the seeded database, the demo is there already
        second = start_stack(stack_env, tmp_path / "second.log")
        port_files.append(ROOT / f".celerybeat-schedule-{second.address.rsplit(':', 1)[1]}")
        try:
            assert wait_healthy(second)["status"] == "ok"
            assert "Playing a finished demo tournament" not in second.output()
            assert "Your seat (log in as admin): /tables/" in second.output(), second.tail()
            # then Ctrl-C (SIGINT) stops it all the same
            stop_and_check(second, signal.SIGINT)
        finally:
            kill_all(second)
    finally:
        for path in port_files:
            for leftover in path.parent.glob(path.name + "*"):
                leftover.unlink(missing_ok=True)
