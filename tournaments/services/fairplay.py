"""The fair-play job's body (issue 24): count the event's finished games not counted yet, then
recompute its pairs' scores from every game's stored evidence (``docs/fairplay.md``).

**What it reads.** Only what any real event stores: each game's rules, seed, setup and players
by seat, its action log (``GameAction``: seq, move, who made it) and which players are people
(``Player.user``). Never ``Player.bot_kind`` nor ``Game.bot_seats``: in a simulated event the
colluders' partner tags live there (``tests/tournaments/test_fairplay_job.py`` blanks them and
gets the same scores). A move the seat did not choose is replayed and not counted
(``GameRecord.forced``): the clock's, and a bot's move at a person's seat (a stand-in).

**Incremental and idempotent.** A game is counted once (``GameEvidenceRow``, one per game: an
upsert on the game, so two workers counting the same game write the same row). The scores are
recomputed from every row of the event, in game order, and written under the lock of the
event's ``FairplayState`` row (not the tournament's: the round jobs and the feed write that one
while a big event's pairs are written), held only to re-check the rows and write: the replay
and the score happen before any lock. A round's job recomputes the pairs only once the games
counted have grown by :data:`PAIRS_GROWTH` since; a stage's end, the event's end and the
reconciler (a finished event with games not counted or stale pairs: ``tournaments.reconcile``)
always do. Run twice, or by two workers at once, the rows
are the same; recounted from scratch, the scores are the same as the incremental ones.

**Decisions** (:func:`pair_decide`): a person who referees the event (its referees, its
organiser) clears, warns or disqualifies a pair, with a reason; audited; a disqualification
disqualifies both players' entries through ``entry_disqualify``. Nothing here decides by itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.dbretry import atomic_retry, run_atomic
from games.actors import Actor
from games.models import Game, GameAction
from tournaments.errors import FairPlayError
from tournaments.fairplay import GameRecord, game_evidence
from tournaments.fairplay.pairs import PairRow, counts_to_json, evidence_from_json, pair_rows
from tournaments.models import (
    AuditEvent,
    Entry,
    FairplayState,
    GameEvidenceRow,
    PairEvidence,
    Player,
    Tournament,
)
from tournaments.models.fairplay import EVIDENCE_VERSION
from tournaments.permissions import require_referee
from tournaments.services.audit import audit_record
from tournaments.services.registration import entry_disqualify

#: Games replayed and written per batch.
FAIRPLAY_BATCH = 200
#: Game statuses whose log is counted (a voided game is not).
COUNTED = (Game.Status.FINISHED, Game.Status.ADJUDICATED)
#: A round's job recomputes the pairs only once the games counted have grown by this factor
#: since the pairs were last computed (a stage's and the event's end always do): every
#: recomputation reads every game of the event, so a 1,024-player event's knockout rounds
#: (a few games each, after ~770 swiss games) would each cost the whole event's
#: (``docs/fairplay.md``, the job's cost).
PAIRS_GROWTH = 1.5

_PAIR_FIELDS = [
    "z",
    "departure",
    "variance",
    "opportunities",
    "games",
    "first_fool",
    "second_fool",
    "other_fool",
    "no_fool",
    "game_ids",
    "terms",
    "games_counted",
]


def fairplay_count(*, tournament_id: int, full: bool = True) -> int:
    """Count the tournament's finished games that have no evidence of this version yet, then
    recompute its pairs; returns how many games were counted now. ``full`` False (a round that
    did not end its stage): the pairs only if they are stale by :data:`PAIRS_GROWTH`
    (:func:`pairs_due`)."""
    counted = games_count(tournament_id=tournament_id)
    if full or pairs_due(tournament_id, growth=PAIRS_GROWTH):
        pairs_recompute(tournament_id=tournament_id)
    return counted


def pairs_due(tournament_id: int, *, growth: float = 1.0) -> bool:
    """Whether the tournament's pairs rest on fewer games than it has counted, by the factor
    ``growth`` (1: any game counted since, or a game counted again, is enough)."""
    state = FairplayState.objects.filter(tournament_id=tournament_id).first()
    rows = GameEvidenceRow.objects.filter(tournament_id=tournament_id).count()
    if state is None:
        return rows > 0
    return rows != state.games_counted and rows >= growth * state.games_counted


def _due_games(tournament_id: int) -> list[int]:
    current = GameEvidenceRow.objects.filter(
        tournament_id=tournament_id, version=EVIDENCE_VERSION
    ).values("game_id")
    return list(
        Game.objects.filter(table__round__stage__tournament_id=tournament_id, status__in=COUNTED)
        .exclude(pk__in=current)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def games_count(*, tournament_id: int) -> int:
    """Replay and store the evidence of the tournament's games not counted yet."""
    due = _due_games(tournament_id)
    for start in range(0, len(due), FAIRPLAY_BATCH):
        _count_batch(tournament_id, due[start : start + FAIRPLAY_BATCH])
    return len(due)


