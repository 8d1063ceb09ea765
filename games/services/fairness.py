"""The fairness check of a finished game: the seed against its commitment, and a replay."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext

from games import engine
from games.engine import Action, EngineError, GameState, Rules
from games.errors import (
    SeedSecret,
)
from games.models import Game


def replay_log(
    rules: Rules, seed: str, setup: Mapping[str, Any], actions: Iterable[Any]
) -> tuple[list[GameState], bool]:
    """The states from the deal (``states[0]``) through each of ``actions`` (protocol action
    objects, in order), and whether every one replayed legally: at the first that does not,
    the states stop before it and the flag is False. The replay page (``games.replay``) steps
    through the same states.

    >>> states, ok = replay_log(Rules(), "42", {}, [])
    >>> len(states), ok, states[0].finished
    (1, True, False)
    """
    state = engine.new_game(rules, engine.rng_for_seed(seed), **setup)
    states = [state]
    for obj in actions:
        try:
            state = engine.apply(state, Action.from_json(obj))
        except EngineError:
            return states, False
        states.append(state)
    return states, True


def game_verify_deal(*, game: Game) -> dict[str, Any]:
    """Recompute the deal from the revealed seed and check it against the commitment and log.

    Anyone can run the same check with the engine alone: sha256(seed) must equal the published
    commitment, and replaying the logged actions on the recomputed deal must give the stored
    state.
    """
    if not game.seed_revealed:
        raise SeedSecret(gettext("the seed is revealed when the game ends"))
    rules = Rules.from_dict(game.rules)
    commitment_ok = engine.seed_commitment(game.seed) == game.seed_commitment
    log = game.actions.order_by("seq").values_list("action", flat=True)
    states, replay_ok = replay_log(rules, game.seed, game.setup, log)
    state = states[-1]
    if game.status == Game.Status.FINISHED:
        replay_ok = replay_ok and state.to_dict() == game.state
    return {
        "game": game.pk,
        "seed": game.seed,
        "seed_commitment": game.seed_commitment,
        "commitment_ok": commitment_ok,
        "replay_ok": replay_ok,
        "deal": engine.deal_from_seed(rules, game.seed, **game.setup),
    }
