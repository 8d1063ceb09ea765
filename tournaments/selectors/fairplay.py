"""Reads for the fair-play review queue (issue 24): the pairs at or above a score, per event and
over a league's season, with the evidence rows of their games together. Who may see them (the
event's referees and organiser) is the faces' check; these only read."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db.models import QuerySet, Sum

from tournaments.models import GameEvidenceRow, League, PairEvidence, Tournament

#: The queue's default threshold (a pooled z), set from the honest pairs' distribution in
#: ``bench.fairplay`` and the probe (``docs/fairplay.md``, the threshold): their 99th percentile
#: was 2.9 to 3.4 (random bots' styles in few games make the tail heavier than a normal's 2.33),
#: so 3.0 flagged 0.9-1.7% of them in the events of a money plan, 3.5 under 1% (0.2-0.4% in
#: fields of heuristic bots).
THRESHOLD = 3.5


def pairs_flagged(
    tournament: Tournament, *, threshold: float = THRESHOLD
) -> QuerySet[PairEvidence]:
    """The tournament's pairs scoring ``threshold`` or more, highest first, with both players."""
    return (
        PairEvidence.objects.filter(tournament=tournament, z__gte=threshold)
        .select_related("first", "second")
        .order_by("-z", "first_id", "second_id")
    )


def pair_games(pair: PairEvidence) -> QuerySet[GameEvidenceRow]:
    """The evidence rows of the games the pair shared in its tournament, in game order."""
    return GameEvidenceRow.objects.filter(
        tournament_id=pair.tournament_id, game_id__in=pair.game_ids
    ).order_by("game_id")


@dataclass(frozen=True, slots=True)
class SeasonPair:
    """A pair over a league's tournaments: the events' departures and variances pooled
    (``z = departure / sqrt(variance)``), their games and opportunities added up, and the
    events' rows (``pairs``) with the evidence."""

    first: int
    second: int
    z: float
    departure: float
    variance: float
    opportunities: int
    games: int
    pairs: tuple[PairEvidence, ...]


def league_pairs_flagged(league: League, *, threshold: float = THRESHOLD) -> list[SeasonPair]:
    """The pairs of ``league``'s tournaments whose pooled score over the season reaches
    ``threshold``, highest first. Each event's expected counts are its own (a player's conduct
    towards the others of that event), so the season adds evidence, not games to one fit."""
    totals = (
        PairEvidence.objects.filter(tournament__league=league)
        .values("first_id", "second_id")
        .annotate(
            departure_sum=Sum("departure"),
            variance_sum=Sum("variance"),
            opportunities_sum=Sum("opportunities"),
            games_sum=Sum("games"),
        )
        .order_by("first_id", "second_id")
    )
    flagged = []
    for t in totals:
        variance = t["variance_sum"] or 0.0
        z = t["departure_sum"] / math.sqrt(variance) if variance > 0 else 0.0
        if z >= threshold:
            flagged.append((t, z))
    rows: dict[tuple[int, int], list[PairEvidence]] = {}
    if flagged:
        firsts = {t["first_id"] for t, _z in flagged}
        wanted = {(t["first_id"], t["second_id"]) for t, _z in flagged}
        for pair in (
            PairEvidence.objects.filter(tournament__league=league, first_id__in=firsts)
            .select_related("tournament", "first", "second")
            .order_by("tournament_id")
        ):
            if (pair.first_id, pair.second_id) in wanted:
                rows.setdefault((pair.first_id, pair.second_id), []).append(pair)
    out = [
        SeasonPair(
            first=t["first_id"],
            second=t["second_id"],
            z=z,
            departure=t["departure_sum"],
            variance=t["variance_sum"],
            opportunities=t["opportunities_sum"],
            games=t["games_sum"],
            pairs=tuple(rows.get((t["first_id"], t["second_id"]), ())),
        )
        for t, z in flagged
    ]
    out.sort(key=lambda p: (-p.z, p.first, p.second))
    return out
