"""Fuzzing the edge of a real production server (``DJANGO_DEBUG=0``, ``tests.e2e.production``).

**The sockets**: a few hundred random and mutated messages (bounded, seeded: ``DURAK_FUZZ_SEED``
replays a run; CI uses a fixed seed) from a seated player of each seat, a spectator and a
referee of a live table, and from a feed's reader; plus random handshakes (paths, origins,
credentials). Every message is answered with a coded error (never ``internal``), an ack or, for a
sync, a state, or the socket is closed with a code (1007 text that is not UTF-8, 1009 a frame
over the server's limit); every handshake is accepted or refused with an error frame and a 44xx
close, never an HTTP error. Afterwards the server still serves and its log holds no traceback.

**The routes**: every URL pattern of the site with every method, then with odd path parameters,
methods, huge and garbage query strings and headers: no answer is a 5xx, and every page that
answers ``GET`` answers ``HEAD`` the same.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.urls import URLPattern, URLResolver, get_resolver
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from tests.builders import LiveTable, session_cookie, start_live_table
from tests.factories import SuperuserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SEED = int(os.environ.get("DURAK_FUZZ_SEED") or (1234 if os.environ.get("CI") else 0)) or (
    random.SystemRandom().randrange(1, 2**31)
)
MESSAGES_PER_SOCKET = 75  # four table sockets: 300 messages
PACE = 0.055  # seconds between one socket's messages: under its 20 a second
ANSWER_TIMEOUT = 10.0
Message = dict[str, Any]


def seeded(name: str) -> random.Random:
    return random.Random(f"{SEED}-{name}")


# --- messages -------------------------------------------------------------------------------------

ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    10**30,
    -(10**30),
    1.5,
    float("1e308"),
    "",
    "x" * 200,
    "\u202e\u0000",
    "\ud800",
    "😀",
    [],
    {},
    [1, [2, [3]]],
    {"type": "take"},
    ["6S", "ZZ", None],
]


@dataclass
class Frame:
    """One frame to send: ``text`` or ``data`` (bytes; with ``as_text`` sent as a text frame),
    and what must answer it."""

    text: str | None = None
    data: bytes | None = None
    as_text: bool = False
    sync: bool = False  # a valid sync: a state answers it
    closes: int | None = None  # the close code that must answer it


def odd_json(rng: random.Random, depth: int = 0) -> Any:
    if depth > 2 or rng.random() < 0.5:
        return rng.choice(ODD_VALUES)
    if rng.random() < 0.5:
        return [odd_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["type", "id", "x", "cards", ""]): odd_json(rng, depth + 1)}


def dumps(value: Any) -> str:
    # NaN and Infinity on purpose: Python's json writes and reads them, standard JSON has none.
    return json.dumps(value, allow_nan=True)


def base_message(rng: random.Random, state: Message | None) -> Message:
    """A valid message of the protocol, as a client of the table could send it."""
    legal = (state or {}).get("legal") or [{"type": "take"}]
    version = (state or {}).get("version", 0)
    return rng.choice(
        [
            {"type": "sync"},
            {
                "type": "action",
                "id": f"f{rng.randrange(10**6)}",
                "version": version if rng.random() < 0.7 else version + rng.randint(-2, 2),
                "action": rng.choice(legal),
                **({"game": state["game"]} if state and rng.random() < 0.5 else {}),
            },
            {
                "type": "referee",
                "id": f"r{rng.randrange(10**6)}",
                "command": rng.choice(["pause", "resume", "void", "adjudicate", "dance"]),
                "reason": rng.choice(["fuzz", "", " ", "x" * 301, "😀\ud83d"]),
                "places": rng.choice([[0, 1], [1, 0], [0], "x", None, [[0]]]),
                "fool": rng.choice([0, 1, None, "1", 1.0]),
            },
        ]
    )


def mutate(rng: random.Random, message: Message) -> Frame:
    """``message`` changed by one of the ways a client goes wrong (or left as it is)."""
    kind = rng.randrange(16)
    changed = dict(message)
    if kind == 0 and changed:
        changed.pop(rng.choice(list(changed)))
    elif kind == 1 and changed:
        changed[rng.choice(list(changed))] = odd_json(rng)
    elif kind == 2:
        changed[rng.choice(["seat", "pad", "type", "id", "version"])] = odd_json(rng)
    elif kind == 3:
        changed["type"] = rng.choice(["", "SYNC", "state", "ack", "error", 7, None, "action "])
    elif kind == 4:
        return Frame(text=dumps([changed]))
    elif kind == 5:  # deep: up to far beyond the parser's own recursion limit
        depth = rng.choice([17, 40, 999, 1500])
        return Frame(text='{"type": "sync", "x": ' + "[" * depth + "]" * depth + "}")
    elif kind == 6:  # over 4 KiB, under the server's frame limit
        changed["pad"] = "x" * rng.randint(4100, 60_000)
    elif kind == 7:
        text = dumps(changed)
        return Frame(text=text[: rng.randrange(len(text))])
    elif kind == 8:
        return Frame(
            text="".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randint(1, 80)))
        )
    elif kind == 9:
        return Frame(data=rng.randbytes(rng.randint(1, 300)))
    elif kind == 10:
        return Frame(data=b'{"type": "sync", "x": "\xff\xfe"}', as_text=True, closes=1007)
    elif kind == 11:
        return Frame(text="x" * 70_000, closes=1009)
    elif kind == 12:
        changed["version"] = rng.choice([float("nan"), float("inf"), -float("inf")])
    elif kind == 13:
        return Frame(text=dumps(changed).replace(":", ": " * rng.randint(1, 3), 1) + " " * 10)
    elif kind == 14:
        return Frame(text='{"type": "sync", "type": "dance", "id": "dup"}')
    return Frame(text=dumps(changed))


def expect(frame: Frame) -> Frame:
    """``frame`` with ``sync`` set when the server must answer it with a state: a JSON object of
    type ``sync`` within the size and depth limits (as Python reads it, last duplicate key wins)."""
    if frame.text is None or frame.closes is not None or len(frame.text.encode()) > 4096:
        return frame
    try:
        value = json.loads(frame.text)
    except (ValueError, RecursionError):
        return frame
    deep = frame.text.count("[") + frame.text.count("{") > 16
    frame.sync = isinstance(value, dict) and value.get("type") == "sync" and not deep
    return frame


# --- the socket fuzzer ----------------------------------------------------------------------------


@dataclass
class Seen:
    """What the fuzzing clients met: every problem, and counts."""

    problems: list[str] = field(default_factory=list)
    answered: dict[str, int] = field(default_factory=dict)
    sent: int = 0

    def count(self, what: str) -> None:
        self.answered[what] = self.answered.get(what, 0) + 1


def check_error(message: Message, seen: Seen, context: str) -> None:
    code, text = message.get("code"), message.get("message")
    if not isinstance(code, str) or not code or not isinstance(text, str) or not text:
        seen.problems.append(f"{context}: an error without a code and a message: {message}")
    elif code == "internal":
        seen.problems.append(f"{context}: the server failed (internal): {message}")
    else:
        seen.count(f"error {code}")


async def answer_to(sock: ClientConnection, frame: Frame, seen: Seen, context: str) -> Message:
    """Receive until ``frame`` is answered: an error or an ack (a state from an earlier change
    is skipped), or a state for a sync. The answer; a close raises ConnectionClosed."""
    deadline = time.monotonic() + ANSWER_TIMEOUT
    while True:
        raw = await asyncio.wait_for(sock.recv(), max(0.1, deadline - time.monotonic()))
        message: Message = json.loads(raw)
        kind = message.get("type")
        if kind == "error":
            check_error(message, seen, context)
            return message
        if kind == "ack" or (kind == "state" and frame.sync):
            seen.count(str(kind))
            return message
        if kind not in ("state", "hello"):
            seen.problems.append(f"{context}: an unknown frame {message}")


async def send(sock: ClientConnection, frame: Frame) -> None:
    if frame.data is not None:
        if frame.as_text:
            await sock.send(frame.data, text=True)
        else:
            await sock.send(frame.data)
    else:
        await sock.send(frame.text or "")


@dataclass
class Client:
    name: str
    url: str
    origin: str
    cookie: str | None


async def open_client(client: Client) -> tuple[ClientConnection, Message]:
    headers = {"Cookie": client.cookie} if client.cookie else {}
    sock = await connect(
        client.url, origin=Origin(client.origin), additional_headers=headers, max_size=None
    )
    first: Message = json.loads(await asyncio.wait_for(sock.recv(), 10))
    return sock, first


async def fuzz_client(client: Client, count: int, seen: Seen, feed: bool = False) -> None:
    rng = seeded(client.name)
    sock, state = await open_client(client)
    for n in range(count):
        frame = expect(
            mutate(rng, base_message(rng, state if state.get("type") == "state" else None))
        )
        if feed:
            frame.sync = False
        context = f"{client.name} #{n} {(frame.text or repr(frame.data))[:120]!r}"
        seen.sent += 1
        try:
            await send(sock, frame)
            answer = await answer_to(sock, frame, seen, context)
            if answer.get("type") == "state":
                state = answer
            if frame.closes is not None:
                seen.problems.append(f"{context}: answered, not closed with {frame.closes}")
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            if frame.closes is None or code != frame.closes:
                seen.problems.append(f"{context}: closed with {code} ({closed})")
            seen.count(f"closed {code}")
            sock, state = await open_client(client)
        except TimeoutError:
            seen.problems.append(f"{context}: no answer in {ANSWER_TIMEOUT} s")
        await asyncio.sleep(PACE)
    await sock.close()


async def fuzz_handshakes(address: str, live: LiveTable, count: int, seen: Seen) -> None:
    """Random handshakes: each accepted, or refused with an error frame and a 44xx close."""
    rng = seeded("handshakes")
    table, slug = live.table.pk, live.tournament.slug
    paths = [
        f"/ws/tables/{table}/",
        f"/ws/tournaments/{slug}/",
        "/ws/tables/999999999/",
        f"/ws/tables/{10**40}/",
        "/ws/tournaments/no-such-event/",
        "/ws/",
        "/ws/tables/abc/",
        "/",
        "/api/v1/tournaments/",
        "/ws/%FF%FE/",
        "/ws/" + "a" * 3000 + "/",
        "/ws/tables/1/?" + "x=1&" * 500,
    ]
    origins = [
        f"http://{address}",
        f"https://{address}",
        "http://127.0.0.1",
        "http://evil.example",
        "null",
        "",
    ]
    headers_choices: list[dict[str, str]] = [
        {},
        {"Authorization": "Token nope"},
        {"Authorization": "Bearer " + "x" * 500},
        {"Authorization": "Basic Zm9vOmJhcg=="},
        {"Cookie": "sessionid=garbage; csrftoken=x"},
        {"Cookie": 'sessionid="quoted"; ;;=; a=b=c; csrftoken'},
        {"Accept-Language": "xx-YY;q=abc, *;q=2"},
    ]
    for n in range(count):
        path = rng.choice(paths)
        query = rng.choice(["", "?ticket=nope", "?token=nope", "?ticket=", "?x=%ZZ"])
        url = f"ws://{address}{path}{query if '?' not in path else ''}"
        origin = rng.choice(origins)
        headers = rng.choice(headers_choices)
        context = f"handshake #{n} {url[:100]} origin={origin!r} {headers}"
        try:
            async with connect(
                url,
                origin=Origin(origin) if origin else None,
                additional_headers=headers,
                open_timeout=10,
            ) as sock:
                first: Message = json.loads(await asyncio.wait_for(sock.recv(), 10))
                if first["type"] == "error":
                    check_error(first, seen, context)
                    try:
                        await asyncio.wait_for(sock.recv(), 10)
                        seen.problems.append(f"{context}: a refusal went on after its error")
                    except ConnectionClosed as closed:
                        code = closed.rcvd.code if closed.rcvd else None
                        if code is None or not 4400 <= code < 4500:
                            seen.problems.append(f"{context}: refused with close {code}")
                        seen.count(f"refused {code}")
                elif first["type"] in ("state", "hello"):
                    seen.count("accepted")
                else:
                    seen.problems.append(f"{context}: first frame {first}")
        except InvalidStatus as exc:
            status = exc.response.status_code
            seen.problems.append(f"{context}: HTTP {status} instead of a WebSocket")
        except (OSError, TimeoutError, ConnectionClosed) as exc:
            seen.problems.append(f"{context}: {exc!r}")


def server_log_problems(log: Path) -> list[str]:
    """Each traceback in the server's log: the line before it, our deepest frame and the error."""
    lines = log.read_text().splitlines()
    problems = []
    for n, line in enumerate(lines):
        if not line.startswith("Traceback"):
            continue
        end = n + 1
        while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
            end += 1
        ours = [x.strip() for x in lines[n:end] if "/work/" in x and ".venv" not in x] or ["?"]
        error = lines[end] if end < len(lines) else "?"
        problems.append(f"{lines[n - 1][:160] if n else ''} | {ours[-1]} | {error[:300]}")
    return problems


