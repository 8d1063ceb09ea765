"""The game state: an immutable-in-spirit value, its JSON forms and the result.

A :class:`GameState` is never changed after ``apply`` hands it out: ``apply`` copies it (a handful
of small ints and tuples) and changes the copy.  Hands are card bitmasks (see ``cards.py``).

Three JSON forms:

- :meth:`GameState.to_json` -- the protocol's State S (the whole truth, hands included) plus a few
  extra keys (``passed``, ``throwers``, ``shown``, ``bout``, ``first_defence``, the series setup,
  ``double_pogony``);
- :meth:`GameState.to_dict` / :meth:`GameState.from_dict` -- lossless, for storage;
- ``view(state, seat)`` in ``game.py`` -- what one seat (or a spectator) may see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import SeatActions, seat_actions
from .cards import (
    BEATERS,
    CARD_NAMES,
    RANK_MASKS,
    RANKS,
    SUITS,
    cards_of,
    lowest_rank,
    parse_card,
    parse_rank,
)
from .errors import BadRequest
from .rules import Rules

__all__ = ["NO_CAP", "TRANSFER_FLAG", "GameState", "Pogony", "Result", "Setup"]

NO_CAP = 1 << 30
"""Throw-in cap of a seat without one."""
TRANSFER_FLAG = 16
"""Added to the seat in ``GameState.t_by`` for a card played by a transfer."""


@dataclass(frozen=True, slots=True)
class Pogony:
    """Pogony hung by seat ``by`` on the seats ``on`` with cards of rank ``rank`` (e.g. ``"6"``)."""

    by: int
    on: tuple[int, ...]
    rank: str

    def to_json(self) -> dict[str, Any]:
        """Return ``{"by": 0, "on": [1], "rank": "6"}``.

        >>> Pogony(0, (1,), "6").to_json()
        {'by': 0, 'on': [1], 'rank': '6'}
        """
        return {"by": self.by, "on": list(self.on), "rank": self.rank}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Pogony:
        """Rebuild from :meth:`to_json`.

        >>> Pogony.from_json({"by": 0, "on": [1, 2], "rank": "6"})
        Pogony(by=0, on=(1, 2), rank='6')
        """
        return cls(int(obj["by"]), tuple(int(s) for s in obj["on"]), str(obj["rank"]))


@dataclass(frozen=True, slots=True)
class Result:
    """The end of a game: ``places`` from first out to last, the ``fool`` (None on a draw), ...

    ``pogony`` is the game-ending hanging (by a seat out in the final bout, on the fool or its
    team).  ``team_lost`` is the losing team's seats in team play (None on a draw or without
    teams).  ``hangings`` is every hanging of the game in order: seed 004's three-player double
    (:attr:`double`, the first out on both others, hung mid-game) first, then ``pogony``; left
    out, it is ``(pogony,)`` or ``()``.

    >>> Result((0, 1), 1, False, None, None).to_json()
    {'places': [0, 1], 'fool': 1, 'draw': False, 'pogony': None}
    >>> Result((0, 1), 1, False, Pogony(0, (1,), "6"), None).hangings
    (Pogony(by=0, on=(1,), rank='6'),)
    """

    places: tuple[int, ...]
    fool: int | None
    draw: bool
    pogony: Pogony | None
    team_lost: tuple[int, ...] | None
    teams: bool = False
    hangings: tuple[Pogony, ...] = ()

    def __post_init__(self) -> None:
        hangings = tuple(self.hangings)
        if not hangings and self.pogony is not None:
            hangings = (self.pogony,)
        elif self.pogony is not None and hangings[-1] != self.pogony:
            raise BadRequest("result: the game-ending pogony must be the last hanging")
        object.__setattr__(self, "hangings", hangings)

    @property
    def double(self) -> Pogony | None:
        """Seed 004's three-player double (the first out on both others), or None.

        >>> double = Pogony(0, (1, 2), "6")
        >>> r = Result((0, 1, 2), 2, False, Pogony(1, (2,), "6"), None, hangings=(
        ...     double, Pogony(1, (2,), "6")))
        >>> r.double == double, Result((0, 1, 2), 2, False, None, None).double
        (True, None)
        """
        hangings = self.hangings
        if hangings and hangings[0] != self.pogony:
            return hangings[0]
        return None

    def to_json(self) -> dict[str, Any]:
        """Return the protocol's result object.

        ``team_lost`` only in team play; ``hangings`` only after a three-player double, so every
        other result keeps the protocol's shape.

        >>> r = Result((0, 1, 2), 1, False, None, None, hangings=(Pogony(0, (1, 2), "6"),))
        >>> r.to_json()["hangings"], "hangings" in Result((0, 1), 1, False, None, None).to_json()
        ([{'by': 0, 'on': [1, 2], 'rank': '6'}], False)
        """
        out: dict[str, Any] = {
            "places": list(self.places),
            "fool": self.fool,
            "draw": self.draw,
            "pogony": None if self.pogony is None else self.pogony.to_json(),
        }
        if self.teams:
            out["team_lost"] = None if self.team_lost is None else list(self.team_lost)
        if self.double is not None:
            out["hangings"] = [h.to_json() for h in self.hangings]
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Result:
        """Rebuild a result from :meth:`to_json` (``hangings`` may be missing).

        >>> r = Result((0, 1), 1, False, Pogony(0, (1,), "6"), None)
        >>> Result.from_json(r.to_json()) == r
        True
        """
        pog = obj["pogony"]
        team_lost = obj.get("team_lost")
        hangings = obj.get("hangings") or ()
        return cls(
            tuple(obj["places"]),
            obj["fool"],
            bool(obj["draw"]),
            None if pog is None else Pogony.from_json(pog),
            None if team_lost is None else tuple(team_lost),
            "team_lost" in obj,
            tuple(Pogony.from_json(h) for h in hangings),
        )


class Setup:
    """Constants of one game (one deal), shared by all its states.

    Holds the rules and what ``new_game``/``from_deal`` were told by series code: the trump, the
    per-seat throw-in caps, the pogony rank, the per-seat deal sizes, the cards out of play; and
    for a redeal, the generator's state after the deal (None: not shuffled by the engine, or the
    rules have no redeal) and how many redeals came before this deal.
    """

    __slots__ = (
        "acts",
        "all_throwers",
        "beaters",
        "bout_caps",
        "deal_sizes",
        "draw_orders",
        "forced_attacker",
        "hand_size",
        "has_teams",
        "min_cap",
        "n",
        "neighbours",
        "next_opponent",
        "pogony_rank",
        "redeal",
        "redeals",
        "removed",
        "rng_state",
        "rules",
        "same_team",
        "team",
        "throw_caps",
        "throw_ins",
        "transfers",
        "trump",
        "trump_card",
        "unlimited_after_stock",
    )

    rules: Rules
    n: int
    trump: int
    trump_card: int
    beaters: tuple[int, ...]
    throw_ins: bool
    transfers: bool
    neighbours: bool
    team: tuple[int, ...]
    same_team: tuple[int, ...]
    has_teams: bool
    throw_caps: tuple[int, ...]
    pogony_rank: int
    deal_sizes: tuple[int, ...]
    removed: int
    forced_attacker: int | None
    draw_orders: tuple[tuple[tuple[int, ...], ...], ...]
    hand_size: int
    acts: tuple[SeatActions, ...]
    all_throwers: tuple[int, ...] | None
    bout_caps: tuple[int, int]
    min_cap: int
    unlimited_after_stock: bool
    redeal: bool
    next_opponent: tuple[int, ...]
    rng_state: Any
    redeals: int

    def __init__(
        self,
        rules: Rules,
        trump: int,
        trump_card: int,
        *,
        throw_caps: tuple[int, ...] | None = None,
        pogony_rank: int | None = None,
        deal_sizes: tuple[int, ...] | None = None,
        removed: int = 0,
        forced_attacker: int | None = None,
        rng_state: Any = None,
        redeals: int = 0,
    ) -> None:
        n = rules.players
        self.rules = rules
        self.n = n
        self.trump = trump
        self.trump_card = trump_card
        self.beaters = BEATERS[trump]
        self.throw_ins = rules.throw_ins
        self.transfers = rules.transfers
        self.neighbours = rules.throw_in_by == "neighbours"
        self.team = rules.team_of()
        seats = _seat_tables(self.team)
        self.same_team = seats.same_team
        self.next_opponent = seats.next_opponent
        self.draw_orders = seats.draw_orders
        self.acts = seats.acts
        # Who may throw in against each defender while every seat is in (None: it depends on
        # more than that, or nobody may).
        every = (1 << n) - 1
        self.all_throwers = (
            tuple(every & ~partners for partners in self.same_team)
            if self.throw_ins and not self.neighbours
            else None
        )
        self.has_teams = rules.teams is not None
        self.bout_caps = (rules.first_bout_limit, rules.bout_limit)
        self.unlimited_after_stock = rules.unlimited_after_stock
        self.redeal = rules.redeal_five_of_suit
        self.throw_caps = throw_caps if throw_caps is not None else (NO_CAP,) * n
        # No bout ever caps attack cards below this: a count up to it needs no ``_cap`` call.
        self.min_cap = min(*self.bout_caps, *self.throw_caps)
        low = lowest_rank(rules.deck_size)
        self.pogony_rank = low if pogony_rank is None else pogony_rank
        if not low <= self.pogony_rank <= 12:
            raise BadRequest(f"pogony rank {RANKS[self.pogony_rank]} is not in the deck")
        self.deal_sizes = deal_sizes if deal_sizes is not None else (rules.hand_size,) * n
        self.removed = removed
        self.forced_attacker = forced_attacker
        self.hand_size = rules.hand_size
        self.rng_state = rng_state
        self.redeals = redeals

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form (without the rules) for :meth:`GameState.to_dict`."""
        return {
            "trump": SUITS[self.trump],
            "trump_card": None if self.trump_card < 0 else CARD_NAMES[self.trump_card],
            "throw_caps": [None if c == NO_CAP else c for c in self.throw_caps],
            "pogony_rank": RANKS[self.pogony_rank],
            "deal_sizes": list(self.deal_sizes),
            "removed": [CARD_NAMES[c] for c in cards_of(self.removed)],
            "forced_attacker": self.forced_attacker,
        }

    @classmethod
    def from_json(cls, rules: Rules, obj: dict[str, Any], rng_state: Any, redeals: int) -> Setup:
        """Rebuild from :meth:`to_json` and the state's ``rng_state`` and ``redeals``."""
        removed = 0
        for name in obj["removed"]:
            removed |= 1 << parse_card(name)
        trump_card = obj["trump_card"]
        return cls(
            rules,
            SUITS.index(obj["trump"]),
            -1 if trump_card is None else parse_card(trump_card),
            throw_caps=tuple(NO_CAP if c is None else int(c) for c in obj["throw_caps"]),
            pogony_rank=parse_rank(obj["pogony_rank"]),
            deal_sizes=tuple(int(s) for s in obj["deal_sizes"]),
            removed=removed,
            forced_attacker=obj["forced_attacker"],
            rng_state=rng_state,
            redeals=redeals,
        )


