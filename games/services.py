"""Writes of the games layer: start a game, apply an action, let bots and the clock play,
referee rulings. The engine is the only judge; the database is the record.

Locking: every service that changes a game locks its row (``SELECT ... FOR UPDATE``) for the
whole check-apply-append, so two actions racing for one version cannot both win; the unique
``(game, seq)`` and ``(game, client_id)`` constraints are the last guard. Broadcasts and follow-up
jobs go out in ``transaction.on_commit``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from durak_site.jobs import enqueue_on_commit
from games import engine, rows
from games.broadcast import broadcast_on_commit
from games.engine import Action, EngineError, GameState, Rules
from games.engine.bots import acting_seat, make_bot, play_step
from games.engine.series import Series
from games.errors import (
    Forbidden,
    GameError,
    GameNotActive,
    NotFound,
    NotSeated,
    SeedSecret,
    StaleVersion,
)
from games.models import Game, GameAction, RefereeEvent

MAX_BOT_STEPS = 5000  # far above any real game; a bound so a bug cannot spin forever


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
) -> Game:
    """Deal a new game from a fresh secret seed and publish its commitment.

    ``setup`` holds the series hooks of ``engine.new_game`` (first attacker, hand sizes, laid-out
    cards, throw caps, pogony rank). ``bot_seats`` maps a seat to a bot name.
    """
    try:
        parsed = Rules.from_dict(rules)
    except EngineError as exc:
        raise GameError(str(exc), code=exc.code) from None
    if len(players) != parsed.players:
        raise GameError(f"{parsed.players} players are needed, got {len(players)}")
    seed = seed or engine.new_seed()
    try:
        state = engine.new_game(parsed, engine.rng_for_seed(seed), **(setup or {}))
    except EngineError as exc:
        raise GameError(str(exc), code=exc.code) from None
    game = Game(
        table=table,
        number=number,
        rules=parsed.to_dict(),
        setup=setup or {},
        seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        players=players,
        bot_seats={str(k): v for k, v in (bot_seats or {}).items()},
        state=state.to_dict(),
        clock_seconds=clock_seconds,
    )
    _arm_clock(game)
    game.save(force_insert=True)
    _after_change(game, event="started")
    return game


def _lock(game_id: int) -> Game:
    game = rows.lock_one(Game, "id = %s", [game_id])
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    return game


def _append(
    game: Game,
    state: GameState,
    action: Action,
    *,
    kind: str,
    client_id: str = "",
    user: Any = None,
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
    game.log_tail = [
        *game.log_tail[1 - Game.LOG_TAIL :],
        {"seq": game.version, "kind": kind, **logged},
    ]
    entry = GameAction(
        game=game,
        seq=game.version,
        seat=action.seat,
        action=logged,
        kind=kind,
        client_id=client_id,
        user=user,
    )
    if log is None:
        rows.insert(entry)
    else:
        log.append(entry)
    return new


def _finish(game: Game, state: GameState) -> None:
    assert state.result is not None
    game.status = Game.Status.FINISHED
    game.result = state.result.to_json()
    game.seed_revealed = True
    game.finished_at = timezone.now()
    game.deadline = None


def _arm_clock(game: Game) -> None:
    """A fresh move deadline for an active game with a clock (the caller saves it)."""
    if game.status == Game.Status.ACTIVE and game.clock_seconds:
        game.deadline = timezone.now() + timedelta(seconds=game.clock_seconds)


def _after_change(game: Game, *, event: str = "state") -> None:
    """Common tail of every change (saved with its deadline by then): the clock job, the
    broadcast and the follow-up jobs."""
    from games import tasks

    if game.status == Game.Status.ACTIVE and game.clock_seconds:
        enqueue_on_commit(tasks.clock_expire, game.pk, game.version, countdown=game.clock_seconds)
    broadcast_on_commit(game, event)
    if game.status == Game.Status.ACTIVE and game.bot_seats:
        enqueue_on_commit(tasks.play_bots, game.pk, game.version)
    if game.is_over:
        enqueue_on_commit(tasks.game_over, game.pk)


def game_apply_action(
    *,
    game_id: int,
    seat: int,
    action: dict[str, Any],
    version: int | None = None,
    client_id: str = "",
    user: Any = None,
) -> Outcome:
    """Validate ``action`` for ``seat`` with the engine and append it to the game's log.

    The seat comes from the caller (the connection), never from the action. A ``client_id``
    already in the log is answered with the game as it is (never applied twice). A ``version``
    other than the game's current one is refused as stale. Locks the game row.
    """
    parsed = _parse_action(action, seat)
    return _act(lambda: (_lock(game_id), parsed), version, client_id, user)


def _act(
    lock: Callable[[], tuple[Game, Action]], version: int | None, client_id: str, user: Any
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
        raise GameError("an action is an object", code="bad_request")
    try:
        return Action.from_json({**action, "seat": seat})
    except EngineError as exc:
        raise GameError(str(exc), code=exc.code) from None


def _apply_locked(
    game: Game, parsed: Action, version: int | None, client_id: str, user: Any
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
            raise GameNotActive(f"the game is {game.status}")
        if version is not None:
            raise StaleVersion(
                f"the game is at version {game.version}, not {version}: sync and retry"
            )
    try:
        state = _append(
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
    _store(game, state)
    _after_change(game)
    return Outcome(game)


def _known(game: Game, client_id: str) -> bool:
    return bool(client_id) and GameAction.objects.filter(game=game, client_id=client_id).exists()


def _store(game: Game, state: GameState) -> None:
    game.state = state.to_dict()
    if state.finished:
        _finish(game, state)
    _arm_clock(game)
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


def bot_rng(game: Game) -> random.Random:
    # Independent of the deal's seed: a bot's choices must not hint at hidden cards.
    return random.Random(f"bots:{game.pk}:{game.version}")


def game_play_bots(*, game_id: int, version: int | None = None) -> Game:
    """Let the bot seats act until a human must act or the game is over.

    All consecutive bot actions go through the engine and into the log in one transaction (one
    lock, one broadcast). ``version`` guards a delayed job: if the game moved on meanwhile, the
    newer job does the work. Locks the game row.
    """
    with transaction.atomic():
        game = _lock(game_id)
        if game.status != Game.Status.ACTIVE or not game.bot_seats:
            return game
        if version is not None and version != game.version:
            return game
        bots = {int(seat): make_bot(name) for seat, name in game.bot_seats.items()}
        state, rng, steps = load_state(game), bot_rng(game), 0
        log: list[GameAction] = []
        humans_can_act = any(
            engine.legal_actions(state, s) for s in range(state.setup.n) if s not in bots
        )
        while not state.finished and steps < MAX_BOT_STEPS:
            if acting_seat(state) not in bots:
                break  # a person's move: wait for it (or for the clock)
            action = play_step(state, bots, rng)
            if action is None:
                break
            state = _append(game, state, action, kind=GameAction.Kind.BOT, log=log)
            steps += 1
            if humans_can_act or any(
                engine.legal_actions(state, s) for s in range(state.setup.n) if s not in bots
            ):
                break
        if steps:
            GameAction.objects.bulk_create(log)
            _store(game, state)
            _after_change(game)
        return game


def _clock_actions(state: GameState) -> list[Action]:
    """What the clock does for absent players: the defender takes, throwers pass, and an
    attacker who must open a bout leads its lowest card."""
    n = state.setup.n
    actions: list[Action] = []
    for seat in range(n):
        legal = engine.legal_actions(state, seat)
        for wanted in ("take", "pass"):
            found = [a for a in legal if a.type == wanted]
            if found:
                actions.append(found[0])
        if not actions and legal and all(a.type in ("attack", "redeal") for a in legal):
            attacks = [a for a in legal if a.type == "attack"]
            if attacks:
                actions.append(min(attacks, key=lambda a: engine.parse_card(a.cards[0]) >> 2))
    return actions


def game_clock_expire(*, game_id: int, version: int) -> Game:
    """The move clock ran out at ``version``: act for the absent players (a no-op if anyone
    acted since, or the game is paused or over). Locks the game row."""
    with transaction.atomic():
        game = _lock(game_id)
        if game.status != Game.Status.ACTIVE or game.version != version:
            return game
        if game.deadline and game.deadline > timezone.now() + timedelta(seconds=1):
            return game  # resumed or extended since this job was scheduled
        state = load_state(game)
        for action in _clock_actions(state):
            try:
                state = _append(game, state, action, kind=GameAction.Kind.CLOCK)
            except GameError:
                continue  # an earlier forced action made this one moot (the bout ended)
            if state.finished:
                break
        if game.version != version:
            _store(game, state)
            _after_change(game)
        return game


# --- a live table: the connection's user acts in the table's current game --------------------


def _table_game(table_id: int, game_id: int | None = None) -> Game:
    from games.selectors import table_current_game

    game = table_current_game(table_id)
    if game is None:
        raise NotFound(f"table {table_id} has no game yet")
    _check_game(game.pk, game_id)
    return game


def _check_game(current: int, game_id: int | None) -> None:
    if game_id is not None and game_id != current:
        # The client still shows an earlier game of the series: its version means nothing here.
        raise StaleVersion(f"the table has moved on to game {current}: sync and retry")


def table_act(
    *,
    table_id: int,
    user: Any,
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
    from games.selectors import seat_of, user_player_id

    if player_id is None:
        player_id = user_player_id(user)

    def lock() -> tuple[Game, Action]:
        # The current game, locked at once (one query instead of a look-up and a lock).
        game = rows.lock_one(Game, "table_id = %s", [table_id], order="number DESC, id DESC")
        if game is None:
            raise NotFound(f"table {table_id} has no game yet")
        _check_game(game.pk, game_id)
        seat = seat_of(game.players, player_id)
        if seat is None:
            raise NotSeated("you have no seat in this game: spectators cannot act")
        return game, _parse_action(action, seat)

    return _act(lock, version, client_id, user)


REFEREE_COMMANDS = ("pause", "resume", "adjudicate", "void")


def table_referee(
    *,
    table_id: int,
    referee: Any,
    command: str,
    reason: str,
    places: list[int] | None = None,
    fool: int | None = None,
) -> Game:
    """A referee's ruling on the table's current game (staff only; each needs a reason)."""
    if referee is None or not referee.is_authenticated or not referee.is_staff:
        raise Forbidden("only a referee can do that")
    game = _table_game(table_id)
    if command == "pause":
        return game_pause(game_id=game.pk, reason=reason, referee=referee)
    if command == "resume":
        return game_resume(game_id=game.pk, reason=reason, referee=referee)
    if command == "void":
        return game_void(game_id=game.pk, reason=reason, referee=referee)
    if command == "adjudicate":
        if not isinstance(places, list) or not all(type(p) is int for p in places):
            raise GameError("places: a list of seats, first out first", code="bad_request")
        if fool is not None and type(fool) is not int:
            raise GameError("fool: a seat or null", code="bad_request")
        return game_adjudicate(
            game_id=game.pk, places=places, fool=fool, reason=reason, referee=referee
        )
    raise GameError(
        f"unknown referee command {command!r} (one of {', '.join(REFEREE_COMMANDS)})",
        code="bad_request",
    )


# --- referee ------------------------------------------------------------------------------------


def _referee_event(game: Game, kind: str, reason: str, referee: Any, ruling: Any = None) -> None:
    if not reason or not reason.strip():
        raise GameError("a referee action needs a reason", code="reason_required")
    RefereeEvent.objects.create(
        game=game,
        kind=kind,
        reason=reason.strip()[:300],
        referee=referee,
        ruling=ruling,
        at_version=game.version,
    )


def game_pause(*, game_id: int, reason: str, referee: Any) -> Game:
    with transaction.atomic():
        game = _lock(game_id)
        if game.status != Game.Status.ACTIVE:
            raise GameNotActive(f"only an active game can be paused; it is {game.status}")
        _referee_event(game, RefereeEvent.Kind.PAUSE, reason, referee)
        game.status, game.deadline = Game.Status.PAUSED, None
        game.save(update_fields=["status", "deadline"])
        broadcast_on_commit(game, "paused")
        return game


def game_resume(*, game_id: int, reason: str, referee: Any) -> Game:
    with transaction.atomic():
        game = _lock(game_id)
        if game.status != Game.Status.PAUSED:
            raise GameNotActive(f"only a paused game can be resumed; it is {game.status}")
        _referee_event(game, RefereeEvent.Kind.RESUME, reason, referee)
        game.status = Game.Status.ACTIVE
        _arm_clock(game)
        game.save(update_fields=["status", "deadline"])
        _after_change(game, event="resumed")
        return game


def game_adjudicate(
    *, game_id: int, places: list[int], fool: int | None, reason: str, referee: Any
) -> Game:
    """End the game with a referee's ruling: the finishing order of every seat and the fool."""
    with transaction.atomic():
        game = _lock(game_id)
        if game.is_over:
            raise GameNotActive(f"the game is already {game.status}")
        n = len(game.players)
        if sorted(places) != list(range(n)):
            raise GameError(f"places must list every seat 0-{n - 1} once", code="bad_ruling")
        if fool is not None and fool != places[-1]:
            raise GameError("the fool is the last of the places", code="bad_ruling")
        ruling = {"places": places, "fool": fool, "draw": fool is None, "pogony": None}
        _referee_event(game, RefereeEvent.Kind.ADJUDICATE, reason, referee, ruling)
        game.status, game.result = Game.Status.ADJUDICATED, ruling
        game.seed_revealed, game.finished_at, game.deadline = True, timezone.now(), None
        game.save(update_fields=["status", "result", "seed_revealed", "finished_at", "deadline"])
        _after_change(game, event="adjudicated")
        return game


