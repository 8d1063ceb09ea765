"""Reads of the games layer: who may watch a table and as what, the table's current game, and
the state message each viewer gets (redacted by the engine, never by hand)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from games import engine, hooks
from games.actors import Actor
from games.engine import GameState
from games.errors import Forbidden, NotFound
from games.hooks import PLAYER, REFEREE, TableAccess
from games.models import Game


def table_access(*, table_id: int, user: Actor | None) -> TableAccess:
    """The role of ``user`` at a table (``games.hooks.Tables.access``): ``NotFound`` for no such
    table, ``Forbidden`` for an outsider of a private event."""
    return hooks.tables().access(table_id=table_id, user=user)


def table_current_game(table_id: int) -> Game | None:
    """The table's latest game (the one in play, or the last one once the series is over)."""
    return Game.objects.filter(table_id=table_id).order_by("-number", "-pk").first()


def seat_of(players: list[Any], player_id: int | None) -> int | None:
    """The game seat of a player (``Game.players`` lists player ids per seat), or None."""
    if player_id is None:
        return None
    try:
        return players.index(player_id)
    except ValueError:
        return None


def player_names(player_ids: list[Any]) -> dict[int, str]:
    return hooks.tables().player_names(p for p in player_ids if isinstance(p, int))


def player_ranks(player_ids: list[Any]) -> dict[int, str]:
    """The players' current ranks (звания) in the active language, by Player id (the ``Tables``
    hook: one query for the lot)."""
    return hooks.tables().player_ranks(p for p in player_ids if isinstance(p, int))


def absent_players(table_id: int | None) -> dict[int, str]:
    """The players of the table whose entry withdrew or was disqualified, by Player id (the
    ``Tables`` hook; none for a game without a table). Sent to a referee only."""
    if table_id is None:
        return {}
    return hooks.tables().absent_players(table_id=table_id)


def game_visible_to(game: Game, user: Actor | None) -> bool:
    """A game is visible to whoever may watch its table (a game without a table: to anyone)."""
    if game.table_id is None:
        return True
    try:
        table_access(table_id=game.table_id, user=user)
    except (NotFound, Forbidden):
        return False
    return True


#: Parsed game states kept per process (:func:`parsed_state`): a few per live table.
PARSED_STATES = 2048
_parsed: dict[tuple[Any, Any], tuple[dict[str, Any], GameState]] = {}
_parsed_lock = threading.Lock()


def parsed_state(snapshot: Mapping[str, Any]) -> GameState:
    """The engine's state of a snapshot (``broadcast.game_message``), parsed once per process.

    ``GameState.from_dict`` was most of a player's redaction, and each state was parsed again by
    every socket that redacted it and by the action taken at it; here the sockets of a process
    and the actions at a state share one parse (:func:`keep_state`). A kept state serves only a
    snapshot whose state equals the one it was parsed from (by identity, else by value), so a
    snapshot is never answered with another's state; the engine never changes a state.
    """
    raw = snapshot["state"]
    key = (snapshot["game_id"], snapshot["version"])
    kept = _parsed.get(key)
    if kept is not None and (kept[0] is raw or kept[0] == raw):
        return kept[1]
    state = GameState.from_dict(raw)
    keep_state(key[0], key[1], raw, state)
    return state


def keep_state(game_id: Any, version: Any, raw: dict[str, Any], state: GameState) -> None:
    """Keep ``state`` as the parse of ``raw`` (its ``to_dict()``) for :func:`parsed_state`: the
    oldest kept goes first once :data:`PARSED_STATES` are kept."""
    with _parsed_lock:
        _parsed[(game_id, version)] = (raw, state)
        if len(_parsed) > PARSED_STATES:
            del _parsed[next(iter(_parsed))]


def state_message(
    snapshot: dict[str, Any],
    *,
    role: str,
    seat: int | None,
    names: dict[int, str],
    log_since: int = 0,
    ranks: Mapping[int, str] | None = None,
    absent: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """The ``state`` message for one viewer from a game snapshot (``broadcast.game_message``).

    ``log`` holds the entries of the snapshot's log tail after version ``log_since`` (a socket
    gets the whole tail once, then only what is new: the tail was most of every message).
    ``ranks``: each player's current rank (звание) by Player id (:func:`player_ranks`, public),
    sent per game seat as ``ranks`` ("" for none). ``absent``: the players whose entry has
    left the event (:func:`absent_players`), sent to a referee only, per game seat as
    ``seat_status`` ("withdrawn", "disqualified" or "" for one still in).

    A player's view holds its own hand only, a spectator's no hand at all (both made by
    ``engine.view``); only a referee gets the whole truth (``state.to_json()``, every hand).
    """
    state = parsed_state(snapshot)
    legal: list[dict[str, Any]] = []
    if role == REFEREE:
        view = state.to_json()
    else:
        view = engine.view(state, seat if role == PLAYER else None)
        if role == PLAYER and seat is not None and snapshot["status"] == Game.Status.ACTIVE:
            legal = [
                {k: v for k, v in a.to_json().items() if k != "seat"}
                for a in engine.legal_actions(state, seat)
            ]
    over = snapshot["status"] in Game.OVER
    message: dict[str, Any] = {
        "type": "state",
        "game": snapshot["game_id"],
        "number": snapshot.get("number"),
        "event": snapshot.get("event", "state"),
        "version": snapshot["version"],
        "status": snapshot["status"],
        "role": role,
        "seat": seat if role == PLAYER else None,
        "players": [names.get(p, "?") for p in snapshot["players"]],
        "ranks": [
            (ranks or {}).get(p, "") if isinstance(p, int) else "" for p in snapshot["players"]
        ],
        "view": view,
        "legal": legal,
        # How many more cards the open bout takes (the page's "throw in up to N").
        "throw_room": engine.throw_room(state),
        "deadline": snapshot["deadline"],
        "seed_commitment": snapshot["seed_commitment"],
        "seed": snapshot["seed"] if over else None,
        "result": snapshot["result"],
        "log": [e for e in snapshot.get("actions", []) if e["seq"] > log_since],
    }
    if role == REFEREE:
        message["seat_status"] = [(absent or {}).get(p, "") for p in snapshot["players"]]
    return message


def game_place(game: Game) -> hooks.GamePlace | None:
    """Where ``game`` was played, named by the seating layer (None for a game without a
    table)."""
    if game.table_id is None:
        return None
    return hooks.tables().game_place(table_id=game.table_id, game_number=game.number)