def cookie_of(user: User) -> str:
    return session_cookie(user)


@pytest.mark.usefixtures("eager_jobs")
async def test_fuzzing_the_sockets_gets_a_coded_answer_for_every_message(
    production: tuple[str, Path],
) -> None:
    address, log = production
    live = await database_sync_to_async(start_live_table)()
    referee = await database_sync_to_async(SuperuserFactory.create)()
    cookies = [await database_sync_to_async(cookie_of)(u) for u in (*live.users, referee)]
    base = f"ws://{address}"
    origin = f"http://{address}"
    table = f"{base}/ws/tables/{live.table.pk}/"
    clients = [
        Client("seat-0", table, origin, cookies[0]),
        Client("seat-1", table, origin, cookies[1]),
        Client("spectator", table, origin, None),
        Client("referee", table, origin, cookies[2]),
    ]
    seen = Seen()
    started = time.monotonic()
    await asyncio.gather(
        *(fuzz_client(c, MESSAGES_PER_SOCKET, seen) for c in clients),
        fuzz_client(
            Client("feed", f"{base}/ws/tournaments/{live.tournament.slug}/", origin, None),
            30,
            seen,
            feed=True,
        ),
        fuzz_handshakes(address, live, 60, seen),
    )
    took = time.monotonic() - started
    # the server still serves: a page, its health, and a new socket's first state
    health = http.client.HTTPConnection(address, timeout=10)
    health.request("GET", "/healthz")
    assert health.getresponse().status == 200
    sock, first = await open_client(Client("after", table, origin, None))
    assert first["type"] == "state"
    await sock.close()
    seen.problems += [f"server log: {line}" for line in server_log_problems(log)]
    summary = f"seed {SEED} (DURAK_FUZZ_SEED replays it), {seen.sent} messages in {took:.1f} s"
    assert not seen.problems, summary + "\n" + "\n".join(seen.problems[:30])
    assert seen.sent >= 300
    # the fuzzer reached the protocol, not only its parser
    assert {"error bad_request", "error too_large"} <= set(seen.answered), seen.answered


