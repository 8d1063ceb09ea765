"""Issue #13, the fault suite: the edge (the ASGI server, Redis, PostgreSQL) fails mid-game.

Two people play a live table through real WebSocket clients (``websockets``, each with its API
token in the handshake's ``Authorization`` header) on a real ASGI server, on the suite's private
Redis and PostgreSQL (``tests/chaos/conftest.py``); their moves are random legal ones (the
``legal`` list of each state). Then:

- the ASGI server is killed (``kill -9``), an action in flight, and started again on its port:
  every action acknowledged before the kill is in the game's log, the clients reconnect and
  get the state with the log entries they missed, the action in flight sent again is answered
  once (applied now, or ``duplicate`` if it had committed), and the game is played to its end;
- Redis is killed (no persistence: its queue and the jobs' leases are gone) and started again,
  twice: once mid-game, once just before the game's last move. An action that commits while it
  is down is acknowledged to its player (with its state; never ``internal``), the opponent gets
  the state when Redis is back (the broadcast resender), and the game's end job, whose
  publication failed, is done all the same (the reconciler on beat, a worker);
- PostgreSQL is stopped mid-game and started again: meanwhile an action is refused with the
  socket's error frame (code ``unavailable``), the API answers a coded 503, a page a plain 503,
  ``/healthz`` 503, each within seconds; once it is back, and with nothing restarted,
  ``/healthz`` is 200 again, the same action sent again is accepted and the same worker does
  the game's end job.

Each test records its figures (``chaos_figures``). The three take about a minute.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

from games.engine import Action, GameState, apply
from tests.chaos.conftest import SKIP
from tests.chaos.stack import AsgiServer, CeleryProcess, Figures, Stack, wait_until
from tests.chaos.test_worker_kills import SEED, Job, done

pytestmark = [
    pytest.mark.chaos,
    pytest.mark.skipif(bool(SKIP), reason=SKIP or ""),
]

ANSWER_LIMIT = 15.0  # seconds: an action is answered within this, whatever is down
REFUSAL_LIMIT = 12.0  # seconds: a request while PostgreSQL is down is refused within this
PACE = 0.06  # seconds between two moves: a socket may send 20 messages a second
LOG_TAIL = 30  # entries of the log a state carries (games.models.Game.LOG_TAIL)
OVER = ("finished", "adjudicated", "voided")


# --- a seat's client --------------------------------------------------------------------------


class Seat:
    """One player's WebSocket client: the newest state of the game it was sent, the log entries
    it has seen, and the actions acknowledged to it."""

    def __init__(self, address: str, table: dict[str, Any], seat: int) -> None:
        self.url = f"ws://{address}/ws/tables/{table['table']}/"
        self.headers = {"Authorization": f"Token {table['tokens'][seat]}"}
        self.game: int = table["game"]
        self.name = f"seat{seat}"
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] | None = None
        self.seen: set[int] = set()  # seqs of the log entries it was sent
        self.acked: list[tuple[str, int]] = []  # (client id, the game's version after it)
        self.sent = 0
        self.last: dict[str, Any] = {}  # the last action message sent

    # the connection

    def connect(self, timeout: float = 5) -> dict[str, Any]:
        """Open the socket; the first message (the current state)."""
        self.ws = connect(
            self.url,
            additional_headers=self.headers,
            open_timeout=timeout,
            close_timeout=1,
            legacy=True,  # a connection kept across the test's steps, not a `with` block
        )
        first = self.receive(timeout)
        assert first["type"] == "state", first
        return first

    def reconnect(self, timeout: float) -> dict[str, Any]:
        """Connect again until the server takes it (it may still be starting)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.connect(timeout=max(0.5, deadline - time.monotonic()))
            except (OSError, InvalidHandshake, TimeoutError, ConnectionClosed):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()

    # messages

    def receive(self, timeout: float) -> dict[str, Any]:
        assert self.ws is not None
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if message["type"] == "state" and message.get("game") == self.game:
            if self.state is None or message["version"] >= self.state["version"]:
                self.state = message
            self.seen.update(entry["seq"] for entry in message["log"])
        elif message["type"] == "ack" and message.get("game") == self.game:
            self.acked.append((message["id"], message["version"]))
        return message

    def drain(self, timeout: float = 0.5) -> None:
        """Read whatever reaches it within ``timeout`` (a dropped socket: what it had buffered)."""
        deadline = time.monotonic() + timeout
        try:
            while (left := deadline - time.monotonic()) > 0:
                self.receive(left)
        except (TimeoutError, ConnectionClosed):
            pass

    def has_news(self, timeout: float) -> bool:
        """Whether a newer state reaches it within ``timeout``."""
        version = self.version
        self.drain(timeout)
        return self.version > version

    @property
    def version(self) -> int:
        return -1 if self.state is None else int(self.state["version"])

    @property
    def over(self) -> bool:
        return self.state is not None and self.state["status"] in OVER

    def legal(self) -> list[dict[str, Any]]:
        if self.state is None or self.state["status"] != "active":
            return []
        return list(self.state["legal"])

    def send(self, action: dict[str, Any]) -> str:
        """Send ``action`` at the version of its newest state; its client id."""
        assert self.ws is not None
        self.sent += 1
        client_id = f"{self.name}-{self.sent}"
        self.last = {"type": "action", "id": client_id, "version": self.version, "action": action}
        self.ws.send(json.dumps(self.last))
        return client_id

    def resend(self) -> str:
        """The last action again, as it was (same client id, same version)."""
        assert self.ws is not None
        self.ws.send(json.dumps(self.last))
        return str(self.last["id"])

    def answer(self, client_id: str, timeout: float = ANSWER_LIMIT) -> dict[str, Any]:
        """The ack or error for ``client_id`` (the states before it are taken in)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.01, deadline - time.monotonic()))
            if message["type"] in ("ack", "error") and message.get("id") == client_id:
                return message

    def wait_version(self, version: int, timeout: float) -> float:
        """Receive until its state is at ``version``; the seconds that took."""
        started = time.monotonic()
        deadline = started + timeout
        while self.version < version:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name} is at {self.version}, not {version}")
            try:
                self.receive(left)
            except TimeoutError:
                continue
        return time.monotonic() - started


Choice = tuple[Seat, dict[str, Any]]


def newest(seats: list[Seat]) -> int:
    acked = [version for seat in seats for _, version in seat.acked]
    return max([seat.version for seat in seats] + acked)


def choose(seats: list[Seat], rng: random.Random) -> Choice | None:
    """A random legal move of a seat that has one, once every seat has the newest state
    (``None``: the game is over)."""
    version = newest(seats)
    for seat in seats:
        seat.wait_version(version, ANSWER_LIMIT)
    if any(seat.over for seat in seats):
        return None
    movers = [seat for seat in seats if seat.legal()]
    assert movers, [seat.state for seat in seats]
    seat = rng.choice(movers)
    return seat, rng.choice(seat.legal())


def play(
    seats: list[Seat],
    rng: random.Random,
    moves: int | None = None,
    until: Callable[[Seat, dict[str, Any]], bool] | None = None,
) -> Choice | None:
    """Random legal moves, each acknowledged, for ``moves`` moves or to the game's end, or until
    ``until(seat, action)`` says to stop before that move (then the move is returned)."""
    made = 0
    while moves is None or made < moves:
        choice = choose(seats, rng)
        if choice is None:
            return None
        seat, action = choice
        if until is not None and until(seat, action):
            return choice
        time.sleep(PACE)
        answer = seat.answer(seat.send(action))
        assert answer["type"] == "ack", answer
        made += 1
    return None


@pytest.fixture
def seats(chaos_stack: Stack) -> Iterator[Callable[[str], list[Seat]]]:
    """A new live table on the private database; its two seats' clients for a server at an
    address, closed after the test."""
    table = chaos_stack.scene("table")
    made: list[Seat] = []

    def open_seats(address: str) -> list[Seat]:
        for seat in (0, 1):
            made.append(Seat(address, table, seat))
            made[-1].connect()
        return made

    yield open_seats
    for seat in made:
        seat.close()


@pytest.fixture
def server(chaos_stack: Stack) -> Iterator[AsgiServer]:
    """The project's ASGI server on the private services, started; stopped after the test."""
    asgi = AsgiServer(chaos_stack)
    asgi.start()
    yield asgi
    asgi.stop()


