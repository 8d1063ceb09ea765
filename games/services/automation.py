"""Bots and the move clock: actions the server takes for a seat.

The clock's rule for absent players is :func:`clock_actions`; :func:`game_clock_expire` applies
it when a game's deadline passes.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.errors import status_name
from games import engine, rows
from games.engine import Action, GameState
from games.engine.actions import ATTACK, PASS, TAKE
from games.engine.bots import Bot, acting_seat, make_bot, play_step
from games.engine.cards import parse_suit, rank_of, suit_of
from games.engine.errors import EngineError
from games.errors import (
    GameError,
    GameNotActive,
)
from games.models import Game, GameAction
from games.services.play import (
    after_change,
    load_state,
    locked_game,
    log_action,
    save_state,
    tail_after,
)
from games.services.referee import game_void

logger = logging.getLogger(__name__)

#: Far above any real game (the longest of 1,650 bot games at tables of 4: about 240 moves); a
#: bound so a bug cannot spin forever, and where a game of bots alone is voided
#: (:func:`_play_all_bots`: bots can cycle).
MAX_BOT_STEPS = 5000


def bot_rng(game: Game) -> random.Random:
    # Independent of the deal's seed: a bot's choices must not hint at hidden cards.
    return random.Random(f"bots:{game.pk}:{game.version}")


def game_play_bots(*, game_id: int, version: int | None = None) -> Game:
    """Let the bot seats act until a human must act or the game is over.

    All consecutive bot actions go through the engine and into the log in one transaction (one
    lock, one broadcast); a game of bots alone is played to its end that way by
    :func:`_play_all_bots` (the bulk path). ``version`` guards a delayed job: if the game moved
    on meanwhile, the newer job does the work. Locks the game row.
    """
    with transaction.atomic():
        game = locked_game(game_id)
        if game.status != Game.Status.ACTIVE or not game.bot_seats:
            return game
        if version is not None and version != game.version:
            return game
        bots = {int(seat): make_bot(name) for seat, name in game.bot_seats.items()}
        if len(bots) == len(game.players):
            return _play_all_bots(game, bots)
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
            state = log_action(game, state, action, kind=GameAction.Kind.BOT, log=log)
            steps += 1
            if humans_can_act or any(
                engine.legal_actions(state, s) for s in range(state.setup.n) if s not in bots
            ):
                break
        if steps:
            GameAction.objects.bulk_create(log)
            save_state(game, state)
            after_change(game)
        return game


def _play_all_bots(game: Game, bots: dict[int, Bot]) -> Game:
    """The bulk path of :func:`game_play_bots` for a game whose every seat is a bot's (the
    locked ``game``, inside its transaction): the game played to its end in memory, by the same
    bots with the same generator (:func:`bot_rng`) and the same stop as the loop of
    :func:`game_play_bots`, then written at once: every move's ``GameAction`` (its number, seat,
    payload, kind ``bot``, one time for all) in one ``executemany`` (``rows.insert_many``), and
    the game's row (state, version, ``log_tail``, and its end: status, result, revealed seed)
    by ``save_state``; ``after_change`` then sends the broadcast and the jobs of the end of a
    game, as after any change. Its rows are the ones the loop writes
    (``tests/games/test_bot_bulk.py``)."""
    state, rng = load_state(game), bot_rng(game)
    played: list[Action] = []
    while not state.finished and len(played) < MAX_BOT_STEPS:
        if acting_seat(state) is None:
            break  # as the loop: it waits for a seat that may act (not expected)
        action = play_step(state, bots, rng)
        if action is None:
            break
        try:
            state = engine.apply(state, action)
        except EngineError as exc:
            raise GameError(str(exc), code=exc.code) from None
        played.append(action)
    if not played:
        return game
    first = game.version + 1
    logged = [action.to_json() for action in played]
    rows.insert_many(
        GameAction,
        [
            {"seq": first + i, "seat": action.seat, "action": entry}
            for i, (action, entry) in enumerate(zip(played, logged, strict=True))
        ],
        game_id=game.pk,
        kind=GameAction.Kind.BOT,
        client_id="",
        user_id=None,
        created_at=timezone.now(),
    )
    game.version += len(played)
    tail = game.log_tail
    # Only the last entries reach the tail: the same tail as one entry at a time.
    for i in range(max(0, len(played) - Game.LOG_TAIL), len(played)):
        tail = tail_after(tail, seq=first + i, kind=GameAction.Kind.BOT, logged=logged[i])
    game.log_tail = tail
    save_state(game, state)
    if not state.finished and game.version >= MAX_BOT_STEPS:
        # Bots alone can cycle: at three players or more, with the stock gone, each may keep
        # attacking with cards the next cannot beat and taking back what it cannot beat, for
        # ever (a referee would end such a game). The game counts for nothing; its table deals
        # a new one.
        logger.warning(
            "game %s: %s moves of bots alone without an end: voided", game.pk, game.version
        )
        return game_void(
            game_id=game.pk,
            reason=gettext(
                "voided by the service: its bots played %(moves)s moves without an end "
                "(a position they repeat for ever)"
            )
            % {"moves": game.version},
            referee=None,
        )  # its own after_change: one broadcast, of the voided game
    after_change(game)
    return game


def game_hand_seat_to_bot(*, game_id: int, seat: int, kind: str = "heuristic") -> Game:
    """A bot of ``kind`` plays ``seat`` from now on (a referee handed the seat over); it acts at
    once if the game waits for that seat. Refused for a game that is over or an unknown seat or
    bot. Locks the game row."""
    try:
        make_bot(kind)
    except EngineError as exc:
        raise GameError(str(exc), code="bad_request") from None
    with transaction.atomic():
        game = locked_game(game_id)
        if game.is_over:
            raise GameNotActive(
                gettext("the game is already %(status)s")
                % {"status": status_name(Game.Status, game.status)}
            )
        if not 0 <= seat < len(game.players):
            raise GameError(
                gettext("the game has no seat %(seat)s") % {"seat": seat}, code="bad_request"
            )
        if game.bot_seats.get(str(seat)) == kind:
            return game
        game.bot_seats = {**game.bot_seats, str(seat): kind}
        game.save(update_fields=["bot_seats"])
        after_change(game)
        return game


def _lead_order(trump: int) -> Callable[[Action], tuple[bool, int, int]]:
    """Sort key of an attack: non-trumps before trumps, then by rank, then by suit (S C D H)."""

    def key(action: Action) -> tuple[bool, int, int]:
        card = action.cards[0]
        return suit_of(card) == trump, rank_of(card), suit_of(card)

    return key


def clock_actions(state: GameState) -> list[Action]:
    """The actions the move clock takes when it runs out in ``state`` (none once it is over).

    The clock acts only for the seats whose move the table is waiting for, with the engine's
    own legal actions (``engine.legal_actions``), all decided on the state at expiry. In an
    unfinished game exactly one of these holds:

    1. **No bout is open**: the attacker must open one. It *leads its lowest card*, one card:
       the lowest rank among its non-trumps; only when it holds nothing but trumps, its lowest
       trump. Between cards of one rank the suit order S C D H decides. Never a redeal.
    2. **An attack card is unbeaten and the defender has not said take**: the defender *takes*.
       It never defends, and in the transfer variant never transfers nor shows a trump.
       Nobody else is acted for: the throwers may still throw in after the take (вдогонку),
       with a fresh deadline.
    3. **Every attack card is beaten, or the defender has said take**: every thrower who may
       still pass (in the bout's throwers, holding cards, not passed yet) *passes*, clockwise
       from the bout's attacker; it never throws. The last pass ends the bout: the table goes
       to the discard pile (then the defender attacks) or to the taking defender.

    So every expiry changes the game (1 → 2; 2 → 3, or the bout ends at once when no thrower
    is left; 3 → the next bout's 1, or the game is over): a bout in which everybody stays
    absent takes at most three clock periods, and the clock can never act without effect.
    It keeps a table moving; it does not end a game that everybody has left (with three or
    more players such a game can cycle without end): that is for a referee (adjudicate, void).

    >>> from games.engine import Rules, from_deal
    >>> s = from_deal(Rules(), {"hands": [["6D", "7C", "7S"], ["8S"]], "stock": [],
    ...                         "trump": "D", "attacker": 0})
    >>> [str(a) for a in clock_actions(s)]
    ['0 attack 7S']
    """
    if state.finished:
        return []
    n = state.setup.n
    # Clockwise from the bout's attacker: the order in which the table lets seats act.
    seats = [(state.attacker + step) % n for step in range(n)]
    legal = {seat: engine.legal_actions(state, seat) for seat in seats}
    takes = [a for seat in seats for a in legal[seat] if a.type == TAKE]
    if takes:  # case 2 (only the defender ever has a take)
        return takes[:1]
    passes = [a for seat in seats for a in legal[seat] if a.type == PASS]
    if passes:  # case 3
        return passes
    attacks = [a for seat in seats for a in legal[seat] if a.type == ATTACK]
    if attacks:  # case 1 (only the attacker, and only with no bout open)
        return [min(attacks, key=_lead_order(parse_suit(state.trump)))]
    return []


def game_clock_expire(*, game_id: int, version: int) -> Game:
    """The move clock ran out at ``version``: act for the absent players by the rule of
    :func:`clock_actions`, logged as ``GameAction.Kind.CLOCK``.

    A no-op if anyone acted since (``version`` is stale), if the game is paused or over, or if
    its deadline is still ahead (the game was resumed since this job was scheduled: the job
    of the resume acts). Otherwise the game moves on, is saved with a fresh deadline, and the
    next clock job, bots and broadcast follow as after any change. Never raises for a game
    that exists. Locks the game row.
    """
    with transaction.atomic():
        game = locked_game(game_id)
        if game.status != Game.Status.ACTIVE or game.version != version:
            return game
        if game.deadline and game.deadline > timezone.now() + timedelta(seconds=1):
            return game  # resumed or extended since this job was scheduled
        state = load_state(game)
        bout = state.bouts
        actions = clock_actions(state)
        for action in actions:
            if state.finished or state.bouts != bout:
                break  # not expected: only the last pass ends the bout
            try:
                state = log_action(game, state, action, kind=GameAction.Kind.CLOCK)
            except GameError:  # not expected: each action is one the engine listed
                logger.exception("game %s: the clock's %s was refused", game.pk, action)
                break
        if game.version == version:
            # Not expected: the engine always leaves someone an action in an active game.
            logger.error("game %s at version %s: the clock found nothing to do", game.pk, version)
            return game
        save_state(game, state)
        after_change(game)
        return game
