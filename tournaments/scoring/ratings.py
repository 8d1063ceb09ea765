"""Skill ratings (OpenSkill Plackett–Luce) and the league table (tournaments.md, "League").

Ratings: each table is a finishing order of 2–6 sides (a side is one player, or a team at team
tables). Rank 1 is the first out; a draw gives the drawn sides the same rank; in team play the
losing team (``team_lost``) ranks below the others, which share rank 1. Games are applied in the
order given, so pass them in the order played; the update is plain arithmetic on floats, so the
same games in the same order give the same ratings bit for bit. ``ordinal`` (mu − 3·sigma, the
usual conservative estimate) is what the seeding and the displays use.

League table readings: a tournament's final places (competition ranking, ties allowed) score by a
configurable scale, default 25, 18, 15, 12, 10, 8, 6, 4, 2, 1 for places 1–10 and
``beyond`` (default 0) after that; tied entries share the points of the places they cover, as a
draw does. Tie-breaks, in a configured order, from: points, first places (tournament wins),
countback (more 1st places, then more 2nd places, ...), tournaments played (more is better), and
always last a seeded random draw.

>>> new = rate({}, [RatedTable(sides=(("ann",), ("bob",), ("cid",)), ranks=(1, 2, 3))])
>>> new["ann"].mu > 25 > new["cid"].mu
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import Literal, get_args

from openskill.models import PlackettLuce, PlackettLuceRating

from tournaments.scoring._common import Exact, draw_key, place_groups, to_fraction
from tournaments.scoring.errors import RatingError, ScoringError
from tournaments.scoring.results import TableResult

__all__ = [
    "DEFAULT_LEAGUE_SCALE",
    "ELO_MIDDLE",
    "ELO_PER_MU",
    "LEAGUE_TIE_BREAKS",
    "LeagueRow",
    "LeagueScale",
    "RatedTable",
    "Rating",
    "RatingConfig",
    "TournamentPlaces",
    "displayed_rating",
    "league_table",
    "mu_from_elo",
    "rate",
    "rated_table",
]


@dataclass(frozen=True)
class Rating:
    """A player's skill: mean ``mu`` and uncertainty ``sigma``.

    >>> Rating(25.0, 25 / 3).ordinal
    0.0
    """

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate mu − 3·sigma, for display and seeding."""
        return self.mu - 3 * self.sigma

    @property
    def displayed(self) -> int:
        """The ordinal on the Elo-like scale people read (:func:`displayed_rating`)."""
        return displayed_rating(self.mu, self.sigma)


