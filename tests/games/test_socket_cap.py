"""The cap on sockets open at once per user and per address (``games.socket_cap``), in-process on
the real ASGI application: the live table's and the feed's sockets count together, a socket over
a cap is refused like every refusal of the edge (``too_many_sockets``, 4429), and a closed one
gives its place back. On the embedded default the count is in memory; with ``REDIS_URL`` the same
tests run on Redis, where a killed process's places also expire by themselves.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from pytest_django import Settings
from rest_framework.authtoken.models import Token

from durak_site.asgi import application
from games import socket_cap
from games.socket_cap import MemoryCounter, RedisCounter, address_key, counter
from tests.builders import LiveTable
from tests.factories import UserFactory
from tests.sockets import refusal

pytestmark = pytest.mark.django_db(transaction=True)

ADDRESS = "198.51.100.7"


@pytest.fixture(autouse=True)
def _fresh_counts() -> Iterator[None]:
    """This test's own counter; on Redis, no count left by an earlier test."""

    def forget() -> None:
        counter.cache_clear()
        if django_settings.REDIS_URL:
            client = redis.Redis.from_url(django_settings.REDIS_URL)
            keys = list(client.scan_iter("durak:sockets:*"))
            if keys:
                client.delete(*keys)

    forget()
    yield
    forget()


@pytest.fixture
def caps(settings: Settings) -> Settings:
    settings.DURAK_SOCKETS_PER_USER = 2
    settings.DURAK_SOCKETS_PER_ADDRESS = 3
    return settings


def socket(path: str, *, address: str = ADDRESS, token: str | None = None, **headers: str) -> Any:
    """A handshake to ``path`` from ``address`` (no Origin: an app's, with ``token`` if any)."""
    sent = [(b"host", b"testserver")]
    if token is not None:
        sent.append((b"authorization", f"Token {token}".encode()))
    sent += [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    comm = WebsocketCommunicator(application, path, headers=sent)
    comm.scope["client"] = (address, 50000)  # the app holds this very scope
    return comm


async def refused(comm: WebsocketCommunicator) -> tuple[str, int]:
    """:func:`tests.sockets.refusal`, then the client goes (as a real one does after the close),
    so that a consumer that refused gives its place back at once."""
    answer = await refusal(comm)
    await comm.disconnect()
    return answer


async def opened(comm: WebsocketCommunicator) -> WebsocketCommunicator:
    connected, code = await comm.connect(timeout=10)
    assert connected, code
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] in ("state", "hello"), first
    return comm


@database_sync_to_async
def token_of(user: User) -> str:
    return str(Token.objects.get_or_create(user=user)[0].key)


def paths(live: LiveTable) -> list[str]:
    return [f"/ws/tables/{live.table.pk}/", f"/ws/tournaments/{live.tournament.slug}/"]


async def test_a_user_holds_at_most_its_cap_of_table_and_feed_sockets(
    live_table: LiveTable, caps: Settings
) -> None:
    # given a player with a table socket and a feed socket open (its cap: 2), from two addresses
    token = await token_of(live_table.user_at(0))
    table, feed = paths(live_table)
    first = await opened(socket(table, token=token, address="203.0.113.1"))
    second = await opened(socket(feed, token=token, address="203.0.113.2"))
    # when it opens a third, from yet another address
    third = socket(table, token=token, address="203.0.113.3", accept_language="en")
    # then it is refused the way the edge refuses, in the socket's language
    connected, _ = await third.connect(timeout=10)
    assert connected
    error = await third.receive_json_from(timeout=5)
    assert error["code"] == "too_many_sockets" and "too many sockets" in error["message"]
    closed = await third.receive_output(timeout=5)
    assert (closed["type"], closed["code"]) == ("websocket.close", 4429)
    # and the other player is not affected
    other = await opened(socket(table, token=await token_of(live_table.user_at(1))))
    # and once one is closed, its place is free again
    await first.disconnect()
    again = await opened(socket(table, token=token, address="203.0.113.4"))
    for comm in (second, other, again):
        await comm.disconnect()


async def test_an_address_holds_at_most_its_cap_whoever_connects(
    live_table: LiveTable, caps: Settings
) -> None:
    table, feed = paths(live_table)
    # given three anonymous sockets (spectators, feeds) from one address (its cap: 3)
    held = [await opened(socket(p)) for p in (table, feed, feed)]
    # then a fourth from there is refused, even with a user's token
    assert await refused(socket(table)) == ("too_many_sockets", 4429)
    token = await token_of(live_table.user_at(0))
    assert await refused(socket(feed, token=token)) == ("too_many_sockets", 4429)
    # while another address connects
    elsewhere = await opened(socket(feed, address="198.51.100.8"))
    # and an IPv6 client counts with its whole /64
    v6 = [await opened(socket(feed, address=f"2001:db8::{n}")) for n in range(3)]
    assert await refused(socket(feed, address="2001:db8::ffff:1")) == ("too_many_sockets", 4429)
    for comm in (*held, elsewhere, *v6):
        await comm.disconnect()
    # and once closed, every place is free again
    reopened = [await opened(socket(feed)) for _ in range(3)]
    for comm in reopened:
        await comm.disconnect()


