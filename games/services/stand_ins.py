"""Stand-in bots: a bot plays the seat of a player who is not at the table, until they are back.

A game dealt with ``Game.absent_after`` (the seating layer sets it from its event's setting)
watches its human seats: once a seat's turn has lasted ``absent_after`` seconds and its player
has no live connection to the table (``games.presence``), a bot stands in for that seat
(:func:`game_absent_check`): the seat joins ``bot_seats`` and ``stand_ins``, the bot moves at once
(``game_play_bots``), and the seating layer records the handover (``hooks.Tables.seat_stood_in``:
an audit row in the system's name). With ``absent_after`` 0 every seat without a connection is
played by a bot from the first move of each game, not only the one whose turn it is.

A player who comes back takes their seat again: their socket's connect calls
:func:`table_seat_return`, which drops the stand-in before the next move is asked of the seat.
A seat a referee handed to a bot (``game_hand_seat_to_bot``) is not a stand-in and stays a bot's.

The check is a job (``games.game_absent_check``) sent after every change of such a game with the
delay ``absent_after`` (``play.after_change``), guarded by the game's version, and found again by
the reconciler (``games.reconcile``) when it was lost or when a player left mid-turn after the
delay: safe to run twice, never a loop that waits.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from durak_site.jobs import enqueue_on_commit
from games import hooks, presence
from games.engine.bots import acting_seat
from games.models import Game, GameAction
from games.selectors import seat_of
from games.services.play import after_change, load_state, locked_game

#: The bot that stands in for an absent player.
STAND_IN = "heuristic"


def turn_started(game: Game) -> datetime:
    """When the move the game waits for became due: its last logged move, or its deal."""
    last = (
        GameAction.objects.filter(game=game).order_by("-seq").values_list("created_at", flat=True)
    )
    return last.first() or game.created_at


def absent_seats(game: Game, present: set[int]) -> list[int]:
    """The seats of ``game`` (active, with ``absent_after`` set) that a bot should stand in for
    now, its players ``present`` at the table aside: with ``absent_after`` 0 every human seat
    of an absent player, else only the seat whose turn it is (``engine.bots.acting_seat``)."""
    if game.absent_after is None or game.status != Game.Status.ACTIVE:
        return []
    bots = {int(seat) for seat in game.bot_seats}
    if game.absent_after == 0:
        seats = list(range(len(game.players)))
    else:
        acting = acting_seat(load_state(game))
        seats = [] if acting is None else [acting]
    return [s for s in seats if s not in bots and game.players[s] not in present]


def game_absent_check(*, game_id: int, version: int) -> Game:
    """A bot stands in for the absent seats of ``game_id`` at ``version`` (:func:`absent_seats`)
    once the turn has lasted ``absent_after`` seconds; a no-op if the game moved on, is not
    active, has no such rule or waits for a present player. Each handover is announced to the
    seating layer (its audit row) in the same transaction. Locks the game row."""
    with transaction.atomic():
        game = locked_game(game_id)
        if game.status != Game.Status.ACTIVE or game.version != version:
            return game
        if game.absent_after is None or game.table_id is None:
            return game
        # A second of slack, as for the clock: a timer may fire a moment early.
        due = timezone.now() + timedelta(seconds=1) - timedelta(seconds=game.absent_after)
        if turn_started(game) > due:
            return game  # sent early (a reconciler's copy): the job sent with the delay acts
        present = presence.present_players([game.table_id])[game.table_id]
        seats = absent_seats(game, present)
        if not seats:
            return game
        game.bot_seats = {**game.bot_seats, **{str(seat): STAND_IN for seat in seats}}
        game.stand_ins = sorted({*game.stand_ins, *seats})
        game.save(update_fields=["bot_seats", "stand_ins"])
        for seat in seats:
            hooks.tables().seat_stood_in(
                table_id=game.table_id,
                player_id=game.players[seat],
                game_number=game.number,
                absent_seconds=game.absent_after,
            )
        after_change(game)
        return game


def table_seat_return(*, table_id: int, player_id: int) -> Game | None:
    """``player_id`` is back at ``table_id``: the bot standing in for their seat of the table's
    current game stops before the seat's next move (announced to the seating layer); None if
    no bot stood in for them. One query when none does; else locks the game row."""
    current = (
        Game.objects.filter(table_id=table_id)
        .order_by("-number", "-pk")
        .values_list("pk", "players", "stand_ins", "status")
        .first()
    )
    if current is None:
        return None
    pk, players, stand_ins, status = current
    seat = seat_of(players, player_id)
    if seat is None or seat not in stand_ins or status in Game.OVER:
        return None
    with transaction.atomic():
        game = locked_game(pk)
        if seat not in game.stand_ins or game.is_over:
            return None
        game.stand_ins = [s for s in game.stand_ins if s != seat]
        game.bot_seats = {k: v for k, v in game.bot_seats.items() if int(k) != seat}
        game.save(update_fields=["bot_seats", "stand_ins"])
        hooks.tables().seat_returned(
            table_id=table_id, player_id=player_id, game_number=game.number
        )
        after_change(game)
        return game


def games_set_absent_after(*, game_ids: list[int], seconds: int | None) -> int:
    """The running games ``game_ids`` follow a changed rule for absent players from now on
    (``seconds`` as ``Game.absent_after``), each checked again under it; stand-ins already
    playing stay until their players return. Returns how many games changed."""
    games = Game.objects.filter(pk__in=game_ids).exclude(status__in=Game.OVER)
    changed = list(games.exclude(absent_after=seconds).values_list("pk", "version"))
    Game.objects.filter(pk__in=[pk for pk, _ in changed]).update(absent_after=seconds)
    if seconds is not None:
        for pk, version in changed:
            enqueue_on_commit("games.game_absent_check", pk, version, countdown=seconds or None)
    return len(changed)
