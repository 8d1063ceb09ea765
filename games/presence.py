"""Who is at their table: the seated players with a live WebSocket to it.

The live table's consumer (``games.consumers``) marks a seated player's connection when it
joins (:func:`seat_joined`), marks it again every :data:`REFRESH_SECONDS` while the socket
lives, and removes the mark when the socket closes (:func:`seat_left`). The referees' live
tables page reads the marks of every table it shows at once (:func:`present_players`).
Spectators and referees are not marked.

The marks live in the Django cache, which every ASGI process shares (Redis when ``REDIS_URL`` is
set; the embedded mode is one process, with a local memory cache). Each connection has a key of
its own, holding its player and channel name, that expires :data:`TTL_SECONDS` after its last
mark: the sockets of a process that died without closing them drop off within minutes, and no
process ever rewrites another's key. A table has :data:`SLOTS` such keys, each claimed with
``cache.add`` (Redis ``SET NX``: two processes never claim the same one), so that reading any
number of tables is one ``get_many`` and never a search of the keys (which the cache API has not).

A connection that finds all of its table's slots taken (more seated sockets than
:data:`SLOTS`: players with many tabs open) is not marked; its player still shows as present
through their other sockets.

>>> seat_joined(7, 42, "specific.abc!def")
True
>>> present_players([7, 8])
{7: {42}, 8: set()}
>>> seat_left(7, "specific.abc!def")
>>> present_players([7])
{7: set()}
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.core.cache import cache

logger = logging.getLogger(__name__)

#: How long a mark lasts without being renewed.
TTL_SECONDS = 180
#: How often a live socket renews its mark (well within the TTL: a late renewal loses nothing).
REFRESH_SECONDS = 60
#: The marks a table can hold: six seats with two or three sockets each.
SLOTS = 16

#: A connection's mark: (player id, channel name).
Mark = tuple[int, str]


def slot_key(table_id: int, slot: int) -> str:
    """The cache key of one of a table's slots (``0 <= slot < SLOTS``)."""
    return f"presence:{table_id}:{slot}"


def _mark(value: object) -> Mark | None:
    """A stored mark, or None for anything else (a key written by an older version)."""
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], int)
        and isinstance(value[1], str)
    ):
        return value[0], value[1]
    return None


def _marks(table_id: int) -> dict[int, Mark]:
    """The live marks of a table by slot (one cache call)."""
    keys = {slot_key(table_id, slot): slot for slot in range(SLOTS)}
    return {
        keys[key]: mark
        for key, value in cache.get_many(list(keys)).items()
        if (mark := _mark(value)) is not None
    }


def seat_joined(table_id: int, player_id: int, channel_name: str) -> bool:
    """Mark the connection ``channel_name`` of ``player_id``, seated at ``table_id``, present
    for :data:`TTL_SECONDS`; False if every slot of the table is taken.

    Called again while the socket lives, it renews the mark (or, if the mark expired meanwhile,
    claims a slot afresh). Two cache calls when no other connection races for the same slot.
    """
    mark = (player_id, channel_name)
    held = _marks(table_id)
    mine = [slot for slot, value in held.items() if value == mark]
    if mine and cache.touch(slot_key(table_id, mine[0]), TTL_SECONDS):
        return True
    for slot in range(SLOTS):
        if slot not in held and cache.add(slot_key(table_id, slot), mark, TTL_SECONDS):
            return True
    return False


def seat_left(table_id: int, channel_name: str) -> None:
    """Remove the mark of the connection ``channel_name`` at ``table_id`` (its socket closed)."""
    mine = [
        slot_key(table_id, slot)
        for slot, (_, channel) in _marks(table_id).items()
        if channel == channel_name
    ]
    if mine:
        cache.delete_many(mine)


def present_players(table_ids: Iterable[int]) -> dict[int, set[int]]:
    """The players with a live connection at each of ``table_ids`` (every table is in the
    answer, perhaps with an empty set). One cache call, however many tables."""
    keys = {slot_key(table_id, slot): table_id for table_id in table_ids for slot in range(SLOTS)}
    present: dict[int, set[int]] = {table_id: set() for table_id in keys.values()}
    if not keys:
        return present
    try:
        found = cache.get_many(list(keys))
    except Exception:  # the cache is down: nobody is known to be here; the page still shows
        logger.exception("presence: the cache cannot be read")
        return present
    for key, value in found.items():
        mark = _mark(value)
        if mark is not None:
            present[keys[key]].add(mark[0])
    return present
