"""The rules: start a game, list legal actions, apply one, redact a view.

>>> import random
>>> from games.engine import Rules, new_game, legal_actions, apply, Action
>>> state = from_deal(Rules(), {"hands": [["6S", "9H"], ["7S", "8C"]], "stock": [],
...                             "trump": "D", "attacker": 0})
>>> [str(a) for a in legal_actions(state, 0)]
['0 attack 6S', '0 attack 9H']
>>> state = apply(state, Action.parse("0 attack 6S"))
>>> [str(a) for a in legal_actions(state, 1)]
['1 defend 7S 6S', '1 take']

Readings of ``rules.md`` where it is silent are listed in ``README.md`` beside this file.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .actions import (
    ATTACK,
    DEFEND,
    PASS,
    REDEAL,
    SHOW_TRUMP,
    TAKE,
    THROW,
    TRANSFER,
    Action,
)
from .cards import (
    CARD_NAMES,
    RANK_MASKS,
    RANKS,
    SUIT_MASKS,
    SUITS,
    cards_of,
    deck,
    deck_mask,
    parse_card,
    parse_rank,
    parse_suit,
)
from .errors import (
    BadRequest,
    CannotBeat,
    CardNotInHand,
    DealError,
    EngineError,
    GameOver,
    IllegalAction,
    LimitExceeded,
    NotYourTurn,
    RankNotOnTable,
    TransferNotAllowed,
)
from .rules import Rules
from .state import NO_CAP, TRANSFER_FLAG, GameState, Pogony, Result, Setup

__all__ = [
    "apply",
    "deal_from_seed",
    "from_deal",
    "is_legal",
    "legal_actions",
    "legal_moves",
    "new_game",
    "new_seed",
    "next_game_attacker",
    "rng_for_seed",
    "seed_commitment",
    "view",
]

# --- seeds ----------------------------------------------------------------------------------


def _seed_text(seed: int | str) -> str:
    if type(seed) is int:
        if seed < 0:
            raise BadRequest("seed: must not be negative")
        return str(seed)
    if isinstance(seed, str) and seed:
        return seed
    raise BadRequest(f"seed: expected a non-negative integer or a non-empty string, got {seed!r}")


def seed_commitment(seed: int | str) -> str:
    """Return the public commitment to a seed: ``sha256(text)`` in hex.

    ``text`` is the seed's canonical text: an int in decimal, a string as it is (UTF-8).  The
    commitment is published at the start of a game and the seed at its end.

    >>> seed_commitment(42) == seed_commitment("42")
    True
    >>> seed_commitment("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(_seed_text(seed).encode("utf-8")).hexdigest()


def rng_for_seed(seed: int | str) -> random.Random:
    """Return the ``random.Random`` that deals the game of a seed.

    ``random.Random(int.from_bytes(sha512(text).digest(), "big"))`` where ``text`` is the seed's
    canonical text (see :func:`seed_commitment`), so ``42`` and ``"42"`` deal the same game and
    the commitment (a sha256) says nothing about the generator's state.

    >>> rng_for_seed(7).random() == rng_for_seed("7").random()
    True
    """
    digest = hashlib.sha512(_seed_text(seed).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest, "big"))


def new_seed() -> str:
    """Return a fresh unguessable seed (128 random bits as hex) for a server-dealt game.

    >>> len(new_seed())
    32
    """
    return secrets.token_hex(16)


def deal_from_seed(rules: Rules, seed: int | str, **hooks: Any) -> dict[str, Any]:
    """Recompute the deal of a published seed, as the protocol's fixed deal object.

    ``hooks`` are the keyword arguments of :func:`new_game` (series data).

    >>> deal = deal_from_seed(Rules(), 42)
    >>> len(deal["hands"][0]), len(deal["stock"]), deal["trump"] == deal["stock"][-1][1]
    (6, 24, True)
    """
    state = new_game(rules, rng_for_seed(seed), **hooks)
    out = {
        "hands": [state.hand(s) for s in range(rules.players)],
        "stock": [CARD_NAMES[c] for c in state.stock],
        "trump": SUITS[state.setup.trump],
        "attacker": state.attacker,
    }
    if not state.stock:
        out["trump_card"] = CARD_NAMES[state.setup.trump_card]
    return out


# --- starting a game ----------------------------------------------------------------------


def new_game(
    rules: Rules,
    rng: random.Random,
    *,
    attacker: int | None = None,
    hand_sizes: Sequence[int] | None = None,
    removed: Iterable[str] = (),
    throw_caps: Sequence[int | None] | None = None,
    pogony_rank: str | None = None,
) -> GameState:
    """Shuffle and deal a new game from an injected ``random.Random``.

    The deck (``cards.deck``: lowest rank first, suits S C D H) less the ``removed`` cards is
    shuffled with ``rng.shuffle``; cards are dealt one at a time clockwise from seat 0 (a seat
    stops at its ``hand_sizes`` entry); the rest is the stock, top first, its last card the
    face-up trump.  If nobody holds a trump and no ``attacker`` is forced, the first attacker is
    ``rng.randrange(players)``, drawn after the shuffle.  With ``redeal_five_of_suit`` the state
    keeps the generator's state, and a ``redeal`` shuffles again from the same stream.

    Hooks for series code: ``attacker`` (forced first attacker, ``next_game_first``),
    ``hand_sizes`` (per-seat deal size, long durak), ``removed`` (cards laid out before the
    deal), ``throw_caps`` (per-seat cap on attack cards against that seat; None = no cap),
    ``pogony_rank`` (the series' current pogony rank, e.g. ``"7"``; default the deck's lowest).

    >>> state = new_game(Rules(players=3), random.Random(1))
    >>> [len(state.hand(s)) for s in range(3)], len(state.stock)
    ([6, 6, 6], 18)
    """
    n = rules.players
    removed_mask = 0
    for name in removed:
        removed_mask |= 1 << parse_card(name)
    if removed_mask & ~deck_mask(rules.deck_size):
        raise DealError("removed: a card that is not in the deck")
    sizes = tuple(hand_sizes) if hand_sizes is not None else (rules.hand_size,) * n
    if len(sizes) != n or any(type(x) is not int or not 1 <= x <= rules.hand_size for x in sizes):
        raise DealError(f"hand_sizes: {n} sizes of 1-{rules.hand_size} cards")
    if attacker is not None and (type(attacker) is not int or not 0 <= attacker < n):
        raise DealError(f"attacker: not a seat: {attacker!r}")
    setup_kwargs: dict[str, Any] = {
        "throw_caps": _throw_caps(rules, throw_caps),
        "pogony_rank": _pogony_rank(pogony_rank),
        "deal_sizes": sizes,
        "removed": removed_mask,
        "forced_attacker": attacker,
    }
    return _shuffle_and_deal(rules, rng, setup_kwargs, 0)


