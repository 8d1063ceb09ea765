"""Which seats of a round a referee may still swap (``console.seats``): a table can give up its
seats until play begins there (``services.seating.table_started`` says the same for the swap
itself, which checks again under its locks); the others are listed apart with the reason."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, Sum
from django.db.models.functions import Coalesce
from django.utils.translation import gettext

from games.models import Game
from tournaments.models import Round, Seat, Table, TableResult


@dataclass(frozen=True)
class SwapTable:
    """A table of the round as the swap form shows it: its seats, the moves made in its games,
    and why its seats stay ("" while they may move)."""

    table: Table
    seats: list[Seat]
    moves: int
    refusal: str

    @property
    def swappable(self) -> bool:
        return not self.refusal


def _refusal(table: Table, moves: int, ended: bool, has_result: bool) -> str:
    if table.status != Table.Status.PLAYING:
        return gettext("not waiting to play (%(status)s)") % {"status": table.get_status_display()}
    if moves:
        return gettext("play has begun: a move is made")
    if ended:
        return gettext("a referee ended a game here")
    if has_result:
        return gettext("a result is recorded")
    return ""


def round_swap_tables(round_: Round) -> list[SwapTable]:
    """The round's tables (byes left out) in number order, each with its seats by position, its
    move count (all its games' moves) and the reason it cannot swap, in three queries."""
    tables = (
        Table.objects.filter(round=round_, is_bye=False)
        .annotate(
            moves=Coalesce(Sum("games__version"), 0),
            ended=Exists(Game.objects.filter(table=OuterRef("pk")).filter(Q(status__in=Game.OVER))),
            has_result=Exists(TableResult.objects.filter(table=OuterRef("pk"))),
        )
        .prefetch_related("seats__player")
        .order_by("number")
    )
    rows = []
    for table in tables:
        moves = int(table.moves)
        seats = sorted(table.seats.all(), key=lambda s: s.position)
        refusal = _refusal(
            table,
            moves,
            bool(table.ended),
            bool(table.has_result),
        )
        rows.append(SwapTable(table=table, seats=seats, moves=moves, refusal=refusal))
    return rows
