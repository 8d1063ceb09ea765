"""Bots and a table driver: bots see only what their seat may see.

>>> import random
>>> from games.engine import Rules, new_game
>>> rng = random.Random(7)
>>> state = new_game(Rules(), rng)
>>> final, actions = play_game(state, {0: make_bot("heuristic"), 1: make_bot("random")}, rng)
>>> final.finished, len(actions) > 0
(True, True)

A bot decides from ``view(state, seat)`` (its own hand, the others' hand sizes, the table, the
trump, the stock count) and ``legal_actions(state, seat)``; the only other engine call it makes is
``is_legal(state, action)`` on its own multi-card attack (a question about the bout's limit, which
the view does not carry: the long-durak throw caps).  It never reads ``state`` itself.

The driver (:func:`play_step`) is the referee and may read the state: Durak lets the defender and
the throwers act at the same time, so it fixes one order.  While an attack card is unbeaten and
the defender has not said take, the defender acts (defend, transfer or take); otherwise the
throwers act in turn, clockwise from the bout's attacker, skipping the defender and every seat
that has passed or holds no cards (each such seat may throw or pass).  Every step lands a card or
adds a pass or a take; the engine clears passes only when a card lands and a bout holds a bounded
number of cards, so every bout ends.  Whole games may (rarely, with three or more players) cycle
cards, hence ``max_steps`` in :func:`play_game`.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .actions import ATTACK, DEFEND, PASS, SHOW_TRUMP, TAKE, THROW, TRANSFER, Action
from .cards import CARD_NAMES, RANKS, SUITS
from .errors import BadRequest, IllegalAction
from .game import apply, is_legal, legal_actions, view
from .state import GameState

__all__ = [
    "BOTS",
    "COLLUSION_POLICIES",
    "Bot",
    "ColludingBot",
    "HeuristicBot",
    "PogonyBot",
    "RandomBot",
    "acting_seat",
    "bind_partners",
    "make_bot",
    "play_game",
    "play_step",
    "strength_text",
]

_CODE = {name: code for code, name in enumerate(CARD_NAMES)}
_QUEEN = 10  # rank index of Q (2 = 0 ... A = 12)
_JACK = 9
_KING = 11


class Bot(Protocol):
    """What the driver needs from a bot: a name and ``choose``."""

    name: str

    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        """Return one legal action of ``seat`` (multi-card attacks if ``apply`` takes them)."""
        ...


def _legal(state: GameState, seat: int) -> list[Action]:
    legal = legal_actions(state, seat)
    if not legal:
        raise IllegalAction(f"seat {seat} has no legal action now")
    return legal


class RandomBot:
    """Picks uniformly among the listed legal actions of its seat.

    >>> import random
    >>> from games.engine import Rules, new_game
    >>> state = new_game(Rules(), random.Random(2))
    >>> RandomBot().choose(state, state.attacker, random.Random(0)).type
    'attack'
    """

    name = "random"

    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        """Return a random legal action of ``seat``."""
        return rng.choice(_legal(state, seat))


class HeuristicBot:
    """A simple player: sheds low cards, keeps trumps, beats cheaply, takes when beating is dear.

    - attack: the lowest non-trump (all non-trumps of its rank together), a trump only when
      nothing else is left;
    - defend: cover each card with the cheapest card that beats it; take when some card cannot
      be beaten, or when beating would spend a high trump (Q or above) or two trumps while the
      stock is still large; transfer first (проездной first of all) with a non-trump when the
      next player holds few cards or beating would cost a trump;
    - throw in: low non-trumps of ranks on the table (any non-trump once the stock is empty;
      trumps only when they are its last cards and the stock is empty), else pass.

    >>> import random
    >>> from games.engine import Rules, from_deal
    >>> state = from_deal(Rules(), {"hands": [["6S", "6C", "AD"], ["7S", "7C", "9H"]],
    ...                             "stock": [], "trump": "D", "attacker": 0})
    >>> str(HeuristicBot().choose(state, 0, random.Random(0)))
    '0 attack 6S 6C'
    """

    name = "heuristic"

    def __init__(self, take_stock: int = 10) -> None:
        self.take_stock = take_stock

    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        """Return the heuristic's action for ``seat`` (always legal)."""
        legal = _legal(state, seat)
        seen = view(state, seat)
        action = self.decide(seen, legal, rng)
        if len(action.cards) > 1 and not is_legal(state, action):
            action = Action(action.seat, action.type, action.cards[:1], action.target)
        return action

    def decide(
        self, seen: Mapping[str, Any], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """Pick from ``legal`` using only the seat's view ``seen`` (``view(state, seat)``).

        A multi-card attack returned here may exceed a limit the view does not show;
        :meth:`choose` checks it with ``is_legal`` and falls back to one card.
        """
        trump = SUITS.index(seen["trump"])
        hand = [_CODE[c] for c in seen["hand"]]
        kinds = {a.type for a in legal}
        if ATTACK in kinds:
            return self._attack(seen, legal, hand, trump)
        if DEFEND in kinds or TAKE in kinds or TRANSFER in kinds or SHOW_TRUMP in kinds:
            return self._defend(seen, legal, hand, trump)
        if THROW in kinds or PASS in kinds:
            return self._throw(seen, legal, hand, trump)
        return legal[0]

    # --- the three roles ----------------------------------------------------------------------

    @staticmethod
    def _value(card: int, trump: int) -> int:
        return (card >> 2) + (13 if card & 3 == trump else 0)

    def _attack(
        self, seen: Mapping[str, Any], legal: Sequence[Action], hand: list[int], trump: int
    ) -> Action:
        attacks = [a for a in legal if a.type == ATTACK]
        best = min(attacks, key=lambda a: self._value(a.cards[0], trump))
        card = best.cards[0]
        if card & 3 == trump:
            return best
        rank = card >> 2
        group = tuple(c for c in hand if c >> 2 == rank and c & 3 != trump)
        if len(group) > 1:
            return Action(best.seat, ATTACK, group)
        return best

    def _defend(
        self, seen: Mapping[str, Any], legal: Sequence[Action], hand: list[int], trump: int
    ) -> Action:
        seat = legal[0].seat
        by_type: dict[str, list[Action]] = {}
        for a in legal:
            by_type.setdefault(a.type, []).append(a)
        stock = seen["stock"]
        value = self._value
        # A plan: the cheapest beater for each unbeaten card, hardest card first.
        options: dict[int, list[int]] = {}
        for a in by_type.get(DEFEND, []):
            assert a.target is not None
            options.setdefault(a.target, []).append(a.cards[0])
        targets = [_CODE[t["attack"]] for t in seen["table"] if t["defense"] is None]
        plan: list[tuple[int, int]] = []
        used: set[int] = set()
        beatable = True
        for target in sorted(targets, key=lambda t: len(options.get(t, ()))):
            free = [c for c in options.get(target, ()) if c not in used]
            if not free:
                beatable = False
                break
            cover = min(free, key=lambda c: value(c, trump))
            used.add(cover)
            plan.append((target, cover))
        trumps_used = [c for c in used if c & 3 == trump]
        dear = (
            beatable
            and stock >= self.take_stock
            and (len(trumps_used) >= 2 or any(c >> 2 >= _QUEEN for c in trumps_used))
        )
        # Transfer: free with проездной; with a non-trump when it is cheap and useful.
        if SHOW_TRUMP in by_type:
            return by_type[SHOW_TRUMP][0]
        transfers = [a for a in by_type.get(TRANSFER, []) if a.cards[0] & 3 != trump]
        if transfers:
            nxt = _next_in(seen, seat)
            few = nxt is not None and seen["hand_sizes"][nxt] <= 3
            if not beatable or trumps_used or few:
                return min(transfers, key=lambda a: a.cards[0] >> 2)
        if (not beatable or dear) and TAKE in by_type:
            return by_type[TAKE][0]
        if plan:
            target, cover = plan[0]
            for a in by_type.get(DEFEND, []):
                if a.target == target and a.cards[0] == cover:
                    return a
        if TAKE in by_type:
            return by_type[TAKE][0]
        return legal[0]

    def _throw(
        self, seen: Mapping[str, Any], legal: Sequence[Action], hand: list[int], trump: int
    ) -> Action:
        stock = seen["stock"]
        taking = seen["taking"]
        limit = _KING if taking else _JACK
        good = []
        for a in legal:
            if a.type != THROW:
                continue
            card = a.cards[0]
            if card & 3 == trump:
                if stock == 0 and all(c & 3 == trump for c in hand):
                    good.append(a)
            elif stock == 0 or card >> 2 < limit:
                good.append(a)
        if good:
            return min(good, key=lambda a: self._value(a.cards[0], trump))
        for a in legal:
            if a.type == PASS:
                return a
        return legal[0]


class PogonyBot(HeuristicBot):
    """The heuristic player who keeps its non-trump cards of the game's pogony rank (sixes in
    the first game of a series, then sevens, ...) for last and goes out with them, so as to
    hang pogony (rules.md "Pogony"): it attacks, throws in, covers and transfers with any other
    card first, and lays the kept cards all together once nothing else is left.

    >>> import random
    >>> from games.engine import Rules, from_deal
    >>> state = from_deal(Rules(), {"hands": [["6S", "7C", "AD"], ["8S", "9C", "9H"]],
    ...                             "stock": [], "trump": "D", "attacker": 0})
    >>> str(PogonyBot().choose(state, 0, random.Random(0)))
    '0 attack 7C'
    """

    name = "pogony"

    #: Bouts after which it plays as the heuristic player: a game of 2-6 heuristic players
    #: takes 10-20 bouts, while players who all keep cards back can pass the others round the
    #: table for ever (about 1 three-player game in 700 did, stopped only by the step bound).
    PATIENCE_BOUTS = 30

    def decide(
        self, seen: Mapping[str, Any], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The heuristic's choice among the actions that spend no kept card; the kept cards
        together when they are all the seat can attack with. Past ``PATIENCE_BOUTS`` bouts, the
        heuristic's choice."""
        if seen["bout"] > self.PATIENCE_BOUTS:
            return super().decide(seen, legal, rng)
        rank = RANKS.index(seen["pogony_rank"])
        trump = SUITS.index(seen["trump"])
        kept = {_CODE[c] for c in seen["hand"] if _CODE[c] >> 2 == rank and _CODE[c] & 3 != trump}
        spare = [a for a in legal if not kept.intersection(a.cards)]
        if (
            kept
            and any(a.type == ATTACK for a in legal)
            and not any(a.type == ATTACK for a in spare)
        ):
            return Action(legal[0].seat, ATTACK, tuple(sorted(kept)))
        return super().decide(seen, spare or legal, rng)


def _next_in(seen: Mapping[str, Any], seat: int) -> int | None:
    """The next seat clockwise that still plays (the transfer's target, teams aside)."""
    sizes: list[int] = seen["hand_sizes"]
    out = set(seen["out"])
    n = len(sizes)
    for step in range(1, n):
        other = (seat + step) % n
        if other not in out and (sizes[other] or seen["stock"]):
            return other
    return None


class ColludingBot(HeuristicBot):
    """The heuristic player who colludes with a partner at the same table, for testing the
    fair-play evidence (issue 24): in a share ``strength`` of the decisions where collusion
    would change its move it plays for the pair, otherwise as :class:`HeuristicBot`.

    Every policy spares the partner: it never throws in while the partner defends, opens on
    the partner with one card only, and never transfers onto the partner.  Policy ``"soft"``
    (soft play, chip dumping) also takes rather than beats when the partner opened the bout;
    ``"squeeze"`` instead piles onto the others: while a third player defends it throws in
    every non-trump it may (the heuristic keeps its high cards), and it transfers onto a third
    player whenever it may; ``"collude"`` does all of it.  Taking the partner's cards costs
    the taker (at three heuristic players the soft taker is the fool in 9 games of 10, its
    partner almost never): ``squeeze`` is the pair that makes the third player the fool.

    Its name is ``POLICY:STRENGTH:PARTNER`` (``"collude:0.5:2"``; partner ``-``: not at this
    table, so it plays as the heuristic).  Whether a decision colludes is drawn from a hash
    of the seat's view, not from the driver's generator: a game replays identically however
    the bots are built, the other seats' choices are untouched, and at a lower strength the
    colluding decisions are a subset of those at a higher one.

    >>> import random
    >>> from games.engine import Rules, from_deal
    >>> state = from_deal(Rules(players=3), {"hands": [["6S"], ["7S", "7C"], ["6C", "8S"]],
    ...                   "stock": [], "trump": "D", "attacker": 1})
    >>> str(make_bot("collude:1:2").choose(state, 1, random.Random(0)))
    '1 attack 7S'
    """

    def __init__(
        self, policy: str = "collude", strength: float = 1.0, partner: int | None = None
    ) -> None:
        super().__init__()
        if policy not in COLLUSION_POLICIES:
            raise BadRequest(
                f"unknown collusion policy {policy!r} (one of {', '.join(COLLUSION_POLICIES)})"
            )
        if not 0.0 <= strength <= 1.0:
            raise BadRequest(f"collusion strength {strength!r} is not in [0, 1]")
        self.policy = policy
        self.strength = strength
        self.partner = partner
        self.name = f"{policy}:{strength_text(strength)}:{'-' if partner is None else partner}"

    def decide(
        self, seen: Mapping[str, Any], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The colluding move when this decision colludes and it differs from the heuristic's;
        else the heuristic's."""
        honest = super().decide(seen, legal, rng)
        partner = self.partner
        if partner is None or self.strength <= 0.0 or partner == seen["seat"]:
            return honest
        move = self._collude(seen, legal, honest, partner, rng)
        if move is None or move == honest:
            return honest
        return move if self.strength >= 1.0 or _coin(seen) < self.strength else honest

    def _collude(
        self,
        seen: Mapping[str, Any],
        legal: Sequence[Action],
        honest: Action,
        partner: int,
        rng: random.Random,
    ) -> Action | None:
        kinds = {a.type for a in legal}
        seat = legal[0].seat
        defender: int = seen["defender"]
        trump = SUITS.index(seen["trump"])
        if ATTACK in kinds:
            if defender == partner and honest.type == ATTACK and len(honest.cards) > 1:
                return Action(seat, ATTACK, honest.cards[:1])
            return None
        if kinds & {DEFEND, TAKE, TRANSFER, SHOW_TRUMP}:
            transfers = [a for a in legal if a.type in (TRANSFER, SHOW_TRUMP)]
            if transfers and _next_in(seen, seat) == partner:
                transfers, legal = [], [a for a in legal if a not in transfers]
                honest = super().decide(seen, legal, rng) if legal else honest
            if transfers and self.policy != "soft":
                shown = [a for a in transfers if a.type == SHOW_TRUMP]
                return (shown or sorted(transfers, key=lambda a: self._value(a.cards[0], trump)))[0]
            if seen["attacker"] == partner and TAKE in kinds and self.policy != "squeeze":
                return next(a for a in legal if a.type == TAKE)
            return honest
        if defender == partner:
            return next((a for a in legal if a.type == PASS), None)
        if self.policy != "soft" and honest.type == PASS:
            throws = [a for a in legal if a.type == THROW and a.cards[0] & 3 != trump]
            if throws:
                return min(throws, key=lambda a: a.cards[0] >> 2)
        return None


COLLUSION_POLICIES = ("collude", "soft", "squeeze")


def strength_text(strength: float) -> str:
    """A colluder's strength as its name writes it: exact, without a trailing ``.0``.

    >>> strength_text(1.0), strength_text(0.25)
    ('1', '0.25')
    """
    return repr(float(strength)).removesuffix(".0")


def _coin(seen: Mapping[str, Any]) -> float:
    """A number in [0, 1) fixed by the seat's view of this moment (its hand, the table, the
    hand sizes, the bout): the same decision draws the same number in every replay."""
    key = repr(
        (
            seen["seat"],
            seen["hand"],
            seen["table"],
            seen["hand_sizes"],
            seen["bout"],
            seen["stock"],
            seen["passed"],
            seen["taking"],
            seen["defender"],
        )
    )
    digest = hashlib.blake2b(key.encode(), digest_size=8, person=b"durak-collude").digest()
    return int.from_bytes(digest, "big") / 2.0**64


BOTS: dict[str, type[RandomBot] | type[HeuristicBot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "pogony": PogonyBot,
}


def _colluder(name: str) -> ColludingBot | None:
    """The :class:`ColludingBot` named ``POLICY:STRENGTH:PARTNER``; None if ``name`` has no
    colon (a plain bot name); :class:`BadRequest` for a malformed one."""
    if ":" not in name:
        return None
    parts = name.split(":")
    if len(parts) != 3 or parts[0] not in COLLUSION_POLICIES:
        raise BadRequest(
            f"unknown bot {name!r} (a colluder is POLICY:STRENGTH:PARTNER, "
            f"POLICY one of {', '.join(COLLUSION_POLICIES)})"
        )
    policy, strength, partner = parts
    try:
        value = float(strength)
    except ValueError:
        raise BadRequest(f"bot {name!r}: the strength {strength!r} is not a number") from None
    if partner != "-" and not partner.isdigit():
        raise BadRequest(f"bot {name!r}: the partner {partner!r} is not a seat number or -")
    return ColludingBot(policy, value, None if partner == "-" else int(partner))


def make_bot(name: str) -> Bot:
    """Return a new bot by name: ``"random"``, ``"heuristic"``, ``"pogony"``, or a colluder
    ``POLICY:STRENGTH:PARTNER`` (:class:`ColludingBot`).

    >>> make_bot("heuristic").name, make_bot("soft:0.50:3").name
    ('heuristic', 'soft:0.5:3')
    >>> make_bot("clever")
    Traceback (most recent call last):
    ...
    games.engine.errors.BadRequest: unknown bot 'clever' (one of heuristic, pogony, random)
    """
    colluder = _colluder(name)
    if colluder is not None:
        return colluder
    try:
        return BOTS[name]()
    except KeyError:
        raise BadRequest(f"unknown bot {name!r} (one of {', '.join(sorted(BOTS))})") from None


def bind_partners(kinds: Sequence[str]) -> list[str]:
    """The bot names for a table from its players' kinds, by seat: a colluder's kind
    ``POLICY:STRENGTH:#TAG`` names its pair by a tag, and becomes ``POLICY:STRENGTH:SEAT``
    with the seat of the other player of that kind at this table (``-`` if none is). Every
    other kind ("" for a person) is kept.

    >>> bind_partners(["collude:1:#7", "", "heuristic", "collude:1:#7", "soft:1:#8"])
    ['collude:1:3', '', 'heuristic', 'collude:1:0', 'soft:1:-']
    """
    out = list(kinds)
    for seat, kind in enumerate(kinds):
        head, sep, tag = kind.rpartition(":#")
        if not sep:
            continue
        partners = [other for other, k in enumerate(kinds) if k == kind and other != seat]
        if len(partners) > 1 or not tag:
            raise BadRequest(f"bot kind {kind!r}: a pair tag names exactly two players")
        out[seat] = f"{head}:{partners[0] if partners else '-'}"
    return out


# --- the table driver -------------------------------------------------------------------------


def acting_seat(state: GameState) -> int | None:
    """The seat the driver lets act next (None once the game is over).

    >>> import random
    >>> from games.engine import Rules, new_game
    >>> state = new_game(Rules(), random.Random(2))
    >>> acting_seat(state) == state.attacker
    True
    """
    if state.result is not None:
        return None
    if not state.t_att:
        return state.attacker
    defender = state.defender
    if state.unbeaten and not state.taking:
        return defender
    n = state.setup.n
    waiting = state.throwers & ~state.passed
    hands = state.hands
    for step in range(n):
        seat = (state.attacker + step) % n
        if seat != defender and waiting >> seat & 1 and hands[seat]:
            return seat
    return None


def play_step(state: GameState, bots: Mapping[int, Bot], rng: random.Random) -> Action | None:
    """Let the seat that acts next (:func:`acting_seat`) choose; None once the game is over.

    The caller applies the action: ``state = apply(state, action)``.

    >>> import random
    >>> from games.engine import Rules, new_game
    >>> state = new_game(Rules(), random.Random(2))
    >>> bots = {0: RandomBot(), 1: RandomBot()}
    >>> play_step(state, bots, random.Random(0)).seat == state.attacker
    True
    """
    seat = acting_seat(state)
    if seat is None:
        if state.result is not None:
            return None
        # Not expected (the engine ends a bout once nobody may act); any seat that can act.
        for other in range(state.setup.n):
            if legal_actions(state, other):
                seat = other
                break
        else:
            raise IllegalAction("no seat can act")
    try:
        bot = bots[seat]
    except KeyError:
        raise BadRequest(f"no bot for seat {seat}") from None
    return bot.choose(state, seat, rng)


def play_game(
    state: GameState,
    bots: Mapping[int, Bot],
    rng: random.Random,
    max_steps: int = 10_000,
) -> tuple[GameState, list[Action]]:
    """Play to the end; return the final state and the actions applied.

    If ``max_steps`` actions do not end the game, the unfinished state is returned (check
    ``state.finished``).

    >>> import random
    >>> from games.engine import Rules, new_game
    >>> rng = random.Random(3)
    >>> final, actions = play_game(new_game(Rules(players=4), rng),
    ...                            {s: HeuristicBot() for s in range(4)}, rng)
    >>> final.finished
    True
    """
    actions: list[Action] = []
    while state.result is None and len(actions) < max_steps:
        action = play_step(state, bots, rng)
        if action is None:
            break
        state = apply(state, action)
        actions.append(action)
    return state, actions
