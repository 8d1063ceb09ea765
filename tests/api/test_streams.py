"""The NDJSON streams on the real ASGI server (``durak_site.processes``' uvicorn): a tournament's
events followed through real changes, a table's spectator states through a whole game played
through the services, with no hidden card in any line."""

from __future__ import annotations

import asyncio
import http.client
import json
import queue
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer

from durak_site.asgi import application
from games import engine
from games import services as game_services
from games.engine import GameState
from games.models import Game
from tests.api.test_no_card_leaks import hidden_cards, shows
from tests.builders import TWO_SEATS, LiveTable, make_tournament
from tests.e2e.conftest import asgi_server, server_env
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import FeedEvent, Table, Tournament
from tournaments.notifications.sockets import feed_group
from tournaments.selectors.feed import logged_message

pytestmark = [pytest.mark.django_db(transaction=True)]

END = object()  # the stream closed


@pytest.fixture(scope="module")
def address(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    env = server_env()
    env.update(
        DURAK_STREAM_POLL_MS="100",
        DURAK_STREAM_KEEPALIVE_SECONDS="1",
        DURAK_API_RATE_ANON="off",
        DURAK_API_RATE_USER="off",
    )
    with django_db_blocker.unblock(), asgi_server(env) as where:
        yield where


class Stream:
    """An NDJSON stream read line by line on a thread of its own."""

    def __init__(self, address: str, path: str) -> None:
        host, port = address.split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=30)
        self.connection.request("GET", path, headers={"Accept": "application/x-ndjson"})
        self.response = self.connection.getresponse()
        self.lines: queue.Queue[Any] = queue.Queue()
        if self.response.status == 200:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                raw = self.response.readline()
                if not raw:
                    break
                self.lines.put(raw.decode())
        except (OSError, AttributeError, ValueError):
            pass  # closed by the test
        self.lines.put(END)

    def next(self, timeout: float = 10) -> Any:
        """The next line (a dict; "" for a keep-alive), or END."""
        got = self.lines.get(timeout=timeout)
        if got is END:
            return END
        return json.loads(got) if got.strip() else ""

    def next_object(self, timeout: float = 10) -> Any:
        """The next line that is not a keep-alive."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.next(max(0.1, deadline - time.monotonic()))
            if got != "":
                return got

    def close(self) -> None:
        self.connection.close()


@contextmanager
def streaming(address: str, path: str) -> Iterator[Stream]:
    stream = Stream(address, path)
    try:
        yield stream
    finally:
        stream.close()


def version_of(tournament: Tournament) -> int:
    return int(Tournament.objects.values_list("version", flat=True).get(pk=tournament.pk))


def test_a_tournament_stream_sends_the_backlog_then_each_change_then_keep_alives(
    address: str, eager_jobs: None
) -> None:
    # given a public event open for registration, and a client that last saw the version
    # before the latest
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок потока")
    start = version_of(tournament)
    path = f"/api/v1/tournaments/{tournament.slug}/events/stream/?since={start - 1}"
    with streaming(address, path) as stream:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "application/x-ndjson"
        assert stream.response.getheader("ETag")
        # then it first gets the event it missed, as the log has it
        first = stream.next_object()
        logged = FeedEvent.objects.get(tournament=tournament, version=start)
        assert first == logged_message(logged, tournament.slug)
        # and, when two changes commit, each of them once, in order
        services.entry_register(tournament=tournament, player=PlayerFactory.create())
        services.tournament_close_registration(tournament=tournament)
        got = [stream.next_object(), stream.next_object()]
        assert [(m["version"], m["event"]) for m in got] == [
            (start + 1, "entries_changed"),
            (start + 2, "registration_closed"),
        ]
        assert all(m["tournament"] == tournament.slug and m["at"].endswith("Z") for m in got)
        # and, while nothing happens, an empty line now and then
        assert stream.next(timeout=5) == ""


def test_a_stream_refuses_what_the_log_refuses(address: str) -> None:
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок отказа")
    ahead = version_of(tournament) + 1
    base = f"/api/v1/tournaments/{tournament.slug}/events/stream/"
    with streaming(address, f"{base}?since={ahead}") as refused:
        assert refused.response.status == 400
        assert refused.response.getheader("Content-Type") == "application/json"
        assert "since" in json.loads(refused.response.read())["fields"]
    with streaming(address, f"{base}?foo=1") as unknown:
        assert unknown.response.status == 400
    with streaming(address, "/api/v1/tournaments/no-such-event/events/stream/") as missing:
        assert missing.response.status == 404
    with streaming(address, "/api/v1/tables/999999/stream/") as no_table:
        assert no_table.response.status == 404


def one_move(game: Game, chooser: random.Random) -> None:
    state = GameState.from_dict(game.state)
    legal = [a for s in range(len(game.players)) for a in engine.legal_actions(state, s)]
    action = chooser.choice(legal)
    body = {k: v for k, v in action.to_json().items() if k != "seat"}
    game_services.game_apply_action(
        game_id=game.pk, seat=action.seat, action=body, version=game.version
    )


def test_a_table_stream_follows_a_whole_game_and_never_shows_a_hidden_card(
    address: str, live_table: LiveTable
) -> None:
    # given a spectator following the table's stream from its first state
    table = live_table.table
    chooser = random.Random(11)
    seen: list[tuple[int, int]] = []
    with streaming(address, f"/api/v1/tables/{table.pk}/stream/") as stream:
        assert stream.response.status == 200
        # when the table's games are played move by move through the services
        while True:
            game = Game.objects.filter(table=table).order_by("-number", "-pk").first()
            assert game is not None
            # then each state reaches the stream, with no card the spectator may not see
            line = stream.next_object()
            assert line is not END
            assert (line["type"], line["game"], line["version"]) == ("state", game.pk, game.version)
            assert line["role"] == "spectator" and line["view"]["hand"] is None
            text = json.dumps(line)
            hidden = hidden_cards(game)
            leaked = sorted(card for card in hidden if shows(card, text))
            assert not leaked, (game.version, leaked)
            seen.append((game.pk, game.version))
            if game.status != Game.Status.ACTIVE:
                table.refresh_from_db()
                if table.status == Table.Status.FINISHED:
                    break
                continue  # the series goes on: the next game's first state comes next
            one_move(game, chooser)
        # and once the table has finished, the stream ends after its last state
        assert stream.next(timeout=10) is END
    versions = [v for _, v in seen]
    assert len(seen) > 10 and versions[-1] == max(versions)
    assert Game.objects.get(pk=seen[-1][0]).status != Game.Status.ACTIVE


def test_a_table_stream_resumes_after_the_version_a_client_has(
    address: str, live_table: LiveTable
) -> None:
    game = live_table.game
    one_move(game, random.Random(3))
    game.refresh_from_db()
    base = f"/api/v1/tables/{live_table.table.pk}/stream/"
    with streaming(address, f"{base}?game={game.pk}&since={game.version}") as stream:
        # nothing before the next change (keep-alives only)
        assert stream.next(timeout=5) == ""
        one_move(game, random.Random(4))
        line = stream.next_object()
        assert (line["game"], line["version"]) == (game.pk, game.version + 1)
        # the log holds only what the client did not have
        assert [entry["seq"] for entry in line["log"]] == [game.version + 1]


@pytest.mark.django_db(transaction=True)
async def test_the_layer_wakes_a_stream_and_a_client_leaving_ends_it(settings: Any) -> None:
    """In-process (the ASGI application on the in-memory layer, as the embedded mode runs it):
    a change reaches the stream through the feed's group at once, not by the poll; when the
    client goes, the stream leaves the group."""
    settings.STREAM_POLL_MS = 60_000  # the poll would be far too late
    tournament = await database_sync_to_async(
        lambda: make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок пробуждения")
    )()
    version = await database_sync_to_async(version_of)(tournament)
    gone = asyncio.Event()
    sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    scope: Any = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": f"/api/v1/tournaments/{tournament.slug}/events/stream/",
        "raw_path": b"",
        "query_string": f"since={version}".encode(),
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    app: Any = application
    served = asyncio.create_task(app(scope, receive, sent.put))
    start = await asyncio.wait_for(sent.get(), 10)
    assert start["type"] == "http.response.start" and start["status"] == 200
    layer = get_channel_layer()
    group = feed_group(tournament.pk)
    members = layer.groups if isinstance(layer, InMemoryChannelLayer) else None  # embedded mode
    for _ in range(100):  # the stream joins its group once it starts
        if members is None or members.get(group):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the stream never joined the feed's group")
    if members is None:
        await asyncio.sleep(1)  # Redis: its subscription made
    # when a change commits, the stream sends it at once
    await database_sync_to_async(
        lambda: services.entry_register(tournament=tournament, player=PlayerFactory.create())
    )()
    body = await asyncio.wait_for(sent.get(), 5)
    event = json.loads(body["body"])
    assert (event["event"], event["version"]) == ("entries_changed", version + 1)
    # and when the client goes, the stream ends and leaves the group
    gone.set()
    await asyncio.wait_for(served, 10)
    assert members is None or not members.get(group)


def test_open_streams_hold_no_database_connection(live_table: LiveTable) -> None:
    # given a server whose database pool has three connections (on PostgreSQL: SQLite has
    # none), one of them kept by the thread of the sockets' and the streams' reads
    env = server_env()
    env.update(
        DURAK_DB_POOL_SIZE="3",
        DURAK_DB_THREADS="1",
        DURAK_STREAM_POLL_MS="100",
        DURAK_STREAM_KEEPALIVE_SECONDS="1",
        DURAK_API_RATE_ANON="off",
        DURAK_API_RATE_USER="off",
    )
    tournament = make_tournament(PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок пула")
    events = f"/api/v1/tournaments/{tournament.slug}/events/stream/?since={version_of(tournament)}"
    table = f"/api/v1/tables/{live_table.table.pk}/stream/"
    with asgi_server(env) as where:
        # when three clients come and go, and six follow a stream (three of each kind)
        for _ in range(3):
            with streaming(where, events) as gone:
                assert gone.response.status == 200
        followers = [Stream(where, events if n % 2 else table) for n in range(6)]
        try:
            assert [f.response.status for f in followers] == [200] * 6
            for watcher in followers[::2]:
                assert watcher.next_object()["type"] == "state"
            # then the API answers at once while they follow
            host, port = where.split(":")
            client = http.client.HTTPConnection(host, int(port), timeout=8)
            started = time.monotonic()
            client.request("GET", f"/api/v1/tournaments/{tournament.slug}/")
            answer = client.getresponse()
            assert answer.status == 200, answer.read()[:300]
            assert time.monotonic() - started < 4
            # and a change reaches every follower of the tournament's events
            services.tournament_update(tournament=tournament, actor=None, name="Кубок пула II")
            for follower in followers[1::2]:
                assert follower.next_object()["version"] == version_of(tournament)
        finally:
            for follower in followers:
                follower.close()
