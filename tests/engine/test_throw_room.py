"""``throw_room``: how many more cards the open bout takes, as the live table's prompt says it
("throw in up to N"). Along random games it is exactly what ``apply`` lets a thrower add."""

from __future__ import annotations

import random

import pytest

from games.engine import Action, EngineError, Rules, apply, legal_actions, new_game, throw_room
from games.engine.actions import THROW

RULES = [Rules(), Rules(players=3), Rules(players=4, deck_size=52)]


@pytest.mark.parametrize("rules", RULES, ids=["2 players", "3 players", "4 players, 52 cards"])
@pytest.mark.parametrize("seed", range(15))
def test_throw_room_is_what_a_thrower_may_add_along_a_random_game(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    state = new_game(rules, random.Random(f"deal-{seed}"))
    while state.result is None:
        room = throw_room(state)
        moves = [a for seat in range(state.setup.n) for a in legal_actions(state, seat)]
        throws = [a for a in moves if a.type == THROW]
        # no room, no throw listed
        assert room > 0 or not throws
        if throws:
            seat = throws[0].seat
            cards = tuple(a.cards[0] for a in throws if a.seat == seat)
            if len(cards) >= room:
                # up to the room, the cards go in at once ...
                apply(state, Action(seat, THROW, cards[:room]))
            if len(cards) > room:
                # ... one more is refused
                with pytest.raises(EngineError):
                    apply(state, Action(seat, THROW, cards[: room + 1]))
        state = apply(state, rng.choice(moves))
    assert throw_room(state) == 0


def test_the_room_after_a_lead_is_the_cap_or_the_defenders_hand_less_one() -> None:
    # given a fresh deal (five cards before the first defence)
    state = new_game(Rules(), random.Random("lead"))
    assert throw_room(state) == 0  # no bout open yet
    attacker = state.attacker
    # when the attacker leads one card
    state = apply(state, Action.parse(f"{attacker} attack {state.hand(attacker)[0]}"))
    # then the room is the cap less one, or the defender's hand less one, whichever is smaller
    assert throw_room(state) == min(5, len(state.hand(state.defender))) - 1