def game_void(*, game_id: int, reason: str, referee: Any) -> Game:
    """Void the game: it counts for nothing and its table deals a new one."""
    with transaction.atomic():
        game = _lock(game_id)
        if game.is_over:
            raise GameNotActive(f"the game is already {game.status}")
        _referee_event(game, RefereeEvent.Kind.VOID, reason, referee)
        game.status, game.seed_revealed = Game.Status.VOIDED, True
        game.finished_at, game.deadline = timezone.now(), None
        game.save(update_fields=["status", "seed_revealed", "finished_at", "deadline"])
        _after_change(game, event="voided")
        return game


def game_verify_deal(*, game: Game) -> dict[str, Any]:
    """Recompute the deal from the revealed seed and check it against the commitment and log.

    Anyone can run the same check with the engine alone: sha256(seed) must equal the published
    commitment, and replaying the logged actions on the recomputed deal must give the stored
    state.
    """
    if not game.seed_revealed:
        raise SeedSecret("the seed is revealed when the game ends")
    rules = Rules.from_dict(game.rules)
    commitment_ok = engine.seed_commitment(game.seed) == game.seed_commitment
    state = engine.new_game(rules, engine.rng_for_seed(game.seed), **game.setup)
    replay_ok = True
    for logged in game.actions.order_by("seq"):
        try:
            state = engine.apply(state, Action.from_json(logged.action))
        except EngineError:
            replay_ok = False
            break
    if game.status == Game.Status.FINISHED:
        replay_ok = replay_ok and state.to_dict() == game.state
    return {
        "game": game.pk,
        "seed": game.seed,
        "seed_commitment": game.seed_commitment,
        "commitment_ok": commitment_ok,
        "replay_ok": replay_ok,
        "deal": engine.deal_from_seed(rules, game.seed, **game.setup),
    }


