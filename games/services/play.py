"""Playing a game: deal, apply an action at a seat, the common tail of every change."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from durak_site.errors import status_name
from durak_site.jobs import enqueue_on_commit
from games import engine, hooks, rows
from games.actors import Actor, person
from games.broadcast import broadcast_many_on_commit, broadcast_on_commit
from games.engine import Action, EngineError, GameState, Rules
from games.errors import (
    GameError,
    GameNotActive,
    NotFound,
    NotSeated,
    StaleVersion,
)
from games.models import Game, GameAction
from games.selectors import seat_of, table_current_game


@dataclass(frozen=True)
class Outcome:
    """What an action did: the game after it, and whether it was a repeat of a known client id."""

    game: Game
    duplicate: bool = False


def load_state(game: Game) -> GameState:
    return GameState.from_dict(game.state)


def game_create(
    *,
    rules: dict[str, Any],
    players: list[int | None],
    bot_seats: dict[int, str] | None = None,
    table: Any = None,
    number: int = 1,
    setup: dict[str, Any] | None = None,
    seed: str | None = None,
    clock_seconds: int = 0,
    absent_after: int | None = None,
) -> Game:
    """Deal a new game from a fresh secret seed and publish its commitment.

    ``setup`` holds the series hooks of ``engine.new_game`` (first attacker, hand sizes, laid-out
    cards, throw caps, pogony rank). ``bot_seats`` maps a seat to a bot name. ``absent_after``:
    a bot stands in for a player absent from the table this many seconds into their turn
    (``services.stand_ins``; None: never).
    """
    game = _dealt(
        Deal(
            rules=rules,
            players=players,
            bot_seats=bot_seats or {},
            table=table,
            number=number,
            setup=setup,
            seed=seed,
            clock_seconds=clock_seconds,
            absent_after=absent_after,
        )
    )
    game.save(force_insert=True)
    after_change(game, event="started")
    return game


@dataclass(frozen=True)
class Deal:
    """One game to deal: :func:`game_create`'s arguments, for :func:`games_create`."""

    rules: dict[str, Any]
    players: list[int | None]
    bot_seats: dict[int, str] = field(default_factory=dict)
    table: Any = None
    number: int = 1
    setup: dict[str, Any] | None = None
    seed: str | None = None
    clock_seconds: int = 0
    absent_after: int | None = None


def games_create(deals: Sequence[Deal]) -> list[Game]:
    """Deal many games at once (a round's first games): each exactly as :func:`game_create`
    deals it (its own fresh seed and commitment, the same row, the same broadcast and jobs),
    inserted in one statement per batch, and their broadcasts sent in one pass after commit
    (``broadcast.broadcast_many_on_commit``). Refused whole if any deal is."""
    games = [_dealt(deal) for deal in deals]
    Game.objects.bulk_create(games, batch_size=BULK_BATCH)
    broadcast_many_on_commit(games, "started")
    for game in games:
        _follow_ups_on_commit(game)
    return games


#: Rows per INSERT of a bulk deal (each game's row carries its whole state).
BULK_BATCH = 500


def _dealt(deal: Deal) -> Game:
    """The unsaved game of ``deal``, dealt from a fresh secret seed (or the given one) with its
    commitment and its move deadline."""
    try:
        parsed = Rules.from_dict(deal.rules)
    except EngineError as exc:
        raise GameError(str(exc), code=exc.code) from None
    if len(deal.players) != parsed.players:
        raise GameError(
            ngettext(
                "%(count)s player is needed, got %(got)s",
                "%(count)s players are needed, got %(got)s",
                parsed.players,
            )
            % {"count": parsed.players, "got": len(deal.players)}
        )
    seed = deal.seed or engine.new_seed()
    try:
        state = engine.new_game(parsed, engine.rng_for_seed(seed), **(deal.setup or {}))
    except EngineError as exc:
        raise GameError(str(exc), code=exc.code) from None
    game = Game(
        table=deal.table,
        number=deal.number,
        rules=parsed.to_dict(),
        setup=deal.setup or {},
        seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        players=deal.players,
        bot_seats={str(k): v for k, v in deal.bot_seats.items()},
        state=state.to_dict(),
        clock_seconds=deal.clock_seconds,
        absent_after=deal.absent_after,
    )
    arm_clock(game)
    return game


def locked_game(game_id: int) -> Game:
    game = rows.lock_one(Game, "id = %s", [game_id])
    if game is None:
        raise NotFound(gettext("there is no game %(game)s") % {"game": game_id})
    return game