def _shuffle_and_deal(
    rules: Rules, rng: random.Random, setup_kwargs: dict[str, Any], redeals: int
) -> GameState:
    n = rules.players
    removed = setup_kwargs["removed"]
    sizes: tuple[int, ...] = setup_kwargs["deal_sizes"]
    cards = (
        [c for c in deck(rules.deck_size) if not removed >> c & 1]
        if removed
        else list(deck(rules.deck_size))
    )
    if sum(sizes) > len(cards):
        raise DealError("not enough cards for the deal")
    rng.shuffle(cards)
    hands = [0] * n
    pos = 0
    for rnd in range(max(sizes)):
        for seat in range(n):
            if rnd < sizes[seat]:
                hands[seat] |= 1 << cards[pos]
                pos += 1
    stock = tuple(cards[pos:])
    trump_card = stock[-1] if stock else cards[pos - 1]
    trump = trump_card & 3
    attacker = setup_kwargs["forced_attacker"]
    if attacker is None:
        attacker = _lowest_trump_holder(hands, trump)
        if attacker is None:
            attacker = rng.randrange(n)
    rng_state = rng.getstate() if rules.redeal_five_of_suit else None
    setup = Setup(rules, trump, trump_card, rng_state=rng_state, redeals=redeals, **setup_kwargs)
    return _start(setup, tuple(hands), stock, attacker)


def _lowest_trump_holder(hands: Sequence[int], trump: int) -> int | None:
    best = None
    best_card = 99
    for seat, hand in enumerate(hands):
        trumps = hand & SUIT_MASKS[trump]
        if trumps:
            low = (trumps & -trumps).bit_length() - 1
            if low < best_card:
                best, best_card = seat, low
    return best


def _throw_caps(rules: Rules, caps: Sequence[int | None] | None) -> tuple[int, ...] | None:
    if caps is None:
        return None
    if len(caps) != rules.players:
        raise DealError(f"throw_caps: one entry per seat ({rules.players})")
    out = []
    for cap in caps:
        if cap is None:
            out.append(NO_CAP)
        elif type(cap) is int and cap >= 1:
            out.append(cap)
        else:
            raise DealError(f"throw_caps: {cap!r} is not a positive integer or null")
    return tuple(out)


def _pogony_rank(rank: str | None) -> int | None:
    return None if rank is None else parse_rank(rank)


def from_deal(
    rules: Rules,
    deal: Mapping[str, Any],
    *,
    throw_caps: Sequence[int | None] | None = None,
    pogony_rank: str | None = None,
) -> GameState:
    """Build a game from the protocol's fixed deal object.

    ``{"hands": [[..], ..], "stock": [top, .., face-up trump], "trump": "D", "attacker": 0}``;
    fewer cards than a full deal are allowed (the rest is out of play).  An optional
    ``"trump_card"`` names the face-up card when the stock is empty.  Hooks as in :func:`new_game`.

    >>> s = from_deal(Rules(), {"hands": [["6S"], ["7S"]], "stock": ["AD"], "trump": "D",
    ...                         "attacker": 1})
    >>> s.attacker, s.defender, s.to_json()["trump_card"]
    (1, 0, 'AD')
    """
    if not isinstance(deal, Mapping):
        raise DealError("deal: expected an object")
    extra = set(deal) - {"hands", "stock", "trump", "attacker", "trump_card"}
    if extra:
        raise DealError(f"deal: unknown key(s) {', '.join(sorted(map(str, extra)))}")
    n = rules.players
    raw_hands = deal.get("hands")
    raw_stock = deal.get("stock", [])
    if not isinstance(raw_hands, list) or len(raw_hands) != n:
        raise DealError(f"deal: 'hands' must be a list of {n} hands")
    if not isinstance(raw_stock, list) or not all(isinstance(h, list) for h in raw_hands):
        raise DealError("deal: hands and stock must be lists of card codes")
    in_deck = deck_mask(rules.deck_size)
    seen = 0
    hands = []
    for hand in raw_hands:
        mask = 0
        for name in hand:
            card = parse_card(name)
            bit = 1 << card
            if bit & seen:
                raise DealError(f"deal: {name} appears twice")
            if not bit & in_deck:
                raise DealError(f"deal: {name} is not in the {rules.deck_size}-card deck")
            seen |= bit
            mask |= bit
        hands.append(mask)
    stock = []
    for name in raw_stock:
        card = parse_card(name)
        bit = 1 << card
        if bit & seen:
            raise DealError(f"deal: {name} appears twice")
        if not bit & in_deck:
            raise DealError(f"deal: {name} is not in the {rules.deck_size}-card deck")
        seen |= bit
        stock.append(card)
    trump = parse_suit(deal.get("trump", ""))
    if stock and stock[-1] & 3 != trump:
        raise DealError("deal: the last stock card is the face-up trump; its suit must be 'trump'")
    trump_card = stock[-1] if stock else -1
    if deal.get("trump_card") is not None:
        trump_card = parse_card(deal["trump_card"])
        if (stock and trump_card != stock[-1]) or trump_card & 3 != trump:
            raise DealError("deal: 'trump_card' must be the last stock card, of the trump suit")
    attacker = deal.get("attacker")
    if type(attacker) is not int or not 0 <= attacker < n:
        raise DealError(f"deal: 'attacker' must be a seat 0-{n - 1}")
    if not hands[attacker]:
        raise DealError("deal: the attacker holds no cards")
    setup = Setup(
        rules,
        trump,
        trump_card,
        throw_caps=_throw_caps(rules, throw_caps),
        pogony_rank=_pogony_rank(pogony_rank),
    )
    return _start(setup, tuple(hands), tuple(stock), attacker)


