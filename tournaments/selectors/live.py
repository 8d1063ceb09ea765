"""The games in play at an event's tables, as the console's pages read them: which are current,
and when one is stalled. The live tables page, an event's progress and its dashboard ask here,
so that "stalled" means the same on each."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import OuterRef, Prefetch, Subquery

from games.actors import Actor
from games.models import Game, GameAction, RefereeEvent
from tournaments.models import Round, Seat, Table, Tournament
from tournaments.selectors.play import with_stage_rounds
from tournaments.selectors.visibility import tournaments_managed_by

#: Without a move clock, a game with no move for this long is stalled.
STALL_WITHOUT_CLOCK = dt.timedelta(minutes=5)
#: A game with a referee's ruling (pause, resume, adjudication, void) this recent is disputed.
DISPUTE_WINDOW = dt.timedelta(minutes=10)


def live_games(user: Actor, tournament: Tournament | None = None) -> Any:
    """The current games (in play or paused) of the playing tables of the playing rounds of the
    running events ``user`` referees (or of ``tournament`` only, if it is one of them)."""
    scope = tournaments_managed_by(user).filter(status=Tournament.Status.RUNNING)
    if tournament is not None:
        scope = scope.filter(pk=tournament.pk)
    current = Game.objects.filter(table=OuterRef("table")).order_by("-number", "-pk")
    last_action = GameAction.objects.filter(game=OuterRef("pk")).order_by("-seq")
    last_ruling = RefereeEvent.objects.filter(game=OuterRef("pk")).order_by("-created_at")
    seats = Seat.objects.select_related("player").order_by("position")
    return (
        with_stage_rounds(Game.objects.all(), "table__round__stage")
        .filter(
            table__status=Table.Status.PLAYING,
            table__round__status=Round.Status.PLAYING,
            table__round__stage__tournament__in=scope,
            status__in=[Game.Status.ACTIVE, Game.Status.PAUSED],
            pk=Subquery(current.values("pk")[:1]),
        )
        .annotate(
            last_action_at=Subquery(last_action.values("created_at")[:1]),
            last_ruling_at=Subquery(last_ruling.values("created_at")[:1]),
        )
        .select_related("table__round__stage__tournament")
        .prefetch_related(Prefetch("table__seats", queryset=seats))
        .order_by()
    )


def is_stalled(game: Game, last_action_at: dt.datetime | None, now: dt.datetime) -> bool:
    """A game in play (not paused) with no move for longer than its move clock, or than
    ``STALL_WITHOUT_CLOCK`` without one; ``last_action_at``: its last move's time, if any."""
    if game.status == Game.Status.PAUSED:
        return False
    patience = (
        dt.timedelta(seconds=game.clock_seconds) if game.clock_seconds else STALL_WITHOUT_CLOCK
    )
    return now - (last_action_at or game.created_at) > patience
