"""What the people pages show, each in a fixed number of queries whatever the size.

- a player's profile: the API's profile (``selectors.people.player_profile``: rating history, ranks,
  tournaments, all limited to what the viewer may read) plus the rating plot's geometry and
  the player's recent games;
- a league season: the league table (``selectors.leagues.league_standings``), the
  season's tournaments the viewer may read and a ratings leaderboard;
- the list of leagues.

Reads only; the views (``views.py``) are thin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext

from games.actors import Actor
from games.models import Game
from tournaments.models import Entry, League, Player, Seat, Tournament
from tournaments.selectors import visibility
from tournaments.selectors.leagues import LeagueLine, Rating, league_standings
from tournaments.selectors.people import player_names, player_profile
from tournaments.selectors.play import place_of, with_stage_rounds
from tournaments.selectors.visibility import leagues_visible_to
from tournaments.site.people.charts import LineChart, line_chart
from tournaments.wording import Badge, rank_title, status_badge

#: How many of a player's games the profile lists, newest first.
RECENT_GAMES = 20
#: How many players the league's ratings leaderboard shows before "show all".
LEADERBOARD_TOP = 20


# --- a player's profile -------------------------------------------------------------------------


@dataclass(frozen=True)
class RatingPoint:
    """The rating after a tournament (or at the start, before the first one)."""

    label: str
    slug: str  # the tournament's ("" for the start)
    at: datetime | None
    mu: float
    sigma: float
    ordinal: float
    change: float | None  # of the ordinal, against the point before (None for the first)


@dataclass(frozen=True)
class RecentGame:
    id: int
    number: int  # in the table's series
    tournament: Tournament | None
    table_id: int | None
    round: int | None
    where: str  # "Knockout · Final · Table 1 · game 2" (``selectors.play``, ``wording``)
    status: str
    over: bool
    opponents: list[tuple[int, str]]
    partners: list[tuple[int, str]]  # in a team event: the player's partners at the table
    place: int | None  # 1, 2, …; None: not over, voided, or not seated
    players: int
    fool: bool
    draw: bool
    at: datetime


@dataclass(frozen=True)
class PlayerPage:
    player: Player
    profile: dict[str, Any]  # ``selectors.people.player_profile``
    points: list[RatingPoint]
    chart: LineChart | None  # None: no rated tournament yet
    current_rank: dict[str, Any] | None  # the newest rank record with a rank
    pogony_given: int
    pogony_received: int
    tournaments: list[dict[str, Any]]  # the profile's, with the statuses' words
    games: list[RecentGame] = field(default_factory=list)


def rating_points(history: list[dict[str, Any]]) -> list[RatingPoint]:
    """The rating before the first rated tournament, then after each (oldest first)."""
    if not history:
        return []
    first = history[0]
    points = [
        RatingPoint(
            gettext("start"),
            "",
            None,
            first["mu_before"],
            first["sigma_before"],
            first["ordinal_before"],
            None,
        )
    ]
    for change in history:
        points.append(
            RatingPoint(
                change["tournament"]["name"],
                change["tournament"]["slug"],
                change["at"],
                change["mu_after"],
                change["sigma_after"],
                change["ordinal_after"],
                change["ordinal_after"] - points[-1].ordinal,
            )
        )
    return points


def rating_chart(points: list[RatingPoint]) -> LineChart | None:
    """μ and the ordinal μ − 3σ over the tournaments, the band between them being 3σ: the
    uncertainty the rating sheds as a player plays."""
    if not points:
        return None
    # The axis counts the rated tournaments (names are too long for it, and several can end on
    # one day); each point's tooltip and the table under the plot name them.
    labels = [gettext("start"), *(str(i) for i in range(1, len(points)))]
    return line_chart(
        labels,
        {"mu": [p.mu for p in points], "ordinal": [p.ordinal for p in points]},
        band=("mu", "ordinal"),
        tips=[p.label for p in points],
    )


def recent_games(player: Player, user: Actor | None, limit: int = RECENT_GAMES) -> list[RecentGame]:
    """The player's newest games at the tables of tournaments ``user`` may read (two queries:
    the games with their tables and tournaments, then every opponent's name)."""
    games = list(
        with_stage_rounds(
            Game.objects.filter(
                table__in=Seat.objects.filter(player=player).values("table_id"),
                table__round__stage__tournament__in=visibility.tournaments_visible_to(user),
            ),
            "table__round__stage",
        )
        .select_related("table__round__stage__tournament")
        .defer("state", "log_tail", "table__series_state")
        .order_by("-created_at", "-pk")[:limit]
    )
    others = {p for g in games for p in g.players if isinstance(p, int) and p != player.pk}
    names = player_names(others)
    rows = []
    for game in games:
        seats = list(game.players)
        seat = seats.index(player.pk) if player.pk in seats else None
        result = game.result if isinstance(game.result, dict) else {}
        places = list(result.get("places") or [])
        table = game.table
        team: list[int] = next((t for t in game.rules.get("teams") or [] if seat in t), [])
        people = [
            (s, p, names.get(p, "?"))
            for s, p in enumerate(seats)
            if isinstance(p, int) and p != player.pk
        ]
        rows.append(
            RecentGame(
                id=game.pk,
                number=game.number,
                tournament=table.round.stage.tournament if table is not None else None,
                table_id=game.table_id,
                round=table.round.number if table is not None else None,
                where="" if table is None else place_of(table, game).game_text(game.number),
                status=game.status,
                over=game.is_over and game.seed_revealed,
                opponents=[(p, name) for s, p, name in people if s not in team],
                partners=[(p, name) for s, p, name in people if s in team],
                place=places.index(seat) + 1
                if seat is not None and seat in places and game.status != Game.Status.VOIDED
                else None,
                players=len(seats),
                fool=seat is not None and result.get("fool") == seat,
                draw=bool(result.get("draw")),
                at=game.finished_at or game.created_at,
            )
        )
    return rows


