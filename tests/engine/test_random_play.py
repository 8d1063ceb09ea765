"""Properties of random legal play: listed actions apply, unlisted single-card ones are refused,
cards are conserved, JSON round-trips, and games end."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    Action,
    EngineError,
    GameState,
    Result,
    Rules,
    apply,
    is_legal,
    legal_actions,
    legal_moves,
    new_game,
)
from games.engine.actions import (
    ATTACK,
    DEFEND,
    PASS,
    REDEAL,
    SHOW_TRUMP,
    TAKE,
    THROW,
    TRANSFER,
)
from games.engine.cards import cards_of, deck_mask
from games.engine.state import Setup

CONFIGS = [
    {},
    {"players": 3},
    {"players": 4, "throw_in_by": "neighbours"},
    {"players": 4, "teams": [[0, 2], [1, 3]]},
    {"players": 6, "teams": [[0, 2, 4], [1, 3, 5]], "variant": "transfer"},
    {"variant": "simple", "players": 3},
    {"variant": "transfer", "players": 3, "trump_show": True},
    {
        "variant": "transfer",
        "players": 4,
        "transfer_first_bout": True,
        "transfer_over_trump": True,
        "transfer_to_go_out": True,
        "trump_show": True,
    },
    {"variant": "transfer", "transfer_two_players": True, "transfer_first_bout": True},
    {"deck_size": 24, "players": 4, "unlimited_after_stock": True, "draw": False},
    {"deck_size": 52, "players": 8, "redeal_five_of_suit": True},
    {"redeal_five_of_suit": True, "players": 5, "bout_limit": 4, "first_bout_limit": 2},
]


def candidates(state: GameState, seat: int) -> list[Action]:
    """Every single-card action shape a seat could try (legal or not)."""
    hand = cards_of(state.hands[seat])
    out = [Action(seat, kind) for kind in (TAKE, PASS, REDEAL)]
    for card in hand:
        for kind in (ATTACK, THROW, TRANSFER, SHOW_TRUMP):
            out.append(Action(seat, kind, (card,)))
        for target in state.t_att:
            out.append(Action(seat, DEFEND, (card,), target))
    return out


def _fields(cls: type) -> tuple[str, ...]:
    """The fields of a slotted class, pure Python (``__slots__``) or compiled by mypyc (which
    lists them in ``__mypyc_attrs__``, with its own entries in dunder form)."""
    slots = getattr(cls, "__slots__", None)
    if slots is not None:
        return tuple(slots)
    return tuple(name for name in cls.__mypyc_attrs__ if not name.startswith("__"))  # type: ignore[attr-defined]


def total_cards(state: GameState) -> int:
    on_table = len(state.t_att) + sum(1 for d in state.t_def if d >= 0)
    return sum(h.bit_count() for h in state.hands) + len(state.stock) + state.discard + on_table


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: json.dumps(o, sort_keys=True))
def test_random_games_agree_with_legal_actions(options: dict[str, object]) -> None:
    rules = Rules.from_dict(options)
    rng = random.Random(hash(json.dumps(options, sort_keys=True)) & 0xFFFF)
    for game in range(12):
        state = new_game(rules, rng)
        cards = total_cards(state)
        steps = 0
        while not state.finished:
            steps += 1
            assert steps < 5000
            moves: list[Action] = []
            for seat in range(rules.players):
                listed = legal_actions(state, seat)
                assert len(set(listed)) == len(listed)
                listed_set = set(listed)
                if game < 3:  # the exhaustive cross-check is slow: a few games suffice
                    for cand in candidates(state, seat):
                        assert is_legal(state, cand) == (cand in listed_set), (cand, state)
                moves += listed
            assert moves, f"nobody can act in {state!r}"
            assert legal_moves(state) == moves  # the whole table's list, in seat order
            before = state.to_dict()
            action = rng.choice(moves)
            after = apply(state, action)
            assert state.to_dict() == before  # never mutated
            if action.type != REDEAL:
                assert total_cards(after) == cards
            else:
                cards = total_cards(after)
            if steps % 7 == 0:
                restored = GameState.from_dict(json.loads(json.dumps(after.to_dict())))
                assert restored == after
                # Field by field, the derived ones too: a server keeps the state an action made
                # and serves it as the parse of its stored form (games.selectors.parsed_state).
                for name in _fields(GameState):
                    if name != "setup":  # (no equality of its own: compared slot by slot)
                        assert getattr(restored, name) == getattr(after, name), name
                for name in _fields(Setup):
                    assert getattr(restored.setup, name) == getattr(after.setup, name), name
                assert legal_actions(restored, action.seat) == legal_actions(after, action.seat)
            state = after
        result = state.result
        assert result is not None
        assert sorted(result.places) == list(range(rules.players))
        if result.fool is not None:
            assert result.places[-1] == result.fool
        assert deck_mask(rules.deck_size).bit_count() == cards or rules.redeal_five_of_suit
        assert legal_moves(state) == []
        with pytest.raises(EngineError):
            apply(state, Action(0, TAKE))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**64),
    players=st.integers(min_value=2, max_value=6),
    variant=st.sampled_from(["simple", "throw_in", "transfer"]),
)
def test_any_seeded_game_ends_with_a_consistent_result(
    seed: int, players: int, variant: str
) -> None:
    rules = Rules(players=players, variant=variant)
    rng = random.Random(seed)
    state = new_game(rules, rng)
    assert len({c for s in range(players) for c in state.hand(s)}) == players * 6
    while not state.finished:
        moves = [a for s in range(players) for a in legal_actions(state, s)]
        state = apply(state, rng.choice(moves))
    result = state.result
    assert result is not None and sorted(result.places) == list(range(players))
    assert result.draw == (result.fool is None)
    # seed 004's double: only with three players, by the first out on both others, first in order
    double = result.double
    if double is not None:
        assert players == 3 and double.by == result.places[0]
        assert double.on == tuple(seat for seat in range(3) if seat != double.by)
        assert result.hangings[0] == double and len(result.hangings) <= 2
    assert result.hangings == tuple(h for h in (double, result.pogony) if h is not None)
    assert Result.from_json(json.loads(json.dumps(result.to_json()))) == result
