"""The watchers of a table in a process share one reader of its group (``games.fanout``)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from channels.layers import InMemoryChannelLayer, get_channel_layer

from games import consumers, fanout
from games.broadcast import table_group
from tests.builders import LiveTable
from tests.games.test_table_socket import hand_fields, is_state, open_socket, receive_until

pytestmark = pytest.mark.django_db(transaction=True)

Message = dict[str, Any]


class Taker:
    """A watcher that notes the states it takes (and the other work done meanwhile)."""

    def __init__(self, name: str, seen: list[tuple[str, int]], *, fails: bool = False) -> None:
        self.name, self.seen, self.fails = name, seen, fails

    def watch(self, snapshot: dict[str, Any]) -> None:
        if self.fails:
            raise RuntimeError("a closed socket")
        self.seen.append((self.name, snapshot["version"]))


async def published(layer: Any, group: str, version: int) -> None:
    await layer.group_send(group, {"type": "game.changed", "version": version})


async def settled(seen: list[tuple[str, int]], count: int) -> None:
    """Wait until ``count`` states were taken (the other work aside)."""
    for _ in range(200):
        if len([s for s in seen if s[0] != "other"]) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"fewer than {count}: {seen}")


async def test_states_reach_every_watcher_in_order_yielding_between_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fanout, "CHUNK", 2)
    layer, watchers = InMemoryChannelLayer(), fanout.Watchers()
    seen: list[tuple[str, int]] = []
    takers = [Taker(str(n), seen) for n in range(5)]
    broken = Taker("x", seen, fails=True)
    for taker in (takers[0], broken, *takers[1:]):
        await watchers.join(layer, "g", taker)

    async def other_table() -> None:  # the players' work between the chunks
        while True:
            seen.append(("other", -1))
            await asyncio.sleep(0)

    other = asyncio.create_task(other_table())
    for version in (1, 2):
        await published(layer, "g", version)
    await settled(seen, 10)
    other.cancel()
    states = [s for s in seen if s[0] != "other"]
    # in join order, every state to every watcher, the one that fails skipped
    assert states == [(str(n), v) for v in (1, 2) for n in range(5)]
    # the loop was yielded inside a state's fan-out (after every 2 watchers)
    first = seen.index(("0", 1))
    last = seen.index(("4", 1))
    assert ("other", -1) in seen[first:last]


async def test_the_last_watcher_out_leaves_the_group() -> None:
    layer, watchers = InMemoryChannelLayer(), fanout.Watchers()
    seen: list[tuple[str, int]] = []
    one, two = Taker("1", seen), Taker("2", seen)
    await watchers.join(layer, "g", one)
    await watchers.join(layer, "g", two)
    assert len(layer.groups["g"]) == 1  # one channel for both
    await watchers.leave(layer, "g", one)
    await published(layer, "g", 1)
    await settled(seen, 1)
    assert seen == [("2", 1)]
    await watchers.leave(layer, "g", two)
    assert watchers.of(layer, "g") == [] and not watchers.readers
    assert not layer.groups.get("g")


async def test_a_send_that_would_wait_is_not_sent() -> None:
    written: list[str] = []
    writable = asyncio.Event()

    async def send(text: str) -> None:
        await writable.wait()
        written.append(text)

    assert not fanout.sent_at_once(send("late"))
    writable.set()
    assert fanout.sent_at_once(send("now"))
    await asyncio.sleep(0)
    assert written == ["now"]


async def test_spectators_get_every_state_once_in_order_and_leave_the_registry(
    live_table: LiveTable,
) -> None:
    table = live_table.table.pk
    layer, group = cast(InMemoryChannelLayer, get_channel_layer()), table_group(table)
    players = [await open_socket(table, live_table.user_at(s)) for s in (0, 1)]
    spectators = [await open_socket(table) for _ in range(3)]
    states = [await p.receive_json_from(timeout=5) for p in players]
    for spectator in spectators:
        assert (await spectator.receive_json_from(timeout=5))["version"] == 0
    # the spectators are the process's watchers, the players are not
    assert len(fanout.WATCHERS.of(layer, group)) == 3
    version = 0
    for step in range(4):
        seat = next(s for s in (0, 1) if states[s]["legal"])
        await players[seat].send_json_to(
            {
                "type": "action",
                "id": f"m{step}",
                "version": version,
                "action": states[seat]["legal"][0],
            }
        )
        version += 1
        for s in (0, 1):
            states[s], _ = await receive_until(players[s], is_state(version))
    frames: list[list[Message]] = []
    for spectator in spectators:
        _, seen = await receive_until(spectator, is_state(version))
        frames.append(seen)
    for seen in frames:
        assert [m["version"] for m in seen] == [1, 2, 3, 4]
        # the log entries each once, after the last state sent
        assert [e["seq"] for m in seen for e in m["log"]] == [1, 2, 3, 4]
        assert all(m["seat"] is None and m["view"]["hand"] is None for m in seen)
    # the shared frame holds no hand (a whole game's frames: test_table_socket's leak test)
    assert all(h is None for seen in frames for m in seen for h in hand_fields(m))
    for sock in (*spectators, *players):
        await sock.disconnect()
    assert fanout.WATCHERS.of(layer, group) == []
    assert not layer.groups.get(group)


async def test_a_spectator_that_cannot_take_a_frame_gets_it_later_without_holding_others(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = live_table.table.pk
    players = [await open_socket(table, live_table.user_at(s)) for s in (0, 1)]
    slow, fast = await open_socket(table), await open_socket(table)
    states = [await p.receive_json_from(timeout=5) for p in players]
    for spectator in (slow, fast):
        await spectator.receive_json_from(timeout=5)
    layer = get_channel_layer()
    (slow_consumer, _) = fanout.WATCHERS.of(layer, table_group(table))
    assert isinstance(slow_consumer, consumers.TableConsumer)
    # the slow socket's frames would wait (a full buffer): none is written by the fan-out
    monkeypatch.setattr(fanout, "sent_at_once", lambda send: send.close() or False)
    seat = next(s for s in (0, 1) if states[s]["legal"])
    await players[seat].send_json_to(
        {"type": "action", "id": "m", "version": 0, "action": states[seat]["legal"][0]}
    )
    # both get the state: from the backlog, in order, once each
    for spectator in (slow, fast):
        _, seen = await receive_until(spectator, is_state(1))
        assert [m["version"] for m in seen] == [1]
    for _ in range(fanout.BACKLOG + 5):
        slow_consumer.backlog.append({})  # never more than the newest BACKLOG are kept
    assert len(slow_consumer.backlog) == fanout.BACKLOG
    for sock in (slow, fast, *players):
        await sock.disconnect()
    assert not slow_consumer.backlog


async def test_a_reader_outlives_a_failure_of_the_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fanout, "RETRY_SECONDS", 0.01)
    layer, watchers = InMemoryChannelLayer(), fanout.Watchers()
    seen: list[tuple[str, int]] = []
    real, failures = layer.receive, [ConnectionError("Redis is down")]

    async def receive(channel: str) -> Any:
        if failures:
            raise failures.pop()
        return await real(channel)

    monkeypatch.setattr(layer, "receive", receive)
    await watchers.join(layer, "g", Taker("1", seen))
    await asyncio.sleep(0.05)
    assert not failures  # the reader's first receive failed
    await published(layer, "g", 1)
    await settled(seen, 1)
    assert seen == [("1", 1)]