def _count_batch(tournament_id: int, game_ids: Sequence[int]) -> None:
    # Only these fields: never bot_kind or bot_seats (see the module's docstring).
    games = list(
        Game.objects.filter(pk__in=game_ids)
        .order_by("pk")
        .values("pk", "rules", "seed", "setup", "players")
    )
    logs: dict[int, list[tuple[int, int, dict[str, object], str]]] = {}
    for game_id, seq, seat, action, kind in (
        GameAction.objects.filter(game_id__in=game_ids)
        .order_by("game_id", "seq")
        .values_list("game_id", "seq", "seat", "action", "kind")
    ):
        logs.setdefault(game_id, []).append((seq, seat, action, kind))
    seated = {p for g in games for p in g["players"] if p is not None}
    people = set(
        Player.objects.filter(pk__in=seated, user__isnull=False).values_list("pk", flat=True)
    )
    rows = []
    for g in games:
        log = logs.get(g["pk"], [])
        players = list(g["players"])
        forced = frozenset(
            move
            for move, (_seq, seat, _action, kind) in enumerate(log, 1)
            if kind == GameAction.Kind.CLOCK
            or (kind == GameAction.Kind.BOT and players[seat] in people)
        )
        evidence = game_evidence(
            GameRecord(
                rules=g["rules"],
                actions=[action for _seq, _seat, action, _kind in log],
                seed=g["seed"],
                setup=g["setup"],
                players=players,
                forced=forced,
                game_id=g["pk"],
            )
        )
        rows.append(
            GameEvidenceRow(
                game_id=g["pk"],
                tournament_id=tournament_id,
                version=EVIDENCE_VERSION,
                players=players,
                counts=counts_to_json(evidence, seqs=[seq for seq, *_ in log]),
                fool=evidence.fool,
                draw=evidence.draw,
                complete=evidence.complete,
                moves=evidence.moves,
            )
        )
    GameEvidenceRow.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["game"],
        update_fields=["version", "players", "counts", "fool", "draw", "complete", "moves"],
    )


def _stored(tournament_id: int) -> tuple[list[int], list[PairRow]]:
    """The ids of the tournament's counted games and its pairs' rows computed from them."""
    loaded = list(
        GameEvidenceRow.objects.filter(tournament_id=tournament_id)
        .order_by("game_id")
        .values_list("game_id", "players", "counts", "fool", "draw", "complete", "moves")
    )
    games = [
        evidence_from_json(
            game_id, players, counts, fool=fool, draw=draw, complete=complete, moves=moves
        )
        for game_id, players, counts, fool, draw, complete, moves in loaded
    ]
    return [row[0] for row in loaded], pair_rows(games)


def pairs_recompute(*, tournament_id: int) -> int:
    """The tournament's pairs from its stored games (computed before the lock, again under it
    if another job counted games meanwhile); returns how many pairs it has."""
    counted, rows = _stored(tournament_id)
    return _pairs_store(tournament_id, counted, rows)