def _start(
    setup: Setup, hands: tuple[int, ...], stock: tuple[int, ...], attacker: int
) -> GameState:
    n = setup.n
    s = GameState()
    s.setup = setup
    s.hands = hands
    s.stock = stock
    s.discard = 0
    s.t_att = s.t_def = s.t_by = ()
    s.unbeaten = 0
    s.ranks = 0
    s.taking = False
    s.passed = 0
    s.bouts = 0
    s.shown = 0
    s.emptied = ()
    s.double_pogony = None
    s.result = None
    places = () if stock else tuple(seat for seat in range(n) if not hands[seat])
    s.places = places
    s.out = sum(1 << seat for seat in places)
    holders = [seat for seat in range(n) if hands[seat] or stock]
    if len(holders) < 2 or (setup.has_teams and len({setup.team[h] for h in holders}) < 2):
        raise DealError("deal: at least two opposing players must hold cards")
    s.attacker = attacker
    s.defender = _next_opponent(s, attacker)
    s.throwers = _throwers(s, s.defender)
    return s


# --- seat helpers ---------------------------------------------------------------------------


def _next_opponent(s: GameState, seat: int) -> int:
    """Next seat clockwise still in (holding or drawing cards), not a partner; or -1."""
    setup = s.setup
    stock = s.stock
    out = s.out
    if stock and not out:
        return setup.next_opponent[seat]
    n = setup.n
    partners = setup.same_team[seat]
    hands = s.hands
    for step in range(1, n):
        other = (seat + step) % n
        if not (partners >> other & 1 or out >> other & 1) and (hands[other] or stock):
            return other
    return -1


def _first_in_from(s: GameState, seat: int) -> int:
    if s.stock and not s.out:
        return seat
    n = s.setup.n
    for step in range(n):
        other = (seat + step) % n
        if not s.out >> other & 1 and (s.hands[other] or s.stock):
            return other
    raise AssertionError("nobody left")


def _throwers(s: GameState, defender: int) -> int:
    """Seats that may add cards against ``defender``: a bitmask."""
    setup = s.setup
    if not setup.throw_ins:
        return 0
    stock = s.stock
    out = s.out
    every = setup.all_throwers
    if stock and not out and every is not None:
        return every[defender]
    n = setup.n
    hands = s.hands
    mask = 0
    if setup.neighbours:
        for direction in (1, -1):
            for step in range(1, n):
                other = (defender + direction * step) % n
                if not out >> other & 1 and (hands[other] or stock):
                    mask |= 1 << other
                    break
    else:
        for other in range(n):
            if not out >> other & 1 and (hands[other] or stock):
                mask |= 1 << other
    return mask & ~setup.same_team[defender]


def _cap(s: GameState, defender: int) -> int:
    """Most attack cards allowed in this bout against ``defender`` (not counting its hand)."""
    setup = s.setup
    # A discard: a bout has ended in a successful defence, the first bout's limit is over.
    cap = NO_CAP if setup.unlimited_after_stock and not s.stock else setup.bout_caps[s.discard > 0]
    limit = setup.throw_caps[defender]
    return cap if cap < limit else limit


def _cards_mask(cards: tuple[object, ...]) -> int:
    if type(cards) is not tuple:  # (the compiled build's own check, in both builds)
        raise BadRequest(f"cards must be a tuple of card codes, not {type(cards).__name__}")
    if len(cards) == 1:
        card = cards[0]
        if type(card) is int and 0 <= card < 52:
            return 1 << card
    mask = 0
    for card in cards:
        if type(card) is not int or not 0 <= card < 52:
            raise BadRequest(f"not a card code: {card!r}")
        mask |= 1 << card
    if mask.bit_count() != len(cards):
        raise BadRequest("a card is listed twice")
    return mask


def _names(mask: int) -> str:
    return " ".join(CARD_NAMES[c] for c in cards_of(mask))


# --- apply ----------------------------------------------------------------------------------


