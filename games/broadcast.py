"""Pushing game changes to the live table's sockets, always after commit.

The group message carries the full engine state: it stays inside the server (channel layer) and
every consumer redacts it for its own viewer with the engine's ``view`` before sending, so a
hidden card never reaches a client and no consumer has to read the database per change.

A consumer that calls a service from its event loop wraps the call in :func:`collected`: the
service's broadcasts are then handed back instead of sent from the database thread, and the
consumer sends them itself (:func:`send_collected`) before it answers. The database thread is
then not held during the Redis round trips.

**A broadcast that fails never fails the change.** It is sent after the commit: the action is
done, and its sender is answered (acknowledged) all the same. The failure is logged, each send
is bounded (:data:`SEND_TIMEOUT`, so a Redis that hangs does not hold the answer), and the
message is kept, the newest per table, by a resender thread of the process, which sends it again
(backoff up to :data:`RESEND_MAX_PAUSE`) until the channel layer takes it; a newer state of the
table sent meanwhile replaces it. Every state message is complete and each socket sends its
client the log after the version it sent last, so that one message brings every socket of the
table up to date when Redis is back. (A resender that dies with its process loses nothing
either: the table's next change, or a client's ``sync`` or reconnection, brings the state.)

A resent message is sent once more :data:`RESEND_ECHO_PAUSE` seconds later (unless a newer
state of the table went out meanwhile): a PUBLISH reaches only the server processes subscribed
at that moment, and after Redis comes back each process's subscription is restored only at its
next read (``channels_redis`` pauses a second after a failed one), so the first resend may reach
nobody. The fault suite found it (``tests/chaos/test_edge_faults.py``): without the echo, the
opponent of a move made while Redis was down never got it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.db import transaction

from durak_site import redisloop
from durak_site.redisloop import LoopPublisher
from games import timing

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds one group send may take before it counts as failed.
SEND_TIMEOUT = 2.0
#: The resender's first pause after a failed attempt, and its longest (seconds).
RESEND_FIRST_PAUSE = 0.5
RESEND_MAX_PAUSE = 5.0
#: Seconds after a successful resend before the same message is sent once more.
RESEND_ECHO_PAUSE = 2.5


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


Pending = list[tuple[str, dict[str, Any]]]
_collector = threading.local()


@contextmanager
def collected() -> Iterator[Pending]:
    """Collect the broadcasts of the changes committed in this thread (``(group, message)``
    pairs, in commit order) instead of sending them; see :func:`send_collected`."""
    previous = getattr(_collector, "pending", None)
    pending: Pending = []
    _collector.pending = pending
    try:
        yield pending
    finally:
        _collector.pending = previous


async def _group_send(group: str, message: dict[str, Any], *, direct: bool = False) -> None:
    """The channel layer's ``group_send``; ``direct`` (from a loop that lives as long as the
    process: a server's own, or ``redisloop.run``'s): :func:`_publish` instead, on the Redis
    pub/sub layer."""
    layer = get_channel_layer()
    if layer is None:
        return
    if direct and isinstance(layer, RedisPubSubChannelLayer):
        await _publish(layer, group, message)  # within SEND_TIMEOUT (the publisher's own)
    else:
        await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT)


_publisher: LoopPublisher | None = None


async def _publish(layer: RedisPubSubChannelLayer, group: str, message: dict[str, Any]) -> None:
    """The Redis pub/sub layer's ``group_send``, without its lock: the layer sends one PUBLISH
    of a process at a time (one lock per Redis host around every publish and subscription), so
    under load a change waited behind all the others (``docs/performance.md``). The same bytes
    go to the same Redis channel (``<prefix>__group__<group>``, the layer's serializer) on the
    loop's own connection (``redisloop.LoopPublisher``: pipelined, so that the publishes of
    different tables overlap, and about a third of redis-py's CPU per publish); the layer's
    subscriptions deliver them as before. One Redis host (the layer's sharding is not used)."""
    global _publisher  # noqa: PLW0603 (one publisher per process, made on first use)
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    if _publisher is None:
        _publisher = LoopPublisher(config["hosts"][0]["address"], timeout=SEND_TIMEOUT)
    channel = f"{config.get('prefix', 'asgi')}__group__{group}"
    await _publisher.publish(channel, layer.serialize(message))


async def send_collected(pending: Pending) -> Pending:
    """Send collected broadcasts in order; returns those that failed (logged, and left to the
    resender). Never raises: the changes have committed."""
    failed: Pending = []
    for group, message in pending:
        if timing.ENABLED:
            message["sent_at"] = time.time()
        try:
            await _group_send(group, message, direct=True)
        except Exception as exc:
            _failed(group, message, exc, asyncio.get_running_loop())
            failed.append((group, message))
        else:
            resender.sent(group, message)
    return failed


def from_sync(work: Callable[[], Awaitable[T]], *, timeout: float) -> T:
    """``work()`` (talking to the channel layer) run from synchronous code: on the Redis pub/sub
    layer on the process's own loop (``redisloop.run``: its Redis connection kept between calls,
    not a new loop and connection per call; cancelled past ``timeout`` seconds), else through
    ``async_to_sync`` (an in-memory layer's groups belong to the caller's loop)."""
    if isinstance(get_channel_layer(), RedisPubSubChannelLayer):
        return redisloop.run(work, timeout=timeout)

    async def call() -> T:  # a coroutine function, as async_to_sync expects
        return await work()

    return async_to_sync(call)()


def _send_many(batch: Pending) -> int:
    """Send many broadcasts from synchronous code in one pass (:func:`from_sync`: one event
    loop, so one connection of the channel layer, instead of one per message: a round's first
    games; on the Redis pub/sub layer the process's own loop and the servers' direct publish:
    a worker sends every game's end and every round's deal from it); returns
    how many the layer took. After the first failure the rest are not tried (each would wait
    :data:`SEND_TIMEOUT` on a layer that is down): they are kept for the resender, as a failed
    one is."""

    async def attempt() -> tuple[int, BaseException | None]:
        for done, (group, message) in enumerate(batch):
            try:
                # ``direct``: from_sync's loop on the Redis pub/sub layer lives as long as the
                # process (any other layer sends through its own group_send).
                await _group_send(group, message, direct=True)
            except Exception as exc:
                return done, exc
        return len(batch), None

    try:
        # Each send is bounded by SEND_TIMEOUT and the pass stops at the first failure.
        done, error = from_sync(attempt, timeout=SEND_TIMEOUT * (len(batch) + 1))
    except Exception as exc:  # the pass itself failed: nothing is known to have gone out
        done, error = 0, exc
    for group, message in batch[:done]:
        resender.sent(group, message)
    if error is not None:
        group, message = batch[done]
        _failed(group, message, error)
        for group, message in batch[done + 1 :]:
            resender.keep(group, message)
        if len(batch) > done + 1:
            log.warning("%d more broadcast(s) kept for the resender", len(batch) - done - 1)
    return done


def _failed(
    group: str,
    message: dict[str, Any],
    exc: BaseException,
    loop: asyncio.AbstractEventLoop | None = None,
) -> None:
    log.warning(
        "%s: the broadcast of game %s at version %s failed (%s: %s); resent when the channel "
        "layer answers",
        group,
        message.get("game_id"),
        message.get("version"),
        type(exc).__name__,
        exc,
    )
    resender.keep(group, message, loop)


def _order(message: dict[str, Any]) -> tuple[int, int]:
    """How recent a table's state message is: its game (later games of a series have larger
    ids), then its version."""
    return int(message.get("game_id") or 0), int(message.get("version") or 0)


class Resender:
    """The newest broadcast per table that failed, sent again by a daemon thread until the
    channel layer takes it. The thread runs only while something is waiting. In a server
    process the sends run on the server's event loop (the loop of the first failure): the
    channel layer's connections belong to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, dict[str, Any]] = {}
        self._echoes: dict[str, dict[str, Any]] = {}  # resent, to be sent once more
        self._echo_at = 0.0  # when (monotonic)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def keep(
        self,
        group: str,
        message: dict[str, Any],
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        with self._lock:
            kept = self._waiting.get(group)
            if kept is None or _order(kept) <= _order(message):
                self._waiting[group] = message
            if loop is not None:
                self._loop = loop
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="broadcast-resender", daemon=True
                )
                self._thread.start()

    def sent(self, group: str, message: dict[str, Any]) -> None:
        """``message`` reached the layer: a kept one it supersedes is dropped."""
        if not self._waiting and not self._echoes:  # the usual case: nothing kept, no lock
            return
        with self._lock:
            for kept_by_group in (self._waiting, self._echoes):
                kept = kept_by_group.get(group)
                if kept is not None and _order(kept) <= _order(message):
                    del kept_by_group[group]

    def waiting(self) -> dict[str, dict[str, Any]]:
        """What is waiting to be sent again, by group (a copy)."""
        with self._lock:
            return dict(self._waiting)

    def _run(self) -> None:
        pause = RESEND_FIRST_PAUSE
        while True:
            time.sleep(pause)
            with self._lock:
                batch = dict(self._waiting)
                echoes = dict(self._echoes) if time.monotonic() >= self._echo_at else {}
                if not batch and not self._echoes:
                    self._thread = None
                    return
            if echoes:
                self._echo(echoes)
            if not batch:
                pause = max(0.05, self._echo_at - time.monotonic())
                continue
            done = self._try_batch(batch)
            with self._lock:
                for group in done:
                    if self._waiting.get(group) is batch[group]:
                        del self._waiting[group]
                        self._echoes[group] = batch[group]
                if done:
                    self._echo_at = time.monotonic() + RESEND_ECHO_PAUSE
            if len(done) == len(batch):
                pause = RESEND_FIRST_PAUSE
                log.info("resent %d broadcast(s) after a channel layer failure", len(done))
            else:
                pause = min(RESEND_MAX_PAUSE, pause * 2)

    def _echo(self, echoes: dict[str, dict[str, Any]]) -> None:
        """Send resent messages once more; one that fails now waits to be resent again."""
        done = self._try_batch(echoes)
        with self._lock:
            for group, message in echoes.items():
                if self._echoes.get(group) is not message:
                    continue  # a newer state went out meanwhile
                del self._echoes[group]
                kept = self._waiting.get(group)
                if group not in done and (kept is None or _order(kept) <= _order(message)):
                    self._waiting[group] = message

    def _try_batch(self, batch: dict[str, dict[str, Any]]) -> list[str]:
        """The groups of ``batch`` whose message the channel layer took."""
        try:
            return self._send_batch(batch)
        except Exception:  # a loop that is closing, a timeout: try again later
            log.debug("resending failed", exc_info=True)
            return []

    def _send_batch(self, batch: dict[str, dict[str, Any]]) -> list[str]:
        loop = self._loop
        if loop is not None and loop.is_running():
            attempt = asyncio.run_coroutine_threadsafe(self._attempt(batch), loop)
            return attempt.result(timeout=SEND_TIMEOUT * len(batch) + 1)
        return asyncio.run(self._attempt(batch))

    @staticmethod
    async def _attempt(batch: dict[str, dict[str, Any]]) -> list[str]:
        done = []
        for group, message in batch.items():
            try:
                await _group_send(group, message)
            except Exception:
                log.debug("%s: resending failed again", group, exc_info=True)
                break  # the layer is still down: the rest waits for the next attempt
            done.append(group)
        return done


resender = Resender()


def game_message(game: Any, event: str = "state") -> dict[str, Any]:
    """The group message of a game as it is now: the full truth, for consumers to redact."""
    return {
        "type": "game.changed",
        "event": event,
        "game_id": game.pk,
        "table_id": game.table_id,
        "number": game.number,
        "version": game.version,
        "status": game.status,
        "state": game.state,
        "result": game.result,
        "seed": game.seed if game.seed_revealed else None,
        "seed_commitment": game.seed_commitment,
        "deadline": game.deadline.isoformat() if game.deadline else None,
        "players": game.players,
        "actions": game.log_tail,
    }


def broadcast_on_commit(game: Any, event: str = "state") -> None:
    """After the current transaction commits, tell every socket of the game's table (a game
    without a table has no sockets)."""
    broadcast_many_on_commit([game], event)


def broadcast_many_on_commit(games: Any, event: str = "state") -> None:
    """:func:`broadcast_on_commit` for many games (of different tables: a round's first
    games), sent in one pass after commit (:func:`_send_many`: one event loop for all);
    inside :func:`collected` they join its pending broadcasts instead."""
    batch: Pending = [
        (table_group(game.table_id), game_message(game, event))
        for game in games
        if game.table_id is not None
    ]
    if not batch:
        return

    def send() -> None:
        pending = getattr(_collector, "pending", None)
        if pending is not None:
            pending.extend(batch)
            return
        if timing.ENABLED:
            now = time.time()
            for _group, message in batch:
                message["sent_at"] = now
        _send_many(batch)

    transaction.on_commit(send)
