"""An asyncio Redis client per event loop, for the code that talks to Redis from sockets and the
ASGI front (the socket cap, the API's published versions); a lean publisher per event loop
for the live tables' broadcasts (:class:`LoopPublisher`); and one event loop per process for
the synchronous code that talks to Redis through asyncio (:func:`run`: a worker's broadcasts).

An asyncio client belongs to the event loop it was made on (its connections do), and a server
process may run more than one loop (the tests' servers, a thread's ``async_to_sync``): each loop
gets its own client, made on first use and dropped with the loop.

**The process's loop** (:func:`run`). ``async_to_sync`` called from a thread without an event
loop above it (a Celery job, a management command) makes a new loop in a new thread for every
call, and every asyncio client made on it (the channel layer's, a :class:`LoopRedis`'s)
connects to Redis again and is closed with it: a worker paid a thread, a loop and a Redis
connection for each game's broadcast and each feed event (``docs/performance.md``, the 1,024
bench). :func:`run` runs a coroutine on one loop per process instead, on a daemon thread made on
first use, so that its clients keep their connections. Only for Redis, which any loop may talk
to: an in-memory channel layer's queues belong to the caller's loop (the callers keep
``async_to_sync`` for it). A process forked from one that had the loop (Celery's prefork pool)
makes its own on first use: the parent's thread is not in the child.
"""

from __future__ import annotations

import asyncio
import collections
import os
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

import redis.asyncio
from django.conf import settings
from redis.asyncio.connection import parse_url

T = TypeVar("T")


class LoopRedis:
    """``client()``: the running loop's client of ``url``, each call of its network waiting at
    most ``timeout`` seconds (the callers fall back when Redis is slow or down)."""

    def __init__(self, url: str, *, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
            weakref.WeakKeyDictionary()
        )

    def client(self) -> redis.asyncio.Redis:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = redis.asyncio.Redis.from_url(
                self.url,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                max_connections=settings.REDIS_MAX_CONNECTIONS,
            )
            self._clients[loop] = client
        return client


class ReplyError(Exception):
    """Redis answered a command with an error (``-ERR ...``)."""


class _Replies(asyncio.Protocol):
    """One connection to Redis: commands written as they come (pipelined), their replies matched
    to them in order. Only integer (``:n``) and status (``+OK``) replies are expected: those of
    ``PUBLISH`` and ``AUTH``; anything else closes the connection."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiting: collections.deque[asyncio.Future[int]] = collections.deque()
        self.buffer = bytearray()
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast("asyncio.Transport", transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._fail(ConnectionError(f"the connection to Redis was lost ({exc})"))

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n")) >= 0:
            line = bytes(self.buffer[:end])
            del self.buffer[: end + 2]
            kind = line[:1]
            if not self.waiting or kind not in (b":", b"+", b"-"):
                self.close()
                self._fail(ConnectionError(f"unexpected reply from Redis: {line[:80]!r}"))
                return
            future = self.waiting.popleft()
            if future.done():  # its caller gave up (a timeout): the reply is skipped
                continue
            if kind == b":":
                future.set_result(int(line[1:]))
            elif kind == b"+":
                future.set_result(0)
            else:
                future.set_exception(ReplyError(line[1:].decode("utf-8", "replace")))

    def send(self, *parts: bytes) -> asyncio.Future[int]:
        """Write one command; its reply's future."""
        if self.lost or self.transport is None or self.transport.is_closing():
            raise ConnectionError("the connection to Redis is closed")
        future = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        command = [b"*%d\r\n" % len(parts)]
        for part in parts:
            command.append(b"$%d\r\n" % len(part))
            command.append(part)
            command.append(b"\r\n")
        self.transport.write(b"".join(command))
        return future

    def close(self) -> None:
        self.lost = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: Exception) -> None:
        waiting, self.waiting = self.waiting, collections.deque()
        for future in waiting:
            if not future.done():
                future.set_exception(exc)