def log_action(
    game: Game,
    state: GameState,
    action: Action,
    *,
    kind: str,
    client_id: str = "",
    user: Actor | None = None,
    log: list[GameAction] | None = None,
) -> GameState:
    """Apply ``action`` to the locked ``game`` and log it; raises the engine's refusal.

    With ``log`` the new entry is collected there for one bulk insert (a run of bot moves)
    instead of being inserted at once.
    """
    try:
        new = engine.apply(state, action)
    except EngineError as exc:
        raise GameError(str(exc), code=exc.code) from None
    game.version += 1
    logged = action.to_json()
    game.log_tail = tail_after(game.log_tail, seq=game.version, kind=kind, logged=logged)
    entry = GameAction(
        game=game,
        seq=game.version,
        seat=action.seat,
        action=logged,
        kind=kind,
        client_id=client_id,
        user=person(user),
    )
    if log is None:
        rows.insert(entry)
    else:
        log.append(entry)
    return new


def tail_after(
    tail: list[dict[str, Any]], *, seq: int, kind: str, logged: dict[str, Any]
) -> list[dict[str, Any]]:
    """A game's ``log_tail`` after one more entry (the last ``Game.LOG_TAIL`` kept)."""
    return [*tail[1 - Game.LOG_TAIL :], {"seq": seq, "kind": kind, **logged}]


def _finish(game: Game, state: GameState) -> None:
    assert state.result is not None
    game.status = Game.Status.FINISHED
    game.result = state.result.to_json()
    game.seed_revealed = True
    game.finished_at = timezone.now()
    game.deadline = None


def arm_clock(game: Game) -> None:
    """A fresh move deadline for an active game with a clock (the caller saves it)."""
    if game.status == Game.Status.ACTIVE and game.clock_seconds:
        game.deadline = timezone.now() + timedelta(seconds=game.clock_seconds)


def after_change(game: Game, *, event: str = "state") -> None:
    """Common tail of every change (saved with its deadline by then): the broadcast, then the
    follow-up jobs (:func:`follow_ups`)."""
    broadcast_on_commit(game, event)
    _follow_ups_on_commit(game)


def _follow_ups_on_commit(game: Game) -> None:
    for name, args, countdown in follow_ups(
        game_id=game.pk,
        version=game.version,
        status=game.status,
        clock_seconds=game.clock_seconds,
        bot_seats=game.bot_seats,
        absent_after=game.absent_after,
        seats=len(game.players),
    ):
        enqueue_on_commit(name, *args, countdown=countdown)


FollowUp = tuple[str, tuple[Any, ...], float | None]


def follow_ups(
    *,
    game_id: int,
    version: int,
    status: str,
    clock_seconds: int,
    bot_seats: Any,
    absent_after: int | None,
    seats: int,
) -> list[FollowUp]:
    """The jobs a game's change calls for, as ``(task name, args, countdown)``: its clock, its
    bots, the check for a person's empty seat (``services.stand_ins``), the end of the game."""
    jobs: list[FollowUp] = []
    if status == Game.Status.ACTIVE:
        if clock_seconds:
            jobs.append(("games.game_clock_expire", (game_id, version), clock_seconds))
        if bot_seats:
            jobs.append(("games.game_play_bots", (game_id, version), None))
        if absent_after is not None and len(bot_seats) < seats:
            # Is a person's seat left empty?
            jobs.append(("games.game_absent_check", (game_id, version), absent_after or None))
    if status in Game.OVER:
        jobs.append(("games.game_finished", (game_id,), None))
    return jobs


def game_apply_action(
    *,
    game_id: int,
    seat: int,
    action: dict[str, Any],
    version: int | None = None,
    client_id: str = "",
    user: Actor | None = None,
) -> Outcome:
    """Validate ``action`` for ``seat`` with the engine and append it to the game's log.

    The seat comes from the caller (the connection), never from the action. A ``client_id``
    already in the log is answered with the game as it is (never applied twice). A ``version``
    other than the game's current one is refused as stale. Locks the game row.
    """
    parsed = _parse_action(action, seat)
    return _act(lambda: (locked_game(game_id), parsed), version, client_id, user)