def apply(state: GameState, action: Action) -> GameState:
    """Return the state after ``action``, or raise the specific :class:`EngineError`.

    The input state is never changed, so a refused action changes nothing.

    >>> s = from_deal(Rules(), {"hands": [["9S"], ["TS"]], "stock": [], "trump": "D",
    ...                         "attacker": 0})
    >>> s = apply(s, Action.parse("0 attack 9S"))
    >>> apply(s, Action.parse("1 defend TS 9S")).result.draw
    True
    """
    if state.result is not None:
        raise GameOver("the game is over")
    # The fields are read as plain objects until checked: the compiled build checks a field's
    # declared type where it reads the field, and would raise TypeError, not the protocol's error.
    fields: tuple[object, ...] = action
    seat = fields[0]
    if type(seat) is not int or not 0 <= seat < state.setup.n:
        raise BadRequest(f"seat {seat!r} is not at this table (0-{state.setup.n - 1})")
    kind = fields[1]
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise BadRequest(f"unknown action type {kind!r}")
    try:
        return handler(state, action)
    except TypeError:  # the compiled build reading a field that is not of its declared type
        problem = _malformed(fields)
        if problem:
            raise BadRequest(problem) from None
        raise


def _malformed(fields: tuple[object, ...]) -> str:
    """Why an action's cards or target are not card codes ("" if they are): the message the
    pure Python handlers give (``_cards_mask``) where the compiled ones raise TypeError."""
    cards, target = fields[2], fields[3]
    if type(cards) is not tuple:
        return f"cards must be a tuple of card codes, not {type(cards).__name__}"
    for card in (*cards, *(() if target is None else (target,))):
        if type(card) is not int or not 0 <= card < 52:
            return f"not a card code: {card!r}"
    return ""


def is_legal(state: GameState, action: Action) -> bool:
    """Return True if :func:`apply` would accept ``action``.

    >>> s = from_deal(Rules(), {"hands": [["9S"], ["TS"]], "stock": [], "trump": "D",
    ...                         "attacker": 0})
    >>> is_legal(s, Action.parse("1 attack TS"))
    False
    """
    try:
        apply(state, action)
    except EngineError:
        return False
    return True


def _attack(s: GameState, a: Action) -> GameState:
    seat = a.seat
    if s.t_att:
        raise IllegalAction("the bout is open: add cards with 'throw'")
    if seat != s.attacker:
        raise NotYourTurn(f"seat {s.attacker} attacks, not seat {seat}")
    cards = a.cards
    if not cards:
        raise BadRequest("attack needs at least one card")
    mask = _cards_mask(cards)
    hand = s.hands[seat]
    if mask & hand != mask:
        raise CardNotInHand(f"seat {seat} does not hold {_names(mask & ~hand)}")
    rank = cards[0] >> 2
    if mask & ~RANK_MASKS[rank]:
        raise IllegalAction("an attack is one card or several cards of one rank")
    k = len(cards)
    defender = s.defender
    if (k > s.setup.min_cap and k > _cap(s, defender)) or k > s.hands[defender].bit_count():
        raise LimitExceeded(f"{k} attack cards exceed this bout's limit")
    n = s.copy()
    hands = list(s.hands)
    hands[seat] = hand ^ mask
    n.hands = tuple(hands)
    n.t_att = tuple(cards)
    n.t_def = (-1,) * k
    n.t_by = (seat,) * k
    n.unbeaten = k
    n.ranks = RANK_MASKS[rank]
    n.passed = 0
    if not hand ^ mask:
        n.emptied = (*s.emptied, seat)
    return n


def _throw(s: GameState, a: Action) -> GameState:
    seat = a.seat
    if not s.t_att:
        raise IllegalAction("no bout is open: the attacker opens with 'attack'")
    defender = s.defender
    if seat == defender:
        raise IllegalAction("the defender cannot throw in")
    if not s.setup.throw_ins:
        raise IllegalAction("no throw-ins in the simple variant")
    if not s.throwers >> seat & 1:
        raise IllegalAction(f"seat {seat} may not throw in to seat {defender}")
    cards = a.cards
    if not cards:
        raise BadRequest("throw needs at least one card")
    mask = _cards_mask(cards)
    hand = s.hands[seat]
    if mask & hand != mask:
        raise CardNotInHand(f"seat {seat} does not hold {_names(mask & ~hand)}")
    if mask & ~s.ranks:
        raise RankNotOnTable(f"the rank of {_names(mask & ~s.ranks)} is not on the table")
    k = len(cards)
    total = len(s.t_att) + k
    if total > s.setup.min_cap and total > _cap(s, defender):
        raise LimitExceeded(f"at most {_cap(s, defender)} attack cards in this bout")
    if s.unbeaten + k > s.hands[defender].bit_count():
        raise LimitExceeded("unbeaten cards may not exceed the defender's hand")
    n = s.copy()
    hands = list(s.hands)
    hands[seat] = hand ^ mask
    n.hands = tuple(hands)
    n.t_att = s.t_att + tuple(cards)
    n.t_def = s.t_def + (-1,) * k
    n.t_by = s.t_by + (seat,) * k
    n.unbeaten = s.unbeaten + k
    n.passed = 0
    if not hand ^ mask:
        n.emptied = (*s.emptied, seat)
        if n.taking:
            return _maybe_end(n)
    return n