def _rank_words(rank: dict[str, Any]) -> dict[str, Any]:
    """A rank record of the profile (``selectors.people.player_profile``) with its ranks in the
    reader's language."""
    return {
        **rank,
        "rank": rank_title(rank["rank"]),
        "history": [
            {**step, "before": rank_title(step["before"]), "after": rank_title(step["after"])}
            for step in rank["history"]
        ],
    }


def player_page(player_id: int, user: Actor | None) -> PlayerPage | None:
    """The profile page of player ``player_id`` as ``user`` may read it, or None for no such
    player. Bots have profiles too."""
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        return None
    profile = player_profile(player, user)
    points = rating_points(profile["rating_history"])
    ranks = [_rank_words(r) for r in profile["ranks"]]
    profile = {**profile, "ranks": ranks}
    own = [r for r in ranks if r["scope"] == "tournament"]
    return PlayerPage(
        player=player,
        profile=profile,
        points=points,
        chart=rating_chart(points),
        current_rank=next((r for r in ranks if r["rank"]), None),
        pogony_given=sum(r["pogony_given"] for r in own),
        pogony_received=sum(r["pogony_received"] for r in own),
        tournaments=[
            {
                **row,
                "badge": status_badge("tournament", row["tournament"]["status"]),
                "entry_label": Entry.Status(row["entry_status"]).label,
            }
            for row in profile["tournaments"]
        ],
        games=recent_games(player, user),
    )


# --- leagues --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RatedLine:
    """A player of the league table on the ratings leaderboard."""

    rating_place: int
    player_id: int
    name: str
    rating: Rating


@dataclass(frozen=True)
class LeaguePage:
    league: League
    seasons: list[League]  # every season of the league's slug the viewer may read, newest first
    counted: int  # finished tournaments the table counts
    rows: list[LeagueLine]
    error: str  # why the table could not be computed ("" if it could)
    tournaments: Sequence[Tournament]  # with ``entries_count``
    leaderboard: list[RatedLine]  # players of the table by rating (ordinal), best first

    @property
    def events(self) -> list[tuple[Tournament, Badge]]:
        """The tournaments, each with its status badge (``wording.status_badge``)."""
        return [(t, status_badge("tournament", t.status)) for t in self.tournaments]

    @property
    def leaderboard_top(self) -> list[RatedLine]:
        return self.leaderboard[:LEADERBOARD_TOP]

    @property
    def leaderboard_rest(self) -> list[RatedLine]:
        return self.leaderboard[LEADERBOARD_TOP:]


def league_seasons(slug: str, user: Actor | None) -> list[League]:
    """The seasons of the league ``slug`` that ``user`` may read, newest first."""
    return list(leagues_visible_to(user).filter(slug=slug).order_by("-season", "-pk"))


def league_page(slug: str, season: str, user: Actor | None) -> LeaguePage | None:
    """The season ``season`` of the league ``slug`` as ``user`` may read it, or None (no such
    season, or none of its tournaments is readable by ``user``)."""
    seasons = league_seasons(slug, user)
    league = next((s for s in seasons if s.season == season), None)
    if league is None:
        return None
    table = league_standings(league, among=visibility.tournaments_visible_to(user))
    tournaments = list(
        visibility.tournaments_visible_to(user)
        .filter(league=league)
        .annotate(entries_count=Count("entries"))
        .order_by("-created_at", "-pk")
    )
    rated = [
        (line.player_id, line.name, line.rating)
        for line in table.lines
        if line.player_id is not None and line.rating is not None
    ]
    by_rating = sorted(rated, key=lambda r: (-r[2].ordinal, r[1]))
    leaderboard = [
        RatedLine(place, player_id, name, rating)
        for place, (player_id, name, rating) in enumerate(by_rating, 1)
    ]
    lines = [replace(line, rank=rank_title(line.rank)) for line in table.lines]
    return LeaguePage(league, seasons, table.counted, lines, table.error, tournaments, leaderboard)


def league_list(user: Actor | None, limit: int | None = None) -> list[League]:
    """The leagues with a tournament ``user`` may read, newest season first (the first
    ``limit``), each with how many of its tournaments ``user`` may read (``events``): one
    query."""
    visible = visibility.tournaments_visible_to(user)
    leagues = (
        leagues_visible_to(user)
        .annotate(events=Count("tournaments", filter=Q(tournaments__in=visible), distinct=True))
        .order_by("-season", "name", "pk")
    )
    return list(leagues[:limit] if limit is not None else leagues)
