"""Seating a table and dealing the games of its series."""

from __future__ import annotations

from collections.abc import Sequence

from games.engine.series import Series
from games.models import Game
from games.services import game_create
from tournaments import adapters, selectors
from tournaments.models import (
    Entry,
    Seat,
    Table,
    Team,
)
from tournaments.pairing import (
    team_seating,
)


def entry_team(entry: Entry) -> Team:
    """The team of a team event's entry (an entry is a player's or a team's, never both:
    the ``entry_player_xor_team`` constraint)."""
    assert entry.team is not None, f"entry {entry.pk} is a player's, not a team's"
    return entry.team


def entry_player_id(entry: Entry) -> int:
    """The player of a single-player event's entry (see :func:`entry_team`)."""
    assert entry.player_id is not None, f"entry {entry.pk} is a team's, not a player's"
    return entry.player_id


def table_seat(table: Table, entry_ids: Sequence[int]) -> None:
    """Seat ``entry_ids`` (seat order) at ``table`` and deal the first game of its series."""
    entries = selectors.entries_by_id(entry_ids)
    if table.round.stage.tournament.is_team_event:
        teams = [
            [m.player for m in entry_team(entries[e]).memberships.order_by("order")]
            for e in entry_ids
        ]
        players, _partition = team_seating([[p.pk for p in t] for t in teams])
        owner = {p.pk: e for e, t in zip(entry_ids, teams, strict=True) for p in t}
        seats = [
            Seat(table=table, position=i, entry_id=owner[p], player_id=p)
            for i, p in enumerate(players)
        ]
    else:
        seats = [
            Seat(table=table, position=i, entry_id=e, player_id=entry_player_id(entries[e]))
            for i, e in enumerate(entry_ids)
        ]
    Seat.objects.bulk_create(seats)
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    table_series_start(table=table)


def table_series_start(*, table: Table) -> Game:
    """Start the table's series (its stage's format) and deal its first game.

    The table's seats must be created; called inside the pairing transaction.
    """
    stage = table.round.stage
    tournament = stage.tournament
    seats = list(table.seats.order_by("position"))
    rules = adapters.table_rules(tournament, len(seats), teams=tournament.is_team_event)
    ladder = tournament.league.rank_ladder if tournament.league is not None else []
    series = Series.start(
        rules,
        stage.series_format,
        stage.series_target,
        [s.position for s in seats],
        **({"ladder": ladder} if ladder else {}),
    )
    table.series_state = {**series.to_dict(), "game_ids": []}
    table.save(update_fields=["series_state"])
    return series_deal(table, series)


def series_deal(table: Table, series: Series) -> Game:
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