def _defend(s: GameState, a: Action) -> GameState:
    seat = a.seat
    if seat != s.defender:
        raise NotYourTurn(f"seat {s.defender} defends, not seat {seat}")
    if not s.t_att:
        raise IllegalAction("nothing to defend against")
    if s.taking:
        raise IllegalAction("the defender has said take")
    cards = a.cards
    if len(cards) != 1:
        raise BadRequest("defend covers one card with one card")
    card = cards[0]
    if type(card) is not int or not 0 <= card < 52:
        raise BadRequest(f"not a card code: {card!r}")
    hand = s.hands[seat]
    if not hand >> card & 1:
        raise CardNotInHand(f"seat {seat} does not hold {CARD_NAMES[card]}")
    fields: tuple[object, ...] = a  # (see apply)
    target = fields[3]
    try:
        idx = s.t_att.index(target)
    except ValueError:
        raise IllegalAction("the target is not an attack card on the table") from None
    if s.t_def[idx] >= 0:
        raise IllegalAction(f"{CARD_NAMES[s.t_att[idx]]} is already beaten")
    if not s.setup.beaters[s.t_att[idx]] >> card & 1:
        raise CannotBeat(f"{CARD_NAMES[card]} does not beat {CARD_NAMES[s.t_att[idx]]}")
    n = s.copy()
    hands = list(s.hands)
    hand ^= 1 << card
    hands[seat] = hand
    n.hands = tuple(hands)
    t_def = s.t_def
    n.t_def = (card,) if len(t_def) == 1 else (*t_def[:idx], card, *t_def[idx + 1 :])
    n.unbeaten = s.unbeaten - 1
    n.ranks = s.ranks | RANK_MASKS[card >> 2]
    n.passed = 0
    if not hand:
        n.emptied = (*s.emptied, seat)
    if n.unbeaten == 0:
        return _maybe_end(n)
    return n


def _take(s: GameState, a: Action) -> GameState:
    seat = a.seat
    if a.cards:
        raise BadRequest("take takes no cards")
    if seat != s.defender:
        raise NotYourTurn(f"only the defender (seat {s.defender}) can take")
    if not s.t_att:
        raise IllegalAction("nothing to take")
    if s.taking:
        raise IllegalAction("the defender has already said take")
    if not s.unbeaten:
        raise IllegalAction("every card is beaten: nothing to take")
    n = s.copy()
    n.taking = True
    n.passed = 0
    return _maybe_end(n)


def _pass(s: GameState, a: Action) -> GameState:
    seat = a.seat
    if a.cards:
        raise BadRequest("pass takes no cards")
    if not s.t_att:
        raise IllegalAction("no bout is open: the attacker must attack")
    if seat == s.defender:
        raise IllegalAction("the defender cannot pass: it defends or takes")
    bit = 1 << seat
    if not s.throwers & bit:
        raise IllegalAction(f"seat {seat} is not a thrower in this bout")
    if s.passed & bit:
        raise IllegalAction(f"seat {seat} has already passed")
    if not s.hands[seat]:
        raise IllegalAction(f"seat {seat} holds no cards: it counts as passed")
    if s.unbeaten and not s.taking:
        raise IllegalAction("pass once every card is beaten or the defender takes")
    n = s.copy()
    n.passed = s.passed | bit
    return _maybe_end(n)


def _transfer_problem(
    s: GameState, seat: int, added: int, last_card: bool
) -> tuple[int, type[EngineError] | None, str]:
    """Check a transfer by ``seat`` adding ``added`` cards: (new defender, error class, why)."""
    setup = s.setup
    rules = setup.rules
    if not setup.transfers:
        return -1, IllegalAction, "transfers only in the transfer variant"
    if seat != s.defender:
        return -1, NotYourTurn, f"only the defender (seat {s.defender}) can transfer"
    if not s.t_att:
        return -1, IllegalAction, "nothing to transfer"
    if s.taking:
        return -1, TransferNotAllowed, "the defender has said take"
    if s.unbeaten != len(s.t_att):
        return -1, TransferNotAllowed, "a card is already covered"
    if s.bouts == 0 and not rules.transfer_first_bout:
        return -1, TransferNotAllowed, "no transfer on the first bout"
    n = setup.n
    still_in = 0
    for other in range(n):
        if not s.out >> other & 1 and (s.hands[other] or s.stock):
            still_in += 1
    if still_in <= 2 and not rules.transfer_two_players:
        return -1, TransferNotAllowed, "no transfer between two players"
    if not rules.transfer_over_trump:
        trump = setup.trump
        for card in s.t_att:
            if card & 3 == trump:
                return -1, TransferNotAllowed, "no transfer while a trump is on the table"
    if last_card and not s.stock and not rules.transfer_to_go_out:
        return -1, TransferNotAllowed, "no transfer with the last card"
    target = _next_opponent(s, seat)
    if target < 0:
        return -1, TransferNotAllowed, "nobody left to transfer to"
    total = len(s.t_att) + added
    if total > _cap(s, target):
        return target, LimitExceeded, f"at most {_cap(s, target)} attack cards in this bout"
    if total > s.hands[target].bit_count():
        return target, LimitExceeded, f"seat {target} holds fewer than {total} cards"
    return target, None, ""


def _transfer(s: GameState, a: Action) -> GameState:
    seat = a.seat
    cards = a.cards
    if not cards:
        raise BadRequest("transfer needs at least one card")
    mask = _cards_mask(cards)
    hand = s.hands[seat]
    if seat == s.defender and s.t_att:
        if mask & hand != mask:
            raise CardNotInHand(f"seat {seat} does not hold {_names(mask & ~hand)}")
        if mask & ~RANK_MASKS[s.t_att[0] >> 2]:
            raise RankNotOnTable("a transfer uses cards of the attack's rank")
    target, err, why = _transfer_problem(s, seat, len(cards), mask == hand)
    if err is not None:
        raise err(why)
    k = len(cards)
    n = s.copy()
    hands = list(s.hands)
    hands[seat] = hand ^ mask
    n.hands = tuple(hands)
    n.t_att = s.t_att + tuple(cards)
    n.t_def = s.t_def + (-1,) * k
    n.t_by = s.t_by + (seat + TRANSFER_FLAG,) * k
    n.unbeaten = s.unbeaten + k
    n.passed = 0
    if not hand ^ mask:
        n.emptied = (*s.emptied, seat)
    n.defender = target
    n.throwers = _throwers(n, target)
    return n


