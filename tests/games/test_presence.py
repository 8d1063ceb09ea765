"""Who is at their table (``games.presence``): a connection's mark lasts while it is renewed and
goes when its socket closes or stops renewing it; the live table's WebSocket marks a seated
player, never a spectator, from connect to disconnect, and renews the mark while it lives."""

from __future__ import annotations

import asyncio
import doctest
from collections.abc import Iterator

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends import base as cache_base
from django.core.cache.backends import locmem

from games import presence
from tests.builders import LiveTable
from tests.games.test_table_socket import open_socket

TABLE, OTHER = 900_001, 900_002  # no table of the database: these tests own their keys


def forget(*table_ids: int) -> None:
    """Drop every mark of ``table_ids``."""
    cache.delete_many(
        [presence.slot_key(t, slot) for t in table_ids for slot in range(presence.SLOTS)]
    )


@pytest.fixture(autouse=True)
def _own_keys() -> Iterator[None]:
    forget(TABLE, OTHER, 7, 8)
    yield
    forget(TABLE, OTHER, 7, 8)


class Clock:
    """The local memory cache's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    if not isinstance(caches["default"], locmem.LocMemCache):
        pytest.skip("moves the local memory cache's clock")
    fake = Clock()
    monkeypatch.setattr(locmem, "time", fake)
    monkeypatch.setattr(cache_base, "time", fake)
    return fake


# --- the marks ----------------------------------------------------------------------------------


def test_a_player_is_present_while_one_of_their_sockets_is() -> None:
    # given two sockets of player 1 at one table, and player 2 at another
    assert presence.seat_joined(TABLE, 1, "chan-a")
    assert presence.seat_joined(TABLE, 1, "chan-b")
    assert presence.seat_joined(OTHER, 2, "chan-c")
    assert presence.present_players([TABLE, OTHER]) == {TABLE: {1}, OTHER: {2}}
    # when one of player 1's sockets closes, they are still there
    presence.seat_left(TABLE, "chan-a")
    assert presence.present_players([TABLE]) == {TABLE: {1}}
    # and when the other does, they are gone; the other table is untouched
    presence.seat_left(TABLE, "chan-b")
    assert presence.present_players([TABLE, OTHER]) == {TABLE: set(), OTHER: {2}}


def test_marking_again_renews_the_mark_and_takes_no_second_slot() -> None:
    assert presence.seat_joined(TABLE, 1, "chan-a")
    assert presence.seat_joined(TABLE, 1, "chan-a")
    held = cache.get_many([presence.slot_key(TABLE, s) for s in range(presence.SLOTS)])
    assert list(held.values()) == [(1, "chan-a")]


def test_a_mark_not_renewed_expires(clock: Clock) -> None:
    # given a mark renewed just before its time is up
    presence.seat_joined(TABLE, 1, "chan-a")
    clock.now += presence.TTL_SECONDS - 1
    presence.seat_joined(TABLE, 1, "chan-a")
    clock.now += presence.TTL_SECONDS - 1
    assert presence.present_players([TABLE]) == {TABLE: {1}}
    # when its process dies and nobody renews it, it expires
    clock.now += 2
    assert presence.present_players([TABLE]) == {TABLE: set()}
    # and a renewal after that claims a slot again
    assert presence.seat_joined(TABLE, 1, "chan-a")
    assert presence.present_players([TABLE]) == {TABLE: {1}}


def test_a_full_table_marks_no_more_sockets() -> None:
    for n in range(presence.SLOTS):
        assert presence.seat_joined(TABLE, n, f"chan-{n}")
    assert not presence.seat_joined(TABLE, 99, "chan-late")
    assert presence.present_players([TABLE])[TABLE] == set(range(presence.SLOTS))


def test_any_number_of_tables_is_read_in_one_cache_call(monkeypatch: pytest.MonkeyPatch) -> None:
    presence.seat_joined(OTHER, 2, "chan-c")
    calls: list[int] = []
    get_many = cache.get_many

    def counted(keys: list[str]) -> dict[str, object]:
        calls.append(len(keys))
        return get_many(keys)

    monkeypatch.setattr(presence, "cache", type("Spy", (), {"get_many": staticmethod(counted)}))
    assert presence.present_players([TABLE, OTHER, 7, 8]) == {
        TABLE: set(),
        OTHER: {2},
        7: set(),
        8: set(),
    }
    assert calls == [4 * presence.SLOTS]
    assert presence.present_players([]) == {}
    assert len(calls) == 1


def test_the_module_example_holds() -> None:
    assert doctest.testmod(presence).failed == 0


# --- the live table's WebSocket -------------------------------------------------------------------


def present_at(table_id: int) -> set[int]:
    return presence.present_players([table_id])[table_id]


@pytest.mark.django_db(transaction=True)
async def test_a_seated_players_socket_marks_them_present_until_it_closes(
    live_table: LiveTable,
) -> None:
    table = live_table.table.pk
    seated = live_table.players[0]
    forget(table)
    # given a spectator at the table: nobody is present
    spectator = await open_socket(table)
    await spectator.receive_json_from(timeout=5)
    assert present_at(table) == set()

    # when the seated player connects, they are present
    player = await open_socket(table, live_table.user_at(0))
    await player.receive_json_from(timeout=5)
    assert present_at(table) == {seated.pk}

    # and when their socket closes, they are not
    await player.disconnect()
    assert present_at(table) == set()
    await spectator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_live_socket_renews_its_mark(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = live_table.table.pk
    monkeypatch.setattr(presence, "REFRESH_SECONDS", 0.05)
    player = await open_socket(table, live_table.user_at(1))
    await player.receive_json_from(timeout=5)
    # when its mark is lost (it expired: the socket's renewal was late), the next renewal puts
    # it back
    forget(table)
    for _ in range(100):
        if present_at(table):
            break
        await asyncio.sleep(0.05)
    assert present_at(table) == {live_table.players[1].pk}
    await player.disconnect()
    assert present_at(table) == set()


def test_a_cache_that_cannot_be_read_shows_nobody_present(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    presence.seat_joined(TABLE, 5, "conn-a")

    def down(keys: list[str]) -> dict[str, object]:
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(cache, "get_many", down)
    assert presence.present_players([TABLE]) == {TABLE: set()}