# --- series at a tournament table -----------------------------------------------------------------


def table_series_start(*, table: Any) -> Game:
    """Start the table's series (its stage's format) and deal its first game.

    The table's seats must be created; called inside the pairing transaction.
    """
    from tournaments import adapters

    stage = table.round.stage
    tournament = stage.tournament
    seats = list(table.seats.order_by("position"))
    rules = adapters.table_rules(tournament, len(seats), teams=tournament.is_team_event)
    ladder = tournament.league.rank_ladder if tournament.league_id else []
    series = Series.start(
        rules,
        stage.series_format,
        stage.series_target,
        [s.position for s in seats],
        **({"ladder": ladder} if ladder else {}),
    )
    table.series_state = {**series.to_dict(), "game_ids": []}
    table.save(update_fields=["series_state"])
    return _series_deal(table, series)


def _series_deal(table: Any, series: Series) -> Game:
    from tournaments.models import Seat

    nxt = series.next_game_setup()
    seats = {s.position: s for s in Seat.objects.filter(table=table).select_related("player")}
    players = [seats[s].player for s in nxt.seats]
    tournament = table.round.stage.tournament
    return game_create(
        rules=nxt.rules.to_dict(),
        players=[p.pk for p in players],
        bot_seats={g: p.bot_kind or "heuristic" for g, p in enumerate(players) if p.is_bot},
        table=table,
        number=table.games.count() + 1,
        setup=nxt.hooks(),
        clock_seconds=tournament.move_clock_seconds,
    )


