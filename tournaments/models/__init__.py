"""Tournament domain rows. Fields, constraints and small properties only: writes go through
``tournaments.services``, reads through ``tournaments.selectors``.

Invariants live in the database (unique seats, unique table numbers, one registration per
player per tournament, ...), so that a bug or a race in Python cannot store an impossible event.
One module per part (people, events, tables, awards, audit, api, feed, fairplay); this package
is their index.
"""

from tournaments.models.api import IdempotentRequest, Webhook, WebhookDelivery
from tournaments.models.audit import AuditEvent
from tournaments.models.awards import AwardsFailure, Payout, PrizePool, RankRecord, RatingChange
from tournaments.models.events import Entry, League, Stage, StageEntry, Tournament
from tournaments.models.fairplay import FairplayState, GameEvidenceRow, PairEvidence
from tournaments.models.feed import FeedEvent
from tournaments.models.people import Player, Team, TeamMember
from tournaments.models.staff import RefereeInvitation
from tournaments.models.tables import Round, Seat, Table, TableResult

__all__ = [
    "AuditEvent",
    "AwardsFailure",
    "Entry",
    "FairplayState",
    "FeedEvent",
    "GameEvidenceRow",
    "IdempotentRequest",
    "League",
    "PairEvidence",
    "Payout",
    "Player",
    "PrizePool",
    "RankRecord",
    "RatingChange",
    "RefereeInvitation",
    "Round",
    "Seat",
    "Stage",
    "StageEntry",
    "Table",
    "TableResult",
    "Team",
    "TeamMember",
    "Tournament",
    "Webhook",
    "WebhookDelivery",
]