def _act(
    lock: Callable[[], tuple[Game, Action]], version: int | None, client_id: str, user: Actor | None
) -> Outcome:
    """One transaction: ``lock`` locks the game row and gives the game and the parsed action,
    then :func:`_apply_locked`. An ``IntegrityError`` after the lock can only be a concurrent
    repeat of a known client id (the row lock serialises everything else): it is answered as
    the repeat it is."""
    locked: int | None = None
    try:
        with transaction.atomic():
            game, parsed = lock()
            locked = game.pk
            return _apply_locked(game, parsed, version, client_id, user)
    except IntegrityError:
        if locked is None:
            raise
        return Outcome(Game.objects.get(pk=locked), duplicate=True)


def _parse_action(action: Any, seat: int) -> Action:
    if not isinstance(action, dict):
        raise GameError(gettext("an action is an object"), code="bad_request")
    try:
        return Action.from_json({**action, "seat": seat})
    except EngineError as exc:
        raise GameError(str(exc), code=exc.code) from None


def _apply_locked(
    game: Game, parsed: Action, version: int | None, client_id: str, user: Actor | None
) -> Outcome:
    """The body of :func:`game_apply_action` on the locked ``game`` (inside its transaction)."""
    client_id = (client_id or "")[:64]
    # A repeat of a logged client id is answered as it is. The log is only searched when the
    # action cannot be applied as it stands (a repeat of an applied action comes with an older
    # version, or it fails below): for a fresh action at the current version the unique
    # (game, client_id) constraint is the check (the caller's IntegrityError).
    if version != game.version or game.status != Game.Status.ACTIVE:
        if _known(game, client_id):
            return Outcome(game, duplicate=True)
        if game.status != Game.Status.ACTIVE:
            raise GameNotActive(
                gettext("the game is %(status)s")
                % {"status": status_name(Game.Status, game.status)}
            )
        if version is not None:
            raise StaleVersion(
                gettext("the game is at version %(current)s, not %(version)s: sync and retry")
                % {"current": game.version, "version": version}
            )
    try:
        state = log_action(
            game,
            load_state(game),
            parsed,
            kind=GameAction.Kind.PLAYER,
            client_id=client_id,
            user=user,
        )
    except GameError:
        if _known(game, client_id):
            return Outcome(game, duplicate=True)
        raise
    save_state(game, state)
    after_change(game)
    return Outcome(game)


def _known(game: Game, client_id: str) -> bool:
    return bool(client_id) and GameAction.objects.filter(game=game, client_id=client_id).exists()


def save_state(game: Game, state: GameState) -> None:
    game.state = state.to_dict()
    if state.finished:
        _finish(game, state)
    arm_clock(game)
    rows.update(
        game,
        [
            "state",
            "version",
            "log_tail",
            "status",
            "result",
            "seed_revealed",
            "finished_at",
            "deadline",
        ],
    )


# --- a live table: the connection's user acts in the table's current game --------------------


def current_game(table_id: int, game_id: int | None = None) -> Game:
    """The table's current game; ``NotFound`` before its first deal, ``StaleVersion`` when the
    caller names an earlier game of the series."""
    game = table_current_game(table_id)
    if game is None:
        raise NotFound(gettext("table %(table)s has no game yet") % {"table": table_id})
    _check_game(game.pk, game_id)
    return game


def _check_game(current: int, game_id: int | None) -> None:
    if game_id is not None and game_id != current:
        # The client still shows an earlier game of the series: its version means nothing here.
        raise StaleVersion(
            gettext("the table has moved on to game %(game)s: sync and retry") % {"game": current}
        )


def table_act(
    *,
    table_id: int,
    user: Actor,
    action: dict[str, Any],
    version: int | None = None,
    client_id: str = "",
    game_id: int | None = None,
    player_id: int | None = None,
) -> Outcome:
    """Apply ``action`` for ``user`` in the table's current game, at the seat the user's player
    holds in that game (never a seat named by the client). See :func:`game_apply_action`.

    ``player_id``: the user's player when the caller knows it already (a connection looks it
    up once), saving a query per action. Locks the game row.
    """
    if player_id is None:
        player_id = hooks.tables().player_id(user)

    def lock() -> tuple[Game, Action]:
        # The current game, locked at once (one query instead of a look-up and a lock).
        game = rows.lock_one(Game, "table_id = %s", [table_id], order="number DESC, id DESC")
        if game is None:
            raise NotFound(gettext("table %(table)s has no game yet") % {"table": table_id})
        _check_game(game.pk, game_id)
        seat = seat_of(game.players, player_id)
        if seat is None:
            raise NotSeated(gettext("you have no seat in this game: spectators cannot act"))
        return game, _parse_action(action, seat)

    return _act(lock, version, client_id, user)