def series_after_game(*, game_id: int) -> str:
    """A game of a table ended: record it in the series, then deal the next game or record the
    table's result. Safe to run twice (the table remembers which games it has recorded); a voided
    game is replaced by a new deal. Locks the table row."""
    from tournaments.models import Table

    with transaction.atomic():
        game = Game.objects.get(pk=game_id)
        if game.table_id is None or not game.is_over:
            return "ignored"
        table = Table.objects.select_for_update().get(pk=game.table_id)
        state = dict(table.series_state)
        game_ids: list[int] = list(state.pop("game_ids", []))
        if game.pk in game_ids or table.games.filter(pk__gt=game.pk).exists():
            return "already recorded"
        series = Series.from_dict(state)
        if game.status != Game.Status.VOIDED:
            result = engine.Result.from_json(game.result)
            # Seed 004's three-player double: both hangings of the game, in order.
            series = series.record(
                result,
                trump=GameState.from_dict(game.state).trump,
                hangings=result.hangings if result.double is not None else None,
            )
            game_ids.append(game.pk)
            table.series_state = {**series.to_dict(), "game_ids": game_ids}
            table.save(update_fields=["series_state"])
        if not series.finished:
            _series_deal(table, series)
            return "next game"
        _record_table_result(table, series, game_ids)
        return "table finished"


