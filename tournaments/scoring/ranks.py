"""Ranks (звания) from pogony: per series, and over a tournament or a league season.

Seed 004 ("Переводной дурак: правила игры и подсчёт очков") is the source; it gives two ranks only,
**сержант** then **старшина**. rules.md and tournaments.md add "прапорщик, лейтенант, ..." as a
configurable ladder. The default ladder continues with the Russian army's officer ranks in order:
сержант, старшина, прапорщик, лейтенант, старший лейтенант, капитан, майор, подполковник,
полковник, генерал. Past the top of the ladder a player keeps the top rank (the count still grows).

The reading of seed 004 chosen here:

- A player receives **сержант** on its first pogony in the scope (a series, a tournament, a league
  season: whatever games the caller passes) and **one rung per further pogony received**.
- The player who hangs them is credited with **pogony given**, one per player hung (a hanging on a
  whole losing team, or on two opponents at once, counts once per shoulder pair).
- **Three players, two at once** (seed 004: "В игре втроем один игрок может повесить погоны двоим
  оппонентам одновременно... Проигравшие игроки доигрывают партию до появления одного победителя.
  Если оставшиеся два игрока уже имеют погоны, первый вышедший остается сержантом. Игрок, которому
  повесили погон, повышается до старшины. В таком исходе первый и второй вышедшие игроки могут
  вешать одинаковые погоны независимо от номинала."): the first out may hang pogony on both others
  in one hanging; each is promoted one rung (сержант if it had none). The two play the game out;
  when the first of them out hangs pogony on the last one as well, it keeps its rank (it was hung
  once: "stays сержант") and the one hung again is promoted once more (to старшина). Both hangings
  of that game use the **same card rank**: the series' pogony card rank advances once per game
  that had pogony, not once per hanging. (Seed 004 tells this three times; its third telling,
  "игрок, повесивший погон, остаётся сержантом", confirms that the one who stays сержант is the
  first of the two out, hanging the other.) "Already wear pogony" is read as "were just hung
  both", the narrative of the passage; a player who came in with a rank from earlier games simply
  climbs one rung per pogony, like everyone else. A game is a list of hangings in the order they
  happened.
- The engine reports every hanging of a game in order (``Result.hangings``): the game-ending one
  (winner on the fool or the fool's team) and, before it, the two-at-once double, so that game
  is given as two hangings (a table result stores each with its ``game``, and
  ``tournaments.services._pogony_games`` groups them back). A player may be hung twice in one
  game only there: three players, the first hanging on two, the second by one of those two on
  the other.

So rank = ladder[received - 1]: the function is a pure fold over the games, idempotent by
construction, and a league's ranks are the same fold over all its games.

>>> games = [RankGame(id="g1", hangings=(Pogony(by="ann", on=("bob",), rank="6"),)),
...          RankGame(id="g2", hangings=(Pogony(by="cid", on=("bob",), rank="7"),))]
>>> table = compute_ranks(games)
>>> table.players["bob"].rank, table.players["bob"].received, table.players["ann"].given
('старшина', 2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from games.engine.series import DEFAULT_LADDER as ENGINE_LADDER
from tournaments.scoring.errors import RankError, ScoringError
from tournaments.scoring.results import Pogony, TableResult

__all__ = [
    "DEFAULT_LADDER",
    "PlayerRank",
    "RankChange",
    "RankGame",
    "RankTable",
    "SeriesRanks",
    "compute_ranks",
    "pogony_card_rank",
    "rank_for",
    "series_ranks",
    "validate_ladder",
]

# The ladder is the engine's (a series keeps the same ranks); one list for both.
DEFAULT_LADDER: tuple[str, ...] = ENGINE_LADDER

# Card ranks in rules.md's codes, low to high, and the lowest rank of each deck size.
CARD_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
LOWEST_RANK = {24: "9", 36: "6", 52: "2"}


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


def rank_for(received: int, ladder: Sequence[str] = DEFAULT_LADDER) -> str | None:
    """The rank after ``received`` pogony: none, сержант, старшина, ..., capped at the top.

    >>> rank_for(0), rank_for(1), rank_for(2), rank_for(99)
    (None, 'сержант', 'старшина', 'генерал')
    """
    if received <= 0:
        return None
    return ladder[min(received, len(ladder)) - 1]


def pogony_card_rank(games_with_pogony: int, deck_size: int = 36) -> str | None:
    """The card rank of the next pogony of a series (rules.md): 6, then 7, 8, ... (36 cards).

    ``None`` once the ranks run out past the ace (seed 004: "по возможности", where possible).

    >>> pogony_card_rank(0), pogony_card_rank(1), pogony_card_rank(0, deck_size=24)
    ('6', '7', '9')
    """
    if deck_size not in LOWEST_RANK:
        raise RankError(f"deck size must be one of {sorted(LOWEST_RANK)}, not {deck_size}")
    index = CARD_RANKS.index(LOWEST_RANK[deck_size]) + games_with_pogony
    return CARD_RANKS[index] if index < len(CARD_RANKS) else None


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


@dataclass(frozen=True)
class SeriesRanks:
    """A series' ranks so far and the card rank its next pogony must be hung with."""

    table: RankTable
    games_with_pogony: int
    next_card_rank: str | None


def series_ranks(
    games: Sequence[RankGame], *, deck_size: int = 36, ladder: Sequence[str] = DEFAULT_LADDER
) -> SeriesRanks:
    """Per-series rank progression, for the series engine after each game.

    The card rank advances once per game with pogony (seed 004: in the three-player double the
    two hangings use the same card), so ``next_card_rank`` is the rank to look for next game.

    >>> g1 = RankGame(id="g1", players=("a", "b", "c"), hangings=(
    ...     Pogony(by="a", on=("b", "c"), rank="6"), Pogony(by="b", on=("c",), rank="6")))
    >>> state = series_ranks([g1])
    >>> state.table.players["c"].rank, state.next_card_rank
    ('старшина', '7')
    """
    table = compute_ranks(games, ladder)
    with_pogony = sum(1 for game in games if game.hangings)
    return SeriesRanks(
        table=table,
        games_with_pogony=with_pogony,
        next_card_rank=pogony_card_rank(with_pogony, deck_size),
    )
