"""The watchers of a table in one server process, served by one reader of the table's group.

A final table's thousands of spectators each joined the table's group: every state woke each
one's consumer (its channel queue, channels' dispatch, its handler) in lockstep, and an action of
any other table that arrived meanwhile waited behind all of them. Here a socket without a seat
(a spectator, a player of another table) joins the process's :class:`Watchers` instead: one
channel of the group per table and process, whose reader hands each state to every local
watcher in join order, yielding the loop every :data:`CHUNK` sockets so that the players' own
actions go in between. Each watcher's frame is the shared one (``consumers.watcher_frame``),
written at once when the socket can take it (:meth:`Watcher.watch`); a socket that cannot (its
buffer is full, it needs names or ranks from the database) gets the state from a queue of its
own, in order, kept to the newest :data:`BACKLOG` states so that it never holds the others up
nor gathers memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: Watchers written to between two yields of the event loop.
CHUNK = 50
#: States kept for one watcher that cannot take them at once (the oldest are dropped: every
#: state message is complete, and the socket's next frame carries the log it missed).
BACKLOG = 16
#: The pause of a reader after the channel layer failed it.
RETRY_SECONDS = 1.0


class Watcher(Protocol):
    def watch(self, snapshot: dict[str, Any]) -> None:
        """Take a state of the table, without waiting (``consumers.TableConsumer.watch``)."""


class Watchers:
    """A process's watchers, per channel layer and group, and the group's one reader."""

    def __init__(self) -> None:
        self.members: dict[tuple[Any, str], dict[Watcher, None]] = {}
        self.readers: dict[tuple[Any, str], Reader] = {}

    async def join(self, layer: Any, group: str, watcher: Watcher) -> None:
        """Add ``watcher``; on return the group's reader is subscribed (a state published after
        this reaches it)."""
        key = (layer, group)
        reader = self.readers.get(key)
        if reader is None or reader.stale():
            # (a stale reader: one of an event loop gone, as between tests, with its watchers)
            self.members[key] = {}
            reader = self.readers[key] = Reader(self, layer, group)
        self.members[key][watcher] = None
        await reader.subscribed

    async def leave(self, layer: Any, group: str, watcher: Watcher) -> None:
        """Remove ``watcher``; the last one out stops the reader and leaves the group."""
        key = (layer, group)
        members = self.members.get(key)
        if members is None:
            return
        members.pop(watcher, None)
        if members:
            return
        del self.members[key]
        reader = self.readers.pop(key, None)
        if reader is not None:
            await reader.stop()

    def of(self, layer: Any, group: str) -> list[Watcher]:
        return list(self.members.get((layer, group), ()))

    async def fan_out(self, layer: Any, group: str, snapshot: dict[str, Any]) -> None:
        """Hand ``snapshot`` to every watcher of the group, in join order, yielding the loop
        every :data:`CHUNK` of them."""
        for done, watcher in enumerate(self.of(layer, group), 1):
            try:
                watcher.watch(snapshot)
            except Exception:
                log.exception("group %s: a watcher failed to take a state", group)
            if done % CHUNK == 0:
                await asyncio.sleep(0)


class Reader:
    """One channel of a group, read by one task that fans each state out."""

    def __init__(self, watchers: Watchers, layer: Any, group: str) -> None:
        self.watchers, self.layer, self.group = watchers, layer, group
        self.channel: str | None = None
        self.subscribed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self.run())

    def stale(self) -> bool:
        return self.task.done() or self.task.get_loop() is not asyncio.get_running_loop()

    async def run(self) -> None:
        try:
            self.channel = await self.layer.new_channel("watchers.")
            await self.layer.group_add(self.group, self.channel)
        except BaseException as exc:
            self.watchers.readers.pop((self.layer, self.group), None)
            if not self.subscribed.done():
                self.subscribed.set_exception(exc)
            raise
        self.subscribed.set_result(None)
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except Exception:
                # (the layer lost its server: its own receiver subscribes again once it is back)
                log.warning("group %s: the watchers' reader failed", self.group, exc_info=True)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if message.get("type") == "game.changed":
                await self.watchers.fan_out(self.layer, self.group, message)

    async def stop(self) -> None:
        self.task.cancel()
        try:
            await self.task
        except asyncio.CancelledError:
            pass
        except Exception:
            log.warning("group %s: the watchers' reader had failed", self.group, exc_info=True)
        if self.channel is not None:
            await self.layer.group_discard(self.group, self.channel)


def sent_at_once(send: Awaitable[Any]) -> bool:
    """Run the ASGI ``send`` coroutine ``send`` as far as it goes without waiting: True if it
    finished (the frame is written), False if it would have waited, in which case it is closed
    before it wrote anything (uvicorn's WebSocket ``send`` waits for the transport to be
    writable before it writes, and writes in the same step). An error it raises (the socket
    closed) is raised."""
    if not asyncio.iscoroutine(send):
        raise TypeError(f"an ASGI send coroutine, not {send!r}")
    try:
        send.send(None)
    except StopIteration:
        return True
    send.close()
    return False


#: The process's watchers.
WATCHERS = Watchers()