def _record_table_result(table: Any, series: Series, game_ids: list[int]) -> None:
    from tournaments.models import Seat, TableResult
    from tournaments.services import table_record_result

    result = series.result
    assert result is not None
    seats = {s.position: s for s in Seat.objects.filter(table=table).select_related("player")}
    entry = {pos: seat.entry_id for pos, seat in seats.items()}
    if table.round.stage.tournament.is_team_event:
        loser = None if result.fool is None else entry[result.fool]
        order = list(dict.fromkeys(entry[s] for s in result.places))
        if loser is not None:
            order = [e for e in order if e != loser] + [loser]
        places, fool, drawn = order, loser, (order if result.draw else [])
    else:
        places = [entry[s] for s in result.places]
        fool = None if result.fool is None else entry[result.fool]
        drawn = places[-2:] if result.draw else []
    # Each hanging names its game (the Game id, as in ``games``), so that seed 004's double and
    # the pogony after it rank as one game (``tournaments.services._pogony_games``).
    pogony = [
        {
            "by": entry[p.by],
            "on": list(dict.fromkeys(entry[s] for s in p.on)),
            "rank": p.rank,
            "by_player": seats[p.by].player_id,
            "on_players": [seats[s].player_id for s in p.on],
            "game": game_ids[index] if index < len(game_ids) else None,
        }
        for p, index in zip(result.pogony, result.hanging_games, strict=True)
    ]
    all_bots = all(seat.player.is_bot for seat in seats.values())
    table_record_result(
        table=table,
        places=places,
        fool=fool,
        drawn=drawn,
        pogony=pogony,
        games=[
            {"game": gid, **g.to_json()} for gid, g in zip(game_ids, result.games, strict=False)
        ],
        source=TableResult.Source.BOT if all_bots else TableResult.Source.LIVE,
    )