# --- the route fuzz -------------------------------------------------------------------------------


def url_patterns() -> Iterator[str]:
    """Every route of the site as a pattern string (``api/v1/tournaments/<slug:slug>/``)."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                yield prefix + str(entry.pattern)

    yield from walk(get_resolver().url_patterns, "")


CONVERTER = re.compile(r"<(?:(\w+):)?(\w+)>")
GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")


def concrete(pattern: str, fill: Callable[[str, str], str]) -> str:
    """A path for ``pattern``, each parameter ``fill(converter, name)``."""
    path = CONVERTER.sub(lambda m: fill(m[1] or "str", m[2]), pattern)
    if path.startswith("^") or "(?P<" in path:  # a regular expression route
        path = GROUP.sub(lambda m: fill("re", m[1]), path)
        path = re.sub(r"\\([.\-/])", r"\1", path)
        path = re.sub(r"[\^$?]|\\[A-Za-z]|\[[^\]]*\][*+]?|\(|\)|\*|\+", "", path)
    return "/" + path


ODD_PARAMS: dict[str, list[str]] = {
    "int": ["0", "1", "999999999", str(10**30), "0001"],
    "slug": ["x", "-", "a" * 300, "no-such-event", "A_b-9"],
    "str": ["x", "%00", "%E2%80%AE", "..%2F..%2Fetc%2Fpasswd", "a" * 500],
    "path": ["x", "../../etc/passwd", "a/" * 50],
    "re": ["x", "%FF", "2026", "a" * 300],
}
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"]
ODD_QUERIES = [
    "",
    "?" + "&".join(f"p{n}={'x' * 50}" for n in range(150)),  # about 8 KB
    "?page=-1&limit=99999999999999999999&offset=-5&cursor=%FF%FE&format=xml&step=1e9",
    "?status=%00&season=%E2%80%AE&ordering=-__class__&q=" + "%" * 30,
    "?next=https://evil.example/&language=xx&slug[]=1&slug[]=2",
    # long percent-encoded names: what made a backtracking redaction of the log hang the server
    "?" + "%C2%9C" * 400 + "=-1&" + "%C3%88tS%C2%A2=h&" * 100,
]
ODD_HEADERS: list[dict[str, str]] = [
    {},
    {"Accept": "application/json; q=abc, */*;q=-1", "Accept-Language": "zz-ZZ, *;q=2"},
    {"Cookie": "sessionid=garbage; csrftoken=" + "x" * 300, "X-Forwarded-For": "not-an-ip, ::z"},
    {"If-None-Match": 'W/"' + "x" * 2000 + '"', "If-Modified-Since": "yesterday"},
    {"X-Big": "y" * 16_000},
    {"Content-Type": "application/json", "Authorization": "Token " + "z" * 100},
    {"Idempotency-Key": "k" * 500, "Content-Type": "multipart/form-data; boundary="},
]
BODIES = [b"", b'{"a": [[[[[[', b"\xff\xfe\x00" * 50, b'{"player": 1, "paid": "maybe"}']


def http_request(
    conn: http.client.HTTPConnection, method: str, path: str, headers: dict[str, str], body: bytes
) -> int:
    conn.request(method, path, body=body or None, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


@pytest.mark.usefixtures("eager_jobs")
def test_fuzzing_every_route_gets_no_server_error(production: tuple[str, Path]) -> None:
    address, log = production
    live = start_live_table()
    rng = seeded("routes")
    real = {
        "slug": live.tournament.slug,
        "int": str(live.table.pk),
        "table_id": str(live.table.pk),
        "game_id": str(live.game.pk),
    }
    patterns = sorted(set(url_patterns()))
    assert len(patterns) > 50
    conn = http.client.HTTPConnection(address, timeout=30)
    failures: list[str] = []
    head_mismatches: list[str] = []
    sent = 0
    started = time.monotonic()
    for pattern in patterns:
        admin = pattern.startswith("admin/")
        # a path with real ids (the page answers) and one with odd ones
        plain = concrete(pattern, lambda conv, name: real.get(name) or real.get(conv) or "x")
        odd = concrete(pattern, lambda conv, name: rng.choice(ODD_PARAMS.get(conv, ["x"])))
        # every method once on the plain path; a bad token with an unknown format (a DRF page
        # rendered an error with a template that asked for the user again: a 500); then random
        # odd combinations
        cases: list[tuple[str, str, str, dict[str, str], bytes]] = [
            (plain, method, "", {}, b"") for method in METHODS
        ]
        cases.append((plain, "GET", "?format=xml&page=-1", {"Authorization": "Token bad"}, b""))
        tries = 2 if admin else 6
        for _ in range(tries):
            method = rng.choice(METHODS)
            body = rng.choice(BODIES) if method in ("POST", "PUT", "PATCH") else b""
            path = rng.choice([plain, odd])
            cases.append((path, method, rng.choice(ODD_QUERIES), rng.choice(ODD_HEADERS), body))
        statuses: dict[str, int] = {}
        for path, method, query, headers, body in cases:
            sent += 1
            try:
                status = http_request(conn, method, path + query, headers, body)
            except (http.client.HTTPException, OSError) as exc:
                failures.append(f"{method} {path[:80]}{query[:40]}: {exc!r}")
                conn.close()
                conn = http.client.HTTPConnection(address, timeout=30)
                continue
            if status >= 500:
                failures.append(f"{status} {method} {path[:100]}{query[:60]} {list(headers)}")
            if not query and not headers and path == plain:
                statuses[method] = status
        if statuses.get("GET") != statuses.get("HEAD") and statuses.get("GET") != 405:
            head_mismatches.append(
                f"{pattern}: GET {statuses.get('GET')}, HEAD {statuses.get('HEAD')}"
            )
    conn.close()
    took = time.monotonic() - started
    failures += [f"server log: {line}" for line in server_log_problems(log)]
    summary = f"seed {SEED}, {sent} requests over {len(patterns)} routes in {took:.1f} s"
    assert not failures, summary + "\n" + "\n".join(failures[:40])
    assert not head_mismatches, "HEAD differs from GET:\n" + "\n".join(head_mismatches)
