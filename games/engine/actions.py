"""Actions: the protocol's action objects as a small immutable tuple.

Cards are card codes (ints, see ``cards.py``); ``from_json``/``to_json`` and ``parse``/``str``
convert at the boundary and round-trip.

>>> a = Action.from_json({"seat": 1, "type": "defend", "cards": ["7S"], "target": "6S"})
>>> a.to_json()
{'seat': 1, 'type': 'defend', 'cards': ['7S'], 'target': '6S'}
>>> str(a), Action.parse(str(a)) == a
('1 defend 7S 6S', True)
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import CARD_NAMES, parse_card
from .errors import BadRequest

__all__ = [
    "ACTION_TYPES",
    "ATTACK",
    "DEFEND",
    "PASS",
    "REDEAL",
    "SHOW_TRUMP",
    "TAKE",
    "THROW",
    "TRANSFER",
    "Action",
    "SeatActions",
    "seat_actions",
]

ATTACK = "attack"
THROW = "throw"
DEFEND = "defend"
TRANSFER = "transfer"
SHOW_TRUMP = "show_trump"
TAKE = "take"
PASS = "pass"
REDEAL = "redeal"

ACTION_TYPES = (ATTACK, THROW, DEFEND, TRANSFER, SHOW_TRUMP, TAKE, PASS, REDEAL)
_WITH_CARDS = frozenset((ATTACK, THROW, DEFEND, TRANSFER, SHOW_TRUMP))
_ONE_CARD = frozenset((DEFEND, SHOW_TRUMP))
_KEYS = frozenset(("seat", "type", "cards", "target"))


class Action(NamedTuple):
    """One move of one seat: ``Action(seat, type, cards, target)``.

    ``cards`` are card codes (one card for ``defend``/``show_trump``, none for
    ``take``/``pass``/``redeal``); ``target`` is the attack card a ``defend`` covers.

    >>> Action(0, "attack", (16,)).to_json()
    {'seat': 0, 'type': 'attack', 'cards': ['6S']}
    """

    seat: int
    type: str
    cards: tuple[int, ...] = ()
    target: int | None = None

    @classmethod
    def from_json(cls, obj: Any) -> Action:
        """Validate a protocol action object strictly; raise :class:`BadRequest` on any defect.

        >>> Action.from_json({"seat": 0, "type": "take"})
        Action(seat=0, type='take', cards=(), target=None)
        """
        if not isinstance(obj, dict):
            raise BadRequest(f"action: expected an object, got {type(obj).__name__}")
        extra = set(obj) - _KEYS
        if extra:
            raise BadRequest(f"action: unknown key(s) {', '.join(sorted(map(str, extra)))}")
        seat = obj.get("seat")
        if type(seat) is not int:
            raise BadRequest(f"action: 'seat' must be an integer, got {seat!r}")
        kind = obj.get("type")
        if kind not in ACTION_TYPES:
            raise BadRequest(f"action: unknown type {kind!r} (one of {', '.join(ACTION_TYPES)})")
        raw_cards = obj.get("cards", [])
        if not isinstance(raw_cards, list):
            raise BadRequest("action: 'cards' must be a list of card codes")
        cards = tuple(parse_card(c) for c in raw_cards)
        raw_target = obj.get("target")
        target = None if raw_target is None else parse_card(raw_target)
        return cls.make(seat, kind, cards, target)

    @classmethod
    def make(
        cls, seat: int, kind: str, cards: tuple[int, ...] = (), target: int | None = None
    ) -> Action:
        """Build an action, checking its shape (card count, target only on ``defend``).

        >>> Action.make(1, "take")
        Action(seat=1, type='take', cards=(), target=None)
        """
        if kind not in ACTION_TYPES:
            raise BadRequest(f"action: unknown type {kind!r}")
        if kind in _WITH_CARDS:
            if not cards:
                raise BadRequest(f"action: {kind} needs at least one card")
            if kind in _ONE_CARD and len(cards) != 1:
                raise BadRequest(f"action: {kind} takes exactly one card")
            if len(set(cards)) != len(cards):
                raise BadRequest("action: a card is listed twice")
        elif cards:
            raise BadRequest(f"action: {kind} takes no cards")
        if (kind == DEFEND) != (target is not None):
            raise BadRequest("action: 'target' is required for defend and only there")
        return cls(seat, kind, tuple(cards), target)

    def to_json(self) -> dict[str, Any]:
        """Return the protocol action object; :meth:`from_json` reverses it.

        >>> Action(2, "pass").to_json()
        {'seat': 2, 'type': 'pass'}
        """
        out: dict[str, Any] = {"seat": self.seat, "type": self.type}
        if self.cards:
            out["cards"] = [CARD_NAMES[c] for c in self.cards]
        if self.target is not None:
            out["target"] = CARD_NAMES[self.target]
        return out

    def __str__(self) -> str:
        parts = [str(self.seat), self.type, *(CARD_NAMES[c] for c in self.cards)]
        if self.target is not None:
            parts.append(CARD_NAMES[self.target])
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the compact string form ``"SEAT TYPE [CARDS...] [TARGET]"``.

        For ``defend`` the last card is the target.

        >>> Action.parse("0 attack 6S 6H").to_json()
        {'seat': 0, 'type': 'attack', 'cards': ['6S', '6H']}
        """
        parts = text.split()
        if len(parts) < 2 or not parts[0].isdigit():
            raise BadRequest(f"not an action: {text!r}")
        seat, kind, names = int(parts[0]), parts[1], parts[2:]
        cards = tuple(parse_card(n) for n in names)
        if kind == DEFEND:
            if len(cards) != 2:
                raise BadRequest(f"defend needs a card and a target: {text!r}")
            return cls.make(seat, kind, cards[:1], cards[1])
        return cls.make(seat, kind, cards)


