"""``durak_site.redisloop.LoopPublisher``: PUBLISH on the loop's own connection, against a
Redis stand-in that speaks the protocol and can be told to fail (and a real Redis when the
tests have one)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from django.conf import settings

from durak_site.redisloop import LoopPublisher, ReplyError


@dataclass
class FakeRedis:
    """A TCP server that reads RESP commands and answers each as told: ``reply`` per command
    name (bytes, written as is; None: no answer at all, a hung server), or (``numbered``) with
    the command's number."""

    port: int = 0
    commands: list[list[bytes]] = field(default_factory=list)
    connections: int = 0
    reply: dict[bytes, bytes | None] = field(default_factory=dict)
    writers: list[asyncio.StreamWriter] = field(default_factory=list)
    numbered: bool = False

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            while True:
                header = await reader.readline()
                if not header:
                    return
                assert header.startswith(b"*")
                parts = []
                for _ in range(int(header[1:])):
                    size = int((await reader.readline())[1:])
                    parts.append((await reader.readexactly(size + 2))[:-2])
                self.commands.append(parts)
                answer = self.reply.get(parts[0], b":1\r\n")
                if self.numbered:
                    answer = b":%d\r\n" % len(self.commands)
                if answer is not None:
                    writer.write(answer)

    def drop_all(self) -> None:
        for writer in self.writers:
            writer.close()
        self.writers.clear()


@contextlib.asynccontextmanager
async def fake_redis() -> AsyncIterator[FakeRedis]:
    fake = FakeRedis()
    server = await asyncio.start_server(fake.serve, "127.0.0.1", 0)
    fake.port = server.sockets[0].getsockname()[1]
    try:
        yield fake
    finally:
        fake.drop_all()
        server.close()


async def test_a_publish_is_one_command_answered_with_the_subscribers() -> None:
    async with fake_redis() as redis:
        redis.reply[b"PUBLISH"] = b":3\r\n"
        publisher = LoopPublisher(f"redis://127.0.0.1:{redis.port}/4", timeout=1)
        assert await publisher.publish("chan", b"\x00data\r\n") == 3
        assert await publisher.publish("chan", b"more") == 3
        # (a payload with CR LF in it goes as the bulk string it is)
        assert redis.commands == [
            [b"PUBLISH", b"chan", b"\x00data\r\n"],
            [b"PUBLISH", b"chan", b"more"],
        ]
        assert redis.connections == 1  # one connection, kept


async def test_concurrent_publishes_share_the_connection_and_get_their_own_replies() -> None:
    async with fake_redis() as redis:
        redis.numbered = True  # each reply is the number of the command it answers
        publisher = LoopPublisher(f"redis://127.0.0.1:{redis.port}/0", timeout=1)
        results = await asyncio.gather(*(publisher.publish("c", b"x") for _ in range(20)))
        assert results == list(range(1, 21))
        assert redis.connections == 1


async def test_a_password_in_the_url_is_sent_first() -> None:
    async with fake_redis() as redis:
        redis.reply[b"AUTH"] = b"+OK\r\n"
        publisher = LoopPublisher(f"redis://user:s%40cret@127.0.0.1:{redis.port}/0", timeout=1)
        await publisher.publish("chan", b"x")
        assert redis.commands[0] == [b"AUTH", b"user", b"s@cret"]
        assert redis.commands[1][0] == b"PUBLISH"


async def test_an_error_reply_is_raised_and_the_connection_goes_on() -> None:
    async with fake_redis() as redis:
        redis.reply[b"PUBLISH"] = b"-NOPERM no\r\n"
        publisher = LoopPublisher(f"redis://127.0.0.1:{redis.port}/0", timeout=1)
        with pytest.raises(ReplyError, match="NOPERM"):
            await publisher.publish("chan", b"x")
        redis.reply[b"PUBLISH"] = b":0\r\n"
        assert await publisher.publish("chan", b"x") == 0
        assert redis.connections == 1


async def test_a_dropped_connection_fails_its_publish_and_the_next_one_reconnects() -> None:
    async with fake_redis() as redis:
        publisher = LoopPublisher(f"redis://127.0.0.1:{redis.port}/0", timeout=1)
        assert await publisher.publish("chan", b"x") == 1
        redis.reply[b"PUBLISH"] = None  # the next one is never answered: the server goes
        waiting = asyncio.ensure_future(publisher.publish("chan", b"y"))
        for _ in range(100):
            if len(redis.commands) == 2:
                break
            await asyncio.sleep(0.01)
        redis.drop_all()
        with pytest.raises(ConnectionError):
            await waiting
        redis.reply[b"PUBLISH"] = b":2\r\n"
        assert await publisher.publish("chan", b"z") == 2
        assert redis.connections == 2


async def test_a_hung_server_times_out_and_the_next_publish_has_a_fresh_connection() -> None:
    async with fake_redis() as redis:
        publisher = LoopPublisher(f"redis://127.0.0.1:{redis.port}/0", timeout=0.2)
        redis.reply[b"PUBLISH"] = None
        started = asyncio.get_running_loop().time()
        with pytest.raises(TimeoutError):
            await publisher.publish("chan", b"x")
        assert asyncio.get_running_loop().time() - started < 1
        # a late reply on the old connection can never answer a later publish: it is closed
        redis.reply[b"PUBLISH"] = b":5\r\n"
        assert await publisher.publish("chan", b"y") == 5
        assert redis.connections == 2


async def test_nobody_listening_fails_at_once() -> None:
    async with fake_redis() as redis:
        port = redis.port
    publisher = LoopPublisher(f"redis://127.0.0.1:{port}/0", timeout=1)
    with pytest.raises(OSError):
        await publisher.publish("chan", b"x")


@pytest.mark.skipif(not settings.REDIS_URL, reason="a real Redis")
async def test_a_real_redis_delivers_to_a_subscriber() -> None:
    import redis.asyncio  # noqa: PLC0415 (only with a real Redis)

    url = str(settings.REDIS_URL)
    client = redis.asyncio.Redis.from_url(url)
    pubsub = client.pubsub()
    await pubsub.subscribe("durak-test-publisher")
    try:
        publisher = LoopPublisher(url, timeout=2)
        assert await publisher.publish("durak-test-publisher", b"hello") == 1
        for _ in range(50):
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
            if message is not None:
                break
        assert message is not None and message["data"] == b"hello"
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()
