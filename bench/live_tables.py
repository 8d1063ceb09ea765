"""Load benchmark of the live tables: N two-player tables of bot clients over real WebSockets.

    python -m bench.live_tables --tables 50,200,500 [--servers 1] [--think-ms 0] [--seconds 20]
        [--spectators 0]

For each N it registers 2N human players (user accounts with DRF tokens) in a fresh tournament
whose one swiss round seats them at N two-seat tables (a long ``best_of`` series per table, so
every table keeps playing: the real Celery worker deals each next game), starts ``--servers``
real ASGI servers (``durak_site.processes``; the sockets are split between them) and one Celery
worker, and connects one socket per player (its token in the ``Authorization`` header). Each
client plays from the ``legal`` list of its latest state (the lowest defence, attack or throw,
else take or pass; a thrower waits while the defender is to answer), sending the state's version
and a unique id. The round trip of an action is from the send to the first state of a higher
version that reaches the acting client; after an error (a stale version, a lost race) the client
waits for the next state. After ``--warmup`` seconds it measures for ``--seconds``.

Printed: per N the sockets, actions, actions per second, round trip p50/p90/p99/max, errors;
then where the time goes: the servers' own timing of each phase (``games.timing``, switched on
in the servers with ``DURAK_TIMING``), the client's share and the CPU seconds of every process
(servers, worker, PostgreSQL, Redis, clients) during the window.

With ``--spectators N`` the first table is a final table watched by N spectator sockets while
every table plays: anonymous visitors of the (public) tournament, no credentials, so genuinely
not seated, spread evenly over the servers and over ``--spectator-procs`` client processes of
their own (so that decoding their frames does not delay the players' clients). They open after
the players, before play starts; the servers' resident memory before and after, divided by N,
is the memory per idle socket. Printed for that table: the states it reached in the window (its
``GameAction`` rows and new games, from the database) against the states each spectator got,
the time from each state's commit to its first and last spectator, and the players' round trip
there and at every table. "Commit" is the row's ``created_at``: stamped as the row is inserted,
a few statements before the commit, so the figure errs long; the server's ``sent_at`` stamp
(``games.broadcast``) stays inside the server (a client frame does not carry it). Also printed,
from the other side: the acting player's ack (sent after the publish) to the last spectator.

It needs PostgreSQL and Redis: ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/durak_loadbench``, created if missing and migrated) and
``REDIS_URL`` (default ``redis://127.0.0.1:6379/5``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import json
import math
import multiprocessing
import os
import random
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import uvloop
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from bench import production_env
from bench.spectator_socket import Key, SpectatorSocket, open_spectator
from durak_site.processes import (
    asgi_command,
    collectstatic_command,
    free_port,
    wait_serving,
    worker_command,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/durak_loadbench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/5"
CONNECT_AT_ONCE = 32  # handshakes in flight per client process
SPECTATORS_PER_PROC = 1250  # spectator sockets per client process unless --spectator-procs
SPECTATOR_GRACE = 10.0  # seconds spectators listen after the window for its last states
SERIES = {"format": "best_of", "target": 99}  # far more games than a run can play


# --- setup: database, players, tables -------------------------------------------------------------


def ensure_database(url: str) -> None:
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django  # noqa: PLC0415 (only once the environment above is set)

    django.setup()
    from django.core.management import call_command  # noqa: PLC0415 (after django.setup())

    call_command("migrate", "--noinput", verbosity=0)


@dataclass(frozen=True)
class SocketSpec:
    table_id: int
    token: str


def create_tables(n: int, label: str) -> list[SocketSpec]:
    """A running tournament of 2N human players at N two-seat tables: one socket spec each."""
    from django.contrib.auth import get_user_model  # noqa: PLC0415 (after django.setup())
    from django.db import transaction  # noqa: PLC0415 (after django.setup())
    from rest_framework.authtoken.models import Token  # noqa: PLC0415 (after django.setup())

    from tournaments import services  # noqa: PLC0415 (after django.setup())
    from tournaments.models import Round, Seat  # noqa: PLC0415 (after django.setup())

    User = get_user_model()
    with transaction.atomic():
        users = User.objects.bulk_create(
            User(username=f"lb-{label}-{i}", password="!") for i in range(2 * n)
        )
        Token.objects.bulk_create(Token(user=u, key=secrets.token_hex(20)) for u in users)
        players = [
            services.player_create(display_name=f"Bot {label} {i}", user=u)
            for i, u in enumerate(users)
        ]
        tournament = services.tournament_create(
            name=f"loadbench {label}",
            stages=[{"format": "swiss", "table_size": 2, "rounds": 1, "series": SERIES}],
            rules={"deck_size": 36},
            move_clock_seconds=0,
            is_public=True,  # anyone may watch: the spectators are anonymous visitors
        )
        services.tournament_open_registration(tournament=tournament)
        for player in players:
            services.entry_register(tournament=tournament, player=player)
    # Starting requests the pairing job; pair here and now instead (the job is idempotent).
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_.pk)
    tokens = dict(Token.objects.filter(user__in=users).values_list("user_id", "key"))
    seats = Seat.objects.filter(table__round=round_).order_by("table_id", "position")
    return [
        SocketSpec(table_id, tokens[user_id])
        for table_id, user_id in seats.values_list("table_id", "player__user_id")
    ]


# --- processes: servers, worker, CPU accounting --------------------------------------------------


@contextlib.contextmanager
def running(commands: list[list[str]], env: dict[str, str], logs: Path) -> Iterator[list[Any]]:
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for i, command in enumerate(commands):
            log = (logs / f"proc-{i}.log").open("wb")
            procs.append(
                subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            )
            log.close()
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its waited-for children (0 if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def pids_named(*names: str) -> list[int]:
    found = []
    for comm in glob.glob("/proc/[0-9]*/comm"):
        try:
            name = Path(comm).read_text().strip()
        except OSError:
            continue
        if any(name.startswith(n) for n in names):
            found.append(int(comm.split("/")[2]))
    return found


def family(pid: int) -> list[int]:
    """A process and its descendants (a Celery worker's pool, for instance)."""
    children: dict[int, list[int]] = defaultdict(list)
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children[int(fields[1])].append(int(stat.split("/")[2]))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


# --- the clients ------------------------------------------------------------------------------


RANK = {r: i for i, r in enumerate("23456789TJQKA")}


def choose(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The bench policy: defend, attack or throw the lowest card, else take or pass. A thrower
    that may not pass (the defender still has cards to beat) waits for the defender."""
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for action in legal:
        by_type[action["type"]].append(action)

    def lowest(actions: list[dict[str, Any]]) -> dict[str, Any]:
        return min(actions, key=lambda a: RANK.get(a["cards"][0][0], 99))

    for kind in ("defend", "attack"):
        if by_type[kind]:
            return lowest(by_type[kind])
    if by_type["throw"] and by_type["pass"]:
        return lowest(by_type["throw"])
    for kind in ("take", "pass"):
        if by_type[kind]:
            return by_type[kind][0]
    if by_type["throw"] or not legal:
        return None
    return legal[0]


@dataclass(frozen=True)
class Target:
    """A socket to open: its URL and Origin, the token of its player (None: an anonymous
    spectator), whether it is at the final table."""

    url: str
    origin: str
    token: str | None = None
    final: bool = False


@dataclass
class ClientStats:
    rtts: list[float] = field(default_factory=list)  # seconds, of actions sent in the window
    final_rtts: list[float] = field(default_factory=list)  # those of the final table's players
    acks: dict[tuple[int, int], float] = field(default_factory=dict)  # final table: wall time
    errors: Counter[str] = field(default_factory=Counter)
    sent: int = 0
    games_over: int = 0
    handle: float = 0.0  # seconds from a state's arrival to the action's send (decode + choose)


def client_process(
    urls: list[Target], timing: tuple[float, float, float], to_parent: Any, go: Any
) -> None:
    """Connect this share of the sockets, report ready, play from ``go`` to the window's end.

    ``timing``: (think, warm-up, window) in seconds.
    """
    think, warmup, seconds = timing

    async def main() -> None:
        stats = ClientStats()
        gate = asyncio.Semaphore(CONNECT_AT_ONCE)
        sockets = await asyncio.gather(*(opener(url, gate) for url in urls))
        opened = [(s, url.final) for s, url in zip(sockets, urls, strict=True) if s is not None]
        to_parent.put(("ready", len(opened)))
        while not go.is_set():
            await asyncio.sleep(0.02)
        t0 = time.monotonic()
        window = (t0 + warmup, t0 + warmup + seconds)
        cpu0 = time.process_time()
        await asyncio.gather(*(player(s, window, think, stats, final) for s, final in opened))
        to_parent.put(
            (
                "done",
                {
                    "rtts": stats.rtts,
                    "final_rtts": stats.final_rtts,
                    "acks": stats.acks,
                    "errors": dict(stats.errors),
                    "sent": stats.sent,
                    "games_over": stats.games_over,
                    "handle": stats.handle,
                    "cpu": time.process_time() - cpu0,
                    "connect_failures": len(urls) - len(opened),
                },
            )
        )

    asyncio.run(main())


async def opener(target: Target, gate: asyncio.Semaphore) -> Any:
    headers = {"Authorization": f"Token {target.token}"} if target.token else None
    async with gate:
        for _attempt in range(3):
            try:
                return await connect(
                    target.url,
                    origin=Origin(target.origin),
                    additional_headers=headers,
                    open_timeout=60,
                    max_queue=None,
                    # A browser sends no pings; the server's own (uvicorn's, every 20 s) remain.
                    ping_interval=None,
                )
            except Exception:
                await asyncio.sleep(0.5)
    return None


async def player(
    sock: Any, window: tuple[float, float], think: float, stats: ClientStats, final: bool
) -> None:
    """One client: act on each new state with legal moves, time each action's round trip."""
    try:
        await _play(sock, window, think, stats, final)
    except ConnectionClosed as exc:
        stats.errors[f"closed {exc.rcvd.code if exc.rcvd else '?'}"] += 1
    finally:
        with contextlib.suppress(Exception):
            await sock.close()


async def _play(
    sock: Any, window: tuple[float, float], think: float, stats: ClientStats, final: bool
) -> None:
    latest: tuple[int, int] = (-1, -1)
    legal: list[dict[str, Any]] = []
    pending: tuple[tuple[int, int], float] | None = None
    counter = 0
    prefix = secrets.token_hex(4)
    while True:
        now = time.monotonic()
        if now >= window[1]:
            return
        if pending is None and legal:
            action = choose(legal)
            legal = []
            if action is not None:
                if think:
                    # Spread around the mean, so that the tables do not act in lockstep.
                    await asyncio.sleep(think * random.uniform(0.5, 1.5))
                counter += 1
                message = {
                    "type": "action",
                    "id": f"{prefix}-{counter}",
                    "game": latest[0],
                    "version": latest[1],
                    "action": action,
                }
                sent = time.monotonic()
                await sock.send(json.dumps(message))
                pending = (latest, sent)
                if window[0] <= sent < window[1]:
                    stats.sent += 1
        try:
            raw = await asyncio.wait_for(sock.recv(), max(0.01, window[1] - now))
        except TimeoutError:
            continue
        arrived, arrived_wall = time.monotonic(), time.time()
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "state" and msg.get("game") is not None:
            key = (msg["game"], msg["version"])
            if key < latest:
                continue
            latest = key
            active = msg["status"] == "active"
            legal = msg["legal"] if active else []
            if not active and window[0] <= arrived < window[1]:
                stats.games_over += 1
            if pending is not None and key > pending[0]:
                if window[0] <= pending[1] < window[1]:
                    stats.rtts.append(arrived - pending[1])
                    if final:
                        stats.final_rtts.append(arrived - pending[1])
                pending = None
            stats.handle += time.monotonic() - arrived
        elif kind == "ack" and final:
            stats.acks[(msg["game"], msg["version"])] = arrived_wall
        elif kind == "error":
            if window[0] <= arrived < window[1]:
                stats.errors[msg.get("code", "?")] += 1
            pending = None  # wait for the next state (a stale version brings one)


# --- the spectators -----------------------------------------------------------------------------


def spectator_process(
    urls: list[Target], timing: tuple[float, float], to_parent: Any, go: Any
) -> None:
    """Open this share of the spectator sockets, report ready; from ``go`` note when each state
    first reaches each socket (wall clock, as the database stamps its rows) until the window's
    end and :data:`SPECTATOR_GRACE`, then report what every socket saw.

    The sockets are :mod:`bench.spectator_socket`'s lean readers on uvloop (a ``websockets``
    client cost the shared cores five times as much per frame).

    ``timing``: (warm-up, window) in seconds.
    """
    warmup, seconds = timing

    async def main() -> None:
        gate = asyncio.Semaphore(CONNECT_AT_ONCE)
        started = time.monotonic()
        sockets = await asyncio.gather(*(spectator_opener(target, gate) for target in urls))
        opened = [s for s in sockets if s is not None]
        to_parent.put(("ready", len(opened), time.monotonic() - started))
        while not go.is_set():
            await asyncio.sleep(0.02)
        until = time.time() + warmup + seconds + SPECTATOR_GRACE
        cpu0 = time.process_time()
        for sock in opened:
            sock.seen.clear()  # what came before ``go`` (the first state) is not the window's
        errors: Counter[str] = Counter()
        # (``asyncio.wait`` leaves the futures as they are at the timeout: none is cancelled)
        if opened:
            await asyncio.wait([sock.closed for sock in opened], timeout=until - time.time())
        for sock in opened:
            if sock.closed.done():
                errors[sock.closed.result()] += 1
            sock.close()
        to_parent.put(
            (
                "done",
                {
                    "seen": [sock.seen for sock in opened],
                    "errors": dict(errors),
                    "cpu": time.process_time() - cpu0,
                    "connect_failures": len(urls) - len(opened),
                },
            )
        )

    uvloop.run(main())


async def spectator_opener(target: Target, gate: asyncio.Semaphore) -> SpectatorSocket | None:
    async with gate:
        for _attempt in range(3):
            try:
                return await open_spectator(target.url, target.origin)
            except Exception:
                await asyncio.sleep(0.5)
    return None


@dataclass
class Watched:
    """How a table's states reached its spectators (milliseconds, sorted)."""

    states: int  # the states the table reached in the window
    spectators: int
    missed: int  # (state, spectator) pairs never received
    spectators_missing: int  # spectators that missed at least one state
    to_first: list[float]  # per state: commit -> the first spectator that got it
    to_last: list[float]  # per state: commit -> the last spectator that got it
    to_each: list[float]  # per delivery: commit -> that spectator
    ack_to_last: list[float]  # per action: the acting player's ack -> the last spectator


def spectator_figures(
    reached: dict[Key, float], seen: list[dict[Key, float]], acks: dict[Key, float]
) -> Watched:
    """Compare what each spectator saw (``seen``: arrival by state) with the states the table
    reached (``reached``: commit time by state) and the acting players' acks (arrival by the
    state the action made), all in seconds of the wall clock."""
    to_first: list[float] = []
    to_last: list[float] = []
    to_each: list[float] = []
    ack_to_last: list[float] = []
    missed = 0
    for key, committed in reached.items():
        arrivals = [got[key] for got in seen if key in got]
        missed += len(seen) - len(arrivals)
        if not arrivals:
            continue
        to_each.extend(1000 * (a - committed) for a in arrivals)
        to_first.append(1000 * (min(arrivals) - committed))
        to_last.append(1000 * (max(arrivals) - committed))
        if key in acks:
            ack_to_last.append(1000 * (max(arrivals) - acks[key]))
    return Watched(
        states=len(reached),
        spectators=len(seen),
        missed=missed,
        spectators_missing=sum(1 for got in seen if not reached.keys() <= got.keys()),
        to_first=sorted(to_first),
        to_last=sorted(to_last),
        to_each=sorted(to_each),
        ack_to_last=sorted(ack_to_last),
    )


def table_states(table_id: int, window: tuple[float, float]) -> dict[Key, float]:
    """The states a table reached in the window (wall clock), with the time each was stamped in
    the database: every logged action (``GameAction.created_at``, its version) and every new
    game (``Game.created_at``, version 0)."""
    from games.models import Game, GameAction  # noqa: PLC0415 (after django.setup())

    since, until = (datetime.fromtimestamp(t, tz=UTC) for t in window)
    actions = GameAction.objects.filter(
        game__table_id=table_id, created_at__gte=since, created_at__lt=until
    ).values_list("game_id", "seq", "created_at")
    games = Game.objects.filter(
        table_id=table_id, created_at__gte=since, created_at__lt=until
    ).values_list("pk", "created_at")
    states = {(game, seq): at.timestamp() for game, seq, at in actions}
    states.update({(game, 0): at.timestamp() for game, at in games})
    return states


def rss_bytes(pids: list[int]) -> int:
    """The resident memory of processes (0 for one that is gone)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def raise_open_files(needed: int) -> int:
    """Raise this process's soft limit of open files towards ``needed`` (as far as the hard
    limit allows; the servers and the clients inherit it); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        soft = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


@dataclass
class SpectatorRun:
    table_id: int
    wanted: int
    opened: int
    procs: int
    connect_seconds: float
    rss_before: int  # bytes, the servers, the players' sockets open
    rss_after: int  # and the spectators' too
    figures: Watched
    errors: dict[str, int]
    cpu_per_frame_ms: float = float("nan")  # the servers' CPU in the window per frame sent


@dataclass
class SpectatorClients:
    """The spectators' client processes, their sockets open (before ``go``)."""

    procs: list[Any]
    queue: Any
    opened: int
    connect_seconds: float  # the slowest process's
    rss_before: int
    rss_after: int


def open_spectators(
    ctx: Any,
    *,
    targets: list[Target],
    procs: int,
    timing: tuple[float, float],
    go: Any,
    servers: list[int],
) -> SpectatorClients:
    """Start the spectators' client processes (each a share of ``targets``) and wait until
    their sockets are open; the servers' (``servers``: their pids) memory before and after."""
    rss_before = rss_bytes(servers)
    queue = ctx.Queue()
    clients = [
        ctx.Process(target=spectator_process, args=(targets[i::procs], timing, queue, go))
        for i in range(procs)
    ]
    for client in clients:
        client.daemon = True
        client.start()
    ready = [queue.get(timeout=1800) for _ in clients]
    time.sleep(1.0)  # the last states sent, the sockets idle
    return SpectatorClients(
        procs=clients,
        queue=queue,
        opened=sum(r[1] for r in ready),
        connect_seconds=max(r[2] for r in ready),
        rss_before=rss_before,
        rss_after=rss_bytes(servers),
    )


# --- one run ------------------------------------------------------------------------------------


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


@dataclass
class RunResult:
    tables: int
    sockets: int
    servers: int
    actions: int
    per_second: float
    p50: float
    p90: float
    p99: float
    max: float
    errors: dict[str, int]
    games_over: int
    phases: dict[str, list[float]]  # ms samples of the server's phases in the window
    cpu: dict[str, float]  # share of one core during the window
    client_handle_ms: float  # per received state: decode + choose
    final_rtts: list[float] = field(default_factory=list)  # ms, sorted: the final table's
    spectators: SpectatorRun | None = None

    @property
    def server_ms_per_action(self) -> float:
        """The servers' CPU in the window per action served (all their work / actions)."""
        return 1000 * self.cpu.get("servers", 0.0) / self.per_second if self.per_second else 0.0

    def row(self) -> str:
        errors = sum(self.errors.values())
        return (
            f"{self.tables:>6} {self.sockets:>7} {self.servers:>7} {self.actions:>8} "
            f"{self.per_second:>9.0f} {self.p50:>7.1f} {self.p90:>7.1f} {self.p99:>7.1f} "
            f"{self.max:>8.1f} {errors:>6}"
        )


HEADER = (
    f"{'tables':>6} {'sockets':>7} {'servers':>7} {'actions':>8} {'actions/s':>9} "
    f"{'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} {'max ms':>8} {'errors':>6}"
)


def read_timing(prefix: str, window: tuple[float, float]) -> dict[str, list[float]]:
    phases: dict[str, list[float]] = defaultdict(list)
    for path in glob.glob(f"{prefix}.*"):
        with open(path, encoding="ascii") as lines:
            for line in lines:
                stamp, phase, ms = line.split()
                if window[0] <= float(stamp) < window[1]:
                    phases[phase].append(float(ms))
    return phases


def run_once(args: argparse.Namespace, n: int, env: dict[str, str], work: Path) -> RunResult:
    from django.db import connections  # noqa: PLC0415 (after django.setup())

    label = f"{n}-{secrets.token_hex(3)}"
    started = time.monotonic()
    seats = create_tables(n, label)
    connections.close_all()
    print(f"  {n} tables, {len(seats)} players ready in {time.monotonic() - started:.1f} s")
    queue = f"loadbench-{secrets.token_hex(4)}"
    timing_prefix = str(work / f"timing-{label}")
    server_env = {
        **env,
        "DURAK_CELERY_QUEUE": queue,
        **production_env(),
        "DJANGO_LOG_LEVEL": "WARNING",
        "DURAK_TIMING": timing_prefix,
        # every client socket comes from 127.0.0.1: no cap per address (one socket per user)
        "DURAK_SOCKETS_PER_ADDRESS": "0",
        "PYTHONUNBUFFERED": "1",
    }
    ports = [free_port() for _ in range(args.servers)]
    commands = [asgi_command(sys.executable, "127.0.0.1", p, quiet=True) for p in ports]
    commands.append(worker_command(sys.executable, queue=queue, solo=True, loglevel="warning"))
    addresses = [f"127.0.0.1:{p}" for p in ports]
    final = seats[0].table_id  # the table the spectators watch

    def target(i: int, table_id: int, token: str | None = None) -> Target:
        address = addresses[i % len(addresses)]
        url = f"ws://{address}/ws/tables/{table_id}/"
        return Target(url, f"http://{address}", token, final=table_id == final)

    urls = [target(i, seat.table_id, seat.token) for i, seat in enumerate(seats)]
    procs_count = args.client_procs or (1 if len(urls) <= 100 else 2)
    shares = [urls[i::procs_count] for i in range(procs_count)]
    # Spectator j goes to process j % procs and to server (j // procs) % servers: each process
    # talks to every server.
    spectator_procs = args.spectator_procs or math.ceil(args.spectators / SPECTATORS_PER_PROC)
    viewers = [target(j // spectator_procs, final) for j in range(args.spectators)]
    ctx = multiprocessing.get_context("spawn")
    # Production's servers start only with the static files collected (durak_site.server).
    subprocess.run(collectstatic_command(sys.executable), cwd=ROOT, env=server_env, check=True)
    with running(commands, server_env, work) as procs:
        for address, proc in zip(addresses, procs, strict=False):
            wait_serving(address, proc, 60, str(work / "proc-*.log"))
        to_parent, go = ctx.Queue(), ctx.Event()
        clients = [
            ctx.Process(
                target=client_process,
                args=(share, (args.think_ms / 1000, args.warmup, args.seconds), to_parent, go),
                daemon=True,
            )
            for share in shares
        ]
        for client in clients:
            client.start()
        connected = sum(to_parent.get(timeout=600)[1] for _ in clients)
        if connected < len(urls):
            print(f"  warning: {len(urls) - connected} sockets did not connect")
        watched = {
            "servers": [p for proc in procs[:-1] for p in family(proc.pid)],
            "worker": family(procs[-1].pid),
            "postgres": pids_named("postgres"),
            "redis": pids_named("redis-server"),
        }
        spectating = (
            open_spectators(
                ctx,
                targets=viewers,
                procs=spectator_procs,
                timing=(args.warmup, args.seconds),
                go=go,
                servers=watched["servers"],
            )
            if viewers
            else None
        )
        go.set()
        time.sleep(args.warmup)
        # PostgreSQL's backends again: the servers' loop connections open at their first action.
        watched["postgres"] = pids_named("postgres")
        wall0 = time.time()
        cpu0 = {k: {p: cpu_seconds(p) for p in pids} for k, pids in watched.items()}
        time.sleep(args.seconds)
        cpu1 = {k: {p: cpu_seconds(p) for p in pids} for k, pids in watched.items()}
        wall1 = time.time()
        done = [to_parent.get(timeout=120 + args.warmup)[1] for _ in clients]
        for client in clients:
            client.join(timeout=30)
        watchers: list[dict[str, Any]] = []
        if spectating is not None:
            watchers = [
                spectating.queue.get(timeout=120 + SPECTATOR_GRACE)[1] for _ in spectating.procs
            ]
            for client in spectating.procs:
                client.join(timeout=30)
    problems: Counter[str] = Counter()
    for log in work.glob("proc-*.log"):
        for line in log.read_text(errors="replace").splitlines():
            name = line.split(":", 1)[0]
            if name.endswith(("Error", "Exception")) and " " not in name:
                problems[line[:160]] += 1
        log.unlink()
    for line, count in problems.most_common(3):
        print(f"  server log: {count} x {line}")
    # Per process: one that ended in the window (a PostgreSQL backend) counts 0, not minus its
    # CPU so far.
    cpu = {
        k: sum(max(0.0, cpu1[k][p] - cpu0[k][p]) for p in pids) / (wall1 - wall0)
        for k, pids in watched.items()
    }
    cpu["clients"] = sum(d["cpu"] for d in done) / (args.warmup + args.seconds)
    phases = read_timing(timing_prefix, (wall0, wall1))
    spectators = None
    if spectating is not None:
        cpu["spectators' clients"] = sum(w["cpu"] for w in watchers) / (
            args.warmup + args.seconds + SPECTATOR_GRACE
        )
        spectators = spectator_run(
            table_id=final,
            wanted=args.spectators,
            spectating=spectating,
            watchers=watchers,
            players=done,
            window=(wall0, wall1),
        )
        frames = max(1, len(phases.get("send", [])))
        spectators.cpu_per_frame_ms = 1000 * cpu["servers"] * (wall1 - wall0) / frames
    rtts = sorted(ms * 1000 for d in done for ms in d["rtts"])
    errors: Counter[str] = Counter()
    for d in done:
        errors.update(d["errors"])
    received_states = max(1, sum(len(d["rtts"]) for d in done))
    return RunResult(
        tables=n,
        sockets=len(urls),
        servers=args.servers,
        actions=len(rtts),
        per_second=len(rtts) / args.seconds,
        p50=percentile(rtts, 50),
        p90=percentile(rtts, 90),
        p99=percentile(rtts, 99),
        max=rtts[-1] if rtts else float("nan"),
        errors=dict(errors),
        games_over=sum(d["games_over"] for d in done) // 2,
        phases=phases,
        cpu=cpu,
        client_handle_ms=1000 * sum(d["handle"] for d in done) / received_states,
        final_rtts=sorted(ms * 1000 for d in done for ms in d["final_rtts"]),
        spectators=spectators,
    )


def spectator_run(
    *,
    table_id: int,
    wanted: int,
    spectating: SpectatorClients,
    watchers: list[dict[str, Any]],
    players: list[dict[str, Any]],
    window: tuple[float, float],
) -> SpectatorRun:
    """The spectators' figures: what they saw against what the table reached in the window."""
    acks: dict[Key, float] = {}
    for d in players:
        acks.update(d["acks"])
    errors: Counter[str] = Counter()
    for w in watchers:
        errors.update(w["errors"])
    return SpectatorRun(
        table_id=table_id,
        wanted=wanted,
        opened=spectating.opened,
        procs=len(spectating.procs),
        connect_seconds=spectating.connect_seconds,
        rss_before=spectating.rss_before,
        rss_after=spectating.rss_after,
        figures=spectator_figures(
            table_states(table_id, window), [got for w in watchers for got in w["seen"]], acks
        ),
        errors=dict(errors),
    )


PHASES = [
    ("act.total", "the action seen by the consumer (on the loop, or thread wait + service)"),
    ("act.loop", "  one-statement write on the event loop (games.services.live)"),
    ("act.db", "  locked path on a database thread: lock, apply, insert, update, commit"),
    ("act.broadcast", "publish of the change through Redis, before the ack"),
    ("layer", "publish start -> consumer handler, per socket"),
    ("redact", "state message for one viewer (view + legal moves)"),
    ("send", "JSON encoding + frame handed to the server, per socket"),
]


def report_where(result: RunResult) -> None:
    print(f"\n  where the time goes at {result.tables} tables ({result.servers} server(s)):")
    print(f"    {'phase':<14} {'count':>7} {'mean ms':>8} {'p50 ms':>7} {'p99 ms':>7}")
    for phase, meaning in PHASES:
        values = sorted(result.phases.get(phase, []))
        if not values:
            continue
        print(
            f"    {phase:<14} {len(values):>7} {statistics.fmean(values):>8.2f} "
            f"{percentile(values, 50):>7.2f} {percentile(values, 99):>7.2f}  {meaning}"
        )
    total = statistics.fmean(result.phases.get("act.total", [0.0]) or [0.0])
    db = statistics.fmean(result.phases.get("act.db", [0.0]) or [0.0])
    if db and not result.phases.get("act.loop"):
        print(f"    waiting for a database thread (act.total - db): {total - db:.2f} ms mean")
    print(f"    client: {result.client_handle_ms:.3f} ms per state (decode + choose)")
    shares = ", ".join(f"{k} {100 * v:.1f}%" for k, v in result.cpu.items())
    print(f"    CPU (% of one core) in the window: {shares}")
    print(f"    servers' CPU per action: {result.server_ms_per_action:.3f} ms")
    if result.errors:
        print(f"    errors: {dict(sorted(result.errors.items()))}")
    print(f"    games finished in the window: {result.games_over}")


def spread(values: list[float]) -> str:
    """count, p50, p99 and max of sorted milliseconds."""
    if not values:
        return "none"
    return (
        f"n {len(values):>6}  p50 {percentile(values, 50):7.1f}  "
        f"p99 {percentile(values, 99):7.1f}  max {values[-1]:7.1f} ms"
    )


def report_spectators(result: RunResult) -> None:
    run = result.spectators
    if run is None:
        return
    f = run.figures
    print(
        f"\n  final table {run.table_id}: {run.opened} of {run.wanted} spectators connected "
        f"({run.procs} client process(es), {run.connect_seconds:.1f} s to connect)"
    )
    per_socket = (run.rss_after - run.rss_before) / max(1, run.opened)
    print(
        f"    servers' memory (RSS): {run.rss_before / 2**20:.0f} -> "
        f"{run.rss_after / 2**20:.0f} MB: {per_socket / 1024:.1f} KB per idle spectator socket"
    )
    print(
        f"    servers' CPU in the window per state frame sent (all their work / frames): "
        f"{run.cpu_per_frame_ms:.2f} ms"
    )
    print(
        f"    states the table reached in the window: {f.states}; deliveries missed (none "
        f"within {SPECTATOR_GRACE:g} s of the window's end): {f.missed} of "
        f"{f.states * f.spectators} ({f.spectators_missing} spectator(s) missed any)"
    )
    for label, values in (
        ("commit -> first spectator", f.to_first),
        ("commit -> last spectator", f.to_last),
        ("commit -> each spectator", f.to_each),
        ("ack -> last spectator", f.ack_to_last),
        ("players' round trip here", result.final_rtts),
    ):
        print(f"    {label:<26} {spread(values)}")
    if run.errors:
        print(f"    spectators' errors: {dict(sorted(run.errors.items()))}")


def median_row(results: list[RunResult]) -> str:
    def med(attr: str) -> float:
        return statistics.median(float(getattr(r, attr)) for r in results)

    errors = statistics.median(sum(r.errors.values()) for r in results)
    first = results[0]
    return (
        f"{first.tables:>6} {first.sockets:>7} {first.servers:>7} {med('actions'):>8.0f} "
        f"{med('per_second'):>9.0f} {med('p50'):>7.1f} {med('p90'):>7.1f} {med('p99'):>7.1f} "
        f"{med('max'):>8.1f} {errors:>6.0f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="50,200,500", help="comma-separated table counts")
    parser.add_argument("--servers", type=int, default=1, help="ASGI server processes")
    parser.add_argument("--think-ms", type=float, default=0.0, help="a client's pause per move")
    parser.add_argument("--seconds", type=float, default=20.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=5.0, help="play before measuring")
    parser.add_argument("--repeat", type=int, default=1, help="runs per table count (medians)")
    parser.add_argument(
        "--client-procs", type=int, default=0, help="client processes (0: 1 up to 100 sockets)"
    )
    parser.add_argument(
        "--spectators", type=int, default=0, help="spectator sockets on the first table"
    )
    parser.add_argument(
        "--spectator-procs",
        type=int,
        default=0,
        help=f"the spectators' client processes (0: one per {SPECTATORS_PER_PROC})",
    )
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.tables.split(",") if x.strip()]
    # Each socket is a descriptor in a client and in a server (inherited limit); and some more.
    needed = 2 * max(counts, default=0) + args.spectators + 1024
    if raise_open_files(needed) < needed:
        print(f"warning: at most {raise_open_files(needed)} open files (ulimit -n); want {needed}")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "durak_site.settings",
        "DATABASE_URL": os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL),
        "REDIS_URL": os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
    }
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    ensure_database(env["DATABASE_URL"])
    setup_django(env)
    print(
        f"live tables load: {args.servers} ASGI server(s), 1 Celery worker, "
        f"think {args.think_ms:g} ms, warm-up {args.warmup:g} s, window {args.seconds:g} s, "
        f"{os.cpu_count()} CPU(s)"
    )
    rows: list[list[RunResult]] = []
    with tempfile.TemporaryDirectory(prefix="loadbench-") as tmp:
        for n in counts:
            runs = []
            for r in range(args.repeat):
                print(f"run {r + 1}/{args.repeat} with {n} tables")
                result = run_once(args, n, env, Path(tmp))
                print(HEADER)
                print(result.row())
                report_where(result)
                report_spectators(result)
                runs.append(result)
            rows.append(runs)
    print(f"\nround trip (send -> the acting client's new state); medians of {args.repeat} run(s):")
    print(HEADER)
    for runs in rows:
        print(median_row(runs))
    for runs in rows:
        each = [r.server_ms_per_action for r in runs]
        print(
            f"servers' CPU per action at {runs[0].tables} tables: median "
            f"{statistics.median(each):.3f} ms (" + " / ".join(f"{x:.3f}" for x in each) + ")"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
