"""What a series is made of and gives: a played game (:class:`SeriesGame`), the setup of the
next game (:class:`NextGame`), the final result (:class:`SeriesResult`), and the checks and seat
translations of a recorded game."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import SUITS
from .errors import SeriesError
from .game import new_game
from .rules import Rules
from .state import GameState, Pogony, Result

__all__ = ["FORMATS", "NextGame", "SeriesGame", "SeriesResult", "parse_format"]

FORMATS = ("single", "best_of", "first_to", "long")


def parse_format(text: str) -> tuple[str, int]:
    """Parse ``"single"``, ``"long"``, ``"best_of:3"`` or ``"first_to:5"`` into (format, target).

    >>> parse_format("best_of:3"), parse_format("long")
    (('best_of', 3), ('long', 1))
    """
    name, _, number = text.partition(":")
    if name not in FORMATS:
        raise SeriesError(f"unknown series format {name!r} (one of {', '.join(FORMATS)})")
    if not number:
        if name in ("best_of", "first_to"):
            raise SeriesError(f"{name} needs a target, e.g. {name}:3")
        return name, 1
    if not number.isdigit():
        raise SeriesError(f"series target must be a positive integer, got {number!r}")
    return name, int(number)


@dataclass(frozen=True, slots=True)
class SeriesGame:
    """One recorded game, as the engine saw it.

    ``seats[g]`` is the series seat of game seat ``g``; ``result`` is the engine's result in game
    seats; ``trump`` the game's trump suit letter (long durak lays out cards of it); ``hangings``
    overrides the result's own (``Result.hangings``: seed 004's three-player double, then the
    game-ending pogony), None = the result's own.
    """

    seats: tuple[int, ...]
    result: Result
    trump: str | None = None
    hangings: tuple[Pogony, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form; ``from_dict`` reverses it.

        >>> SeriesGame((0, 1), Result((0, 1), 1, False, None, None), "D").to_dict()
        {'seats': [0, 1], 'result': {'places': [0, 1], 'fool': 1, 'draw': False, 'pogony': None}, 'trump': 'D'}
        """  # noqa: E501
        out: dict[str, Any] = {"seats": list(self.seats), "result": self.result.to_json()}
        if self.trump is not None:
            out["trump"] = self.trump
        if self.hangings is not None:
            out["hangings"] = [h.to_json() for h in self.hangings]
        return out

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> SeriesGame:
        """Rebuild a game from :meth:`to_dict`; raise :class:`SeriesError` if it is not one."""
        try:
            hangings = obj.get("hangings")
            return cls(
                tuple(int(s) for s in obj["seats"]),
                Result.from_json(dict(obj["result"])),
                obj.get("trump"),
                None
                if hangings is None
                else tuple(Pogony(int(h["by"]), tuple(h["on"]), str(h["rank"])) for h in hangings),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SeriesError(f"series game: not a stored game ({exc!r})") from None


@dataclass(frozen=True, slots=True)
class NextGame:
    """How to deal the next game of a series: its rules, seat map and ``new_game`` hooks.

    ``seats[g]`` is the series seat playing game seat ``g``; every other field is in game seats.

    >>> setup = Series.start(Rules(players=3), "long").next_game_setup()
    >>> setup.number, setup.seats, setup.hooks()
    (1, (0, 1, 2), {'pogony_rank': '6'})
    """

    number: int
    rules: Rules
    seats: tuple[int, ...]
    attacker: int | None
    hand_sizes: tuple[int, ...] | None
    removed: tuple[str, ...]
    throw_caps: tuple[int | None, ...] | None
    pogony_rank: str

    def hooks(self) -> dict[str, Any]:
        """Keyword arguments for ``new_game``/``deal_from_seed`` (only those that are set).

        >>> Series.start(Rules(), "single").next_game_setup().hooks()
        {'pogony_rank': '6'}
        """
        out: dict[str, Any] = {}
        if self.attacker is not None:
            out["attacker"] = self.attacker
        if self.hand_sizes is not None:
            out["hand_sizes"] = list(self.hand_sizes)
        if self.removed:
            out["removed"] = list(self.removed)
        if self.throw_caps is not None:
            out["throw_caps"] = list(self.throw_caps)
        out["pogony_rank"] = self.pogony_rank
        return out

    def deal(self, rng: random.Random) -> GameState:
        """Deal the game with ``new_game`` from an injected generator.

        >>> state = Series.start(Rules(), "single").next_game_setup().deal(random.Random(1))
        >>> state.finished
        False
        """
        return new_game(self.rules, rng, **self.hooks())


@dataclass(frozen=True, slots=True)
class SeriesResult:
    """The end of a series, every seat a series seat.

    ``places`` first to last; ``fool`` the last place (None only for a drawn ``single``);
    ``points``/``fools``/``wins`` per seat (wins = first places in games); ``games`` every game's
    result in series seats; ``pogony`` every hanging in order; ``ranks`` per seat (None = no
    pogony); ``hanging_games`` the index in ``games`` of each hanging of ``pogony`` (seed 004's
    double and the pogony after it share a game).
    """

    places: tuple[int, ...]
    fool: int | None
    draw: bool
    points: tuple[float, ...]
    fools: tuple[int, ...]
    wins: tuple[int, ...]
    games: tuple[Result, ...]
    pogony: tuple[Pogony, ...]
    ranks: tuple[str | None, ...]
    hanging_games: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-able dict.

        >>> r = SeriesResult((1, 0), 0, False, (0.0, 1.0), (1, 0), (0, 1), (), (), (None, None))
        >>> r.to_json()["places"], r.to_json()["ranks"]
        ([1, 0], [None, None])
        """
        return {
            "places": list(self.places),
            "fool": self.fool,
            "draw": self.draw,
            "points": list(self.points),
            "fools": list(self.fools),
            "wins": list(self.wins),
            "games": [g.to_json() for g in self.games],
            "pogony": [p.to_json() for p in self.pogony],
            "ranks": list(self.ranks),
            "hanging_games": list(self.hanging_games),
        }


def translate(result: Result, seats: tuple[int, ...]) -> Result:
    def m(seat: int) -> int:
        return seats[seat]

    def hung(pog: Pogony) -> Pogony:
        return Pogony(m(pog.by), tuple(m(o) for o in pog.on), pog.rank)

    return Result(
        tuple(m(p) for p in result.places),
        None if result.fool is None else m(result.fool),
        result.draw,
        None if result.pogony is None else hung(result.pogony),
        None if result.team_lost is None else tuple(m(s) for s in result.team_lost),
        result.teams,
        tuple(hung(h) for h in result.hangings),
    )


def check_game(index: int, game: SeriesGame, expected: tuple[int, ...]) -> None:
    where = f"game {index + 1}"
    if game.seats != expected:
        raise SeriesError(f"{where}: seated {list(game.seats)}, expected {list(expected)}")
    k = len(expected)
    r = game.result
    if not isinstance(r, Result):
        raise SeriesError(f"{where}: expected an engine Result, got {type(r).__name__}")
    if any(type(p) is not int or not 0 <= p < k for p in r.places) or len(set(r.places)) != len(
        r.places
    ):
        raise SeriesError(f"{where}: places {list(r.places)} are not seats 0-{k - 1}")
    if r.fool is not None:
        if r.draw:
            raise SeriesError(f"{where}: a draw has no fool")
        if sorted(r.places) != list(range(k)) or r.places[-1] != r.fool:
            raise SeriesError(f"{where}: the fool must be the last of all {k} places")
    elif not r.draw:
        raise SeriesError(f"{where}: a result without a fool must be a draw")
    if game.trump is not None and (type(game.trump) is not str or game.trump not in SUITS):
        raise SeriesError(f"{where}: trump {game.trump!r} is not a suit letter")
    hs = hangings_of(game)
    for h in hs:
        if not isinstance(h, Pogony) or not h.on:
            raise SeriesError(f"{where}: a hanging must be a Pogony on at least one seat")
        if any(type(s) is not int or not 0 <= s < k for s in (h.by, *h.on)) or h.by in h.on:
            raise SeriesError(f"{where}: pogony {h.to_json()} name seats outside 0-{k - 1}")
        # A draw has no fool: only a double hung before it (the two others ran out together).
        on_fool = (len(hs) == 1 and len(h.on) == 2 and k == 3) if r.fool is None else r.fool in h.on
        if len(set(h.on)) != len(h.on) or not on_fool:
            raise SeriesError(f"{where}: pogony {h.to_json()} must be hung on the fool")
    if len(hs) > 1:
        first, second, *rest = hs
        if (
            rest
            or k != 3
            or len(first.on) != 2
            or second.by not in first.on
            or second.on != tuple(s for s in first.on if s != second.by)
        ):
            raise SeriesError(
                f"{where}: two hangings only in a three-player game: the first out on both "
                "others, then the second out on the last (seed 004)"
            )


def hangings_of(game: SeriesGame) -> tuple[Pogony, ...]:
    return game.result.hangings if game.hangings is None else game.hangings