async def test_a_socket_refused_for_another_reason_gives_its_place_back(
    live_table: LiveTable, caps: Settings
) -> None:
    for _ in range(5):  # more than the cap, one after the other
        assert await refused(socket("/ws/tables/424242/")) == ("not_found", 4404)
        assert await refused(socket("/ws/nowhere/")) == ("not_found", 4404)
    held = [await opened(socket(paths(live_table)[1])) for _ in range(3)]
    for comm in held:
        await comm.disconnect()


async def test_a_cap_of_zero_is_no_cap(live_table: LiveTable, settings: Settings) -> None:
    settings.DURAK_SOCKETS_PER_USER = 0
    settings.DURAK_SOCKETS_PER_ADDRESS = 0
    held = [await opened(socket(paths(live_table)[1])) for _ in range(8)]
    for comm in held:
        await comm.disconnect()


async def test_the_default_caps_refuse_the_hundred_and_first_feed_socket(
    live_table: LiveTable,
) -> None:
    """The defaults (20 per user, 100 per address): 150 feed sockets from one address, as in the
    issue, get 100 places."""
    assert (django_settings.DURAK_SOCKETS_PER_USER, django_settings.DURAK_SOCKETS_PER_ADDRESS) == (
        20,
        100,
    )
    feed = paths(live_table)[1]
    held = [await opened(socket(feed)) for _ in range(100)]
    answers = [await refused(socket(feed)) for _ in range(3)]
    assert answers == [("too_many_sockets", 4429)] * 3
    for comm in held:
        await comm.disconnect()


async def test_at_the_last_place_two_handshakes_at_once_get_one() -> None:
    places = counter()
    limits = [("durak:sockets:address:race", 3)]
    assert await places.admit("first", limits) is None  # (on Redis: its connection made)
    answers = await asyncio.gather(*(places.admit(f"t{n}", limits) for n in range(8)))
    assert answers.count(None) == 2
    for token in ("first", *(f"t{n}" for n in range(8))):
        await places.leave(token)
    assert await places.admit("after", limits) is None
    await places.leave("after")


def test_the_limits_of_a_handshake(settings: Settings) -> None:
    settings.DURAK_SOCKETS_PER_USER, settings.DURAK_SOCKETS_PER_ADDRESS = 20, 100
    user = UserFactory.build(pk=7)
    assert socket_cap.limits_of({"user": user, "client": ("10.0.0.1", 1)}) == [
        ("durak:sockets:user:7", 20),
        ("durak:sockets:address:10.0.0.1", 100),
    ]
    # anonymous, or no peer address (a Unix socket's scope may have none): what applies
    assert socket_cap.limits_of({"client": None}) == []
    assert address_key("2001:db8:0:1::5") == address_key("2001:db8:0:1:ffff::9")


# --- a process that dies (Redis) -----------------------------------------------------------------


@pytest.fixture
async def redis_counter() -> AsyncIterator[RedisCounter]:
    if not django_settings.REDIS_URL:
        pytest.skip("needs Redis: set REDIS_URL")
    yield RedisCounter(str(django_settings.REDIS_URL))


async def test_a_killed_processs_places_expire_and_a_live_ones_are_renewed(
    redis_counter: RedisCounter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket_cap, "EXPIRE_SECONDS", 1)
    limits = [("durak:sockets:address:crash", 2)]
    # given a process that took both places and was killed (it never gives them back)
    killed = RedisCounter(str(django_settings.REDIS_URL))
    assert await killed.admit("a", limits) is None
    assert await killed.admit("b", limits) is None
    killed._places.clear()  # dead: it renews nothing
    # then another process finds them taken, until they expire
    assert await redis_counter.admit("c", limits) == limits[0][0]
    await asyncio.sleep(1.2)
    assert await redis_counter.admit("c", limits) is None
    # while a live process's place is renewed, it stays taken past its first expiry
    for _ in range(3):
        await asyncio.sleep(0.5)
        await redis_counter.renew()
    assert await redis_counter.admit("d", limits) is None
    assert await killed.admit("e", limits) == limits[0][0]
    # and a place given back is not brought back by a renewal
    await redis_counter.leave("c")
    await redis_counter.renew()
    assert await killed.admit("e", limits) is None
    for process, token in ((redis_counter, "d"), (killed, "e")):
        await process.leave(token)  # the last place: its renewals stop
    assert not redis_counter._renewals and not killed._renewals


def test_memory_is_the_embedded_defaults_counter() -> None:
    expected = RedisCounter if django_settings.REDIS_URL else MemoryCounter
    assert isinstance(counter(), expected)


async def test_the_refusal_is_russian_by_default(live_table: LiveTable, caps: Settings) -> None:
    feed = paths(live_table)[1]
    held = [await opened(socket(feed)) for _ in range(3)]
    over = socket(feed)
    await over.connect(timeout=10)
    error = await over.receive_json_from(timeout=5)
    assert error["code"] == "too_many_sockets"
    assert error["message"].startswith("слишком много соединений")
    for comm in held:
        await comm.disconnect()


async def test_a_count_out_of_reach_admits_the_socket_uncounted(
    live_table: LiveTable, caps: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cap protects the server; Redis out of reach is no reason to refuse everyone."""
    dead = RedisCounter("redis://127.0.0.1:1/0")  # port 1: the connect is refused at once
    monkeypatch.setattr(socket_cap, "counter", lambda: dead)
    held = [await opened(socket(paths(live_table)[1])) for _ in range(4)]  # the cap is 3
    for comm in held:
        await comm.disconnect()