def _show_trump(s: GameState, a: Action) -> GameState:
    seat = a.seat
    if not s.setup.rules.trump_show:
        raise IllegalAction("the rules have no проездной (trump_show)")
    if len(a.cards) != 1:
        raise BadRequest("show_trump shows one card")
    _cards_mask(a.cards)
    card = a.cards[0]
    if seat == s.defender and s.t_att:
        if not s.hands[seat] >> card & 1:
            raise CardNotInHand(f"seat {seat} does not hold {CARD_NAMES[card]}")
        if card & 3 != s.setup.trump:
            raise IllegalAction("проездной is shown with a trump")
        if card >> 2 != s.t_att[0] >> 2:
            raise RankNotOnTable("the shown trump must have the attack's rank")
        if s.shown >> seat & 1:
            raise TransferNotAllowed("проездной is shown once per game: play a card")
    target, err, why = _transfer_problem(s, seat, 0, False)
    if err is not None:
        raise err(why)
    n = s.copy()
    n.shown = s.shown | 1 << seat
    n.passed = 0
    n.defender = target
    n.throwers = _throwers(n, target)
    return n


def _redeal(s: GameState, a: Action) -> GameState:
    seat = a.seat
    if a.cards:
        raise BadRequest("redeal takes no cards")
    reason = _redeal_problem(s, seat)
    if reason:
        raise IllegalAction(reason)
    setup = s.setup
    rng = random.Random()
    rng.setstate(setup.rng_state)
    kwargs = {
        "throw_caps": setup.throw_caps,
        "pogony_rank": setup.pogony_rank,
        "deal_sizes": setup.deal_sizes,
        "removed": setup.removed,
        "forced_attacker": setup.forced_attacker,
    }
    return _shuffle_and_deal(setup.rules, rng, kwargs, setup.redeals + 1)


def _redeal_problem(s: GameState, seat: int) -> str:
    if not s.setup.rules.redeal_five_of_suit:
        return "the rules have no redeal"
    if s.t_att or s.bouts:
        return "a redeal is asked before the first attack"
    if s.setup.rng_state is None:
        return "this game was not shuffled by the engine: no redeal"
    hand = s.hands[seat]
    if not any((hand & SUIT_MASKS[suit]).bit_count() >= 5 for suit in range(4)):
        return f"seat {seat} holds fewer than 5 cards of every suit"
    return ""


_HANDLERS: dict[object, Callable[[GameState, Action], GameState]] = {
    ATTACK: _attack,
    THROW: _throw,
    DEFEND: _defend,
    TRANSFER: _transfer,
    SHOW_TRUMP: _show_trump,
    TAKE: _take,
    PASS: _pass,
    REDEAL: _redeal,
}


# --- the end of a bout ----------------------------------------------------------------------


def _maybe_end(n: GameState) -> GameState:
    """End the bout of the fresh copy ``n`` if every thrower has passed (and all is beaten):
    the table to the discard or to the taker, the draw, who went out, the result or the next
    pair."""
    if n.unbeaten and not n.taking:
        return n
    pending = n.throwers & ~n.passed
    held = n.hands
    while pending:
        low = pending & -pending
        if held[low.bit_length() - 1]:
            return n  # a thrower with cards has not passed
        pending ^= low
    setup = n.setup
    defender = n.defender
    success = not n.taking
    hands = list(n.hands)
    if success:
        n.discard += 2 * len(n.t_att)
    else:
        mask = 0
        for card in n.t_att:
            mask |= 1 << card
        for card in n.t_def:
            if card >= 0:
                mask |= 1 << card
        hands[defender] |= mask
    stock = n.stock
    if stock:
        hand_size = setup.hand_size
        pos = 0
        for seat in setup.draw_orders[n.attacker][defender]:
            hand = hands[seat]
            need = hand_size - hand.bit_count()
            if need > 0:
                for card in stock[pos : pos + need]:
                    hand |= 1 << card
                hands[seat] = hand
                pos += need
                if pos >= len(stock):
                    break
        stock = n.stock = stock[pos:]
    n.hands = tuple(hands)
    # While every seat is in and holds cards (as always while the stock lasts), nobody goes out:
    # no result, and the next pair and its throwers are lookups.
    everyone_in = not n.out and 0 not in hands
    result = None
    if not everyone_in:  # who went out, in which order, and the result (the table still lies)
        newly: list[int] = []
        if not stock:
            out = n.out
            newly = [seat for seat in range(setup.n) if not hands[seat] and not out >> seat & 1]
            if newly:
                emptied = n.emptied
                newly.sort(key=lambda seat: emptied.index(seat) if seat in emptied else -1)
                n.places = n.places + tuple(newly)
                for seat in newly:
                    out |= 1 << seat
                n.out = out
        result = _result(n, newly)
        if result is None and newly and len(n.places) == len(newly):
            n.double_pogony = _double_pogony(n, newly[0])
    # The table cleared for the next bout.
    n.taking = False
    n.passed = 0
    n.emptied = n.t_att = n.t_def = n.t_by = ()
    n.unbeaten = n.ranks = 0
    n.bouts += 1
    after = defender if success else (defender + 1) % setup.n
    if everyone_in:
        n.attacker = after
        target = n.defender = setup.next_opponent[after]
        every = setup.all_throwers
        n.throwers = every[target] if every is not None else _throwers(n, target)
        return n
    if result is not None:
        n.result = result
        n.throwers = 0
        return n
    attacker = n.attacker = _first_in_from(n, after)
    target = n.defender = _next_opponent(n, attacker)
    n.throwers = _throwers(n, target)
    return n


