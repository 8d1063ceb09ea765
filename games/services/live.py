"""A live table's action on the server's event loop: one statement, no database thread.

The socket of a seated player holds the table's latest state (the last broadcast it delivered,
``broadcast.game_message``). An action chosen at that state's version is applied by the engine
right there, and written in ONE autocommit statement on the loop's own connection
(``durak_site.dbloop``)::

    WITH moved AS (UPDATE game SET state, version, log_tail, deadline
                   WHERE id = g AND version = v AND status = 'active' RETURNING ...),
         logged AS (INSERT INTO action (...) SELECT ... FROM moved)
    SELECT deadline, clock, bots, absent FROM moved

The ``UPDATE`` is the check: it matches only the game still at the version the state was read
at, and waits for (then re-reads) a row another transaction holds, so of two actions racing for
one version exactly one moves the game; the log entry goes in with it or not at all (one
statement is one transaction, and the unique ``(game, seq)`` and ``(game, client_id)``
constraints still guard it). Nothing is written when nothing matched.

This path only takes the common case and answers None for every other one, which the caller
then sends through :func:`games.services.table_act` (the locked path, with every refusal in its
words): no state held, a version, game or status other than the held state's, an action the
engine refuses, a move that ends the game (its end has jobs of its own), a statement that
matched nothing (the game moved on meanwhile) or failed. A failure after the statement was sent
leaves it unknown whether it committed; the locked path then finds the action in the log by its
client id and answers it as the repeat it is (``duplicate``), so nothing is applied twice.

Measured against the locked path in ``docs/performance.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import orjson
from django.db import connection
from django.utils import timezone
from psycopg.types.json import Jsonb

from durak_site import dbloop
from games import engine, timing
from games.engine import Action, EngineError
from games.models import Game, GameAction
from games.selectors import keep_state, parsed_state, seat_of
from games.services.play import FollowUp, follow_ups, tail_after


@dataclass(frozen=True)
class Applied:
    """An action written on the loop: the game's new version, the group message of the new
    state (the full truth, for the consumers to redact), and the jobs the change calls for."""

    game_id: int
    version: int
    message: dict[str, Any]
    jobs: list[FollowUp]


@cache
def _statement() -> str:
    quote = connection.ops.quote_name
    game, action = Game._meta, GameAction._meta

    def column(meta: Any, name: str) -> str:
        return quote(meta.get_field(name).column)

    def g(name: str) -> str:
        return column(game, name)

    logged = ", ".join(
        column(action, f)
        for f in ("game", "seq", "seat", "action", "kind", "client_id", "user", "created_at")
    )
    return (
        f"WITH moved AS (UPDATE {quote(game.db_table)} SET {g('state')} = %(state)s, "
        f"{g('version')} = %(version)s, {g('log_tail')} = %(tail)s, {g('deadline')} = CASE "
        f"WHEN {g('clock_seconds')} > 0 THEN %(now)s + make_interval(secs => {g('clock_seconds')}) "
        f"END WHERE {g('id')} = %(game)s AND {g('version')} = %(expected)s "
        f"AND {g('status')} = %(active)s RETURNING {g('id')} AS id, {g('deadline')} AS deadline, "
        f"{g('clock_seconds')} AS clock, {g('bot_seats')} AS bots, {g('absent_after')} AS absent), "
        f"logged AS (INSERT INTO {quote(action.db_table)} ({logged}) SELECT id, %(version)s, "
        "%(seat)s, %(action)s, %(kind)s, %(client_id)s, %(user)s, %(now)s FROM moved) "
        "SELECT deadline, clock, bots, absent FROM moved"
    )


def _jsonb(value: Any) -> Jsonb:
    return Jsonb(value, dumps=_dumps)


def _dumps(value: Any) -> bytes:
    # orjson: the state, its log tail and the entry are written with every action (jsonb keeps
    # no formatting, so the bytes need only be JSON).
    return orjson.dumps(value)


async def table_act_on_loop(
    latest: dict[str, Any] | None,
    *,
    player_id: int | None,
    user_id: int | None,
    action: dict[str, Any],
    version: int,
    client_id: str,
    game_id: int | None = None,
) -> Applied | None:
    """Apply ``action`` for ``player_id`` to the held state ``latest`` and write it in one
    statement; None when this path does not take it (see the module's docstring). Raises
    ``psycopg.Error`` when the statement failed (committed or not: the caller must check)."""
    if latest is None or not dbloop.available():
        return None
    if (
        latest["status"] != Game.Status.ACTIVE
        or latest["version"] != version
        or (game_id is not None and game_id != latest["game_id"])
    ):
        return None
    seat = seat_of(latest["players"], player_id)
    if seat is None:
        return None
    try:
        parsed = Action.from_json({**action, "seat": seat})
        state = engine.apply(parsed_state(latest), parsed)
    except EngineError:
        return None
    if state.finished:
        return None
    new_version = version + 1
    logged = parsed.to_json()
    tail = tail_after(
        latest["actions"], seq=new_version, kind=GameAction.Kind.PLAYER, logged=logged
    )
    state_dict = state.to_dict()
    started = time.perf_counter()
    async with dbloop.connection() as conn:
        cursor = await conn.execute(
            _statement(),
            {
                "state": _jsonb(state_dict),
                "version": new_version,
                "tail": _jsonb(tail),
                "now": timezone.now(),
                "game": latest["game_id"],
                "expected": version,
                "active": Game.Status.ACTIVE,
                "seat": seat,
                "action": _jsonb(logged),
                "kind": GameAction.Kind.PLAYER,
                "client_id": client_id[:64],
                "user": user_id,
            },
        )
        row = await cursor.fetchone()
    timing.record("act.loop", time.perf_counter() - started)
    if row is None:
        return None  # the game moved on: the locked path says how
    deadline, clock, bots, absent = row
    # Committed: the sockets of this process redact the new state from this parse.
    keep_state(latest["game_id"], new_version, state_dict, state)
    message = {
        **latest,
        "event": "state",
        "version": new_version,
        "state": state_dict,
        "deadline": _iso(deadline),
        "actions": tail,
    }
    message.pop("sent_at", None)
    jobs = follow_ups(
        game_id=latest["game_id"],
        version=new_version,
        status=Game.Status.ACTIVE,
        clock_seconds=clock,
        bot_seats=bots,
        absent_after=absent,
        seats=len(latest["players"]),
    )
    return Applied(latest["game_id"], new_version, message, jobs)


def _iso(moment: datetime | None) -> str | None:
    """As ``broadcast.game_message`` writes a deadline (Django's UTC datetimes)."""
    return None if moment is None else moment.astimezone(UTC).isoformat()