@dataclass(frozen=True)
class RatingConfig:
    """The Plackett–Luce model's parameters (OpenSkill's defaults)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    kappa: float = 0.0001
    tau: float = 25.0 / 300.0

    def initial(self) -> Rating:
        """The rating of a player never rated before."""
        return Rating(self.mu, self.sigma)


#: The Elo-like scale of the displayed rating and of the imported strengths: the default
#: player (mu 25, sigma 25/3, so an ordinal of 0) is 1500, and one mu is 40 points.
ELO_MIDDLE, ELO_PER_MU = 1500.0, 40.0


def mu_from_elo(elo: float, config: RatingConfig | None = None) -> float:
    """The ``mu`` of a player given an Elo-like strength (a club's list), with the default
    sigma: the inverse of :func:`displayed_rating` for a player not yet rated.

    >>> mu_from_elo(1900), mu_from_elo(700)
    (35.0, 5.0)
    """
    sigma = (config or RatingConfig()).sigma
    return 3 * sigma + (elo - ELO_MIDDLE) / ELO_PER_MU


def displayed_rating(mu: float, sigma: float) -> int:
    """The rating people read: the conservative ordinal ``mu - 3 sigma`` on the Elo-like scale,
    ``round(1500 + 40 * (mu - 3 sigma))``. A new player shows 1500, one imported at 1900 Elo
    shows 1900 until it plays (:func:`mu_from_elo`); it rises as ``sigma`` shrinks with the
    games played, and orders players as the seeding does (by the ordinal).

    >>> displayed_rating(25.0, 25 / 3), displayed_rating(mu_from_elo(1900), 25 / 3)
    (1500, 1900)
    >>> displayed_rating(30.0, 2.0)
    2460
    """
    return round(ELO_MIDDLE + ELO_PER_MU * (mu - 3 * sigma))


@dataclass(frozen=True)
class RatedTable:
    """One table for the rating: its sides (players, or teams) and their ranks (1 = best)."""

    sides: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]

    def __post_init__(self) -> None:
        sides = tuple(tuple(side) for side in self.sides)
        object.__setattr__(self, "sides", sides)
        object.__setattr__(self, "ranks", tuple(self.ranks))
        players = [p for side in sides for p in side]
        if not 2 <= len(sides) <= 6:
            raise RatingError(f"a rated table has 2 to 6 sides, not {len(sides)}")
        if any(not side for side in sides) or len(set(players)) != len(players):
            raise RatingError("every side needs players, and a player sits on one side only")
        if len(self.ranks) != len(sides) or any(r < 1 for r in self.ranks):
            raise RatingError("give one rank (1 = best) per side")


def rated_table(result: TableResult, teams: Sequence[Sequence[str]] = ()) -> RatedTable | None:
    """The rated table of a scored result; ``None`` for a bye (nothing to learn from it).

    With ``teams`` (the partition of a team table's entries) the losing team ranks 2, every other
    team 1; without, each entry is a side ranked by its place, drawn entries sharing the last rank.

    >>> r = TableResult(id="t", places=("a", "b", "c", "d"), fool="d", team_lost=("b", "d"))
    >>> rated_table(r, teams=[("a", "c"), ("b", "d")])
    RatedTable(sides=(('a', 'c'), ('b', 'd')), ranks=(1, 2))
    """
    if result.is_bye:
        return None
    if teams:
        sides = tuple(tuple(team) for team in teams)
        if sorted(p for side in sides for p in side) != sorted(result.places):
            raise RatingError(f"teams {sides} do not partition the table {result.places}")
        lost = set(result.team_lost) if result.team_lost else {str(result.fool)}
        ranks = tuple(2 if lost & set(side) else 1 for side in sides)
        return RatedTable(sides=sides, ranks=ranks)
    drawn = set(result.drawn)
    last = len(result.places) - len(result.drawn) + 1
    ranks = tuple(last if p in drawn else i for i, p in enumerate(result.places, 1))
    return RatedTable(sides=tuple((p,) for p in result.places), ranks=ranks)


def rate(
    ratings: Mapping[str, Rating],
    tables: Sequence[RatedTable],
    config: RatingConfig = RatingConfig(),
) -> dict[str, Rating]:
    """Apply ``tables`` in order to ``ratings``; players not yet rated start at the default.

    Returns the new rating of every player in ``ratings`` or in the tables. Pure: the input mapping
    is not changed.

    >>> r = rate({}, [RatedTable(sides=(("a",), ("b",)), ranks=(1, 1))])
    >>> r["a"] == r["b"]
    True
    """
    model = PlackettLuce(
        mu=config.mu, sigma=config.sigma, beta=config.beta, kappa=config.kappa, tau=config.tau
    )
    current = dict(ratings)
    for table in tables:
        teams: list[list[PlackettLuceRating]] = [
            [
                model.rating(mu=r.mu, sigma=r.sigma)
                for r in (current.get(p, config.initial()) for p in side)
            ]
            for side in table.sides
        ]
        try:
            updated = model.rate(teams, ranks=[float(r) for r in table.ranks])
        except (TypeError, ValueError) as exc:  # pragma: no cover - RatedTable checks first
            raise RatingError(f"openskill refused the table: {exc}") from exc
        for side, new_side in zip(table.sides, updated, strict=True):
            for player, new in zip(side, new_side, strict=True):
                current[player] = Rating(float(new.mu), float(new.sigma))
    return current


# ----------------------------------------------------------------------------------------------
# League table

LeagueTieBreak = Literal["points", "first_places", "countback", "played"]
LEAGUE_TIE_BREAKS: tuple[str, ...] = get_args(LeagueTieBreak)
DEFAULT_LEAGUE_SCALE: tuple[int, ...] = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)


@dataclass(frozen=True)
class LeagueScale:
    """League points by final place (1st first) and for every place past the scale.

    >>> [str(p) for p in LeagueScale(points=(3, 2, 1)).for_places(3)]
    ['3', '2', '1']
    """

    points: Sequence[Exact] = DEFAULT_LEAGUE_SCALE
    beyond: Exact = 0
    tie_breaks: Sequence[str] = ("points", "first_places", "countback")

    def __post_init__(self) -> None:
        values = tuple(
            to_fraction(p, f"league points for place {i + 1}") for i, p in enumerate(self.points)
        )
        beyond = to_fraction(self.beyond, "league points beyond the scale")
        if any(v < 0 for v in values) or beyond < 0:
            raise ScoringError("league points must not be negative")
        if any(a < b for a, b in pairwise((*values, beyond))):
            raise ScoringError(
                "the league scale must not increase: a worse place cannot score more"
            )
        object.__setattr__(self, "points", values)
        object.__setattr__(self, "beyond", beyond)
        if isinstance(self.tie_breaks, str):
            raise ScoringError("tie_breaks must be a list of names, not one string")
        order = tuple(self.tie_breaks)
        for name in order:
            if name not in LEAGUE_TIE_BREAKS:
                raise ScoringError(
                    f"unknown league tie-break {name!r}; choose from {', '.join(LEAGUE_TIE_BREAKS)}"
                )
        if len(set(order)) != len(order):
            raise ScoringError(f"a tie-break is listed twice in {list(order)}")
        if "points" not in order:
            order = ("points", *order)
        object.__setattr__(self, "tie_breaks", order)

    def for_places(self, count: int) -> tuple[Fraction, ...]:
        """Points of places 1..count."""
        values: tuple[Fraction, ...] = tuple(Fraction(p) for p in self.points)
        beyond = Fraction(self.beyond)
        return tuple(values[i] if i < len(values) else beyond for i in range(count))


@dataclass(frozen=True)
class TournamentPlaces:
    """A finished tournament's final places as ``(entry, place)``, competition ranking;
    ``forfeited``: entries placed (they played) that score no league points (disqualified)."""

    tournament: str
    places: tuple[tuple[str, int], ...]
    forfeited: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LeagueRow:
    """One line of the league table; ``placings`` counts finishes by place (``{1: 2, 3: 1}``)."""

    position: int
    rank: int
    entry: str
    points: Fraction
    played: int
    first_places: int
    placings: dict[int, int] = field(default_factory=dict)
    decided_by: str | None = None


def league_table(
    tournaments: Sequence[TournamentPlaces], scale: LeagueScale, *, seed: str
) -> list[LeagueRow]:
    """Sum each tournament's league points per entry and order them by the scale's tie-breaks.

    >>> t1 = TournamentPlaces("spring", (("ann", 1), ("bob", 2), ("cid", 2)))
    >>> t2 = TournamentPlaces("summer", (("bob", 1), ("ann", 2)))
    >>> rows = league_table([t1, t2], LeagueScale(points=(10, 6, 2)), seed="2025")
    >>> [(r.entry, str(r.points), r.decided_by) for r in rows]
    [('ann', '16', None), ('bob', '14', 'points'), ('cid', '4', 'points')]

    A disqualified entry keeps its (last) place and scores nothing:

    >>> t3 = TournamentPlaces("autumn", (("cid", 1), ("ann", 2)), forfeited=frozenset({"ann"}))
    >>> [(r.entry, str(r.points)) for r in league_table([t3], LeagueScale((10, 6)), seed="s")]
    [('cid', '10'), ('ann', '0')]
    """
    points: dict[str, Fraction] = {}
    placings: dict[str, dict[int, int]] = {}
    for tournament in sorted(tournaments, key=lambda t: t.tournament):
        try:
            groups = place_groups(tournament.places)
        except ScoringError as exc:
            raise ScoringError(f"tournament {tournament.tournament!r}: {exc}") from None
        by_place = scale.for_places(len(tournament.places))
        for first, members in groups:
            share = sum(by_place[first - 1 : first - 1 + len(members)], Fraction(0)) / len(members)
            for entry in members:
                scored = Fraction(0) if entry in tournament.forfeited else share
                points[entry] = points.get(entry, Fraction(0)) + scored
                counts = placings.setdefault(entry, {})
                counts[first] = counts.get(first, 0) + 1

    def key(criterion: str, entry: str) -> tuple[int | Fraction, ...]:
        counts = placings[entry]
        if criterion == "points":
            return (points[entry],)
        if criterion == "first_places":
            return (counts.get(1, 0),)
        if criterion == "played":
            return (sum(counts.values()),)
        deepest = max((p for e in placings.values() for p in e), default=0)
        return tuple(counts.get(place, 0) for place in range(1, deepest + 1))

    def order(group: list[str], criteria: tuple[str, ...]) -> list[tuple[str, str | None]]:
        if len(group) == 1:
            return [(group[0], None)]
        if not criteria:
            drawn = sorted(group, key=lambda e: draw_key(seed, e))
            return [(e, None if i == 0 else "draw") for i, e in enumerate(drawn)]
        buckets: dict[tuple[int | Fraction, ...], list[str]] = {}
        for entry in group:
            buckets.setdefault(key(criteria[0], entry), []).append(entry)
        out: list[tuple[str, str | None]] = []
        for i, value in enumerate(sorted(buckets, reverse=True)):
            part = order(buckets[value], criteria[1:])
            if i > 0:
                part[0] = (part[0][0], criteria[0])
            out.extend(part)
        return out

    rows: list[LeagueRow] = []
    rank = 0
    for position, (entry, decided_by) in enumerate(
        order(sorted(points), tuple(scale.tie_breaks)), 1
    ):
        if decided_by != "draw":
            rank = position
        counts = placings[entry]
        rows.append(
            LeagueRow(
                position=position,
                rank=rank,
                entry=entry,
                points=points[entry],
                played=sum(counts.values()),
                first_places=counts.get(1, 0),
                placings=dict(sorted(counts.items())),
                decided_by=decided_by,
            )
        )
    return rows