def logged(stack: Stack, game: int) -> dict[str, list[int]]:
    """The game's action log in the database: each client id's seqs."""
    found: dict[str, list[int]] = {}
    for client_id, seq in stack.sql(
        "SELECT client_id, seq FROM games_gameaction WHERE game_id = %s ORDER BY seq", game
    ):
        found.setdefault(client_id, []).append(seq)
    return found


def lost(stack: Stack, seats: list[Seat]) -> list[tuple[str, int]]:
    """Acknowledged actions that are not in the game's log at the version their ack said."""
    log = logged(stack, seats[0].game)
    return [(cid, v) for seat in seats for cid, v in seat.acked if log.get(cid) != [v]]


def ends_the_game(stack: Stack, seat: Seat, action: dict[str, Any]) -> bool:
    """Whether ``action`` of ``seat`` would end the game (the engine, on the stored state)."""
    assert seat.state is not None
    ((stored,),) = stack.sql("SELECT state FROM games_game WHERE id = %s", seat.game)
    state = GameState.from_dict(stored)
    return apply(state, Action.from_json({**action, "seat": seat.state["seat"]})).finished


def fetch(address: str, path: str, token: str | None = None) -> tuple[int, str, float]:
    """GET ``path``: (status, body, seconds)."""
    request = urllib.request.Request(f"http://{address}{path}")
    if token:
        request.add_header("Authorization", f"Token {token}")
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode(), time.monotonic() - started
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), time.monotonic() - started


