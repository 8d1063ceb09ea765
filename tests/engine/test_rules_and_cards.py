"""Cards, Rules validation, actions and errors."""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import pytest

from games.engine import Action, BadRequest, CardError, Rules, RulesError, beats
from games.engine.cards import CARD_NAMES, card_name, deck, lowest_rank, parse_card
from games.engine.errors import (
    CannotBeat,
    CardNotInHand,
    EngineError,
    GameOver,
    IllegalAction,
    LimitExceeded,
    NotYourTurn,
    RankNotOnTable,
    TransferNotAllowed,
)

MODULES = [
    "__init__",
    "actions",
    "bots",
    "cards",
    "errors",
    "game",
    "protocol",
    "rules",
    "series",
    "state",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(
        "games.engine" if name == "__init__" else f"games.engine.{name}"
    )
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0


def test_card_strings_round_trip() -> None:
    assert all(card_name(parse_card(name)) == name for name in CARD_NAMES)
    assert len(deck(24)) == 24 and len(deck(36)) == 36 and len(deck(52)) == 52
    assert card_name(deck(36)[0]) == "6S" and CARD_NAMES[lowest_rank(24) * 4] == "9S"


@pytest.mark.parametrize("bad", ["", "1S", "6X", "ts", "10S", 6, None])
def test_unknown_card_is_refused(bad: Any) -> None:
    with pytest.raises(CardError):
        parse_card(bad)


@pytest.mark.parametrize(
    ("cover", "attack", "trump", "expected"),
    [
        ("7S", "6S", "D", True),
        ("6S", "7S", "D", False),
        ("AS", "6H", "D", False),
        ("6D", "AS", "D", True),
        ("7D", "6D", "D", True),
        ("6D", "7D", "D", False),
        ("AH", "6D", "D", False),
    ],
)
def test_beats(cover: str, attack: str, trump: str, expected: bool) -> None:
    assert beats(cover, attack, trump) is expected


def test_rules_defaults_and_round_trip() -> None:
    assert Rules().to_dict() == {}
    options = {
        "variant": "transfer",
        "players": 4,
        "teams": [[0, 2], [1, 3]],
        "trump_show": True,
        "draw": False,
        "next_game_first": "winner",
    }
    rules = Rules.from_dict(options)
    assert rules.to_dict() == options
    assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"colour": "red"}, "unknown rule option"),
        ({"players": "2"}, "expected int"),
        ({"draw": 1}, "expected bool"),
        ({"players": True}, "expected int"),
        ({"variant": "japanese"}, "not one of"),
        ({"deck_size": 40}, "not one of"),
        ({"players": 1}, "must be 2-6"),
        ({"players": 7}, "52-card deck"),
        ({"players": 9, "deck_size": 52}, "must be 2-8"),
        ({"players": 5, "deck_size": 24}, "need more than 24"),
        ({"hand_size": 0}, "at least 1"),
        ({"bout_limit": 0}, "at least 1"),
        ({"pogony_min_cards": 5}, "1-4"),
        ({"trump_show": True}, "only with variant 'transfer'"),
        ({"variant": "simple", "throw_in_by": "neighbours"}, "no throw-ins"),
        ({"players": 4, "teams": [[0, 2], [1]]}, "partition"),
        ({"players": 4, "teams": [[0, 1], [2, 3]]}, "side by side"),
        ({"players": 6, "teams": [[0, 2, 4, 1], [3, 5]]}, "same size"),
        ({"players": 4, "teams": [[0, 1, 2, 3]]}, "at least two teams"),
        ({"players": 4, "teams": "0213"}, "list of lists"),
        ({"throw_in_by": "left"}, "not one of"),
    ],
)
def test_rules_validation(options: dict[str, Any], words: str) -> None:
    with pytest.raises(RulesError, match=words):
        Rules.from_dict(options)


def test_rules_error_is_a_bad_request_and_value_error() -> None:
    with pytest.raises(ValueError):
        Rules(players=0)
    assert RulesError("x").code == "bad_request"


def test_rules_split_hook_for_series_code() -> None:
    engine, series = Rules.split({"players": 3, "series": "long", "first_to": 5})
    assert engine == {"players": 3} and series == {"series": "long", "first_to": 5}


@pytest.mark.parametrize(
    ("cls", "code"),
    [
        (BadRequest, "bad_request"),
        (GameOver, "game_over"),
        (NotYourTurn, "not_your_turn"),
        (CardNotInHand, "card_not_in_hand"),
        (CannotBeat, "cannot_beat"),
        (RankNotOnTable, "rank_not_on_table"),
        (LimitExceeded, "limit_exceeded"),
        (TransferNotAllowed, "transfer_not_allowed"),
        (IllegalAction, "illegal"),
    ],
)
def test_error_codes(cls: type[EngineError], code: str) -> None:
    assert cls.code == code and issubclass(cls, ValueError)


@pytest.mark.parametrize(
    "obj",
    [
        {"seat": 0, "type": "attack", "cards": ["6S", "6H"]},
        {"seat": 1, "type": "defend", "cards": ["7S"], "target": "6S"},
        {"seat": 2, "type": "throw", "cards": ["6C"]},
        {"seat": 1, "type": "transfer", "cards": ["6C"]},
        {"seat": 1, "type": "show_trump", "cards": ["6D"]},
        {"seat": 1, "type": "take"},
        {"seat": 0, "type": "pass"},
        {"seat": 3, "type": "redeal"},
    ],
)
def test_action_json_and_string_round_trip(obj: dict[str, Any]) -> None:
    action = Action.from_json(obj)
    assert action.to_json() == obj
    assert Action.parse(str(action)) == action


@pytest.mark.parametrize(
    "obj",
    [
        None,
        [],
        {"type": "take"},
        {"seat": "0", "type": "take"},
        {"seat": True, "type": "take"},
        {"seat": 0, "type": "fold"},
        {"seat": 0, "type": "attack"},
        {"seat": 0, "type": "attack", "cards": []},
        {"seat": 0, "type": "attack", "cards": "6S"},
        {"seat": 0, "type": "attack", "cards": ["6S", "6S"]},
        {"seat": 0, "type": "attack", "cards": ["XX"]},
        {"seat": 1, "type": "defend", "cards": ["7S"]},
        {"seat": 1, "type": "defend", "cards": ["7S", "8S"], "target": "6S"},
        {"seat": 0, "type": "attack", "cards": ["6S"], "target": "7S"},
        {"seat": 1, "type": "take", "cards": ["6S"]},
        {"seat": 1, "type": "take", "extra": 1},
    ],
)
def test_action_from_json_is_strict(obj: Any) -> None:
    with pytest.raises(BadRequest):
        Action.from_json(obj)
