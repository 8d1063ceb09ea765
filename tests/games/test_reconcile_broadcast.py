"""Issue #13, Redis down: an action that committed is acknowledged; a broadcast that fails is
logged and sent again when the channel layer answers (the sockets resync); a job that cannot be
sent is logged, costs the caller no wait, and is left to the reconciler."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import kombu.exceptions
import pytest
from channels.layers import get_channel_layer
from django.db import transaction

from durak_site import jobs
from durak_site.celery import app as celery_app
from games import broadcast
from games.models import Game
from tests.builders import LiveTable
from tests.conftest import ROOT, subprocess_env
from tests.games.test_table_socket import is_state, is_type, open_socket, receive_until


class FlakyLayer:
    """The real channel layer behind a switch: while ``down``, every group send fails as one
    to a dead Redis does."""

    def __init__(self, real: Any) -> None:
        self.real, self.down, self.sent = real, True, 0

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        if self.down:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        self.sent += 1
        if self.real is not None:
            await self.real.group_send(group, message)


@pytest.fixture
def layer(monkeypatch: pytest.MonkeyPatch) -> Iterator[FlakyLayer]:
    """The broadcasts go through a :class:`FlakyLayer` (down at first), with a resender of
    their own that retries quickly."""
    flaky = FlakyLayer(get_channel_layer())
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: flaky)
    monkeypatch.setattr(broadcast, "resender", broadcast.Resender())
    monkeypatch.setattr(broadcast, "RESEND_FIRST_PAUSE", 0.01)
    monkeypatch.setattr(broadcast, "RESEND_MAX_PAUSE", 0.05)
    yield flaky
    flaky.down = False


def state(game_id: int, version: int) -> dict[str, Any]:
    return {"type": "game.changed", "game_id": game_id, "version": version}


def wait_for(condition: Any, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.01)


# --- broadcasts ---------------------------------------------------------------------------------


async def test_a_failed_broadcast_is_logged_kept_and_sent_when_the_layer_is_back(
    layer: FlakyLayer, caplog: pytest.LogCaptureFixture
) -> None:
    # when two states of a table fail to go out
    failed = await broadcast.send_collected(
        [("table-1", state(5, 1)), ("table-1", state(5, 2)), ("table-2", state(9, 4))]
    )
    # then nothing is raised, each failure is logged, and the newest per table is kept
    assert [m["version"] for _, m in failed] == [1, 2, 4]
    assert sum("the broadcast of game 5" in r.getMessage() for r in caplog.records) == 2
    assert {g: m["version"] for g, m in broadcast.resender.waiting().items()} == {
        "table-1": 2,
        "table-2": 4,
    }
    # and once the layer answers, the resender sends them and stops
    layer.down = False
    await asyncio.to_thread(wait_for, lambda: not broadcast.resender.waiting())
    assert layer.sent == 2


async def test_a_newer_state_sent_meanwhile_replaces_the_kept_one(layer: FlakyLayer) -> None:
    await broadcast.send_collected([("table-1", state(5, 1))])
    layer.down = False
    # the table's next change goes out by the normal path: nothing older is left to resend
    assert await broadcast.send_collected([("table-1", state(5, 2))]) == []
    assert broadcast.resender.waiting() == {}


@pytest.mark.django_db(transaction=True)
def test_a_broadcast_after_commit_in_sync_code_never_raises(
    layer: FlakyLayer, live_table: LiveTable
) -> None:
    # a referee's command or a worker's job broadcasts from the database thread, after commit
    game = Game.objects.get(pk=live_table.game.pk)
    with transaction.atomic():
        broadcast.broadcast_on_commit(game)
    assert set(broadcast.resender.waiting()) == {broadcast.table_group(live_table.table.pk)}


# --- the live table's socket -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_an_action_is_acknowledged_while_redis_is_down_and_the_table_resyncs_after(
    live_table: LiveTable, layer: FlakyLayer
) -> None:
    socks = [await open_socket(live_table.table.pk, live_table.user_at(s)) for s in (0, 1)]
    states = [await s.receive_json_from(timeout=5) for s in socks]
    attacker = states[0]["view"]["attacker"]
    mine, theirs = socks[attacker], socks[1 - attacker]
    move = states[attacker]["legal"][0]
    # when the attacker plays while the channel layer is down
    await mine.send_json_to({"type": "action", "id": "a-1", "version": 0, "action": move})
    # then its action is acknowledged (it committed), its own socket showing the new state first
    ack, seen = await receive_until(mine, is_type("ack"))
    assert (ack["version"], ack["duplicate"]) == (1, False)
    (own,) = [m for m in seen if is_state(1)(m)]
    assert own["view"]["table"] == [{"attack": move["cards"][0], "defense": None}]
    # the opponent has nothing yet
    assert await theirs.receive_nothing(timeout=0.3)
    # when the layer is back, the resender brings the opponent up to date, log included
    layer.down = False
    resynced, _ = await receive_until(theirs, is_state(1))
    assert resynced["log"][-1]["type"] == "attack" and resynced["log"][-1]["seat"] == attacker
    for sock in socks:
        await sock.disconnect()


# --- jobs -----------------------------------------------------------------------------------------


def test_a_job_the_broker_refuses_is_logged_and_the_next_ones_do_not_wait(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(jobs, "_broker", {"down_until": 0.0})
    calls: list[tuple[Any, ...]] = []

    def refused(args: tuple[Any, ...], **kwargs: Any) -> None:
        calls.append(args)
        raise kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379")

    task = jobs.registered("games.game_finished")
    monkeypatch.setattr(task, "apply_async", refused)
    eager, celery_app.conf.task_always_eager = celery_app.conf.task_always_eager, False
    try:
        assert jobs.dispatch(task, 7) is False
        # within the pause after a failure, no publish is even tried
        assert jobs.dispatch(task, 8) is False
        assert calls == [(7,)]
        assert "the reconciler sends it when due" in caplog.records[0].getMessage()
        # a countdown longer than the broker holds a message is left to the reconciler too
        monkeypatch.setattr(jobs, "_broker", {"down_until": 0.0})
        assert jobs.dispatch(task, 9, countdown=jobs.longest_countdown() + 1) is False
        assert calls == [(7,)]
    finally:
        celery_app.conf.task_always_eager = eager


PUBLISH = """
import time
import django
django.setup()
from durak_site import jobs
from durak_site.celery import app as celery_app
task = jobs.registered("games.game_finished")
started = time.monotonic()
sent = [jobs.dispatch(task, 1) for _ in range(20)]
print(sent.count(True), round(time.monotonic() - started, 3))
"""


@pytest.mark.parametrize("answer", ["refused", "silent"])
def test_enqueueing_with_redis_down_costs_a_request_seconds_at_most_once(answer: str) -> None:
    # given a broker address where nothing answers (refused) or a socket never replies (silent)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)
    port = silent.getsockname()[1] if answer == "silent" else 1
    env = subprocess_env(REDIS_URL=f"redis://127.0.0.1:{port}/0")
    env.pop("DATABASE_URL", None)
    # when a process enqueues 20 jobs after commits
    try:
        out = subprocess.run(
            [sys.executable, "-c", PUBLISH],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    finally:
        silent.close()
    # then none is sent, and all 20 together took no longer than the broker's bounded timeouts
    # once (5 s for a silent Redis: connect, then a 3 s read timeout), not 19 s each
    sent, seconds = out.stdout.split()
    assert int(sent) == 0
    assert float(seconds) < (1.0 if answer == "refused" else 6.0), out.stderr[-2000:]
