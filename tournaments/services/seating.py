"""Seating a table, dealing the games of its series, and seats handed over to bots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext

from durak_site.errors import Forbidden
from games.actors import Actor
from games.engine.bots import bind_partners
from games.engine.series import Series
from games.models import Game
from games.services import STAND_IN, Deal, game_create, game_hand_seat_to_bot, games_create
from tournaments import adapters, selectors
from tournaments.errors import StateError
from tournaments.models import (
    AuditEvent,
    Entry,
    Player,
    Seat,
    Stage,
    Table,
    Team,
    Tournament,
)
from tournaments.pairing import (
    team_seating,
)
from tournaments.permissions import can_referee
from tournaments.services.audit import audit_record


def entry_team(entry: Entry) -> Team:
    """The team of a team event's entry (an entry is a player's or a team's, never both:
    the ``entry_player_xor_team`` constraint)."""
    assert entry.team is not None, f"entry {entry.pk} is a player's, not a team's"
    return entry.team


def entry_player_id(entry: Entry) -> int:
    """The player of a single-player event's entry (see :func:`entry_team`)."""
    assert entry.player_id is not None, f"entry {entry.pk} is a team's, not a player's"
    return entry.player_id


def absent_after(tournament: Tournament) -> int | None:
    """The delay before a bot stands in for an absent player in ``tournament``'s games
    (``Game.absent_after``, ``services.automation``): its seconds for **absent**, 0 for
    **empty**, None otherwise (for **all** every seat is a bot's from the start)."""
    if tournament.absent_bots == Tournament.AbsentBots.ABSENT:
        return tournament.absent_bots_seconds
    if tournament.absent_bots == Tournament.AbsentBots.EMPTY:
        return 0
    return None


def every_seat_reason() -> str:
    """Why a seat of an event that bots play to the end went to a bot (its audit row)."""
    return gettext("bots play every seat to the end of the event")


def table_seat(table: Table, entry_ids: Sequence[int]) -> None:
    """Seat ``entry_ids`` (seat order) at ``table`` and deal the first game of its series; in
    an event that bots play to the end (``Tournament.AbsentBots.ALL``) every person's seat goes
    to a bot, audited in the system's name."""
    entries = selectors.entries_by_id(entry_ids)
    tournament = table.round.stage.tournament
    seats = _table_seats(table, entry_ids, entries, tournament)
    handed = _every_seat_to_bots(tournament, seats)
    Seat.objects.bulk_create(seats)
    _audit_handed(tournament, table, handed)
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    table_series_start(table=table)


def tables_seat(
    tables: Sequence[tuple[Table, Sequence[int]]], *, entries: Mapping[int, Entry] | None = None
) -> list[Game]:
    """Create the unsaved tables of one round, each with its entries (seat order): seated,
    their series started and their first games dealt, as :func:`table_seat` does one saved
    table, in a few statements for the whole round (the tables, the seats, the games: one
    insert each, ``games.services.games_create``) instead of a dozen per table. Returns the
    games. ``entries``: the entries by id, their players and teams selected, if the caller has
    them (``selectors.entries_by_id``)."""
    if not tables:
        return []
    round_ = tables[0][0].round
    stage = round_.stage
    tournament = stage.tournament
    wanted = {e for _table, ids in tables for e in ids}
    if entries is None or not wanted <= entries.keys():
        entries = selectors.entries_by_id(wanted)
    by_table = [_table_seats(table, ids, entries, tournament) for table, ids in tables]
    handed = {
        id(seat) for seat in _every_seat_to_bots(tournament, [s for ss in by_table for s in ss])
    }
    started = []
    for (table, _ids), seats in zip(tables, by_table, strict=True):
        series = _series_start(tournament, stage, seats)
        table.status = Table.Status.PLAYING
        table.series_state = {**series.to_dict(), "game_ids": []}
        started.append(series)
    Table.objects.bulk_create([table for table, _ids in tables])
    for (table, _ids), seats in zip(tables, by_table, strict=True):
        for seat in seats:
            seat.table = table  # its id, now that the table has one
    Seat.objects.bulk_create([seat for seats in by_table for seat in seats])
    for table, seats in zip((t for t, _ids in tables), by_table, strict=True):
        _audit_handed(tournament, table, [seat for seat in seats if id(seat) in handed])
    return games_create(
        [
            _deal(table, {seat.position: seat for seat in seats}, series, tournament, number=1)
            for (table, _ids), seats, series in zip(tables, by_table, started, strict=True)
        ]
    )