class _SeatTables:
    """What the seats of a table look like (its team of every seat): the same for every game at
    tables of that shape, so built once per shape rather than once per deal."""

    __slots__ = ("acts", "draw_orders", "next_opponent", "same_team")

    def __init__(self, team: tuple[int, ...]) -> None:
        n = len(team)
        self.same_team = tuple(
            sum(1 << j for j in range(n) if team[j] == team[i]) for i in range(n)
        )
        # The next opponent clockwise while every seat is still in (the stock is not empty).
        self.next_opponent = tuple(
            next(((seat + k) % n for k in range(1, n) if team[(seat + k) % n] != team[seat]), -1)
            for seat in range(n)
        )
        self.draw_orders = tuple(
            tuple(_draw_order(n, opener, defender) for defender in range(n)) for opener in range(n)
        )
        self.acts = tuple(seat_actions(seat) for seat in range(n))


_SEAT_TABLES: dict[tuple[int, ...], _SeatTables] = {}


def _seat_tables(team: tuple[int, ...]) -> _SeatTables:
    found = _SEAT_TABLES.get(team)
    if found is None:
        found = _SEAT_TABLES.setdefault(team, _SeatTables(team))
    return found


def _draw_order(n: int, opener: int, defender: int) -> tuple[int, ...]:
    """The bout's first attacker first, then clockwise, the defender last."""
    order = [] if opener == defender else [opener]
    for step in range(1, n):
        seat = (opener + step) % n
        if seat != defender:
            order.append(seat)
    order.append(defender)
    return tuple(order)


