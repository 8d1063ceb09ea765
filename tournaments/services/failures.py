"""Failures of the end-of-event jobs: stored, shown, announced, retried when something changed.

A finished event's four jobs (its final places, prize pool, ranks and ratings:
``tournaments.services.placing`` and ``tournaments.services.awards``) run through
:func:`awards_job`. A failure is stored (:class:`~tournaments.models.AwardsFailure`: which job,
a stable code and the message's parameters, when, how many times, and the fingerprint of the
inputs it failed on) and announced on the tournament's feed (``awards_failed``); the next
success deletes it. The console's progress page shows the failures in its reader's language
(:func:`failure_text`) with a "recompute" action (:func:`tournament_awards_recompute`), the
console's tournament list flags a finished event whose awards are missing or failed, and the
reconciler sends a failed job again only once its inputs have changed
(:func:`awards_inputs`): a failure that nothing has touched is not retried every few seconds.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any, Final

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import Forbidden, ServiceError
from games.actors import Actor
from tournaments.errors import AwardsError, StateError
from tournaments.models import (
    AuditEvent,
    AwardsFailure,
    Entry,
    League,
    Stage,
    TableResult,
    Tournament,
)
from tournaments.permissions import can_referee
from tournaments.scoring.errors import ScoringError
from tournaments.services import awards, placing
from tournaments.services.audit import audit_record
from tournaments.services.feed import tournament_changed

log = logging.getLogger(__name__)

Job = AwardsFailure.Job

#: What each job runs (its service, by tournament id), in the order a recompute runs them.
JOBS: Final[dict[str, Callable[..., Any]]] = {
    Job.PLACES: placing.tournament_places_compute,
    Job.PRIZE_POOL: awards.prize_pool_compute,
    Job.RANKS: awards.tournament_ranks_compute,
    Job.RATINGS: awards.ratings_update,
}

#: The task of each job (``tournaments.tasks``): the reconciler sends these.
TASKS: Final[dict[str, str]] = {
    Job.PLACES: "tournaments.tournament_places_compute",
    Job.PRIZE_POOL: "tournaments.prize_pool_compute",
    Job.RANKS: "tournaments.tournament_ranks_compute",
    Job.RATINGS: "tournaments.ratings_update",
}

#: A failure's words by code, with its ``params``; an unknown code shows its own message.
MESSAGES: Final[dict[str, Promise]] = {
    "place_order": _(
        "the final places do not follow competition ranking (1, 2, 2, 4, …): place "
        "%(expected)s was expected, %(got)s was found"
    ),
    "unplaced": _("%(count)s entries that started have no final place"),
    "payout_sum": _("the payout structure's percentages add up to %(total)s, not 100"),
    "internal": _("an unexpected error (%(error)s); the server's log has its details"),
}


def failure_text(failure: AwardsFailure) -> str:
    """The failure's message in the active language."""
    words = MESSAGES.get(failure.code)
    if words is not None:
        try:
            text: str = str(words) % failure.params
            return text
        except (KeyError, TypeError, ValueError):
            pass
    problem: str = str(failure.params.get("problem") or failure.message or failure.code)
    return problem


