"""Reads of "my games": where a player sits now, their entries, their history and their
games. A fixed number of queries whatever the player's record (each list is bounded)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Q

from games.models import Game
from tournaments.models import Entry, Payout, Player, RankRecord, Seat, Table, Tournament
from tournaments.money import money
from tournaments.selectors import visibility
from tournaments.selectors.play import place_of, table_places, with_stage_rounds
from tournaments.site.accounts.panel import EntryPanel, build_panel, playing_seats
from tournaments.wording import game_name, rank_title

#: How many of a player's past games and finished tournaments "my games" lists.
RECENT_GAMES = 20
RECENT_TOURNAMENTS = 30
#: How many open tournaments it offers to enter.
OPEN_OFFERS = 10


@dataclass(frozen=True)
class SeatNow:
    """A table where the player sits now."""

    table: Table
    tournament: Tournament
    game: Game | None
    opponents: list[str]
    by_bot: bool  # a referee handed the seat to a bot
    where: str  # "Swiss · Round 2 · Table 3" (``selectors.play``)

    @property
    def game_name(self) -> str:
        return game_name(self.game.number) if self.game is not None else ""


@dataclass(frozen=True)
class PastGame:
    game: Game
    tournament: Tournament
    table: Table
    opponents: list[str]
    #: "fool", "draw", "out" (out of cards, with ``place``), "voided" or "adjudicated".
    outcome: str
    place: int | None
    where: str  # "Knockout · Final · Table 1 · game 2" (``selectors.play``)


@dataclass(frozen=True)
class FinishedEntry:
    entry: Entry
    tournament: Tournament
    place: int | None
    payout: str
    rank: str


@dataclass
class MyGames:
    player: Player | None
    seated: list[SeatNow] = field(default_factory=list)
    #: Entries in tournaments that have not finished, with their panels.
    current: list[EntryPanel] = field(default_factory=list)
    #: Open tournaments the player has not entered, with their panels.
    open: list[EntryPanel] = field(default_factory=list)
    history: list[FinishedEntry] = field(default_factory=list)
    games: list[PastGame] = field(default_factory=list)


def _mine(player: Player) -> Q:
    """The entries that are the player's: their own, or their team's."""
    return Q(player=player) | Q(team__members=player)


def _names(ids: set[int]) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))


def _seated(player: Player) -> list[SeatNow]:
    seats = list(playing_seats(player))
    tables = [s.table_id for s in seats]
    games: dict[int, Game] = {}
    for game in Game.objects.filter(table_id__in=tables).order_by("table_id", "number"):
        assert game.table_id is not None
        games[game.table_id] = game  # the last one of each table's series
    others = Seat.objects.filter(table_id__in=tables).exclude(player=player)
    opponents: dict[int, list[str]] = {}
    for table_id, name in others.order_by("position").values_list(
        "table_id", "player__display_name"
    ):
        opponents.setdefault(table_id, []).append(name)
    places = table_places(tables)
    return [
        SeatNow(
            table=s.table,
            tournament=s.table.round.stage.tournament,
            game=games.get(s.table_id),
            opponents=opponents.get(s.table_id, []),
            by_bot=bool(s.bot_kind),
            where=places[s.table_id].text if s.table_id in places else "",
        )
        for s in seats
    ]


def _outcome(game: Game, seat: int | None) -> tuple[str, int | None]:
    if game.status == Game.Status.VOIDED or not game.result:
        return "voided", None
    result: dict[str, Any] = game.result
    places = list(result.get("places") or [])
    place = places.index(seat) + 1 if seat in places else None
    if result.get("fool") == seat and seat is not None:
        return "fool", place
    if result.get("draw") and result.get("fool") is None and place == len(places):
        return "draw", place
    if game.status == Game.Status.ADJUDICATED:
        return "adjudicated", place
    return "out", place


def _games(player: Player) -> list[PastGame]:
    rows = list(
        with_stage_rounds(
            Game.objects.filter(table__seats__player=player, status__in=Game.OVER),
            "table__round__stage",
        )
        .select_related("table__round__stage__tournament")
        .order_by("-finished_at", "-pk")
        .distinct()[:RECENT_GAMES]
    )
    names = _names({p for g in rows for p in g.players if isinstance(p, int)})
    out = []
    for game in rows:
        assert game.table is not None
        seat = game.players.index(player.pk) if player.pk in game.players else None
        outcome, place = _outcome(game, seat)
        out.append(
            PastGame(
                game=game,
                tournament=game.table.round.stage.tournament,
                table=game.table,
                opponents=[names.get(p, "?") for p in game.players if p != player.pk],
                outcome=outcome,
                place=place,
                where=place_of(game.table, game).game_text(game.number),
            )
        )
    return out


def _history(player: Player) -> list[FinishedEntry]:
    entries = list(
        Entry.objects.filter(_mine(player), tournament__status=Tournament.Status.FINISHED)
        .select_related("tournament")
        .order_by("-tournament__finished_at", "-pk")
        .distinct()[:RECENT_TOURNAMENTS]
    )
    ids = [e.pk for e in entries]
    payouts: dict[int, Decimal] = dict(
        Payout.objects.filter(entry_id__in=ids, final=True).values_list("entry_id", "amount")
    )
    ranks = dict(
        RankRecord.objects.filter(
            player=player, tournament_id__in=[e.tournament_id for e in entries]
        ).values_list("tournament_id", "rank")
    )
    return [
        FinishedEntry(
            entry=e,
            tournament=e.tournament,
            place=e.final_place,
            payout=money(payouts[e.pk], e.tournament.currency) if payouts.get(e.pk) else "",
            rank=rank_title(ranks.get(e.tournament_id, "")),
        )
        for e in entries
    ]


def my_games(*, user: Any, next: str) -> MyGames:
    """Everything "my games" shows ``user`` (``next``: where the panels' buttons come back)."""
    player = Player.objects.filter(user=user).first() if user.is_authenticated else None
    if player is None:
        return MyGames(player=None)
    current_entries = list(
        Entry.objects.filter(
            _mine(player),
            tournament__status__in=[Tournament.Status.REGISTRATION, Tournament.Status.RUNNING],
        )
        .select_related("tournament", "team")
        .order_by("tournament__started_at", "tournament__created_at")
        .distinct()
    )
    entered = {e.tournament_id for e in current_entries}
    offers = list(
        visibility.tournaments_visible_to(user)
        .filter(status=Tournament.Status.REGISTRATION, registration_closed_at__isnull=True)
        .exclude(pk__in=entered)
        .exclude(entries__player=player)
        .order_by("created_at")[:OPEN_OFFERS]
    )

    seated = _seated(player)
    tables = {s.tournament.pk: s.table for s in reversed(seated)}  # the newest wins

    def panel(tournament: Tournament, entry: Entry | None) -> EntryPanel:
        return build_panel(
            tournament=tournament,
            user=user,
            player=player,
            entry=entry,
            next=next,
            table=tables.get(tournament.pk),
        )

    return MyGames(
        player=player,
        seated=seated,
        current=[panel(e.tournament, e) for e in current_entries],
        open=[panel(t, None) for t in offers if not t.is_team_event],
        history=_history(player),
        games=_games(player),
    )
