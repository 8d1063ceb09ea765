"""The games layer's part of the reconciler: games the server must move and nobody is moving.

Read-only finders, called by the reconciler (``tournaments.reconcile``, which adds the seating
layer's work and sends the jobs): each returns the :class:`~durak_site.jobs.Due` items whose job
was lost or is late, never the work a job is doing right now (only what has waited longer than
the reconciler's grace, ``durak_site.jobs.GRACE``).

- **A clock past its deadline**: an active game whose move deadline passed more than the grace
  ago (the clock's own delayed job should have acted at the deadline): ``game_clock_expire``.
- **A bot to move**: an active game with bot seats, no move for longer than the grace, and a bot
  seat to act (the engine's :func:`~games.engine.bots.acting_seat`; a game of bots only always
  has one): ``game_play_bots``.

- **A seat left empty**: an active game with a rule for absent players
  (``Game.absent_after``) whose turn has lasted longer than that and the grace, waiting for a
  person who has no connection to the table (``games.presence``; a player who left mid-turn
  after the stand-in's delay, or a lost check): ``game_absent_check``.

Queries: one for the clocks (the ``(status, deadline)`` index), one for the idle games with bots
(their last move through the ``(game, seq)`` unique index), and one for the states of the idle
games where people and bots play together (rare: a seat handed to a bot); for the empty seats,
one for the idle games with the rule, one for those past their delay and one cache read of
their tables' presence.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from django.db.models import F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from durak_site.jobs import Due
from games import presence
from games.engine import GameState
from games.engine.bots import acting_seat
from games.models import Game, GameAction
from games.services.stand_ins import absent_seats


def due_jobs(
    *, cutoff: datetime, tables: Collection[int] | None = None, tableless: bool = True
) -> list[Due]:
    """The games' due work that has waited since before ``cutoff``.

    ``tables``: only the games of these tables (the seating layer passes the tables in play);
    None for every game. ``tableless``: with ``tables``, the games without a table too.
    """
    games = Game.objects.filter(status=Game.Status.ACTIVE)
    if tables is not None:
        scope = Q(table_id__in=list(tables))
        if tableless:
            scope |= Q(table__isnull=True)
        games = games.filter(scope)
    return [*_clocks(games, cutoff), *_bots(games, cutoff), *_empty_seats(games, cutoff)]


def _clocks(games: QuerySet[Game], cutoff: datetime) -> list[Due]:
    late = games.filter(deadline__lte=cutoff).values_list("pk", "version")
    return [
        Due("games.game_clock_expire", (pk, version), "a move clock past its deadline")
        for pk, version in late
    ]


def _bots(games: QuerySet[Game], cutoff: datetime) -> list[Due]:
    last_move = GameAction.objects.filter(game=OuterRef("pk")).order_by("-seq").values("created_at")
    idle = (
        games.exclude(bot_seats={})
        .exclude(bot_seats=[])
        .annotate(moved=Coalesce(Subquery(last_move[:1]), F("created_at")))
        .filter(moved__lte=cutoff)
        .values_list("pk", "version", "players", "bot_seats")
    )
    due: list[Due] = []
    mixed: dict[int, tuple[int, set[int]]] = {}
    for pk, version, players, bot_seats in idle:
        if not bot_seats:
            continue
        if len(bot_seats) >= len(players):
            due.append(Due("games.game_play_bots", (pk, version), "a game of bots not moving"))
        else:
            mixed[pk] = (version, {int(seat) for seat in bot_seats})
    if mixed:
        for pk, state in Game.objects.filter(pk__in=mixed).values_list("pk", "state"):
            version, bots = mixed[pk]
            if acting_seat(GameState.from_dict(state)) in bots:
                due.append(Due("games.game_play_bots", (pk, version), "a bot's move not made"))
    return due


def _empty_seats(games: QuerySet[Game], cutoff: datetime) -> list[Due]:
    last_move = GameAction.objects.filter(game=OuterRef("pk")).order_by("-seq").values("created_at")
    idle = (
        games.filter(absent_after__isnull=False, table__isnull=False)
        .annotate(moved=Coalesce(Subquery(last_move[:1]), F("created_at")))
        .filter(moved__lte=cutoff)
        .values_list("pk", "moved", "absent_after")
    )
    # Due once the turn has lasted the game's own delay past the cutoff.
    due = [pk for pk, moved, after in idle if moved <= cutoff - timedelta(seconds=after or 0)]
    if not due:
        return []
    waiting = list(Game.objects.filter(pk__in=due))
    present = presence.present_players({game.table_id for game in waiting if game.table_id})
    return [
        Due("games.game_absent_check", (game.pk, game.version), "a seat left empty")
        for game in waiting
        if game.table_id is not None and absent_seats(game, present[game.table_id])
    ]
