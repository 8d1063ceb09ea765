"""Reads for the fair-play review queue (issue 24): the pairs at or above a score, per event and
over a league's season, with the evidence rows of their games together. Who may see them (the
event's referees and organiser) is the faces' check; these only read."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet, Sum

from games.models import Game
from tournaments.fairplay.evidence import KINDS
from tournaments.fairplay.score import SCORED, SIGNS
from tournaments.models import (
    AuditEvent,
    FairplayState,
    GameEvidenceRow,
    League,
    PairEvidence,
    Player,
    Tournament,
)

#: The queue's default threshold (a pooled z), set from the honest pairs' distribution in
#: ``bench.fairplay`` and the probe (``docs/fairplay.md``, the threshold). Since the fifth
#: session's score (each style read per cost, shrunk by how much the field's styles vary, its
#: uncertainty counted once for all the strata it serves) the honest pairs' scores are about
#: standard normal: their 99th percentile 2.2 to 2.5 in club events (a normal's: 2.33), 0.0 to
#: 0.4% of them at 3.0 or more, against 2.5 to 3.8 and up to 2.3% before.
THRESHOLD = 3.0


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


def league_pairs_flagged(
    league: League,
    *,
    threshold: float = THRESHOLD,
    tournaments: QuerySet[Tournament] | None = None,
) -> list[SeasonPair]:
    """The pairs of ``league``'s tournaments whose pooled score over the season reaches
    ``threshold``, highest first. Each event's expected counts are its own (a player's conduct
    towards the others of that event), so the season adds evidence, not games to one fit.
    ``tournaments``: pool only those of the league's events (a referee's season is the events
    it referees: another event's evidence is not its to read)."""
    events = Tournament.objects.filter(league=league)
    if tournaments is not None:
        events = events.filter(pk__in=tournaments.values("pk"))
    totals = (
        PairEvidence.objects.filter(tournament__in=events)
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
            PairEvidence.objects.filter(tournament__in=events, first_id__in=firsts)
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


# --- what the review's pages show (``tournaments.console.fairplay``) ---------------------------


@dataclass(frozen=True, slots=True)
class QueueCounts:
    """What a queue rests on: the games counted, the pairs who shared a table, and those of
    them with a score (at least one term with enough chances to count)."""

    games_counted: int
    pairs_met: int
    pairs_scored: int
    computed_at: datetime | None = None


def queue_counts(tournament: Tournament) -> QueueCounts:
    """The counts under ``tournament``'s queue."""
    state = FairplayState.objects.filter(tournament=tournament).first()
    pairs = PairEvidence.objects.filter(tournament=tournament).aggregate(
        met=Count("pk"), scored=Count("pk", filter=Q(variance__gt=0))
    )
    return QueueCounts(
        games_counted=state.games_counted if state is not None else 0,
        pairs_met=pairs["met"],
        pairs_scored=pairs["scored"],
        computed_at=state.computed_at if state is not None else None,
    )


def season_counts(league: League, tournaments: QuerySet[Tournament]) -> QueueCounts:
    """The counts under the season queue of ``league`` over ``tournaments`` (its events the
    reader referees): the pairs as the season pools them, once however many events they met in."""
    events = Tournament.objects.filter(league=league, pk__in=tournaments.values("pk"))
    pairs = (
        PairEvidence.objects.filter(tournament__in=events)
        .values("first_id", "second_id")
        .annotate(variance_sum=Sum("variance"))
    )
    games = FairplayState.objects.filter(tournament__in=events).aggregate(n=Sum("games_counted"))
    return QueueCounts(
        games_counted=games["n"] or 0,
        pairs_met=pairs.count(),
        pairs_scored=sum(1 for p in pairs if (p["variance_sum"] or 0) > 0),
    )


def season_players(season: list[SeasonPair]) -> dict[int, Player]:
    """The players of ``season``'s pairs by id (one query)."""
    ids = {p.first for p in season} | {p.second for p in season}
    return {p.pk: p for p in Player.objects.filter(pk__in=ids)}


@dataclass(frozen=True, slots=True)
class MoveRef:
    """A move of the log: its game and ``GameAction.seq``, and the replay's step that shows it.

    ``seq`` is the game's version after the move (1, 2, ... without gaps: the log's unique,
    dense numbering) and the replay's ``?step=N`` is the board after the log's N-th move, with
    that move as "the move": the step of a move is its seq."""

    game_id: int
    seq: int

    @property
    def step(self) -> int:
        return self.seq


@dataclass(frozen=True, slots=True)
class TermLine:
    """One term of a pair's score: what ``mover`` did to ``other`` of one ``kind``, observed
    against expected over its opportunities, and what it adds to the pair's departure; the
    moves of its events (``moves``) and of its chances not taken (``missed``: where sparing
    shows, a throw-in it could have made and passed)."""

    mover: Player
    other: Player
    kind: str
    opportunities: int
    observed: int
    expected: float
    variance: float
    scored: bool
    moves: tuple[MoveRef, ...]
    missed: tuple[MoveRef, ...] = ()

    @property
    def observed_rate(self) -> float | None:
        return self.observed / self.opportunities if self.opportunities else None

    @property
    def expected_rate(self) -> float | None:
        return self.expected / self.opportunities if self.opportunities else None

    @property
    def context_only(self) -> bool:
        """A kind listed beside the score and never counted in it (``beat``)."""
        return self.kind not in SCORED

    @property
    def departure(self) -> float:
        """``sign * (O - E)``: what the term adds to the pair's departure when it is scored."""
        return SIGNS.get(self.kind, 0) * (self.observed - self.expected)

    @property
    def z(self) -> float | None:
        """The term alone, in standard deviations (None without variance)."""
        return self.departure / math.sqrt(self.variance) if self.variance > 0 else None


@dataclass(frozen=True, slots=True)
class PairGame:
    """A game the pair shared: where it was played, whether it can be replayed (over, its seed
    revealed), and who was the fool there: one of the pair (``fool``), another player
    (``another_fool``), or nobody (a draw, or a game not played out)."""

    game: Game
    replayable: bool
    fool: Player | None
    another_fool: bool


@dataclass(frozen=True, slots=True)
class PairReview:
    pair: PairEvidence
    terms: tuple[TermLine, ...]
    games: tuple[PairGame, ...]
    history: tuple[AuditEvent, ...]


def pair_review(pair: PairEvidence) -> PairReview:
    """Everything the pair's page shows: its terms, each mover's first (the lower id, then
    the other), in the kinds' order; the games they shared; the decisions' audit rows, newest
    first. Only games that are over and revealed are replayable, and only their moves are
    listed (a game in play keeps its hands hidden). A pair computed before the missed moves
    were kept (evidence version 1) lists none until the job computes it again."""
    players = {pair.first_id: pair.first, pair.second_id: pair.second}
    shown = {
        g.pk: g
        for g in Game.objects.filter(pk__in=pair.game_ids).select_related("table__round__stage")
    }
    replayable = {pk for pk, g in shown.items() if g.is_over and g.seed_revealed}
    order = {kind: i for i, kind in enumerate(KINDS)}
    terms = sorted(
        pair.terms,
        key=lambda t: (t["mover"] != pair.first_id, order.get(t["kind"], len(order)), t["kind"]),
    )
    lines = tuple(
        TermLine(
            mover=players[t["mover"]],
            other=players[pair.second_id if t["mover"] == pair.first_id else pair.first_id],
            kind=t["kind"],
            opportunities=t["opportunities"],
            observed=t["observed"],
            expected=t["expected"],
            variance=t["variance"],
            scored=bool(t["scored"]),
            moves=tuple(MoveRef(game, seq) for game, seq in t["moves"] if game in replayable),
            missed=tuple(
                MoveRef(game, seq) for game, seq in t.get("missed", ()) if game in replayable
            ),
        )
        for t in terms
    )
    games = tuple(
        PairGame(
            game=shown[row.game_id],
            replayable=row.game_id in replayable,
            fool=players.get(row.fool) if row.fool is not None else None,
            another_fool=row.fool is not None and row.fool not in players,
        )
        for row in pair_games(pair)
        if row.game_id in shown
    )
    history = tuple(
        AuditEvent.objects.filter(
            action=AuditEvent.Action.FAIRPLAY_DECIDE,
            target_type=PairEvidence._meta.model_name,
            target_id=pair.pk,
        )
        .select_related("actor")
        .order_by("-created_at", "-id")
    )
    return PairReview(pair=pair, terms=lines, games=games, history=history)
