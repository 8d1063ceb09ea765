"""Where a table or a game is played, named the one way every face names it
(``tournaments.wording``: the stage, the round, the table, the game of a series), and the live
tables a reader may watch.

The bracket, the tournament page, the replay (through ``games.hooks.Tables.table_place``), a
player's profile and the home page read their names here, so the same game reads the same on
each of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db.models import Count, Model, OuterRef, Prefetch, QuerySet, Subquery

from games.actors import Actor
from games.models import Game
from tournaments.models import Round, Seat, Stage, Table
from tournaments.selectors.visibility import tournaments_visible_to
from tournaments.wording import game_name, place_name, round_name, stage_name, table_name

_M = TypeVar("_M", bound=Model)

#: How many live tables the home page lists.
WATCH_NOW = 12


def with_stage_rounds(rows: QuerySet[_M], stage: str) -> QuerySet[_M]:
    """``rows`` annotated with what naming their stage takes without a query per row (``stage``:
    the lookup path to it, e.g. ``"round__stage"``): ``stage_rounds``, how many rounds the
    stage has (a knockout round is named by its distance from the final), and ``stage_twins``,
    how many other unnamed stages of its event share its format (then its order tells it
    apart: ``wording.stage_names``)."""
    last = (
        Round.objects.filter(stage_id=OuterRef(f"{stage}_id"))
        .order_by("-number")
        .values("number")[:1]
    )
    twins = (
        Stage.objects.filter(
            tournament_id=OuterRef(f"{stage}__tournament_id"),
            format=OuterRef(f"{stage}__format"),
            name="",
        )
        .exclude(pk=OuterRef(f"{stage}_id"))
        .order_by()
        .values("tournament_id")
        .annotate(n=Count("pk"))
        .values("n")[:1]
    )
    annotated: QuerySet[_M] = rows.annotate(
        stage_rounds=Subquery(last), stage_twins=Subquery(twins)
    )
    return annotated


def round_title(round_: Round, stage_rounds: int | None) -> str:
    """``round_``'s name (its stage selected): "Round 2", or a knockout's "Final"..."""
    return round_name(
        round_.number,
        knockout=round_.stage.format == Stage.Format.KNOCKOUT,
        rounds=stage_rounds,
    )


@dataclass(frozen=True)
class TablePlace:
    """A table named: its event, stage, round and number, and where the event's page shows it
    (the round's anchor, or the bracket's for a knockout)."""

    table_id: int
    status: str
    tournament_slug: str
    tournament_name: str
    stage_order: int
    round_id: int
    knockout: bool
    stage: str
    round: str
    table: str

    @property
    def text(self) -> str:
        return place_name(stage=self.stage, round=self.round, table=self.table)

    def game_text(self, number: int) -> str:
        """Game ``number`` of the table's series, where it was played in one line."""
        return place_name(
            stage=self.stage, round=self.round, table=self.table, game=game_name(number)
        )

    @property
    def anchor(self) -> str:
        """The part of the event's page that shows the table: a knockout's bracket, else its
        round (``site.events.pages.RoundBlock.anchor``)."""
        return f"bracket-{self.stage_order}" if self.knockout else f"round-{self.round_id}"


def place_of(table: Table, annotated: Any) -> TablePlace:
    """``table`` (its round, stage and tournament selected) named; ``annotated``: the row that
    :func:`with_stage_rounds` annotated (the table itself, or its game)."""
    stage = table.round.stage
    stage_rounds = getattr(annotated, "stage_rounds", None)
    twins = getattr(annotated, "stage_twins", None) or 0
    return TablePlace(
        table_id=table.pk,
        status=table.status,
        tournament_slug=stage.tournament.slug,
        tournament_name=stage.tournament.name,
        stage_order=stage.order,
        round_id=table.round_id,
        knockout=stage.format == Stage.Format.KNOCKOUT,
        stage=stage_name(stage.name, stage.format, order=stage.order if twins else None),
        round=round_title(table.round, stage_rounds),
        table=table_name(table.number),
    )


def table_places(table_ids: Iterable[int]) -> dict[int, TablePlace]:
    """The tables ``table_ids`` named, by id, in one query."""
    tables = with_stage_rounds(
        Table.objects.filter(pk__in=list(table_ids))
        .select_related("round__stage__tournament")
        .only(
            "number",
            "status",
            "round__number",
            "round__stage__name",
            "round__stage__format",
            "round__stage__order",
            "round__stage__tournament__slug",
            "round__stage__tournament__name",
        ),
        "round__stage",
    )
    return {t.pk: place_of(t, t) for t in tables}