_new_action = tuple.__new__


class SeatActions:
    """The single-card actions of one seat, each built once and shared by every game.

    ``legal_actions`` lists one action per card and target on every call; handing out these
    ready-made (immutable) tuples instead of building a fresh one costs an eighth as much.
    The ``defend`` row of an attack card is built on first use (52 rows of 52 per seat would
    be most of the engine's memory); two threads building the same row build equal rows.

    >>> acts = seat_actions(1)
    >>> str(acts.attack[16]), str(acts.take), acts.take is seat_actions(1).take
    ('1 attack 6S', '1 take', True)
    >>> acts.defend_row(16)[20] == Action(1, DEFEND, (20,), 16)
    True
    """

    __slots__ = (
        "attack",
        "defend",
        "pass_",
        "redeal",
        "seat",
        "show_trump",
        "take",
        "throw",
        "transfer",
    )

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.attack = self._row(ATTACK)
        self.throw = self._row(THROW)
        self.transfer = self._row(TRANSFER)
        self.show_trump = self._row(SHOW_TRUMP)
        self.defend: list[tuple[Action, ...] | None] = [None] * 52
        self.take: Action = _new_action(Action, (seat, TAKE, (), None))
        self.pass_: Action = _new_action(Action, (seat, PASS, (), None))
        self.redeal: Action = _new_action(Action, (seat, REDEAL, (), None))

    def _row(self, kind: str, target: int | None = None) -> tuple[Action, ...]:
        seat = self.seat
        return tuple(_new_action(Action, (seat, kind, (card,), target)) for card in range(52))

    def defend_row(self, target: int) -> tuple[Action, ...]:
        """The ``defend`` actions covering ``target``, indexed by the covering card."""
        row = self.defend[target]
        if row is None:
            row = self.defend[target] = self._row(DEFEND, target)
        return row


_SEAT_ACTIONS = tuple(SeatActions(seat) for seat in range(8))
"""Built at import for every seat of the largest table (8 players), so no thread ever grows it."""


def seat_actions(seat: int) -> SeatActions:
    """The shared :class:`SeatActions` of ``seat`` (a seat index, 0 up)."""
    return _SEAT_ACTIONS[seat] if seat < 8 else SeatActions(seat)
