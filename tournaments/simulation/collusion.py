"""Colluding pairs for ``simulate_tournament`` (issue 24): which bot players collude, by what
policy and strength, drawn from a seed.

A colluder's ``Player.bot_kind`` is ``POLICY:STRENGTH:#TAG``, the same for both partners of a
pair; each game's bots are bound from its seats (``games.engine.bots.bind_partners``), so a
colluder knows its partner's seat whenever they share a table and plays as the heuristic bot
otherwise. The pairs are not seated apart: they meet as often as the plan's pairing lets them.
Drawn ``within`` groups (friends who entered the same round-robin group, say), both partners of
a pair come from one group.
Which entries collude is the simulation's answer key, written to its output (and
``--collusion-out``) for the benchmark's recall; the fair-play evidence is computed from the
games' actions alone and never reads a bot's kind.

>>> plan = CollusionPlan.draw(players=10, pairs=2, policy="squeeze", strength=0.5, seed="s")
>>> sorted(plan.kinds.values())
['squeeze:0.5:#0', 'squeeze:0.5:#0', 'squeeze:0.5:#1', 'squeeze:0.5:#1']
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.bots import COLLUSION_POLICIES, make_bot, strength_text
from games.engine.errors import BadRequest

KIND_MAX = 20  # Player.bot_kind's max_length


@dataclass(frozen=True, slots=True)
class CollusionPlan:
    """The colluding pairs of a simulated event, by player index (0 up, in creation order)."""

    policy: str
    strength: float
    seed: str
    pairs: tuple[tuple[int, int], ...]
    kinds: dict[int, str] = field(default_factory=dict)

    @classmethod
    def draw(
        cls,
        *,
        players: int,
        pairs: int,
        policy: str,
        strength: float,
        seed: str,
        within: Sequence[Sequence[int]] | None = None,
    ) -> CollusionPlan:
        """``pairs`` pairs among ``players`` players, drawn from ``seed``; ``within``: groups of
        player indices, both partners of a pair from one group (the groups in turn, in an order
        drawn from the seed). ``ValueError`` if they do not fit or the policy or strength is
        not one the bots know."""
        if pairs < 0 or 2 * pairs > players:
            raise ValueError(f"{pairs} colluding pairs do not fit in {players} players")
        if policy not in COLLUSION_POLICIES:
            raise ValueError(f"policy {policy!r} is not one of {', '.join(COLLUSION_POLICIES)}")
        try:
            make_bot(f"{policy}:{strength_text(strength)}:-")
        except BadRequest as exc:
            raise ValueError(str(exc)) from None
        rng = random.Random(f"collusion:{seed}")
        if within is None:
            chosen = rng.sample(range(players), 2 * pairs)
        else:
            chosen = _within(rng, within, pairs)
        drawn = tuple((chosen[2 * i], chosen[2 * i + 1]) for i in range(pairs))
        kinds = {}
        for tag, pair in enumerate(drawn):
            kind = f"{policy}:{strength_text(strength)}:#{tag}"
            if len(kind) > KIND_MAX:
                raise ValueError(f"{kind!r} is longer than a bot kind may be ({KIND_MAX})")
            kinds.update(dict.fromkeys(pair, kind))
        return cls(policy, strength, seed, drawn, kinds)

    def report(self, ids: dict[int, tuple[int, int, str]]) -> dict[str, Any]:
        """The answer key: ``ids`` maps a player index to (entry id, player id, name)."""
        return {
            "policy": self.policy,
            "strength": self.strength,
            "seed": self.seed,
            "pairs": [
                {
                    "entries": [ids[a][0], ids[b][0]],
                    "players": [ids[a][1], ids[b][1]],
                    "names": [ids[a][2], ids[b][2]],
                }
                for a, b in self.pairs
            ],
        }


def _within(rng: random.Random, groups: Sequence[Sequence[int]], pairs: int) -> list[int]:
    """``2 * pairs`` players, each two of one group: the groups shuffled, then dealt a pair each
    in turn (a second pair from a group on the second lap), fewest pairs to a group."""
    left = [rng.sample(list(g), len(g)) for g in groups]
    rng.shuffle(left)
    chosen: list[int] = []
    while len(chosen) < 2 * pairs:
        dealt = False
        for group in left:
            if len(group) >= 2 and len(chosen) < 2 * pairs:
                chosen += (group.pop(), group.pop())
                dealt = True
        if not dealt:
            raise ValueError(f"{pairs} colluding pairs do not fit in the groups")
    return chosen
