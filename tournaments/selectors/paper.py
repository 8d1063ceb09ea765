"""The facts of a round as the hall reads them on paper and on the projector
(``tournaments.console.paper`` prints and shows them, ``console.grid`` takes results by them):
each table with its seats (player, entry, club), the result in force and whether a result waits
for a second referee; the round a projector shows; every player's table and seat.

Read in a fixed number of queries however many tables (``events.tables_with_results``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from tournaments.models import Round, Seat, Table, TableResult, Tournament
from tournaments.selectors.events import result_in_force, tables_with_results
from tournaments.selectors.play import round_title
from tournaments.wording import place_name, stage_names


@dataclass(frozen=True)
class SheetSeat:
    """A seat of a table as printed: the seat's number from 1, who sits there, for which entry
    (a team's name in a team event, else the player's), and the player's club."""

    number: int
    entry_id: int
    player: str
    entry: str
    club: str


@dataclass(frozen=True)
class SheetTable:
    """A table of the round: its seats in order, the result in force, a result pending."""

    table: Table
    seats: list[SheetSeat]
    result: TableResult | None
    pending: bool

    @property
    def number(self) -> int:
        return self.table.number

    @property
    def shared(self) -> bool:
        """Two seats play for one entry (a team event's table)."""
        return len({seat.entry_id for seat in self.seats}) != len(self.seats)

    @property
    def has_result(self) -> bool:
        return self.result is not None or self.pending

    @property
    def finishing(self) -> list[tuple[int, str, str]]:
        """The result in force as (place, player, "fool" / "drawn" / ""), first out first."""
        if self.result is None:
            return []
        players = {seat.entry_id: seat.player for seat in self.seats}
        fool = self.result.fool_entry_id
        drawn = {int(entry) for entry in self.result.drawn}
        return [
            (
                place,
                players.get(int(entry), f"#{entry}"),
                "fool" if int(entry) == fool else "drawn" if int(entry) in drawn else "",
            )
            for place, entry in enumerate(self.result.places, 1)
        ]


@dataclass(frozen=True)
class SheetPlace:
    """A line of the pairing list by name: a player and where they sit."""

    player: str
    entry: str
    club: str
    table: int
    seat: int
    is_bye: bool


def _seat(seat: Seat) -> SheetSeat:
    return SheetSeat(
        number=seat.position + 1,
        entry_id=seat.entry_id,
        player=seat.player.display_name,
        entry=seat.entry.name,
        club=seat.player.club,
    )


def round_sheet(round_: Round) -> list[SheetTable]:
    """The round's tables by number, byes included, in four queries."""
    pending = TableResult.objects.filter(table=OuterRef("pk"), status=TableResult.Status.PENDING)
    tables = Table.objects.filter(round=round_).annotate(pending=Exists(pending)).order_by("number")
    return [
        SheetTable(
            table=table,
            seats=[_seat(seat) for seat in table.seats.all()],
            result=result_in_force(table),
            pending=bool(getattr(table, "pending", False)),
        )
        for table in tables_with_results(tables)
    ]


def name_order(name: str) -> tuple[tuple[int, int | str], ...]:
    """A name's place in a list read by people: letters by case-folded text, numbers by their
    value («Игрок 2» before «Игрок 10»).

    >>> sorted(["Игрок 10", "игрок 2", "Анна"], key=name_order)
    ['Анна', 'игрок 2', 'Игрок 10']
    """
    parts = re.split(r"(\d+)", name.casefold())
    return tuple((1, int(part)) if part.isdigit() else (0, part) for part in parts if part)


def places_by_name(sheet: list[SheetTable]) -> list[SheetPlace]:
    """Every seated player of ``sheet`` with their table and seat, alphabetically (ties by
    table), as a hall's door list reads."""
    rows = [
        SheetPlace(
            player=seat.player,
            entry=seat.entry,
            club=seat.club,
            table=table.number,
            seat=seat.number,
            is_bye=table.table.is_bye,
        )
        for table in sheet
        for seat in table.seats
    ]
    return sorted(rows, key=lambda row: (name_order(row.player), row.table, row.seat))


def projected_round(tournament: Tournament) -> Round | None:
    """The round a projector shows: the latest paired round of the event (the one being played,
    or the last one played once the event is between rounds or over)."""
    return (
        Round.objects.filter(stage__tournament=tournament)
        .exclude(status=Round.Status.PENDING)
        .select_related("stage__tournament")
        .order_by("-stage__order", "-number")
        .first()
    )


def round_heading(round_: Round) -> str:
    """The round named as the event's pages name it: "Swiss · Round 2", "Knockout · Final"."""
    stage = round_.stage
    names = stage_names(stage.tournament.stages.all())
    return place_name(
        stage=names.get(stage.order, ""),
        round=round_title(round_, stage.rounds.count()),
    )
