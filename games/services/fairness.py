"""The fairness check of a finished game: the seed against its commitment, and a replay."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from games import engine
from games.engine import Action, EngineError, Rules
from games.errors import (
    SeedSecret,
)
from games.models import Game


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
    state = engine.new_game(rules, engine.rng_for_seed(game.seed), **game.setup)
    replay_ok = True
    for logged in game.actions.order_by("seq"):
        try:
            state = engine.apply(state, Action.from_json(logged.action))
        except EngineError:
            replay_ok = False
            break
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
