"""Fair play at multi-seat tables (issue 24): evidence of collusion and soft play from the
games' action logs. Pure Python over the engine (no Django): a job loads the logs and saves
what this package computes. See ``docs/fairplay.md``."""

from tournaments.fairplay.evidence import (
    ATTACKED,
    BEAT,
    KINDS,
    THREW_IN,
    TOOK,
    TRANSFERRED,
    GameEvidence,
    GameRecord,
    PairTogether,
    Tally,
    game_evidence,
    pair_tallies,
    pairs_together,
)

__all__ = [
    "ATTACKED",
    "BEAT",
    "KINDS",
    "THREW_IN",
    "TOOK",
    "TRANSFERRED",
    "GameEvidence",
    "GameRecord",
    "PairTogether",
    "Tally",
    "game_evidence",
    "pair_tallies",
    "pairs_together",
]