@atomic_retry
def _pairs_store(tournament_id: int, counted: list[int], rows: list[PairRow]) -> int:
    FairplayState.objects.get_or_create(tournament_id=tournament_id)
    state = FairplayState.objects.select_for_update().get(tournament_id=tournament_id)
    now = list(
        GameEvidenceRow.objects.filter(tournament_id=tournament_id)
        .order_by("game_id")
        .values_list("game_id", flat=True)
    )
    if now != counted:
        counted, rows = _stored(tournament_id)
    pairs = [
        PairEvidence(
            tournament_id=tournament_id,
            first_id=r.first,
            second_id=r.second,
            z=r.z,
            departure=r.departure,
            variance=r.variance,
            opportunities=r.opportunities,
            games=r.games,
            first_fool=r.first_fool,
            second_fool=r.second_fool,
            other_fool=r.other_fool,
            no_fool=r.no_fool,
            game_ids=list(r.game_ids),
            terms=list(r.terms),
            games_counted=len(counted),
        )
        for r in rows
    ]
    with transaction.atomic():
        PairEvidence.objects.bulk_create(
            pairs,
            batch_size=1000,
            update_conflicts=True,
            unique_fields=["tournament", "first", "second"],
            update_fields=[*_PAIR_FIELDS, "computed_at"],
        )
        keep = {(r.first, r.second) for r in rows}
        stale = [  # a pair with a decision stays, whatever the count says now
            pk
            for pk, a, b in PairEvidence.objects.filter(
                tournament_id=tournament_id, decision=""
            ).values_list("pk", "first_id", "second_id")
            if (a, b) not in keep
        ]
        PairEvidence.objects.filter(pk__in=stale).delete()
        state.games_counted = len(counted)
        state.save(update_fields=["games_counted", "computed_at"])
    return len(pairs)


def pair_decide(
    *, pair: PairEvidence, decision: str, reason: str, actor: Actor | None
) -> PairEvidence:
    """Record a referee's decision on ``pair`` (cleared, warned, disqualified) with a reason,
    in one transaction with its audit row; a later decision replaces it (the audit keeps each).
    Disqualified: both players' entries in the event are disqualified (``entry_disqualify``,
    each audited there), unless they already are. Only a person who referees the event (its
    referees, its organiser: ``permissions.can_referee``) may decide; the system may not (no
    automatic punishment). Locks the tournament's row (``entry_disqualify``'s order after the
    end), then the pair's."""
    if actor is None:
        raise FairPlayError(gettext("a fair-play decision is a person's"))
    require_referee(actor, pair.tournament)
    if decision not in (c for c in PairEvidence.Decision.values if c):
        raise FairPlayError(gettext("no such decision: %(decision)s") % {"decision": decision})
    if not reason.strip():
        raise FairPlayError(gettext("a fair-play decision needs a reason"))

    def decide() -> PairEvidence:
        tournament = Tournament.objects.select_for_update(no_key=True).get(pk=pair.tournament_id)
        locked = PairEvidence.objects.select_for_update().get(pk=pair.pk)
        before = {"decision": locked.decision, "reason": locked.decision_reason}
        locked.decision = decision
        locked.decision_reason = reason.strip()[:300]
        locked.decided_by_id = getattr(actor, "pk", None)
        locked.decided_at = timezone.now()
        locked.decided_on_games = locked.games_counted
        locked.save(
            update_fields=[
                "decision",
                "decision_reason",
                "decided_by",
                "decided_at",
                "decided_on_games",
            ]
        )
        audit_record(
            actor=actor,
            action=AuditEvent.Action.FAIRPLAY_DECIDE,
            tournament=tournament,
            target=locked,
            reason=reason,
            before=before,
            after={
                "decision": decision,
                "reason": locked.decision_reason,
                "pair": [locked.first_id, locked.second_id],
                "z": locked.z,
                "games_counted": locked.games_counted,
            },
        )
        if decision == PairEvidence.Decision.DISQUALIFIED:
            entries = Entry.objects.filter(
                tournament_id=tournament.pk, player_id__in=(locked.first_id, locked.second_id)
            ).exclude(status=Entry.Status.DISQUALIFIED)
            for entry in entries.order_by("pk"):
                entry_disqualify(entry=entry, reason=f"fair play: {reason.strip()}", actor=actor)
        return locked

    return run_atomic(decide, label="pair_decide")
