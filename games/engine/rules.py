"""The rule options of ``rules.md`` as one frozen, validated :class:`Rules` object.

>>> rules = Rules.from_dict({"variant": "transfer", "players": 3})
>>> rules.players, rules.hand_size, rules.to_dict()
(3, 6, {'variant': 'transfer', 'players': 3})
>>> Rules.from_dict({"players": 7})
Traceback (most recent call last):
...
games.engine.errors.RulesError: players: 7 players need the 52-card deck (2-6 with 24 or 36 cards)

A house variant is one more field here (with its default and its check in ``_OPTIONS``) plus
the code in ``game.py`` that reads it: the default keeps every existing game unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import DECK_SIZES
from .errors import RulesError

__all__ = ["NEXT_GAME_FIRST", "THROW_IN_BY", "VARIANTS", "Rules"]

VARIANTS = ("simple", "throw_in", "transfer")
THROW_IN_BY = ("all", "neighbours")
NEXT_GAME_FIRST = ("from_under_fool", "onto_fool", "winner")

# name -> (type, allowed values or None).  Kept next to the dataclass so that a new option is
# declared in one place; ``Rules.__post_init__`` checks that both agree.
_OPTIONS: dict[str, tuple[type, tuple[Any, ...] | None]] = {
    "variant": (str, VARIANTS),
    "deck_size": (int, DECK_SIZES),
    "players": (int, None),
    "hand_size": (int, None),
    "bout_limit": (int, None),
    "first_bout_limit": (int, None),
    "unlimited_after_stock": (bool, None),
    "throw_in_by": (str, THROW_IN_BY),
    "transfer_first_bout": (bool, None),
    "transfer_two_players": (bool, None),
    "transfer_over_trump": (bool, None),
    "transfer_to_go_out": (bool, None),
    "trump_show": (bool, None),
    "draw": (bool, None),
    "teams": (list, None),
    "pogony_min_cards": (int, None),
    "redeal_five_of_suit": (bool, None),
    "next_game_first": (str, NEXT_GAME_FIRST),
}

_TRANSFER_ONLY = (
    "transfer_first_bout",
    "transfer_two_players",
    "transfer_over_trump",
    "transfer_to_go_out",
    "trump_show",
)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of ``rules.md`` with its default; invalid values raise :class:`RulesError`.

    >>> Rules().variant, Rules().deck_size, Rules().first_bout_limit
    ('throw_in', 36, 5)
    """

    variant: str = "throw_in"
    deck_size: int = 36
    players: int = 2
    hand_size: int = 6
    bout_limit: int = 6
    first_bout_limit: int = 5
    unlimited_after_stock: bool = False
    throw_in_by: str = "all"
    transfer_first_bout: bool = False
    transfer_two_players: bool = False
    transfer_over_trump: bool = False
    transfer_to_go_out: bool = False
    trump_show: bool = False
    draw: bool = True
    teams: tuple[tuple[int, ...], ...] | None = None
    pogony_min_cards: int = 1
    redeal_five_of_suit: bool = False
    next_game_first: str = "from_under_fool"

    def __post_init__(self) -> None:
        if self.teams is not None and not isinstance(self.teams, tuple):
            _check_teams_shape(self.teams)
            object.__setattr__(self, "teams", tuple(tuple(t) for t in self.teams))
        values = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        if self.teams is not None:
            _check_teams_shape(self.teams)
        problems = _type_problems(values) or _value_problems(values)
        if problems:
            raise problems[0]

    @classmethod
    def problems(cls, options: Mapping[str, Any]) -> list[RulesError]:
        """Every independent problem of ``options`` (as :meth:`from_dict` takes them), not only
        the first: an option of the wrong type or value is named and left at its default for
        the checks that combine options.

        >>> [e.option for e in Rules.problems({"hand_size": 40, "pogony_min_cards": 9})]
        ['hand_size', 'pogony_min_cards']
        >>> Rules.problems({"variant": "transfer"})
        []
        """
        if not isinstance(options, Mapping):
            return [
                RulesError(
                    f"rules: expected an object, got {type(options).__name__}", reason="not_object"
                )
            ]
        names = set(cls.option_names())
        found = [
            RulesError(f"unknown rule option {key!r}", option=str(key), reason="unknown")
            for key in options
            if key not in names
        ]
        values = {f.name: f.default for f in dataclasses.fields(cls)}
        given = {key: value for key, value in options.items() if key in names}
        if given.get("teams") is not None:
            try:
                _check_teams_shape(given["teams"])
            except RulesError as exc:
                found.append(exc)
                given.pop("teams")
            else:
                given["teams"] = tuple(tuple(t) for t in given["teams"])
        bad_types = _type_problems(given)
        found += bad_types
        values.update({k: v for k, v in given.items() if k not in {e.option for e in bad_types}})
        return found + _value_problems(values)

    # --- derived, read by the engine ---------------------------------------------------------

    @property
    def throw_ins(self) -> bool:
        """True if anybody but the attacker may add cards (``throw_in`` and ``transfer``)."""
        return self.variant != "simple"

    @property
    def transfers(self) -> bool:
        """True in the ``transfer`` variant."""
        return self.variant == "transfer"

    def team_of(self) -> tuple[int, ...]:
        """Return the team index of every seat (every seat its own team without ``teams``).

        >>> Rules(players=4, teams=((0, 2), (1, 3))).team_of()
        (0, 1, 0, 1)
        """
        if self.teams is None:
            return tuple(range(self.players))
        out = [0] * self.players
        for i, team in enumerate(self.teams):
            for seat in team:
                out[seat] = i
        return tuple(out)

    # --- dict form ------------------------------------------------------------------------------

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """Return the names of every engine option (series code owns the others).

        >>> "bout_limit" in Rules.option_names()
        True
        """
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def split(cls, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Split a tournament's rules object into (engine options, everything else).

        The hook for series code: it reads its own keys (``series``, ``long`` ...) from the
        second dict and hands the first to :meth:`from_dict`.

        >>> Rules.split({"players": 3, "series": "best_of"})
        ({'players': 3}, {'series': 'best_of'})
        """
        names = set(cls.option_names())
        engine = {k: v for k, v in options.items() if k in names}
        other = {k: v for k, v in options.items() if k not in names}
        return engine, other

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> Rules:
        """Build rules from the options that differ from the defaults (the protocol's ``rules``).

        >>> Rules.from_dict({"teams": [[0, 2], [1, 3]], "players": 4}).teams
        ((0, 2), (1, 3))
        >>> Rules.from_dict({"colour": "red"})
        Traceback (most recent call last):
        ...
        games.engine.errors.RulesError: unknown rule option 'colour'
        """
        if not isinstance(options, Mapping):
            raise RulesError(f"rules: expected an object, got {type(options).__name__}")
        names = set(cls.option_names())
        for key in options:
            if key not in names:
                raise RulesError(f"unknown rule option {key!r}")
        kwargs = dict(options)
        if kwargs.get("teams") is not None:
            _check_teams_shape(kwargs["teams"])
            kwargs["teams"] = tuple(tuple(t) for t in kwargs["teams"])
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Return only the options that differ from the defaults; ``from_dict`` reverses it.

        >>> Rules(variant="simple").to_dict()
        {'variant': 'simple'}
        """
        out: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value != field.default:
                if field.name == "teams" and value is not None:
                    value = [list(t) for t in value]
                out[field.name] = value
        return out


def _type_problems(values: Mapping[str, Any]) -> list[RulesError]:
    """Options of the wrong type or not among their allowed values (``teams`` aside)."""
    found = []
    for name, value in values.items():
        if name == "teams":
            continue
        kind, allowed = _OPTIONS[name]
        if type(value) is not kind:
            found.append(
                RulesError(
                    f"{name}: expected {kind.__name__}, got {type(value).__name__} {value!r}",
                    option=name,
                    reason="type",
                    params={"value": value, "kind": kind.__name__},
                )
            )
        elif allowed is not None and value not in allowed:
            options = ", ".join(repr(a) for a in allowed)
            found.append(
                RulesError(
                    f"{name}: {value!r} is not one of {options}",
                    option=name,
                    reason="choice",
                    params={"value": value, "choices": allowed},
                )
            )
    return found


def _value_problems(values: Mapping[str, Any]) -> list[RulesError]:
    """The checks on values of the right types, each problem once, the independent ones all."""
    found = []
    players, deck, hand = values["players"], values["deck_size"], values["hand_size"]
    max_players = 8 if deck == 52 else 6
    if not 2 <= players <= max_players:
        if players > 6 and deck != 52 and players <= 8:
            found.append(
                RulesError(
                    f"players: {players} players need the 52-card deck (2-6 with 24 or 36 cards)",
                    option="players",
                    reason="players_deck",
                    params={"players": players, "deck": deck},
                )
            )
        else:
            found.append(
                RulesError(
                    f"players: must be 2-{max_players} with {deck} cards",
                    option="players",
                    reason="players_range",
                    params={"players": players, "deck": deck, "max": max_players},
                )
            )
    for name in ("hand_size", "bout_limit", "first_bout_limit"):
        if values[name] < 1:
            found.append(
                RulesError(
                    f"{name}: must be at least 1",
                    option=name,
                    reason="at_least_one",
                    params={"value": values[name]},
                )
            )
    if hand >= 1 and players * hand > deck:
        found.append(
            RulesError(
                f"hand_size: {players} hands of {hand} cards need more than {deck} cards",
                option="hand_size",
                reason="hands_deck",
                params={"players": players, "hand": hand, "deck": deck, "needed": players * hand},
            )
        )
    if not 1 <= values["pogony_min_cards"] <= 4:
        found.append(
            RulesError(
                "pogony_min_cards: must be 1-4",
                option="pogony_min_cards",
                reason="pogony_range",
                params={"value": values["pogony_min_cards"]},
            )
        )
    if values["variant"] != "transfer":
        found += [
            RulesError(f"{name}: only with variant 'transfer'", option=name, reason="transfer_only")
            for name in _TRANSFER_ONLY
            if values[name]
        ]
    if values["variant"] == "simple" and values["throw_in_by"] != "all":
        found.append(
            RulesError(
                "throw_in_by: the simple variant has no throw-ins",
                option="throw_in_by",
                reason="simple_throw_in",
            )
        )
    if values["teams"] is not None and 2 <= players <= max_players:
        try:
            _check_teams(values["teams"], players)
        except RulesError as exc:
            found.append(exc)
    return found


def _check_teams(teams: tuple[tuple[int, ...], ...], players: int) -> None:
    seats = sorted(s for team in teams for s in team)
    if seats != list(range(players)):
        raise RulesError(f"teams: must be a partition of the seats 0-{players - 1}", option="teams")
    if len(teams) < 2 or any(len(t) < 2 for t in teams):
        raise RulesError("teams: at least two teams of at least two players", option="teams")
    if len({len(t) for t in teams}) != 1:
        raise RulesError("teams: all teams must have the same size", option="teams")
    team_of = {s: i for i, team in enumerate(teams) for s in team}
    for seat in range(players):
        right = (seat + 1) % players
        if team_of[seat] == team_of[right]:
            raise RulesError(
                f"teams: partners {seat} and {right} must not sit side by side", option="teams"
            )


def _check_teams_shape(teams: Any) -> None:
    if not isinstance(teams, (list, tuple)) or not all(
        isinstance(t, (list, tuple)) and all(type(s) is int for s in t) for t in teams
    ):
        raise RulesError("teams: expected a list of lists of seat numbers, or null", option="teams")