class LoopPublisher:
    """``PUBLISH`` from the running loop on one connection of its own (per loop), each call
    waiting at most ``timeout`` seconds (connecting included).

    For the hot broadcasts of a server process (``games.broadcast``): a publish through
    redis-py's asyncio client (its pool, retry wrapper, a task per timed socket operation,
    its reply parser) cost about 3 times the CPU of the write and the read themselves
    (``docs/performance.md``). Here a publish is one write of the packed command and one future
    resolved by the connection's reader; concurrent publishes share the connection (pipelined,
    replies in order). A connection that fails, or whose reply does not come within
    ``timeout``, is closed and the next publish opens a fresh one. TCP URLs only
    (``redis://``, with a user and password if any); for any other (TLS, a Unix socket) the
    loop's redis-py client publishes instead.
    """

    def __init__(self, url: str, *, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        params = parse_url(url)
        self.lean = "connection_class" not in params  # TLS and Unix sockets: redis-py's
        self.host = params.get("host", "localhost")
        self.port = int(params.get("port", 6379))
        self.username: str | None = params.get("username")
        self.password: str | None = params.get("password")
        self._fallback = LoopRedis(url, timeout=timeout)
        self._links: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Future[_Replies]
        ] = weakref.WeakKeyDictionary()

    async def publish(self, channel: str, data: bytes) -> int:
        """Publish ``data`` on ``channel``: the number of subscribers that got it."""
        if not self.lean:
            async with asyncio.timeout(self.timeout):
                return int(await self._fallback.client().publish(channel, data))
        async with asyncio.timeout(self.timeout) as deadline:
            link = await self._link()
            try:
                return await link.send(b"PUBLISH", channel.encode(), data)
            except asyncio.CancelledError:
                if deadline.expired():
                    link.close()  # no answer in time: a hung server, or a lost reply
                raise

    async def _link(self) -> _Replies:
        """The loop's open connection, opened (and authenticated) if it has none; concurrent
        callers wait for the same connect."""
        loop = asyncio.get_running_loop()
        pending = self._links.get(loop)
        if pending is not None and pending.done():
            link = None if pending.exception() is not None else pending.result()
            if link is not None and not link.lost:
                return link
            pending = None
        if pending is not None:
            return await asyncio.shield(pending)
        pending = self._links[loop] = loop.create_future()
        try:
            link = await self._connect(loop)
        except BaseException as exc:
            del self._links[loop]
            pending.set_exception(ConnectionError(f"could not connect to Redis ({exc!r})"))
            pending.exception()  # retrieved: whoever waits on it gets it as well
            raise
        pending.set_result(link)
        return link

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Replies:
        _transport, link = await loop.create_connection(_Replies, self.host, self.port)
        try:
            if self.password is not None:
                auth = [self.password] if self.username is None else [self.username, self.password]
                await link.send(b"AUTH", *(part.encode() for part in auth))
        except BaseException:
            link.close()
            raise
        return link


class _ProcessLoop:
    """The event loop of this process on its own daemon thread, started on first use."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None

    def get(self) -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
        with self.lock:
            if self.loop is None or self.thread is None or not self.thread.is_alive():
                loop = asyncio.new_event_loop()
                started = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(started.set)
                    loop.run_forever()

                thread = threading.Thread(target=serve, name="process-loop", daemon=True)
                thread.start()
                started.wait()
                self.loop, self.thread = loop, thread
            return self.loop, self.thread


_process = _ProcessLoop()
#: The loops of the processes this one was forked from: their threads are not in this process,
#: so they are never run or closed here (kept, so that nothing of theirs is collected either).
_inherited: list[_ProcessLoop] = []


def _forked() -> None:
    global _process  # noqa: PLW0603 (a child's own loop, made on first use)
    _inherited.append(_process)
    _process = _ProcessLoop()


os.register_at_fork(after_in_child=_forked)


def run(coroutine: Callable[[], Awaitable[T]], *, timeout: float) -> T:
    """``coroutine()`` run on this process's loop, its result (or its exception) given back to
    the calling thread: synchronous code's ``async_to_sync`` for Redis clients, which stay
    connected between calls. Past ``timeout`` seconds the coroutine is cancelled and
    ``TimeoutError`` raised. Not from the loop's own thread (it would wait on itself)."""
    loop, thread = _process.get()
    if threading.current_thread() is thread:
        raise RuntimeError("redisloop.run() called from the process loop's own thread")

    async def call() -> T:
        return await coroutine()

    future = asyncio.run_coroutine_threadsafe(call(), loop)
    try:
        return future.result(timeout)
    except TimeoutError:
        future.cancel()
        raise
