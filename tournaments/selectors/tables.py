"""A table's public facts, for any number of tables in a fixed number of queries: where it is
played (tournament, stage, round, number), its status, who sits where with their series score
and, once the table has finished, their place; the series score, the game in play and the games
that are over.

The API's ``/tables/{id}/`` and the tournament's ``/live/`` read their tables here. Public facts
only: a game is named by its id, number and status (read with ``.values()``: never its state,
so never a card); the series is reduced to its score (``events.series_score``); a place comes
from the confirmed result in force, never from a pending or rejected one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import QuerySet

from games.models import Game
from tournaments.models import Table
from tournaments.selectors.events import (
    Row,
    int_or_none,
    result_in_force,
    series_score,
    tables_with_results,
)


@dataclass(frozen=True)
class TableSeatFacts:
    position: int  # 0, 1, ...: clockwise
    entry_id: int
    entry_name: str
    player_id: int
    name: str  # the player's display name (a team's member in a team event)
    bot: bool
    points: float | None  # the series points so far (None: no series score)
    place: int | None  # once the table has a result in force: 1 is the first out


@dataclass(frozen=True)
class TableGameFacts:
    id: int
    number: int  # in the table's series: 1, 2, ...
    status: str  # Game.Status's value


@dataclass(frozen=True)
class TableFacts:
    id: int
    tournament_slug: str
    stage_order: int
    stage_format: str  # Stage.Format's value
    round_number: int
    number: int
    status: str  # Table.Status's value
    is_bye: bool
    seats: list[TableSeatFacts]
    series: Row | None  # ``events.series_score``
    current_game: int | None  # the game in play or paused, if any
    finished_games: list[int]  # the games that are over (finished, adjudicated, voided), in order
    games: list[TableGameFacts]  # every game of the series, in order

    @property
    def game(self) -> int | None:
        """The game a link from the table opens: the one in play, else the last that is over."""
        if self.current_game is not None:
            return self.current_game
        return self.finished_games[-1] if self.finished_games else None


def _places(table: Table) -> dict[int, int]:
    """Each entry's place at ``table`` (its result in force selected), by entry id."""
    result = result_in_force(table)
    if result is None:
        return {}
    out: dict[int, int] = {}
    for place, entry in enumerate(result.places, 1):
        entry_id = int_or_none(entry)
        if entry_id is not None:
            out.setdefault(entry_id, place)
    return out


def tables_facts(tables: QuerySet[Table]) -> list[TableFacts]:
    """``tables`` (in their queryset's order) with their facts: four queries, however many
    tables (the tables with their round, stage and tournament; the seats; the results in force;
    the games)."""
    rows = tables_with_results(tables.select_related("round__stage__tournament"))
    games: dict[int, list[TableGameFacts]] = {}
    if rows:
        for pk, table_id, number, status in (
            Game.objects.filter(table_id__in=[t.pk for t in rows])
            .order_by("number", "pk")
            .values_list("pk", "table_id", "number", "status")
        ):
            games.setdefault(table_id, []).append(TableGameFacts(pk, number, status))
    out = []
    for table in rows:
        seats = list(table.seats.all())
        series = series_score(table, seats)
        points = {s["position"]: s["points"] for s in series["seats"]} if series else {}
        places = _places(table)
        own = games.get(table.pk, [])
        playing = [g.id for g in own if g.status in (Game.Status.ACTIVE, Game.Status.PAUSED)]
        out.append(
            TableFacts(
                id=table.pk,
                tournament_slug=table.round.stage.tournament.slug,
                stage_order=table.round.stage.order,
                stage_format=table.round.stage.format,
                round_number=table.round.number,
                number=table.number,
                status=table.status,
                is_bye=table.is_bye,
                seats=[
                    TableSeatFacts(
                        position=seat.position,
                        entry_id=seat.entry_id,
                        entry_name=seat.entry.name,
                        player_id=seat.player_id,
                        name=seat.player.display_name,
                        bot=bool(seat.bot_kind) or seat.player.is_bot,
                        points=points.get(seat.position),
                        place=places.get(seat.entry_id),
                    )
                    for seat in seats
                ],
                series=series,
                current_game=playing[-1] if playing else None,
                finished_games=[g.id for g in own if g.status in Game.OVER],
                games=own,
            )
        )
    return out


def table_facts(table_id: int, among: Iterable[int] | None = None) -> TableFacts | None:
    """One table's facts (None: no such table), four queries. ``among``: the tournaments it
    must belong to (ids or a queryset of them: the reader's visible ones)."""
    tables = Table.objects.filter(pk=table_id)
    if among is not None:
        tables = tables.filter(round__stage__tournament__in=among)
    found = tables_facts(tables)
    return found[0] if found else None