# --- the tests --------------------------------------------------------------------------------


def test_the_asgi_server_killed_mid_game_loses_no_acknowledged_action(
    chaos_stack: Stack,
    server: AsgiServer,
    seats: Callable[[str], list[Seat]],
    chaos_figures: Figures,
) -> None:
    stack, rng = chaos_stack, random.Random(SEED + 2)
    players = seats(server.address)
    # given a game under way
    play(players, rng, moves=rng.randint(4, 10))
    choice = choose(players, rng)
    assert choice is not None
    seat, action = choice
    # when the server is killed with an action in flight
    in_flight = seat.send(action)
    time.sleep(rng.uniform(0.0, 0.01))
    server.kill()
    for player in players:
        player.drain()
    acknowledged = sum(len(p.acked) for p in players)
    versions = {p.name: p.version for p in players}
    # then nothing acknowledged is lost
    assert lost(stack, players) == []
    # and when it is started again on its port, the clients reconnect and resync
    restarted = time.monotonic()
    server_ready = server.start()
    for player in players:
        before = player.version
        first = player.reconnect(timeout=20)
        assert first["game"] == player.game and first["version"] >= newest(players), first
        if first["version"] - before <= LOG_TAIL:  # the log entries it missed came with it
            assert set(range(before + 1, first["version"] + 1)) <= player.seen, first
    resynced = time.monotonic() - restarted
    # the action in flight, sent again, is done once: now, or before the kill (a duplicate)
    was_acked = any(cid == in_flight for cid, _ in seat.acked)
    again = seat.answer(seat.resend())
    assert again["type"] == "ack", again
    assert again["duplicate"] or not was_acked, again
    # and the game is played to its end, every acknowledged action in its log once
    play(players, rng)
    assert all(p.over for p in players)
    ((status,),) = stack.sql("SELECT status FROM games_game WHERE id = %s", seat.game)
    assert status == "finished"
    assert lost(stack, players) == []
    assert all(len(seqs) == 1 for seqs in logged(stack, seat.game).values())
    chaos_figures.record(
        "the ASGI server killed mid-game (kill -9) and restarted",
        acknowledged_before_kill=acknowledged,
        in_flight_acknowledged_before_kill=was_acked,
        in_flight_committed_before_kill=bool(again["duplicate"]),
        versions_at_kill=versions,
        lost=0,
        server_ready_s=round(server_ready, 1),
        resync_s_after_restart=round(resynced, 1),
        actions_in_game=newest(players),
    )


def test_redis_killed_mid_game_and_restarted(
    chaos_stack: Stack,
    server: AsgiServer,
    seats: Callable[[str], list[Seat]],
    processes: list[CeleryProcess],
    chaos_figures: Figures,
) -> None:
    stack, rng = chaos_stack, random.Random(SEED + 3)
    processes.append(CeleryProcess(stack, "beat"))
    worker = CeleryProcess(stack, "worker")
    processes.append(worker)
    players = seats(server.address)
    worker.wait_ready()
    play(players, rng, moves=rng.randint(3, 8))
    outages: list[dict[str, Any]] = []

    def outage(first: Choice, more: int) -> None:
        """Redis killed; ``first`` and up to ``more`` moves of the same seat made meanwhile, each
        acknowledged; Redis started again and the opponent brought up to date."""
        acknowledged = sum(len(p.acked) for p in players)
        stack.redis.kill()
        seat, action = first
        acks = []
        while True:
            started = time.monotonic()
            answer = seat.answer(seat.send(action))
            assert answer["type"] == "ack", answer  # committed: acknowledged, never `internal`
            acks.append(round(time.monotonic() - started, 2))
            assert seat.version == answer["version"]  # and its own state came with it
            if len(acks) > more or not seat.legal():
                break
            action = rng.choice(seat.legal())
        opponent = next(p for p in players if p is not seat)
        behind = opponent.version
        assert behind < seat.version
        assert not opponent.has_news(0.2)  # its state waits for Redis
        time.sleep(rng.uniform(0.3, 1.0))  # down a little longer
        restarted = time.monotonic()
        stack.redis.start()
        opponent.wait_version(seat.version, 30)
        assert set(range(behind + 1, seat.version + 1)) <= opponent.seen
        outages.append(
            {
                "acknowledged_before_kill": acknowledged,
                "acknowledged_while_down": len(acks),
                "ack_s_while_down": max(acks),
                "opponent_resync_s_after_restart": round(time.monotonic() - restarted, 1),
            }
        )

    # when Redis is killed mid-game, and again just before the game's last move
    first = choose(players, rng)
    assert first is not None
    outage(first, more=2)
    last = play(players, rng, until=lambda seat, action: ends_the_game(stack, seat, action))
    assert last is not None, "the game ended before its last move was found"
    finished_at = time.monotonic()
    outage(last, more=0)
    assert all(p.over for p in players)
    assert lost(stack, players) == []
    # then the game's end job, which could not be sent, is done (the reconciler sends it)
    game_over = Job("games.game_finished", (players[0].game,))
    wait_until(lambda: done(stack, game_over), 60, "the game's end job was lost", pause=0.2)
    chaos_figures.record(
        "Redis killed mid-game and restarted (twice: mid-game, at the last move)",
        outages=outages,
        lost=0,
        end_job_done_s_after_last_move=round(time.monotonic() - finished_at, 1),
    )


