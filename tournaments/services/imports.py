"""Entries from a list of players (the console reads them from a CSV file): which existing
player each line names, and registering them all in one transaction, or none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from django.db import transaction

from durak_site.errors import ServiceError
from games.actors import Actor
from tournaments.models import Entry, Player, Tournament
from tournaments.permissions import require_manager
from tournaments.services.people import player_create
from tournaments.services.registration import entry_register

IMPORT_REASON = "CSV import"


class ImportRow(Protocol):
    """A line of players: its number in the file, the player's name, club and rating, and
    whether it could be read (an unreadable line is skipped)."""

    @property
    def line(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def club(self) -> str: ...
    @property
    def rating(self) -> float | None: ...
    @property
    def valid(self) -> bool: ...


R = TypeVar("R", bound=ImportRow)


@dataclass(frozen=True)
class MatchedRow(Generic[R]):
    """A line and the existing player it names (display name and club), if any."""

    row: R
    player: Player | None
    registered: bool  # that player is in the tournament already: skipped

    @property
    def to_register(self) -> bool:
        return self.row.valid and not self.registered


class ImportRefused(ServiceError):
    """The service refused a line (``line``): nothing of the import was stored."""

    def __init__(self, line: int, refusal: ServiceError) -> None:
        super().__init__(refusal.message, code=refusal.code, fields=refusal.fields)
        self.line = line
        self.http_status = refusal.http_status


def players_matched(tournament: Tournament, rows: Sequence[R]) -> list[MatchedRow[R]]:
    """Match each row to an existing player by exact display name and club (the oldest, if the
    same name and club are there twice), and see whether it is registered already."""
    names = {row.name for row in rows if row.name}
    existing: dict[tuple[str, str], Player] = {}
    for player in Player.objects.filter(display_name__in=names).order_by("pk"):
        existing.setdefault((player.display_name, player.club), player)
    registered = set(
        Entry.objects.filter(tournament=tournament, player__in=list(existing.values())).values_list(
            "player_id", flat=True
        )
    )
    matched = []
    for row in rows:
        match = existing.get((row.name, row.club))
        matched.append(MatchedRow(row, match, match is not None and match.pk in registered))
    return matched


@transaction.atomic
def entries_import(
    *, actor: Actor, tournament: Tournament, rows: Sequence[ImportRow], paid: bool
) -> int:
    """Register the rows' players (creating the new ones, with their rating) in one
    transaction; the number registered. The tournament's organiser only (``Forbidden``); each
    entry is audited as its registration (``entry_register``: the reason ``CSV import``, the
    line and whether the player is new). A refusal of the service (the event full,
    registration closed meanwhile) raises :class:`ImportRefused` with its line, and nothing is
    stored."""
    require_manager(actor, tournament)
    count = 0
    for matched in players_matched(tournament, rows):
        if not matched.to_register:
            continue
        row = matched.row
        try:
            player = matched.player
            if player is None:
                player = player_create(display_name=row.name, club=row.club, rating=row.rating)
            entry_register(
                tournament=tournament,
                player=player,
                paid=paid,
                actor=actor,
                reason=IMPORT_REASON,
                note={"line": row.line, "new_player": matched.player is None},
            )
        except ServiceError as exc:
            raise ImportRefused(row.line, exc) from exc
        count += 1
    return count
