"""Cards, decks and the beating relation.

A card is a small int ``rank * 4 + suit`` (rank 0 = ``2`` ... 12 = ``A``; suit 0..3 = ``S C D H``);
its string form is rank + suit, e.g. ``"TS"``.  Sets of cards (hands) are int bitmasks with bit
``1 << card`` set, which makes "cards of this hand that beat that card" a single ``&``.

>>> card = parse_card("TS")
>>> card_name(card), card
('TS', 32)
>>> beats("7S", "6S", "D"), beats("6D", "AS", "D"), beats("AS", "6D", "D")
(True, True, False)
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import CardError

__all__ = [
    "BEATERS",
    "CARD_NAMES",
    "DECK_SIZES",
    "RANKS",
    "RANK_MASKS",
    "SUITS",
    "SUIT_MASKS",
    "beats",
    "beats_code",
    "card_name",
    "cards_of",
    "deck",
    "deck_mask",
    "lowest_rank",
    "mask_of",
    "parse_card",
    "parse_rank",
    "parse_suit",
    "rank_of",
    "suit_of",
]

RANKS = "23456789TJQKA"
SUITS = "SCDH"
DECK_SIZES = (24, 36, 52)
_LOWEST_RANK = {24: 7, 36: 4, 52: 0}

CARD_NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_CARD_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}

RANK_MASKS: tuple[int, ...] = tuple(0b1111 << (4 * r) for r in range(13))
"""``RANK_MASKS[r]``: bitmask of the four cards of rank index ``r``."""
SUIT_MASKS: tuple[int, ...] = tuple(sum(1 << (4 * r + s) for r in range(13)) for s in range(4))
"""``SUIT_MASKS[s]``: bitmask of the thirteen cards of suit index ``s``."""


def _beaters(trump: int) -> tuple[int, ...]:
    out = []
    for card in range(52):
        rank, suit = divmod(card, 4)
        mask = 0
        for other in range(52):
            o_rank, o_suit = divmod(other, 4)
            if (o_suit == suit and o_rank > rank) or (o_suit == trump and suit != trump):
                mask |= 1 << other
        out.append(mask)
    return tuple(out)


BEATERS: tuple[tuple[int, ...], ...] = tuple(_beaters(t) for t in range(4))
"""``BEATERS[trump][card]``: bitmask of every card that beats ``card`` with that trump suit."""


def parse_card(name: str) -> int:
    """Return the card code of a card string; raise :class:`CardError` if it is not one.

    >>> parse_card("6S"), parse_card("AH")
    (16, 51)
    """
    try:
        return _CARD_INDEX[name]
    except (KeyError, TypeError):
        raise CardError(f"not a card: {name!r} (rank 2-9 T J Q K A, then suit S C D H)") from None


def card_name(card: int) -> str:
    """Return the string form of a card code.

    >>> card_name(16)
    '6S'
    """
    return CARD_NAMES[card]


def rank_of(card: int) -> int:
    """Return the rank index of a card code (an index into ``RANKS``).

    >>> RANKS[rank_of(parse_card("QH"))]
    'Q'
    """
    return card >> 2


def suit_of(card: int) -> int:
    """Return the suit index of a card code (an index into ``SUITS``).

    >>> SUITS[suit_of(parse_card("QH"))]
    'H'
    """
    return card & 3


def parse_suit(letter: str) -> int:
    """Return the suit index (0..3) of ``S C D H``.

    >>> parse_suit("D")
    2
    """
    if not isinstance(letter, str) or len(letter) != 1 or letter not in SUITS:
        raise CardError(f"not a suit: {letter!r} (one of S C D H)")
    return SUITS.index(letter)


def parse_rank(letter: str) -> int:
    """Return the rank index (0 = ``2`` ... 12 = ``A``).

    >>> parse_rank("6")
    4
    """
    if not isinstance(letter, str) or len(letter) != 1 or letter not in RANKS:
        raise CardError(f"not a rank: {letter!r} (one of 2-9 T J Q K A)")
    return RANKS.index(letter)


def lowest_rank(deck_size: int) -> int:
    """Return the rank index of the lowest rank in a deck of that size.

    >>> RANKS[lowest_rank(36)]
    '6'
    """
    return _LOWEST_RANK[deck_size]


def deck(deck_size: int) -> tuple[int, ...]:
    """Return the cards of a deck of 24, 36 or 52 cards, lowest rank first, suits S C D H.

    This order is the one shuffled by ``new_game``, so it is part of the seed contract.

    >>> [card_name(c) for c in deck(24)[:5]]
    ['9S', '9C', '9D', '9H', 'TS']
    """
    return _DECKS[deck_size]


def deck_mask(deck_size: int) -> int:
    """Return the bitmask of a deck.

    >>> bin(deck_mask(24)).count("1")
    24
    """
    return _DECK_MASKS[deck_size]


def mask_of(cards: Iterable[int]) -> int:
    """Return the bitmask of card codes.

    >>> mask_of([0, 2])
    5
    """
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


_DECKS = {size: tuple(range(4 * low, 52)) for size, low in _LOWEST_RANK.items()}
_DECK_MASKS = {size: mask_of(cards) for size, cards in _DECKS.items()}


def cards_of(mask: int) -> list[int]:
    """Return the card codes of a bitmask, lowest first.

    >>> cards_of(5)
    [0, 2]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def beats_code(cover: int, attack: int, trump: int) -> bool:
    """Return True if card code ``cover`` beats card code ``attack`` (``trump``: a suit index).

    >>> beats_code(parse_card("7S"), parse_card("6S"), 2)
    True
    """
    return bool(BEATERS[trump][attack] >> cover & 1)


def beats(cover: str, attack: str, trump: str) -> bool:
    """Return True if the card ``cover`` beats the card ``attack`` when ``trump`` is the trump suit.

    Same suit and higher rank, or a trump over a non-trump.

    >>> beats("7S", "6S", "H"), beats("6H", "AS", "H"), beats("8S", "7H", "H")
    (True, True, False)
    """
    return beats_code(parse_card(cover), parse_card(attack), parse_suit(trump))
