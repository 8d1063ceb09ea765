"""Pure scoring for tournaments and leagues: points and standings, prize pools, ranks, ratings.

Standard library (and openskill for ratings) only, never Django: a manager loads rows, builds
these frozen dataclasses, calls one function and saves what comes back. Every function is a pure
function of its inputs, so a job that recomputes gives the same answer.

- :mod:`~tournaments.scoring.results`: :class:`TableResult`, :class:`Pogony`, corrections.
- :mod:`~tournaments.scoring.points`: points per result and standings with tie-breaks.
- :mod:`~tournaments.scoring.prizes`: the prize pool and its payouts in exact money.
- :mod:`~tournaments.scoring.ranks`: ranks (звания) from pogony.
- :mod:`~tournaments.scoring.ratings`: OpenSkill ratings and the league table.

>>> from tournaments.scoring import ScoringConfig, TableResult, standings
>>> r = TableResult(id="1", places=("ann", "bob"), fool="bob")
>>> standings([r], ScoringConfig(), seed="x")[0].entry
'ann'
"""

from tournaments.scoring.errors import PrizeError, RankError, RatingError, ScoringError
from tournaments.scoring.points import (
    DEFAULT_TIE_BREAKS,
    TIE_BREAKS,
    ScoringConfig,
    StandingRow,
    default_table,
    result_points,
    standings,
)
from tournaments.scoring.prizes import (
    ISO_4217_EXPONENTS,
    Award,
    Currency,
    Payment,
    PayoutStructure,
    PlacePayout,
    Pool,
    PoolRules,
    PrizeReport,
    compute_prizes,
    currency,
    distribute,
    prize_pool,
)
from tournaments.scoring.ranks import (
    DEFAULT_LADDER,
    PlayerRank,
    RankChange,
    RankGame,
    RankTable,
    compute_ranks,
    rank_for,
)
from tournaments.scoring.ratings import (
    DEFAULT_LEAGUE_SCALE,
    LeagueRow,
    LeagueScale,
    RatedTable,
    Rating,
    RatingConfig,
    TournamentPlaces,
    league_table,
    rate,
    rated_table,
)
from tournaments.scoring.results import Pogony, TableResult, effective_results

__all__ = [
    "DEFAULT_LADDER",
    "DEFAULT_LEAGUE_SCALE",
    "DEFAULT_TIE_BREAKS",
    "ISO_4217_EXPONENTS",
    "TIE_BREAKS",
    "Award",
    "Currency",
    "LeagueRow",
    "LeagueScale",
    "Payment",
    "PayoutStructure",
    "PlacePayout",
    "PlayerRank",
    "Pogony",
    "Pool",
    "PoolRules",
    "PrizeError",
    "PrizeReport",
    "RankChange",
    "RankError",
    "RankGame",
    "RankTable",
    "RatedTable",
    "Rating",
    "RatingConfig",
    "RatingError",
    "ScoringConfig",
    "ScoringError",
    "StandingRow",
    "TableResult",
    "TournamentPlaces",
    "compute_prizes",
    "compute_ranks",
    "currency",
    "default_table",
    "distribute",
    "effective_results",
    "league_table",
    "prize_pool",
    "rank_for",
    "rate",
    "rated_table",
    "result_points",
    "standings",
]