def _table_seats(
    table: Table, entry_ids: Sequence[int], entries: Mapping[int, Entry], tournament: Tournament
) -> list[Seat]:
    """The unsaved seats of ``entry_ids`` at ``table``, their players selected: an entry's
    player, or the members of a team event's entries, seated by ``team_seating``."""
    if tournament.is_team_event:
        teams = [
            [m.player for m in entry_team(entries[e]).memberships.order_by("order")]
            for e in entry_ids
        ]
        players, _partition = team_seating([[p.pk for p in t] for t in teams])
        owner = {p.pk: e for e, t in zip(entry_ids, teams, strict=True) for p in t}
        member = {p.pk: p for t in teams for p in t}
        return [
            Seat(table=table, position=i, entry_id=owner[p], player=member[p])
            for i, p in enumerate(players)
        ]
    seats = []
    for i, e in enumerate(entry_ids):
        entry = entries[e]
        entry_player_id(entry)  # a player's entry
        assert entry.player is not None
        seats.append(Seat(table=table, position=i, entry_id=e, player=entry.player))
    return seats


def _audit_handed(tournament: Tournament, table: Table, handed: Sequence[Seat]) -> None:
    for seat in handed:
        audit_record(
            actor=None,
            action=AuditEvent.Action.SEAT_BOT,
            tournament=tournament,
            target=table,
            reason=every_seat_reason(),
            before={"seat": seat.position, "player": seat.player.display_name},
            after={"bot": seat.bot_kind},
        )


def _every_seat_to_bots(tournament: Tournament, seats: list[Seat]) -> list[Seat]:
    """In an event that bots play to the end, the unsaved ``seats`` of people go to a bot;
    returns those (their players selected)."""
    if tournament.absent_bots != Tournament.AbsentBots.ALL:
        return []
    people = Player.objects.in_bulk([seat.player_id for seat in seats])
    handed = []
    for seat in seats:
        player = people[seat.player_id]
        if not player.is_bot:
            seat.player, seat.bot_kind = player, STAND_IN
            handed.append(seat)
    return handed


def seat_alone(table: Table, entry_id: int) -> Seat:
    """Seat one entry alone at a bye (or a knockout's walkover) table: its player, or its
    team's first member; no game is dealt."""
    entry = Entry.objects.select_related("player", "team").get(pk=entry_id)
    player_id = entry.player_id or entry_team(entry).memberships.order_by("order")[0].player_id
    return Seat.objects.create(table=table, position=0, entry=entry, player_id=player_id)


def table_series_start(*, table: Table) -> Game:
    """Start the table's series (its stage's format) and deal its first game.

    The table's seats must be created; called inside the pairing transaction.
    """
    stage = table.round.stage
    seats = list(table.seats.order_by("position"))
    series = _series_start(stage.tournament, stage, seats)
    table.series_state = {**series.to_dict(), "game_ids": []}
    table.save(update_fields=["series_state"])
    return series_deal(table, series)


def _series_start(tournament: Tournament, stage: Stage, seats: Sequence[Seat]) -> Series:
    rules = adapters.table_rules(tournament, len(seats), teams=tournament.is_team_event)
    ladder = tournament.league.rank_ladder if tournament.league is not None else []
    return Series.start(
        rules,
        stage.series_format,
        stage.series_target,
        [s.position for s in seats],
        **({"ladder": ladder} if ladder else {}),
    )


def series_deal(table: Table, series: Series) -> Game:
    seats = {s.position: s for s in Seat.objects.filter(table=table).select_related("player")}
    tournament = table.round.stage.tournament
    deal = _deal(table, seats, series, tournament, number=table.games.count() + 1)
    return game_create(
        rules=deal.rules,
        players=deal.players,
        bot_seats=deal.bot_seats,
        table=table,
        number=deal.number,
        setup=deal.setup,
        clock_seconds=deal.clock_seconds,
        absent_after=deal.absent_after,
    )


