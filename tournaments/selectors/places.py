"""A tournament's final places: the one builder the console's progress page, the API (and its
exports) and the public pages read."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from tournaments.models import Entry, Payout, RankRecord, TeamMember, Tournament
from tournaments.selectors.standings import stage_standings


@dataclass(frozen=True)
class FinalPlace:
    place: int  # competition ranking (1, 2, 2, 4)
    entry_id: int
    name: str
    status: str  # the entry's at the end (Entry.Status's value)
    points: Fraction | None  # in the last stage, when it has standings
    pogony_given: int
    pogony_received: int
    rank: str  # the rank (звание) earned here; "" for a team (its members each have theirs)
    payout: Decimal | None  # None: paid nothing


@dataclass(frozen=True)
class FinalPlaces:
    lines: list[FinalPlace]  # by place
    paid_out: Decimal  # every payout of the tournament, added up


def final_places(tournament: Tournament) -> FinalPlaces:
    """The final places with points (the last stage's, if it has standings), pogony, rank
    (звание) and payout: at most seven queries, however many entries."""
    last = tournament.stages.order_by("-order").first()
    points = {
        line.entry_id: line.points for line in (stage_standings(last) if last is not None else [])
    }
    placed = list(
        Entry.objects.filter(tournament=tournament, final_place__isnull=False)
        .select_related("player", "team")
        .order_by("final_place", "pk")
    )
    prizes: dict[int, Decimal] = {}
    for entry_id, amount in Payout.objects.filter(tournament=tournament).values_list(
        "entry_id", "amount"
    ):
        prizes[entry_id] = prizes.get(entry_id, Decimal(0)) + amount
    records = {
        r.player_id: r
        for r in RankRecord.objects.filter(tournament=tournament).only(
            "player_id", "rank", "pogony_given", "pogony_received"
        )
    }
    members: dict[int, list[int]] = {}
    if tournament.is_team_event:
        for team_id, player_id in TeamMember.objects.filter(
            team__entries__tournament=tournament
        ).values_list("team_id", "player_id"):
            members.setdefault(team_id, []).append(player_id)
    lines = []
    for entry in placed:
        players = [entry.player_id] if entry.player_id else members.get(entry.team_id or 0, [])
        own = [records[p] for p in players if p in records]
        lines.append(
            FinalPlace(
                place=entry.final_place or 0,
                entry_id=entry.pk,
                name=entry.name,
                status=entry.status,
                points=points.get(entry.pk),
                pogony_given=sum(r.pogony_given for r in own),
                pogony_received=sum(r.pogony_received for r in own),
                rank=own[0].rank if entry.player_id and own else "",
                payout=prizes.get(entry.pk),
            )
        )
    return FinalPlaces(lines, sum(prizes.values(), Decimal(0)))