def awards_inputs(tournament_id: int) -> str:
    """A fingerprint of everything the end-of-event jobs read: the tournament's money and
    league, its stages' scoring, its entries' statuses, places and fees, its results (a
    correction or a confirmation is a new row or a new status) and its league's ladder. Not the
    tournament's version, which the jobs' own announcements move."""
    tournament = Tournament.objects.values(
        "status",
        "entry_fee",
        "rake_percent",
        "guarantee",
        "reentry_fee",
        "currency",
        "payout_structure",
        "league_id",
        "finished_at",
    ).get(pk=tournament_id)
    inputs = {
        "tournament": tournament,
        "stages": list(
            Stage.objects.filter(tournament_id=tournament_id)
            .order_by("order")
            .values_list("pk", "format", "status", "scoring", "tiebreaks")
        ),
        "entries": list(
            Entry.objects.filter(tournament_id=tournament_id)
            .order_by("pk")
            .values_list("pk", "status", "final_place", "paid", "reentries")
        ),
        "results": list(
            TableResult.objects.filter(table__round__stage__tournament_id=tournament_id)
            .order_by("pk")
            .values_list("pk", "status")
        ),
        "ladder": (
            League.objects.filter(pk=tournament["league_id"])
            .values_list("rank_ladder", flat=True)
            .first()
        ),
    }
    blob = json.dumps(inputs, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def _why(exc: Exception) -> tuple[str, dict[str, Any]]:
    """A failure's code and message parameters."""
    if isinstance(exc, AwardsError):
        return exc.code, exc.params
    if isinstance(exc, ScoringError):
        return exc.code or "scoring", exc.params or {"problem": str(exc)}
    if isinstance(exc, ServiceError):
        return exc.code, {"problem": exc.message}
    return "internal", {"error": type(exc).__name__}


@transaction.atomic
def failure_record(*, tournament_id: int, job: str, exc: Exception) -> AwardsFailure:
    """Store (or count again) ``job``'s failure of ``tournament_id`` with ``exc``, and announce
    it on the feed the first time and whenever its inputs changed. Its own transaction (the
    job's rolled back). Locks the failure row, then (announcing) the tournament's."""
    code, params = _why(exc)
    now = timezone.now()
    fingerprint = awards_inputs(tournament_id)
    failure, created = AwardsFailure.objects.select_for_update().get_or_create(
        tournament_id=tournament_id,
        job=job,
        defaults={
            "code": code,
            "params": params,
            "message": str(exc)[:2000],
            "fingerprint": fingerprint,
            "first_failed_at": now,
            "last_failed_at": now,
        },
    )
    news = created or failure.fingerprint != fingerprint or failure.code != code
    if not created:
        AwardsFailure.objects.filter(pk=failure.pk).update(
            code=code,
            params=params,
            message=str(exc)[:2000],
            fingerprint=fingerprint,
            last_failed_at=now,
            attempts=F("attempts") + 1,
        )
        failure.refresh_from_db()
    log.warning("awards: %s of tournament %s failed: %s", job, tournament_id, exc)
    if news:
        tournament_changed(
            tournament_id=tournament_id,
            event="awards_failed",
            data={"job": job, "code": code, "params": params},
        )
    return failure


def failure_clear(*, tournament_id: int, job: str) -> bool:
    """``job`` of ``tournament_id`` has succeeded: forget its failure (True if there was one)."""
    deleted, _ = AwardsFailure.objects.filter(tournament_id=tournament_id, job=job).delete()
    return bool(deleted)


def awards_job(job: str, tournament_id: int) -> Any:
    """Run the end-of-event ``job`` of ``tournament_id`` (the task's body): a success clears its
    stored failure, a failure is stored (:func:`failure_record`). A failure of the data (a
    refusal, a scoring error) returns None: the failure is the outcome, stored and shown; any
    other error is stored and raised again, for the worker's log."""
    try:
        outcome = JOBS[job](tournament_id=tournament_id)
    except (ServiceError, ScoringError) as exc:
        failure_record(tournament_id=tournament_id, job=job, exc=exc)
        return None
    except Exception as exc:
        failure_record(tournament_id=tournament_id, job=job, exc=exc)
        raise
    failure_clear(tournament_id=tournament_id, job=job)
    return outcome


def tournament_awards_recompute(*, tournament: Tournament, actor: Actor) -> list[AwardsFailure]:
    """An organiser or a referee of ``tournament`` runs its end-of-event jobs again, now, in
    order: the final places, the prize pool, the ranks, the ratings (the ranks and ratings only
    if they have not been applied: they are claimed once). Audited. Returns the failures left
    (empty: everything computed).

    Refused unless the tournament has finished, and unless ``actor`` organises or referees it.
    Each job takes its own locks (``tournaments.services.awards``'s order).
    """
    if not can_referee(actor, tournament):
        raise Forbidden(gettext("only an organiser or a referee of this tournament can do this"))
    tournament.refresh_from_db(fields=["status"])
    if tournament.status != Tournament.Status.FINISHED:
        raise StateError(gettext("places and awards are computed when the tournament finishes"))
    before = list(AwardsFailure.objects.filter(tournament=tournament).values_list("job", "code"))
    with transaction.atomic():
        audit_record(
            actor=actor,
            action=AuditEvent.Action.AWARDS_RECOMPUTE,
            tournament=tournament,
            target=tournament,
            before={"failures": [f"{job}: {code}" for job, code in before]},
        )
    for job in JOBS:
        try:
            awards_job(job, tournament.pk)
        except Exception:  # stored by awards_job; the next job may still succeed
            log.exception("awards: recompute of %s failed", job)
    return list(AwardsFailure.objects.filter(tournament=tournament).order_by("job"))