def round_places(round_ids: Iterable[int]) -> dict[int, str]:
    """The rounds ``round_ids`` named where they are played, by id, in one query: "Swiss ·
    Round 3", "Knockout · Final" (a stage told apart by its order when it has a twin)."""
    rounds = with_stage_rounds(
        Round.objects.filter(pk__in=list(round_ids)).select_related("stage"), "stage"
    )
    names = {}
    for round_ in rounds:
        stage = round_.stage
        twins = getattr(round_, "stage_twins", None) or 0
        names[round_.pk] = place_name(
            stage=stage_name(stage.name, stage.format, order=stage.order if twins else None),
            round=round_title(round_, getattr(round_, "stage_rounds", None)),
        )
    return names


def last_game_id(series_state: Any) -> int | None:
    """The table's last finished game (``Table.series_state["game_ids"]``, which the results
    service appends to as each game of the series ends), or None before the first ends: what a
    finished table's replay link opens (the game that decided the series; the replay lists the
    table's other games)."""
    ids = series_state.get("game_ids") if isinstance(series_state, dict) else None
    if not ids:
        return None
    last = ids[-1]
    return last if isinstance(last, int) else None


def current_game_ids(table_ids: Iterable[int]) -> dict[int, int]:
    """The game in play (or paused) at each of the tables ``table_ids`` that has one, by table
    id: one query (ids only, never a game's state)."""
    ids = list(table_ids)
    if not ids:
        return {}
    current: dict[int, int] = {}
    for table_id, pk in (
        Game.objects.filter(table_id__in=ids, status__in=(Game.Status.ACTIVE, Game.Status.PAUSED))
        .order_by("number", "pk")
        .values_list("table_id", "pk")
    ):
        current[table_id] = pk  # the latest wins
    return current


def with_current_games(
    rows: list[dict[str, Any]], *, current: dict[int, int] | None = None
) -> list[dict[str, Any]]:
    """Table rows (``events.table_rows``, ``brackets.bracket``'s nodes: an ``id`` and a
    ``last_game``) with ``current_game``, the game in play or paused there, and ``game``, the
    one a link from the table opens: the current one, else the last that is over. One query,
    unless the caller knows the games in play (``current``: :func:`current_game_ids`')."""
    if current is None:
        current = current_game_ids(row["id"] for row in rows)
    for row in rows:
        row["current_game"] = current.get(row["id"])
        row["game"] = row["current_game"] or row.get("last_game")
    return rows


@dataclass(frozen=True)
class LiveTable:
    """A table being played now, for the home page's "Watch now"."""

    place: TablePlace
    players: list[str]
    game_number: int


def live_tables(user: Actor | None, limit: int = WATCH_NOW) -> list[LiveTable]:
    """The tables with a game in play in the tournaments ``user`` may watch (``visibility``),
    the most recently dealt first, at most ``limit``: three queries, whatever the number."""
    playing = with_stage_rounds(
        Game.objects.filter(
            status__in=(Game.Status.ACTIVE, Game.Status.PAUSED),
            table__round__stage__tournament__in=tournaments_visible_to(user),
        ),
        "table__round__stage",
    )
    games = list(
        playing.select_related("table__round__stage__tournament")
        .only(
            "number",
            "created_at",
            "table__number",
            "table__status",
            "table__round__number",
            "table__round__stage__name",
            "table__round__stage__format",
            "table__round__stage__order",
            "table__round__stage__tournament__slug",
            "table__round__stage__tournament__name",
        )
        .prefetch_related(
            Prefetch(
                "table__seats",
                queryset=Seat.objects.select_related("player")
                .only("table_id", "position", "player__display_name")
                .order_by("position"),
            )
        )
        .order_by("-created_at", "-pk")[:limit]
    )
    out = []
    for game in games:
        table = game.table
        if table is None:
            continue
        out.append(
            LiveTable(
                place=place_of(table, game),
                players=[seat.player.display_name for seat in table.seats.all()],
                game_number=game.number,
            )
        )
    return out


@dataclass(frozen=True)
class TableLinks:
    """What a table's page links to: where it is on its event's page, and the replays of its
    series' games that are over (id, number), in order; ``replay``: the last of them (the one a
    finished table opens)."""

    place: TablePlace
    replays: list[tuple[int, int]]

    @property
    def replay(self) -> int | None:
        return self.replays[-1][0] if self.replays else None


def table_links(table_id: int) -> TableLinks | None:
    """The table's place and its replayable games: two queries (None: no such table)."""
    place = table_places([table_id]).get(table_id)
    if place is None:
        return None
    over = (
        Game.objects.filter(table_id=table_id, status__in=Game.OVER, seed_revealed=True)
        .order_by("number", "pk")
        .values_list("pk", "number")
    )
    return TableLinks(place=place, replays=list(over))
