"""Shared helpers for the engine tests."""

from __future__ import annotations

from typing import Any

from games.engine import Action, GameState, Rules, apply, from_deal, legal_actions


def deal(
    hands: list[list[str]],
    stock: list[str] | None = None,
    trump: str = "D",
    attacker: int = 0,
    **options: Any,
) -> GameState:
    """A fixed-deal game; ``players`` defaults to the number of hands."""
    options.setdefault("players", len(hands))
    rules = Rules.from_dict(options)
    return from_deal(
        rules, {"hands": hands, "stock": stock or [], "trump": trump, "attacker": attacker}
    )


def play(state: GameState, *moves: str) -> GameState:
    """Apply actions in their string form, e.g. ``"0 attack 6S"``."""
    for move in moves:
        state = apply(state, Action.parse(move))
    return state


def legal(state: GameState, seat: int) -> set[str]:
    return {str(a) for a in legal_actions(state, seat)}