def _result(n: GameState, newly: list[int]) -> Result | None:
    """The result if the game ends after this bout (the table is still in ``n``)."""
    if n.stock:
        return None
    setup = n.setup
    rules = setup.rules
    hands = n.hands
    holders = [seat for seat in range(setup.n) if hands[seat]]
    if not holders:
        if rules.draw:
            double = () if n.double_pogony is None else (n.double_pogony,)
            return Result(n.places, None, True, None, None, setup.has_teams, double)
        fool = n.defender
        places = (*tuple(p for p in n.places if p != fool), fool)
    elif len(holders) == 1:
        fool = holders[0]
        places = (*n.places, fool)
    elif setup.has_teams and len({setup.team[h] for h in holders}) == 1:
        fool = min(holders, key=lambda seat: (-hands[seat].bit_count(), seat))
        rest = sorted(
            (h for h in holders if h != fool), key=lambda seat: (hands[seat].bit_count(), seat)
        )
        places = n.places + tuple(rest) + (fool,)
    else:
        return None
    team_lost = None
    if setup.has_teams:
        team_lost = tuple(s for s in range(setup.n) if setup.team[s] == setup.team[fool])
    pogony = _pogony(n, fool, newly, team_lost)
    hangings = tuple(h for h in (n.double_pogony, pogony) if h is not None)
    return Result(places, fool, False, pogony, team_lost, setup.has_teams, hangings)


def _pogony(
    n: GameState, fool: int, newly: list[int], team_lost: tuple[int, ...] | None
) -> Pogony | None:
    """The game-ending pogony: the first seat out in the final bout that hangs them."""
    rank = RANKS[n.setup.pogony_rank]
    for winner in newly:
        if winner != fool and _hangs_pogony(n, winner):
            return Pogony(winner, team_lost or (fool,), rank)
    return None


def _double_pogony(n: GameState, first_out: int) -> Pogony | None:
    """Seed 004's double, checked at the end of a bout that does not end the game.

    In a three-player game without teams the first seat to go out, if it went out hanging
    pogony, hangs them on both others at once ("в игре втроем один игрок может повесить погоны
    двоим оппонентам одновременно"); the two play the game out.
    """
    setup = n.setup
    if setup.n != 3 or setup.has_teams or not _hangs_pogony(n, first_out):
        return None
    others = tuple(seat for seat in range(3) if seat != first_out)
    return Pogony(first_out, others, RANKS[setup.pogony_rank])


def _hangs_pogony(n: GameState, seat: int) -> bool:
    """True if ``seat``, out in this bout, went out hanging pogony (rules.md "Pogony").

    It is not the defender and put on the table (still in ``n``) only attack/throw cards, no
    transfer, all of the pogony rank, at least one not a trump, at least ``pogony_min_cards``.
    """
    setup = n.setup
    if seat == n.defender or seat + TRANSFER_FLAG in n.t_by:
        return False
    played = [c for c, by in zip(n.t_att, n.t_by, strict=True) if by == seat]
    rank = setup.pogony_rank
    if not played or any(c >> 2 != rank for c in played):
        return False
    if all(c & 3 == setup.trump for c in played):
        return False
    return len(played) >= setup.rules.pogony_min_cards


