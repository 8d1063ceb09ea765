"""A stand-in for the PyPI package ``durakgame`` (outside this project, never installed by it),
with the two names ``tools/durakgame_driver.py`` uses: ``MrRandom`` and ``play``.

A game draws from the global ``random`` (seeded by the driver): about a third of the seeds
"blow up" (spin until the driver's alarm stops them), the rest take about a millisecond, as the
real package's random games do.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field


class MrRandom:
    """The package's random player (the stand-in plays no cards)."""


@dataclass
class History:
    """The moves of a game, as the package's ``play`` returns them."""

    p1Moves: list[int] = field(default_factory=list)  # the package's names
    p2Moves: list[int] = field(default_factory=list)


def blows_up(seed: int) -> bool:
    """True if the game of ``seed`` (as the driver seeds it) spins past any limit."""
    random.seed(seed)
    return random.random() < 1 / 3


def play(first: MrRandom, second: MrRandom) -> History:
    """Play one "game": a millisecond, or a spin until interrupted."""
    if random.random() < 1 / 3:
        while True:
            pass
    time.sleep(0.001)
    return History([1, 2, 3], [4, 5])