def _deal(
    table: Table, seats: dict[int, Seat], series: Series, tournament: Tournament, *, number: int
) -> Deal:
    """The next game of ``table``'s series: its players by seat (``seats`` by position, their
    players selected) and bots."""
    nxt = series.next_game_setup()
    dealt = [seats[s] for s in nxt.seats]
    return Deal(
        rules=nxt.rules.to_dict(),
        players=[seat.player_id for seat in dealt],
        bot_seats={g: bot for g, bot in enumerate(table_bots(dealt)) if bot},
        table=table,
        number=number,
        setup=nxt.hooks(),
        clock_seconds=tournament.move_clock_seconds,
        absent_after=absent_after(tournament),
    )


def seat_bot(seat: Seat) -> str:
    """The bot that plays ``seat`` ("" for a person): the one a referee handed it to, else the
    bot player's own kind."""
    if seat.bot_kind:
        return seat.bot_kind
    return (seat.player.bot_kind or "heuristic") if seat.player.is_bot else ""


def table_bots(dealt: Sequence[Seat]) -> list[str]:
    """The bot of each game seat ("" for a person), the seats in game order: each seat's
    :func:`seat_bot`, a colluder's pair tag bound to its partner's game seat at this table
    (``games.engine.bots.bind_partners``; simulated events only, issue 24)."""
    return bind_partners([seat_bot(seat) for seat in dealt])


def table_started(table: Table) -> bool:
    """Has play begun at ``table``: a move made in one of its games, a game ended by a referee,
    or a result (a bye's does not count)? Seats are swapped and rounds paired again only before."""
    if table.is_bye:
        return False
    # A game a referee ended (adjudicated or voided) before anyone moved counts as play too.
    played = table.games.filter(Q(version__gt=0) | Q(status__in=Game.OVER))
    return table.results.exists() or played.exists()


def seats_hand_to_bots(
    *, seats: Sequence[Seat], actor: Actor | None, reason: str, kind: str = STAND_IN
) -> int:
    """Hand ``seats`` (of playing tables) to bots of ``kind`` for the rest of their tables'
    series: the seat's current game at once, the later games as they are dealt. Seats already
    played by a bot are left as they are; returns how many were handed over. Needs a reason;
    audited. A referee of the seats' event (``actor`` None: the system, for an event that bots
    play to the end). Locks each table row, then its current game's."""
    if not reason.strip():
        raise StateError(gettext("handing a seat to a bot needs a reason"))
    handed = 0
    with transaction.atomic():
        for given in sorted(seats, key=lambda s: (s.table_id, s.position)):
            table = (
                Table.objects.select_for_update(no_key=True)
                .select_related("round__stage__tournament")
                .get(pk=given.table_id)
            )
            tournament = table.round.stage.tournament
            if actor is not None and not can_referee(actor, tournament):
                raise Forbidden(
                    gettext("only a referee of this tournament can hand its seats to bots")
                )
            if table.status != Table.Status.PLAYING or table.is_bye:
                raise StateError(
                    gettext("%(table)s is not playing: its seats cannot be handed to a bot")
                    % {"table": table}
                )
            seat = Seat.objects.select_related("player").get(pk=given.pk)
            if seat_bot(seat):
                continue
            Seat.objects.filter(pk=seat.pk).update(bot_kind=kind)
            game = table.games.exclude(status__in=Game.OVER).order_by("-number").first()
            if game is not None:
                game_hand_seat_to_bot(
                    game_id=game.pk, seat=game.players.index(seat.player_id), kind=kind
                )
            audit_record(
                actor=actor,
                action=AuditEvent.Action.SEAT_BOT,
                tournament=tournament,
                target=table,
                reason=reason,
                before={"seat": seat.position, "player": seat.player.display_name},
                after={"bot": kind},
            )
            handed += 1
    return handed
