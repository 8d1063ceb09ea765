"""Ranks (звания) from pogony: per series, and over a tournament or a league season.

A pure fold over the games, so idempotent by construction: rank = ladder[received - 1], and a
league's ranks are the same fold over all its games. The reading of seed 004 (the ladder, the
three-player double) is in ``docs/readings.md`` ("Ranks").

>>> games = [RankGame(id="g1", hangings=(Pogony(by="ann", on=("bob",), rank="6"),)),
...          RankGame(id="g2", hangings=(Pogony(by="cid", on=("bob",), rank="7"),))]
>>> table = compute_ranks(games)
>>> table.players["bob"].rank, table.players["bob"].received, table.players["ann"].given
('старшина', 2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from games.engine.ranks import DEFAULT_LADDER as ENGINE_LADDER
from games.engine.ranks import rank_for
from tournaments.scoring.errors import RankError, ScoringError
from tournaments.scoring.results import Pogony, TableResult

__all__ = [
    "DEFAULT_LADDER",
    "PlayerRank",
    "RankChange",
    "RankGame",
    "RankTable",
    "compute_ranks",
    "rank_for",
    "validate_ladder",
]

# The ladder is the engine's (a series keeps the same ranks); one list for both.
DEFAULT_LADDER: tuple[str, ...] = ENGINE_LADDER


def validate_ladder(ladder: Sequence[str]) -> tuple[str, ...]:
    """Check a rank ladder (non-empty, distinct, non-blank names) and return it as a tuple."""
    if isinstance(ladder, str):
        raise RankError("a rank ladder is a list of names, not one string")
    names = tuple(ladder)
    if not names:
        raise RankError("a rank ladder needs at least one rank")
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise RankError("rank names must be non-empty strings")
    if len(set(names)) != len(names):
        raise RankError(f"a rank appears twice in the ladder {list(names)}")
    return names


@dataclass(frozen=True)
class RankGame:
    """One game's pogony, hangings in the order they happened; ``players`` lists everyone seated.

    ``players`` may be empty; it lets players with no pogony appear in the table, and lets the
    three-player rule be checked. ``supersedes``/``reason`` work as for results.
    """

    id: str
    hangings: tuple[Pogony, ...] = ()
    players: tuple[str, ...] = ()
    series: str = ""
    supersedes: str | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hangings", tuple(self.hangings))
        object.__setattr__(self, "players", tuple(self.players))
        try:
            _check_game(self)
        except ScoringError as exc:
            raise RankError(f"game {self.id!r}: {exc}") from None

    @classmethod
    def from_result(cls, result: TableResult, series: str = "") -> RankGame:
        """The pogony of a scored table result (a bye or a game without pogony has none)."""
        hangings = (result.pogony,) if result.pogony is not None else ()
        return cls(
            id=result.id,
            hangings=hangings,
            players=result.places,
            series=series,
            supersedes=result.supersedes,
            reason=result.reason,
        )


def _check_game(game: RankGame) -> None:
    seated = set(game.players)
    if len(seated) != len(game.players):
        raise ScoringError("a player is seated twice")
    hung: dict[str, int] = {}
    for hanging in game.hangings:
        if seated and not ({hanging.by, *hanging.on} <= seated):
            raise ScoringError("pogony name a player who is not seated")
        for player in hanging.on:
            hung[player] = hung.get(player, 0) + 1
    if len(game.hangings) <= 1:
        return
    # Several hangings in one game: only seed 004's three-player case, two hangings, the first on
    # both opponents, the second by one of them on the other.
    first, second, *rest = game.hangings
    three = len(seated) in (0, 3)
    if (
        rest
        or not three
        or len(first.on) != 2
        or second.by not in first.on
        or second.on != tuple(p for p in first.on if p != second.by)
    ):
        raise ScoringError(
            "several hangings in one game are allowed only in a three-player game: the first "
            "on both opponents, the second by one of them on the other (seed 004)"
        )


@dataclass(frozen=True)
class RankChange:
    """One promotion: ``player`` went from ``before`` to ``after`` in game ``game``."""

    game: str
    player: str
    by: str
    before: str | None
    after: str
    card_rank: str


@dataclass(frozen=True)
class PlayerRank:
    """A player's rank (``None`` without pogony), pogony received and given in the scope."""

    player: str
    rank: str | None
    received: int
    given: int


@dataclass(frozen=True)
class RankTable:
    """Ranks of every player seen, and the promotions in the order they happened."""

    players: dict[str, PlayerRank] = field(default_factory=dict)
    history: tuple[RankChange, ...] = ()


def compute_ranks(games: Sequence[RankGame], ladder: Sequence[str] = DEFAULT_LADDER) -> RankTable:
    """Fold the (effective, ordered) games into ranks, counts and history.

    Pass every game of the scope in the order played: a series, a tournament or a league season.
    Corrections are applied first with :func:`effective_results`.

    >>> double = RankGame(id="g", players=("ann", "bob", "cid"), hangings=(
    ...     Pogony(by="ann", on=("bob", "cid"), rank="6"),
    ...     Pogony(by="bob", on=("cid",), rank="6")))
    >>> t = compute_ranks([double])
    >>> t.players["bob"].rank, t.players["cid"].rank, t.players["ann"].given
    ('сержант', 'старшина', 2)
    """
    names = validate_ladder(ladder)
    received: dict[str, int] = {}
    given: dict[str, int] = {}
    history: list[RankChange] = []
    for game in games:
        for player in game.players:
            received.setdefault(player, 0)
            given.setdefault(player, 0)
        for hanging in game.hangings:
            given[hanging.by] = given.get(hanging.by, 0) + len(hanging.on)
            received.setdefault(hanging.by, 0)
            for player in hanging.on:
                before = rank_for(received.get(player, 0), names)
                received[player] = received.get(player, 0) + 1
                given.setdefault(player, 0)
                after = rank_for(received[player], names)
                assert after is not None
                history.append(RankChange(game.id, player, hanging.by, before, after, hanging.rank))
    players = {
        player: PlayerRank(player, rank_for(count, names), count, given.get(player, 0))
        for player, count in sorted(received.items())
    }
    return RankTable(players=players, history=tuple(history))
