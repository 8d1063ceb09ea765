"""A league's table: the one builder the console's league page, the API and the public league
pages read.

``scoring.league_table`` over the final places of the league's finished tournaments (a player,
or a team, is one line over every tournament; a disqualified entry keeps its place and scores
nothing: ``docs/leaving.md``), by the league's points scale, with each player's rank (звание) in
the league and current rating. Three queries, however many tournaments and entries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from django.db.models import QuerySet

from tournaments.models import Entry, League, RankRecord, Tournament
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.ratings import (
    DEFAULT_LEAGUE_SCALE,
    LeagueScale,
    TournamentPlaces,
    league_table,
)


@dataclass(frozen=True)
class Rating:
    """A player's current rating (OpenSkill): ``ordinal`` = mu - 3 sigma; ``displayed``, the
    ordinal on the Elo-like scale people read (``scoring.ratings.displayed_rating``)."""

    ordinal: float
    mu: float
    sigma: float
    displayed: int


@dataclass(frozen=True)
class LeagueLine:
    position: int  # strict, after the seeded draw
    place: int  # shared by entries the tie-breaks could not separate
    name: str
    player_id: int | None
    team_id: int | None
    points: Fraction
    played: int
    first_places: int
    places: list[int]  # its final place in each tournament, best first
    decided_by: str  # the criterion that put it below the line before; "" on the first
    rank: str  # the player's rank (звание) in the league, "" for none (and for a team)
    rating: Rating | None  # None for a team


@dataclass(frozen=True)
class LeagueTable:
    counted: int  # how many finished tournaments the table adds up
    lines: list[LeagueLine]
    error: str  # why the table could not be computed, "" when it could


def league_places(entries: Iterable[Entry]) -> tuple[list[TournamentPlaces], dict[str, Entry]]:
    """The finished tournaments' final places a league table adds up (``scoring.league_table``),
    from their placed ``entries`` (ordered by tournament and place): a player, or a team, is
    one name (``player:<id>``, ``team:<id>``) over every tournament; a disqualified entry keeps
    its last place and scores no points (``docs/leaving.md``). Returns the places and, for each
    name, its first entry (for its name and player)."""
    places: dict[int, list[tuple[str, int]]] = {}
    forfeited: dict[int, set[str]] = {}
    who: dict[str, Entry] = {}
    for entry in entries:
        key = f"player:{entry.player_id}" if entry.player_id else f"team:{entry.team_id}"
        who.setdefault(key, entry)
        places.setdefault(entry.tournament_id, []).append((key, entry.final_place or 0))
        if entry.status == Entry.Status.DISQUALIFIED:
            forfeited.setdefault(entry.tournament_id, set()).add(key)
    return [
        TournamentPlaces(str(pk), tuple(p), frozenset(forfeited.get(pk, ())))
        for pk, p in places.items()
    ], who


def league_standings(league: League, *, among: QuerySet[Tournament]) -> LeagueTable:
    """The table of ``league`` over its finished tournaments in ``among``: the public faces
    pass the tournaments their reader may read (``visibility.tournaments_visible_to``: a
    private event's players and places stay out of everybody else's table), the console the
    league's every one. Three queries."""
    finished = among.filter(league=league, status=Tournament.Status.FINISHED)
    entries = list(
        Entry.objects.filter(tournament__in=finished, final_place__isnull=False)
        .select_related("player", "team")
        .order_by("tournament_id", "final_place", "pk")
    )
    rank_of = dict(RankRecord.objects.filter(league=league).values_list("player_id", "rank"))
    places, who = league_places(entries)
    try:
        scale = LeagueScale(points=tuple(league.points_scale or DEFAULT_LEAGUE_SCALE))
        rows = league_table(places, scale, seed=f"league:{league.pk}")
    except ScoringError as exc:
        return LeagueTable(len(places), [], str(exc))
    lines = []
    for row in rows:
        entry = who[row.entry]
        player = entry.player
        lines.append(
            LeagueLine(
                position=row.position,
                place=row.rank,
                name=entry.name,
                player_id=player.pk if player else None,
                team_id=entry.team_id,
                points=row.points,
                played=row.played,
                first_places=row.first_places,
                places=[
                    place for place, times in sorted(row.placings.items()) for _ in range(times)
                ],
                decided_by=row.decided_by or "",
                rank=rank_of.get(player.pk, "") if player else "",
                rating=None
                if player is None
                else Rating(
                    player.rating_ordinal,
                    player.rating_mu,
                    player.rating_sigma,
                    player.rating_displayed,
                ),
            )
        )
    return LeagueTable(len(places), lines, "")