class GameState:
    """One moment of one game.  Build it with ``new_game``/``from_deal``; change it with ``apply``.

    Fields (read-only by convention): ``hands`` (card bitmask per seat), ``stock`` (card codes,
    top first), ``discard`` (count), ``attacker`` (the bout's opener), ``defender``, the table as
    three parallel tuples ``t_att``/``t_def`` (-1 = not covered)/``t_by`` (seat that played the
    attack card, ``+TRANSFER_FLAG`` for a transfer), ``taking``, ``passed`` and ``throwers``
    (seat bitmasks), ``out`` (bitmask) and ``places`` (going-out order), ``double_pogony``
    (seed 004's three-player double, hung by the first out on both others mid-game; public),
    ``result``.
    """

    __slots__ = (
        "attacker",
        "bouts",
        "defender",
        "discard",
        "double_pogony",
        "emptied",
        "hands",
        "out",
        "passed",
        "places",
        "ranks",
        "result",
        "setup",
        "shown",
        "stock",
        "t_att",
        "t_by",
        "t_def",
        "taking",
        "throwers",
        "unbeaten",
    )

    setup: Setup
    hands: tuple[int, ...]
    stock: tuple[int, ...]
    discard: int
    attacker: int
    defender: int
    t_att: tuple[int, ...]
    t_def: tuple[int, ...]
    t_by: tuple[int, ...]
    unbeaten: int
    ranks: int
    taking: bool
    passed: int
    throwers: int
    out: int
    places: tuple[int, ...]
    bouts: int
    shown: int
    emptied: tuple[int, ...]
    double_pogony: Pogony | None
    result: Result | None

    def copy(self) -> GameState:
        """Return a shallow copy (all fields are immutable values)."""
        new = GameState()
        new.setup = self.setup
        new.hands = self.hands
        new.stock = self.stock
        new.discard = self.discard
        new.attacker = self.attacker
        new.defender = self.defender
        new.t_att = self.t_att
        new.t_def = self.t_def
        new.t_by = self.t_by
        new.unbeaten = self.unbeaten
        new.ranks = self.ranks
        new.taking = self.taking
        new.passed = self.passed
        new.throwers = self.throwers
        new.out = self.out
        new.places = self.places
        new.bouts = self.bouts
        new.shown = self.shown
        new.emptied = self.emptied
        new.double_pogony = self.double_pogony
        new.result = self.result
        return new

    # --- convenience ------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The game's rules."""
        return self.setup.rules

    @property
    def first_defence(self) -> bool:
        """True once a bout has ended in a successful defence (its cards are the discard)."""
        return self.discard > 0

    @property
    def rng_state(self) -> Any:
        """The generator's state after the deal, for a redeal (``Setup.rng_state``)."""
        return self.setup.rng_state

    @property
    def redeals(self) -> int:
        """How many redeals came before this deal."""
        return self.setup.redeals

    @property
    def finished(self) -> bool:
        """True once the game has a result."""
        return self.result is not None

    @property
    def trump(self) -> str:
        """The trump suit letter."""
        return SUITS[self.setup.trump]

    def hand(self, seat: int) -> list[str]:
        """Return a seat's cards as strings, lowest first."""
        return [CARD_NAMES[c] for c in cards_of(self.hands[seat])]

    def table_json(self) -> list[dict[str, str | None]]:
        """Return the table as the protocol's ``[{"attack": .., "defense": ..}]``."""
        return [
            {"attack": CARD_NAMES[a], "defense": None if d < 0 else CARD_NAMES[d]}
            for a, d in zip(self.t_att, self.t_def, strict=True)
        ]

    def _seats(self, mask: int) -> list[int]:
        return [s for s in range(self.setup.n) if mask >> s & 1]

    def public_json(self) -> dict[str, Any]:
        """Return everything every seat may see (used by ``to_json`` and ``view``)."""
        setup = self.setup
        return {
            "finished": self.result is not None,
            "trump": SUITS[setup.trump],
            "trump_card": None if setup.trump_card < 0 else CARD_NAMES[setup.trump_card],
            "stock": len(self.stock),
            "discard": self.discard,
            "attacker": self.attacker,
            "defender": self.defender,
            "taking": self.taking,
            "table": self.table_json(),
            "out": list(self.places),
            "passed": self._seats(self.passed),
            "throwers": self._seats(self.throwers),
            "shown": self._seats(self.shown),
            "bout": self.bouts,
            "first_defence": self.first_defence,
            # Series setup that lies open on the table: the pogony rank of this game, the
            # per-seat cap on attack cards (long durak), the laid-out trumps out of play.
            "pogony_rank": RANKS[setup.pogony_rank],
            "throw_caps": [None if c == NO_CAP else c for c in setup.throw_caps],
            "removed": [CARD_NAMES[c] for c in cards_of(setup.removed)],
            # Seed 004's three-player double, hung in the open while the game goes on.
            "double_pogony": None if self.double_pogony is None else self.double_pogony.to_json(),
            "result": None if self.result is None else self.result.to_json(),
        }

    def to_json(self) -> dict[str, Any]:
        """Return the protocol's State S: the whole truth, hands included (not the stock order)."""
        out = self.public_json()
        out["hands"] = [self.hand(s) for s in range(self.setup.n)]
        return out

    # --- lossless form ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict holding everything; :meth:`from_dict` rebuilds an equal state."""
        return {
            "format": 1,
            "rules": self.setup.rules.to_dict(),
            "setup": self.setup.to_json(),
            "hands": [self.hand(s) for s in range(self.setup.n)],
            "stock": [CARD_NAMES[c] for c in self.stock],
            "discard": self.discard,
            "attacker": self.attacker,
            "defender": self.defender,
            "table": [
                {"attack": CARD_NAMES[a], "defense": None if d < 0 else CARD_NAMES[d], "by": b}
                for a, d, b in zip(self.t_att, self.t_def, self.t_by, strict=True)
            ],
            "taking": self.taking,
            "passed": self._seats(self.passed),
            "throwers": self._seats(self.throwers),
            "out": list(self.places),
            "first_defence": self.first_defence,
            "bouts": self.bouts,
            "shown": self._seats(self.shown),
            "emptied": list(self.emptied),
            "double_pogony": None if self.double_pogony is None else self.double_pogony.to_json(),
            "result": None if self.result is None else self.result.to_json(),
            "rng_state": _rng_to_json(self.rng_state),
            "redeals": self.redeals,
        }

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> GameState:
        """Rebuild a state from :meth:`to_dict`; raise :class:`BadRequest` if it is not one."""
        try:
            if obj.get("format") != 1:
                raise BadRequest("state: unknown format")
            rules = Rules.from_dict(obj["rules"])
            setup = Setup.from_json(
                rules, obj["setup"], _rng_from_json(obj["rng_state"]), int(obj["redeals"])
            )
            s = cls()
            s.setup = setup
            s.hands = tuple(_mask(h) for h in obj["hands"])
            if len(s.hands) != setup.n:
                raise BadRequest("state: wrong number of hands")
            s.stock = tuple(parse_card(c) for c in obj["stock"])
            s.discard = int(obj["discard"])
            s.attacker = int(obj["attacker"])
            s.defender = int(obj["defender"])
            table = obj["table"]
            s.t_att = tuple(parse_card(t["attack"]) for t in table)
            s.t_def = tuple(-1 if t["defense"] is None else parse_card(t["defense"]) for t in table)
            s.t_by = tuple(int(t["by"]) for t in table)
            s.unbeaten = sum(1 for d in s.t_def if d < 0)
            ranks = 0
            for c in s.t_att + s.t_def:
                if c >= 0:
                    ranks |= RANK_MASKS[c >> 2]
            s.ranks = ranks
            s.taking = bool(obj["taking"])
            s.passed = _seat_mask(obj["passed"])
            s.throwers = _seat_mask(obj["throwers"])
            s.places = tuple(int(p) for p in obj["out"])
            s.out = _seat_mask(s.places)
            s.bouts = int(obj["bouts"])
            s.shown = _seat_mask(obj["shown"])
            s.emptied = tuple(int(p) for p in obj["emptied"])
            double = obj.get("double_pogony")  # absent in states stored before it existed
            s.double_pogony = None if double is None else Pogony.from_json(double)
            s.result = None if obj["result"] is None else Result.from_json(obj["result"])
            return s
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, BadRequest):
                raise
            raise BadRequest(f"state: not a stored game state ({exc!r})") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        table = " ".join(
            CARD_NAMES[a] + ("/" + CARD_NAMES[d] if d >= 0 else "")
            for a, d in zip(self.t_att, self.t_def, strict=True)
        )
        return (
            f"<GameState {self.attacker}->{self.defender} table=[{table}] "
            f"stock={len(self.stock)} finished={self.result is not None}>"
        )


def _mask(names: list[str]) -> int:
    mask = 0
    for name in names:
        mask |= 1 << parse_card(name)
    return mask


def _seat_mask(seats: Any) -> int:
    mask = 0
    for seat in seats:
        mask |= 1 << int(seat)
    return mask


def _rng_to_json(state: Any) -> Any:
    if state is None:
        return None
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(obj: Any) -> Any:
    if obj is None:
        return None
    version, internal, gauss = obj
    return (int(version), tuple(int(x) for x in internal), gauss)
