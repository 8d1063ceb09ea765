"""A match at one table: a series of games (``rules.md``, "Series formats"), as an immutable value.

>>> import random
>>> from games.engine import Rules, apply, legal_moves
>>> series = Series.start(Rules(), "best_of", 3)
>>> rng = random.Random(5)
>>> while not series.finished:
...     state = series.next_game_setup().deal(rng)
...     while not state.finished:
...         state = apply(state, rng.choice(legal_moves(state)))
...     series = series.record(state.result, trump=state.trump)
>>> result = series.result
>>> sorted(result.places), result.fool == result.places[-1], 2 <= len(result.games) <= 3
([0, 1], True, True)
>>> Series.from_dict(series.to_dict()) == series
True

A :class:`Series` never changes: :meth:`Series.record` returns a new series with one more game.
It stores only what cannot be recomputed (the rules, the format, the seats, the rank ladder and
every game's engine result with its seat map); points, ranks, pogony, laid-out cards and
eliminations are a fold over the games, so :meth:`Series.from_dict` replays them and a stored
series can never disagree with itself.

The formats, the first attacker of later games, the pogony card rank, ranks and long durak
follow the readings in ``docs/readings.md`` ("Series at a table").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import RANKS, SUITS, lowest_rank, parse_suit
from .errors import EngineError, SeriesError
from .game import next_game_attacker
from .ranks import (
    ACE,
    DEFAULT_LADDER,
    TEN,
    layout_ranks,
    long_deal_size,
    pogony_card_rank,
    rank_for,
)
from .rules import Rules
from .series_records import (
    FORMATS,
    NextGame,
    SeriesGame,
    SeriesResult,
    check_game,
    hangings_of,
    parse_format,
    translate,
)
from .state import Pogony, Result

__all__ = [
    "DEFAULT_LADDER",
    "FORMATS",
    "NextGame",
    "Series",
    "SeriesError",
    "SeriesGame",
    "SeriesResult",
    "long_deal_size",
    "parse_format",
]


@dataclass(slots=True)
class _Fold:
    """Everything derived from the games (built once per series value)."""

    points: list[float]
    fools: list[int]
    wins: list[int]
    received: list[int]
    given: list[int]
    pogony: list[Pogony]
    hanging_games: list[int]
    pogony_games: int
    results: list[Result]
    losses: list[int]
    layouts: list[tuple[int, str]]
    eliminated: list[int]
    finished: bool = False


@dataclass(frozen=True, slots=True)
class Series:
    """A match at one table; build it with :meth:`start`, extend it with :meth:`record`.

    >>> s = Series.start(Rules(players=3), "first_to", 4, seats=["ann", "bob", "cid"])
    >>> s = s.record(Result((2, 0, 1), 1, False, Pogony(0, (1,), "6"), None))
    >>> s.points, s.ranks, s.pogony_rank, s.finished
    ((1.0, 0.0, 2.0), (None, 'сержант', None), '7', False)
    """

    rules: Rules
    format: str
    target: int
    seats: tuple[str | int, ...]
    ladder: tuple[str, ...] = DEFAULT_LADDER
    games: tuple[SeriesGame, ...] = ()
    _fold: _Fold = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_start(self)
        object.__setattr__(self, "_fold", _fold_games(self))

    # --- building -----------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        rules: Rules,
        fmt: str = "single",
        target: int = 1,
        seats: Sequence[str | int] | None = None,
        *,
        ladder: Sequence[str] = DEFAULT_LADDER,
    ) -> Series:
        """Start a series of format ``fmt`` (``target``: N of best_of, P of first_to).

        ``seats`` labels the seats (e.g. entry ids, in seat order); default 0, 1, ...

        >>> Series.start(Rules(), "first_to", 3).next_game_setup().number
        1
        >>> Series.start(Rules(players=4, teams=((0, 2), (1, 3))), "long")
        Traceback (most recent call last):
        ...
        games.engine.errors.SeriesError: long: no long durak in team play
        """
        labels = tuple(range(rules.players)) if seats is None else tuple(seats)
        return cls(rules, fmt, target, labels, tuple(ladder))

    def record(
        self,
        result: Result,
        *,
        trump: str | None = None,
        hangings: Iterable[Pogony] | None = None,
    ) -> Series:
        """Return the series after the next game's ``result`` (in that game's seats).

        ``trump`` is the game's trump suit letter (long durak lays out a card of it);
        ``hangings`` replaces the result's own ``Result.hangings`` (seed 004's three-player
        double: the first out on both others, then the second out on the last, in game seats);
        the engine fills ``Result.hangings`` itself, so None is right for its results.

        >>> s = Series.start(Rules(), "single").record(Result((0, 1), 1, False, None, None))
        >>> s.finished, s.result.places
        (True, (0, 1))
        >>> s.record(Result((0, 1), 1, False, None, None))
        Traceback (most recent call last):
        ...
        games.engine.errors.SeriesError: the series is finished
        """
        if self.finished:
            raise SeriesError("the series is finished")
        setup = self.next_game_setup()
        if trump is not None:
            try:
                parse_suit(trump)
            except EngineError:
                raise SeriesError(f"trump: not a suit letter: {trump!r}") from None
        game = SeriesGame(
            setup.seats,
            result,
            trump,
            None if hangings is None else tuple(hangings),
        )
        return dataclasses.replace(self, games=(*self.games, game))

    # --- state --------------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once the series has a result."""
        return self._fold.finished

    @property
    def remaining(self) -> tuple[int, ...]:
        """Series seats still playing (all but long durak's eliminated), clockwise.

        >>> Series.start(Rules(players=3), "long").remaining
        (0, 1, 2)
        """
        out = self._fold.eliminated
        return tuple(s for s in range(self.rules.players) if s not in out)

    @property
    def eliminated(self) -> tuple[int, ...]:
        """Long durak: series seats in the order they were eliminated."""
        return tuple(self._fold.eliminated)

    @property
    def points(self) -> tuple[float, ...]:
        """Points per series seat so far (k - 1 for the first out ... 0 for the fool)."""
        return tuple(self._fold.points)

    @property
    def fools(self) -> tuple[int, ...]:
        """Fool results per series seat so far."""
        return tuple(self._fold.fools)

    @property
    def results(self) -> tuple[Result, ...]:
        """Every game's result, translated to series seats."""
        return tuple(self._fold.results)

    @property
    def pogony(self) -> tuple[Pogony, ...]:
        """Every counted hanging so far, in series seats, in order."""
        return tuple(self._fold.pogony)

    @property
    def pogony_received(self) -> tuple[int, ...]:
        """Pogony received per series seat."""
        return tuple(self._fold.received)

    @property
    def pogony_given(self) -> tuple[int, ...]:
        """Pogony given per series seat (one per seat hung)."""
        return tuple(self._fold.given)

    @property
    def ranks(self) -> tuple[str | None, ...]:
        """Rank per series seat: None, сержант, старшина, ... (one rung per pogony received).

        >>> Series.start(Rules(), "single").ranks
        (None, None)
        """
        return tuple(rank_for(r, self.ladder) for r in self._fold.received)

    @property
    def pogony_rank(self) -> str:
        """The card rank the next pogony must be hung with: 6, then 7, 8, ... (36 cards).

        >>> Series.start(Rules(deck_size=24), "single").pogony_rank
        '9'
        """
        return pogony_card_rank(self._fold.pogony_games, self.rules.deck_size) or "A"

    @property
    def pogony_exhausted(self) -> bool:
        """True once a pogony was hung with aces: no further pogony count in this series."""
        return pogony_card_rank(self._fold.pogony_games, self.rules.deck_size) is None

    @property
    def laid_out(self) -> tuple[tuple[str, ...], ...]:
        """Long durak: the cards each series seat has laid out, in order."""
        out: list[list[str]] = [[] for _ in range(self.rules.players)]
        for seat, card in self._fold.layouts:
            out[seat].append(card)
        return tuple(tuple(cards) for cards in out)

    @property
    def losses(self) -> tuple[int, ...]:
        """Long durak: losses per series seat (the number of lay-outs, with or without a card)."""
        return tuple(self._fold.losses)

    @property
    def result(self) -> SeriesResult | None:
        """The series result once finished, else None."""
        fold = self._fold
        if not fold.finished:
            return None
        places = _places(self)
        draw = self.format == "single" and fold.results[0].draw
        return SeriesResult(
            places=places,
            fool=None if draw else places[-1],
            draw=draw,
            points=tuple(fold.points),
            fools=tuple(fold.fools),
            wins=tuple(fold.wins),
            games=tuple(fold.results),
            pogony=tuple(fold.pogony),
            ranks=self.ranks,
            hanging_games=tuple(fold.hanging_games),
        )

    # --- JSON -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (for a JSONField); :meth:`from_dict` replays it.

        >>> s = Series.start(Rules(), "best_of", 3, seats=["ann", "bob"])
        >>> s.to_dict()["seats"], Series.from_dict(s.to_dict()) == s
        (['ann', 'bob'], True)
        """
        return {
            "version": 1,
            "rules": self.rules.to_dict(),
            "format": self.format,
            "target": self.target,
            "seats": list(self.seats),
            "ladder": list(self.ladder),
            "games": [g.to_dict() for g in self.games],
        }

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> Series:
        """Rebuild a series from :meth:`to_dict`, replaying (and so re-checking) every game.

        >>> Series.from_dict({"version": 1})
        Traceback (most recent call last):
        ...
        games.engine.errors.SeriesError: series: not a stored series (KeyError('rules'))
        """
        if not isinstance(obj, Mapping):
            raise SeriesError(f"series: expected an object, got {type(obj).__name__}")
        try:
            if obj.get("version") != 1:
                raise SeriesError("series: unknown version")
            series = cls.start(
                Rules.from_dict(obj["rules"]),
                obj["format"],
                obj["target"],
                obj["seats"],
                ladder=obj.get("ladder", DEFAULT_LADDER),
            )
            games = tuple(SeriesGame.from_dict(g) for g in obj["games"])
            return dataclasses.replace(series, games=games)
        except SeriesError:
            raise
        except EngineError as exc:
            raise SeriesError(f"series: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SeriesError(f"series: not a stored series ({exc!r})") from None

    # --- the next game ------------------------------------------------------------------------

    def next_game_setup(self) -> NextGame:
        """Return how to deal the next game: rules, seat map and the ``new_game`` hooks.

        >>> s = Series.start(Rules(players=3), "best_of", 3)
        >>> s = s.record(Result((0, 2, 1), 1, False, None, None))
        >>> s.next_game_setup().attacker  # from under the fool (seat 1): seat 2
        2
        """
        if self.finished:
            raise SeriesError("the series is finished")
        rules = self.rules
        seats = self.remaining
        game_of = {s: g for g, s in enumerate(seats)}
        attacker = self._next_attacker(seats)
        game_rules = rules
        if len(seats) != rules.players:
            game_rules = dataclasses.replace(rules, players=len(seats))
        hand_sizes: tuple[int, ...] | None = None
        throw_caps: tuple[int | None, ...] | None = None
        removed: tuple[str, ...] = ()
        if self.format == "long":
            sizes: list[int] = []
            caps: list[int | None] = []
            for seat in seats:
                size, cap = self._long_size(seat)
                sizes.append(size)
                caps.append(cap)
            if any(size != rules.hand_size for size in sizes):
                hand_sizes = tuple(sizes)
            if any(cap is not None for cap in caps):
                throw_caps = tuple(caps)
            room = rules.deck_size - sum(sizes)
            removed = tuple(card for seat, card in self._fold.layouts if seat in game_of)[:room]
        return NextGame(
            number=len(self.games) + 1,
            rules=game_rules,
            seats=seats,
            attacker=None if attacker is None else game_of[attacker],
            hand_sizes=hand_sizes,
            removed=removed,
            throw_caps=throw_caps,
            pogony_rank=self.pogony_rank,
        )

    def _long_size(self, seat: int) -> tuple[int, int | None]:
        losses = self._fold.losses[seat]
        hand_size = self.rules.hand_size
        if losses == 0:
            return hand_size, None
        rank = layout_ranks(self.rules.deck_size)[losses - 1]
        size = long_deal_size(RANKS[rank], hand_size)
        return size, (size if rank >= TEN else None)

    def _next_attacker(self, seats: tuple[int, ...]) -> int | None:
        """The series seat that attacks first in the next game, None = lowest trump."""
        if not self.games:
            return None
        last = self.games[-1]
        if last.seats == seats:
            game_seat = next_game_attacker(_game_rules(self.rules, len(seats)), last.result)
            return None if game_seat is None else seats[game_seat]
        # The seating changed (long durak: the fool was eliminated): walk the series seats.
        result = self._fold.results[-1]
        how = self.rules.next_game_first
        n = self.rules.players
        if how == "winner":
            return result.places[0] if result.places and result.places[0] in seats else None
        if result.fool is None:
            return None
        step = -1 if how == "onto_fool" else 1
        for k in range(1, n):
            seat = (result.fool + step * k) % n
            if seat in seats:
                return seat
        return None


def _game_rules(rules: Rules, players: int) -> Rules:
    return rules if rules.players == players else dataclasses.replace(rules, players=players)


# --- validation and the fold ------------------------------------------------------------------


def _check_start(series: Series) -> None:
    rules = series.rules
    if not isinstance(rules, Rules):
        raise SeriesError(f"rules: expected Rules, got {type(rules).__name__}")
    fmt = series.format
    if fmt not in FORMATS:
        raise SeriesError(f"unknown series format {fmt!r} (one of {', '.join(FORMATS)})")
    target = series.target
    if type(target) is not int or target < 1:
        raise SeriesError(f"{fmt}: target must be a positive integer, got {target!r}")
    if len(series.seats) != rules.players:
        raise SeriesError(f"seats: {rules.players} labels expected, got {len(series.seats)}")
    if len(set(series.seats)) != len(series.seats):
        raise SeriesError("seats: a label appears twice")
    if fmt == "long" and rules.teams is not None:
        raise SeriesError("long: no long durak in team play")
    ladder = series.ladder
    if (
        not ladder
        or any(not isinstance(n, str) or not n.strip() for n in ladder)
        or len(set(ladder)) != len(ladder)
    ):
        raise SeriesError("ladder: a non-empty list of distinct rank names")


def _fold_games(series: Series) -> _Fold:
    rules = series.rules
    n = rules.players
    fold = _Fold(
        points=[0.0] * n,
        fools=[0] * n,
        wins=[0] * n,
        received=[0] * n,
        given=[0] * n,
        pogony=[],
        hanging_games=[],
        pogony_games=0,
        results=[],
        losses=[0] * n,
        layouts=[],
        eliminated=[],
    )
    laid_ranks = layout_ranks(rules.deck_size)
    low = lowest_rank(rules.deck_size)
    for index, game in enumerate(series.games):
        if fold.finished:
            raise SeriesError(f"game {index + 1}: the series was already finished")
        expected = tuple(s for s in range(n) if s not in fold.eliminated)
        check_game(index, game, expected)
        seats = game.seats
        result = translate(game.result, seats)
        fold.results.append(result)
        _score(fold, result, len(seats))
        hangings = hangings_of(game)
        if hangings and low + fold.pogony_games <= ACE:
            fold.pogony_games += 1
            for h in hangings:
                hung = Pogony(seats[h.by], tuple(seats[o] for o in h.on), h.rank)
                fold.pogony.append(hung)
                fold.hanging_games.append(index)
                fold.given[hung.by] += len(hung.on)
                for seat in hung.on:
                    fold.received[seat] += 1
        if series.format == "long" and result.fool is not None:
            _lay_out(fold, result.fool, game.trump, laid_ranks)
        fold.finished = _finished(series, fold)
    return fold


def _score(fold: _Fold, result: Result, k: int) -> None:
    places = result.places
    points = [float(k - 1 - i) for i in range(len(places))]
    if result.draw and len(points) >= 2:
        # The last two places ran out together: they share their points.
        points[-1] = points[-2] = (points[-1] + points[-2]) / 2
    for seat, p in zip(places, points, strict=True):
        fold.points[seat] += p
    if places:
        fold.wins[places[0]] += 1
    if result.fool is not None:
        fold.fools[result.fool] += 1


def _lay_out(fold: _Fold, fool: int, trump: str | None, laid_ranks: tuple[int, ...]) -> None:
    fold.losses[fool] += 1
    losses = fold.losses[fool]
    if losses > len(laid_ranks):
        fold.eliminated.append(fool)
        fold.layouts = [(seat, card) for seat, card in fold.layouts if seat != fool]
        return
    rank = RANKS[laid_ranks[losses - 1]]
    taken = {card for _, card in fold.layouts}
    first = SUITS.index(trump) if trump is not None else 0
    for step in range(4):
        card = rank + SUITS[(first + step) % 4]
        if card not in taken:
            fold.layouts.append((fool, card))
            return


def _finished(series: Series, fold: _Fold) -> bool:
    played = len(fold.results)
    fmt = series.format
    if fmt == "single":
        return played >= 1
    if fmt == "long":
        return series.rules.players - len(fold.eliminated) <= 1
    if fmt == "first_to":
        return max(fold.points) >= series.target
    # best_of: N games, or earlier once the leader cannot be caught.
    if played >= series.target:
        return True
    k = series.rules.players
    ordered = sorted(fold.points, reverse=True)
    return ordered[0] - ordered[1] > (series.target - played) * (k - 1)


def _places(series: Series) -> tuple[int, ...]:
    fold = series._fold
    n = series.rules.players
    if series.format == "single":
        return fold.results[0].places
    if series.format == "long":
        winners = tuple(s for s in range(n) if s not in fold.eliminated)
        return winners + tuple(reversed(fold.eliminated))

    def position(result: Result, seat: int) -> int:
        if seat not in result.places:
            return len(result.places)
        pos = result.places.index(seat)
        if result.draw and pos >= len(result.places) - 2:
            return len(result.places) - 2
        return pos

    def key(seat: int) -> tuple[float | int, ...]:
        history = tuple(position(r, seat) for r in reversed(fold.results))
        return (-fold.points[seat], fold.fools[seat], *history, seat)

    return tuple(sorted(range(n), key=key))