def test_postgres_restarted_mid_game(
    chaos_stack: Stack,
    server: AsgiServer,
    seats: Callable[[str], list[Seat]],
    processes: list[CeleryProcess],
    chaos_figures: Figures,
) -> None:
    stack, rng = chaos_stack, random.Random(SEED + 4)
    worker = CeleryProcess(stack, "worker")
    processes.append(worker)
    players = seats(server.address)
    worker.wait_ready()
    play(players, rng, moves=rng.randint(3, 8))
    acknowledged = sum(len(p.acked) for p in players)
    choice = choose(players, rng)
    assert choice is not None
    seat, action = choice
    # when PostgreSQL stops mid-game
    stack.postgres.stop()
    try:
        # then an action is refused with a code, quickly, and the socket stays
        started = time.monotonic()
        refusal = seat.answer(seat.send(action))
        refused_s = time.monotonic() - started
        assert refusal["type"] == "error" and refusal["code"] == "unavailable", refusal
        assert refused_s < REFUSAL_LIMIT
        # the API answers a coded 503, a page a 503 without a traceback, /healthz 503
        token = players[0].headers["Authorization"].split()[1]
        table_page = f"/tables/{players[0].url.split('/')[-2]}/"
        with ThreadPoolExecutor(3) as pool:  # at once: each may wait for the pool's timeout
            api, page, health = pool.map(
                lambda args: fetch(server.address, *args),
                [("/api/v1/tournaments/", token), (table_page,), ("/healthz",)],
            )
        assert api[0] == 503 and json.loads(api[1])["code"] == "unavailable", api
        assert page[0] == 503 and "Traceback" not in page[1], page[:2]
        assert health[0] == 503 and json.loads(health[1]) == {"status": "unavailable"}, health
        assert max(api[2], page[2], health[2]) < REFUSAL_LIMIT
        assert health[2] < 5  # its probe waits 2 s for a connection, not the pool's 10 s
        # and a new socket is refused with a code to try again, not an HTTP 500
        started = time.monotonic()
        newcomer = connect(
            seat.url, additional_headers=seat.headers, open_timeout=REFUSAL_LIMIT, legacy=True
        )
        frame = json.loads(newcomer.recv(timeout=REFUSAL_LIMIT))
        with pytest.raises(ConnectionClosed) as closed:
            newcomer.recv(timeout=REFUSAL_LIMIT)
        handshake_s = time.monotonic() - started
        assert frame["code"] == "unavailable" and closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1013
    finally:
        back = time.monotonic()
        stack.postgres.start()
    # and once it is back the service recovers by itself: /healthz 200, the action accepted
    recovery = wait_until(
        lambda: fetch(server.address, "/healthz")[0] == 200, 60, "no recovery", pause=0.2
    )

    def accepted() -> bool:
        answer = seat.answer(seat.resend())
        return bool(answer["type"] == "ack")

    accepted_s = wait_until(accepted, 30, "no action accepted after the restart", pause=0.2)
    accepted_after = time.monotonic() - back
    # and the game goes on to its end, the same worker doing its end job
    play(players, rng)
    assert lost(stack, players) == []
    game_over = Job("games.game_finished", (seat.game,))
    wait_until(lambda: done(stack, game_over), 30, "the game's end job was not done", pause=0.2)
    assert worker.proc.poll() is None
    chaos_figures.record(
        "PostgreSQL restarted mid-game",
        acknowledged_before_stop=acknowledged,
        lost=0,
        socket_refusal_s=round(refused_s, 2),
        api_503_s=round(api[2], 2),
        page_503_s=round(page[2], 2),
        healthz_503_s=round(health[2], 2),
        handshake_refused_s=round(handshake_s, 2),
        healthz_200_s_after_start=round(recovery, 1),
        action_accepted_s_after_start=round(accepted_after, 1),
        accept_retries_s=round(accepted_s, 1),
    )
