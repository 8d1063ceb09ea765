"""Properties over random seeds and random legal play: views never leak a hidden card, and a
game replays exactly from its seed and action log."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Action, Rules, apply, legal_actions, new_game, rng_for_seed, view

MAX_STEPS = 5000


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    players=st.integers(min_value=2, max_value=6),
    variant=st.sampled_from(["simple", "throw_in", "transfer"]),
)
def test_views_hide_other_hands_and_the_log_replays_the_game(
    seed: int, players: int, variant: str
) -> None:
    rules = Rules.from_dict({"players": players, "variant": variant})
    state = new_game(rules, rng_for_seed(seed))
    start = state
    chooser = random.Random(seed)
    log: list[dict[str, object]] = []
    for _ in range(MAX_STEPS):
        if state.finished:
            break
        for seat in [*range(players), None]:
            seen = view(state, seat)
            text = json.dumps(seen)
            assert "hands" not in seen
            assert seen["hand"] == (None if seat is None else state.hand(seat))
            hidden = {c for s in range(players) if s != seat for c in state.hand(s)}
            public = {c for pair in seen["table"] for c in pair.values() if c}
            public.add(seen["trump_card"])
            for card in hidden - public:
                assert f'"{card}"' not in text, (seat, card)
        moves = [a for s in range(players) for a in legal_actions(state, s)]
        action = chooser.choice(moves)
        log.append(action.to_json())
        state = apply(state, action)
    assert state.finished, "random play must end within the bound"
    replayed = new_game(rules, rng_for_seed(seed))
    assert replayed.to_dict() == start.to_dict()
    for entry in log:
        replayed = apply(replayed, Action.from_json(entry))
    assert replayed.to_dict() == state.to_dict()