# --- legal actions --------------------------------------------------------------------------


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every legal single-card action of ``seat``, plus take/pass/redeal where legal.

    Multi-card attacks, throws and transfers are legal in :func:`apply` but not listed (that
    keeps this list short: at most one entry per card and target).

    >>> s = from_deal(Rules(), {"hands": [["9S"], ["TS", "JS"]], "stock": [], "trump": "D",
    ...                         "attacker": 0})
    >>> [str(a) for a in legal_actions(apply(s, Action.parse("0 attack 9S")), 1)]
    ['1 defend TS 9S', '1 defend JS 9S', '1 take']
    """
    n = state.setup.n
    if type(seat) is not int or not 0 <= seat < n:
        raise BadRequest(f"seat {seat!r} is not at this table (0-{n - 1})")
    return legal_moves(state, 1 << seat)


ALL_SEATS = 0xFF
"""Every seat of a table (at most 8), as the seat bitmask :func:`legal_moves` takes."""


def legal_moves(state: GameState, seats: int = ALL_SEATS) -> list[Action]:
    """The :func:`legal_actions` of every seat in the bitmask ``seats`` (default: all), in seat
    order: what the table may do (random play lists it every step).

    The same list as ``[a for seat in seats for a in legal_actions(state, seat)]``, built in one
    pass that visits only the seats that may act (the attacker, or the defender and the
    throwers).

    >>> s = from_deal(Rules(), {"hands": [["9S", "9H"], ["TS", "JS"]], "stock": [], "trump": "D",
    ...                         "attacker": 0})
    >>> s = apply(s, Action.parse("0 attack 9S"))
    >>> [str(a) for a in legal_moves(s)], [str(a) for a in legal_moves(s, 0b01)]
    (['0 throw 9H', '1 defend TS 9S', '1 defend JS 9S', '1 take'], ['0 throw 9H'])
    """
    out: list[Action] = []
    if state.result is not None:
        return out
    setup = state.setup
    hands = state.hands
    t_att = state.t_att
    if not t_att:  # the attacker opens the bout; before the first, anyone may ask for a redeal
        attacker = state.attacker
        redeal = setup.redeal and state.bouts == 0
        for seat in _SEATS_OF[seats & ((1 << setup.n) - 1 if redeal else 1 << attacker)]:
            if seat == attacker:
                row = setup.acts[seat].attack
                hand = hands[seat]
                while hand:
                    low = hand & -hand
                    out.append(row[low.bit_length() - 1])
                    hand ^= low
            if redeal and not _redeal_problem(state, seat):
                out.append(setup.acts[seat].redeal)
        return out
    defender = state.defender
    unbeaten = state.unbeaten
    taking = state.taking
    for seat in _SEATS_OF[seats & (state.throwers | 1 << defender)]:
        hand = hands[seat]
        if seat == defender:  # covers, transfers and take, while something is left to beat
            if taking or not unbeaten:
                continue
            acts = setup.acts[seat]
            beaters = setup.beaters
            t_def = state.t_def
            for i, target in enumerate(t_att):
                if t_def[i] < 0:
                    cover = hand & beaters[target]
                    if cover:
                        row = acts.defend[target] or acts.defend_row(target)
                        while cover:
                            low = cover & -cover
                            out.append(row[low.bit_length() - 1])
                            cover ^= low
            if setup.transfers and unbeaten == len(t_att):
                _legal_transfers(state, seat, hand, out)
            out.append(acts.take)
        elif hand:  # a thrower: throw-ins while there is room, and pass once nothing is unbeaten
            throwable = hand & state.ranks
            if throwable:
                on_table = len(t_att)
                if (
                    on_table < setup.min_cap or on_table < _cap(state, defender)
                ) and unbeaten < hands[defender].bit_count():
                    row = setup.acts[seat].throw
                    while throwable:
                        low = throwable & -throwable
                        out.append(row[low.bit_length() - 1])
                        throwable ^= low
            if not state.passed >> seat & 1 and (taking or not unbeaten):
                out.append(setup.acts[seat].pass_)
    return out


_SEATS_OF = tuple(tuple(seat for seat in range(8) if mask >> seat & 1) for mask in range(256))
"""``_SEATS_OF[mask]``: the seats of a seat bitmask in order (a table has at most 8 seats)."""


def throw_room(state: GameState) -> int:
    """How many more cards the open bout takes (0: no bout open, or the game is over): the
    bout's cap less the attack cards on the table, and no more than the defender has left to
    cover. A taking defender still counts: the attackers may throw in up to this many.

    >>> s = from_deal(Rules(), {"hands": [["9S", "9H"], ["TS", "JS"]], "stock": [], "trump": "D",
    ...                         "attacker": 0})
    >>> throw_room(s), throw_room(apply(s, Action.parse("0 attack 9S")))
    (0, 1)
    """
    t_att = state.t_att
    if state.result is not None or not t_att:
        return 0
    defender = state.defender
    room = _cap(state, defender) - len(t_att)
    cover = state.hands[defender].bit_count() - state.unbeaten
    return max(0, room if room < cover else cover)


def _legal_transfers(state: GameState, seat: int, hand: int, out: list[Action]) -> None:
    same_rank = hand & RANK_MASKS[state.t_att[0] >> 2]
    if not same_rank:
        return
    setup = state.setup
    acts = setup.acts[seat]
    _target, err, _why = _transfer_problem(state, seat, 1, hand.bit_count() == 1)
    if err is None:
        row = acts.transfer
        cards = same_rank
        while cards:
            low = cards & -cards
            out.append(row[low.bit_length() - 1])
            cards ^= low
    if setup.rules.trump_show and not state.shown >> seat & 1:
        trump_card = same_rank & SUIT_MASKS[setup.trump]
        if trump_card:
            _target, err, _why = _transfer_problem(state, seat, 0, False)
            if err is None:
                out.append(acts.show_trump[trump_card.bit_length() - 1])


# --- views and series helpers ---------------------------------------------------------------


def view(state: GameState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see: its own hand, the others' hand sizes; ``None`` = a spectator.

    Never a hidden card: no other hand, no stock order (only the face-up trump card).

    >>> s = from_deal(Rules(), {"hands": [["9S"], ["TS"]], "stock": [], "trump": "D",
    ...                         "attacker": 0})
    >>> v = view(s, 0)
    >>> v["hand"], v["hand_sizes"], "hands" in v
    (['9S'], [1, 1], False)
    """
    n = state.setup.n
    if seat is not None and (type(seat) is not int or not 0 <= seat < n):
        raise BadRequest(f"seat {seat!r} is not at this table (0-{n - 1})")
    out = state.public_json()
    out["seat"] = seat
    out["hand"] = None if seat is None else state.hand(seat)
    out["hand_sizes"] = [h.bit_count() for h in state.hands]
    return out


def next_game_attacker(rules: Rules, result: Result) -> int | None:
    """Seat that attacks first in the next game of a series (``next_game_first``).

    ``from_under_fool``: the fool's left neighbour; ``onto_fool``: the fool's right neighbour;
    ``winner``: the first player out.  None (lowest trump decides) after a draw.

    >>> next_game_attacker(Rules(players=3), Result((0, 2, 1), 1, False, None, None))
    2
    """
    n = rules.players
    if rules.next_game_first == "winner":
        return result.places[0] if result.places else None
    if result.fool is None:
        return None
    if rules.next_game_first == "onto_fool":
        return (result.fool - 1) % n
    return (result.fool + 1) % n
