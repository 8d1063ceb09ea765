"""The Durak rules engine: standard library only, no Django.

>>> import random
>>> from games.engine import Rules, new_game, legal_moves, apply
>>> rng = random.Random(3)
>>> state = new_game(Rules(), rng)
>>> while not state.finished:
...     state = apply(state, rng.choice(legal_moves(state)))
>>> state.result.fool in (0, 1, None)
True

See ``README.md`` beside this file for the API, the readings of the rules and the protocol.
``native.py`` says which build of ``game.py`` and ``state.py`` runs: the compiled one
(``python3 dev.py engine``) when it matches the sources, else the pure Python modules.
"""

from . import native

native.activate(__path__)  # before the first import of a compiled module

from .actions import ACTION_TYPES, Action
from .cards import beats, card_name, parse_card
from .errors import (
    BadRequest,
    CannotBeat,
    CardError,
    CardNotInHand,
    DealError,
    EngineError,
    GameOver,
    IllegalAction,
    LimitExceeded,
    NotYourTurn,
    RankNotOnTable,
    RulesError,
    TransferNotAllowed,
)
from .game import (
    apply,
    deal_from_seed,
    from_deal,
    is_legal,
    legal_actions,
    legal_moves,
    new_game,
    new_seed,
    next_game_attacker,
    rng_for_seed,
    seed_commitment,
    throw_room,
    view,
)
from .rules import Rules
from .state import GameState, Pogony, Result

__all__ = [
    "ACTION_TYPES",
    "Action",
    "BadRequest",
    "CannotBeat",
    "CardError",
    "CardNotInHand",
    "DealError",
    "EngineError",
    "GameOver",
    "GameState",
    "IllegalAction",
    "LimitExceeded",
    "NotYourTurn",
    "Pogony",
    "RankNotOnTable",
    "Result",
    "Rules",
    "RulesError",
    "TransferNotAllowed",
    "apply",
    "beats",
    "card_name",
    "deal_from_seed",
    "from_deal",
    "is_legal",
    "legal_actions",
    "legal_moves",
    "new_game",
    "new_seed",
    "next_game_attacker",
    "parse_card",
    "rng_for_seed",
    "seed_commitment",
    "throw_room",
    "view",
]
