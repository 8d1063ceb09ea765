"""Tournament jobs. Each is named after the service it calls (``tournaments.<service>``), takes
ids, and is safe to run twice or to be killed half-way: the services claim their work under a
row lock and re-check the status first.

The reconciler (:func:`reconcile`, beat every few seconds) sends these jobs again when their
work is due and not done (``tournaments.reconcile``): the ones it may send hold a lease while
they run (``base=Reconciled``, ``durak_site.jobs``).

The end-of-tournament jobs (places, prize pool, ranks, ratings) run through
``tournaments.services.failures.awards_job``: a failure is stored, shown in the console and
announced on the feed, and the next success clears it.

No task retries here: the end-of-tournament services (prize pool, ranks, ratings) take their
locks in one order (``tournaments.services.awards``) and rerun their own transaction when
PostgreSQL aborts it for a deadlock or a serialization failure (``durak_site.dbretry``), which
covers eager jobs and direct callers too. A job that still fails after its attempts has changed
nothing; it fails as a task error, logged by the worker, and the reconciler sends it again."""

from __future__ import annotations

from celery import shared_task

from durak_site.jobs import Reconciled
from tournaments import reconcile as reconciler
from tournaments import services
from tournaments.services import failures, fairplay, idempotency
from tournaments.services.webhooks import delivery as webhook_delivery


@shared_task(name="tournaments.round_pair", base=Reconciled)
def round_pair(round_id: int) -> str:
    return services.round_pair(round_id=round_id).status


@shared_task(name="tournaments.round_complete", base=Reconciled)
def round_complete(round_id: int) -> str:
    return services.round_complete(round_id=round_id).status


@shared_task(name="tournaments.tournament_bots_apply", base=Reconciled)
def tournament_bots_apply(tournament_id: int) -> int:
    return services.tournament_bots_apply(tournament_id=tournament_id)


@shared_task(name="tournaments.tournament_places_compute", base=Reconciled)
def tournament_places_compute(tournament_id: int) -> int | None:
    """A finished event's final places, again (a failure stored: ``services.failures``)."""
    return failures.awards_job(failures.Job.PLACES, tournament_id)  # type: ignore[no-any-return]


@shared_task(name="tournaments.prize_pool_compute", base=Reconciled)
def prize_pool_compute(tournament_id: int) -> str | None:
    pool = failures.awards_job(failures.Job.PRIZE_POOL, tournament_id)
    return None if pool is None else str(pool.total)


@shared_task(name="tournaments.tournament_ranks_compute", base=Reconciled)
def tournament_ranks_compute(tournament_id: int) -> int | None:
    return failures.awards_job(failures.Job.RANKS, tournament_id)  # type: ignore[no-any-return]


@shared_task(name="tournaments.league_ranks_compute")
def league_ranks_compute(league_id: int) -> int:
    """A league's ranks recomputed on request (a tournament's end recomputes them in its own
    ranks job)."""
    return services.league_ranks_compute(league_id=league_id)


@shared_task(name="tournaments.ratings_update", base=Reconciled)
def ratings_update(tournament_id: int) -> int | None:
    return failures.awards_job(failures.Job.RATINGS, tournament_id)  # type: ignore[no-any-return]


@shared_task(name="tournaments.fairplay_count", base=Reconciled)
def fairplay_count(tournament_id: int, full: bool = True) -> int:
    """After each round (the last one's is the event's end): count the event's finished games
    not counted yet and recompute its pairs' fair-play scores (``services.fairplay``; ``full``
    False, a round that did not end its stage: the pairs only once stale enough); safe to run
    twice and on two workers at once; sent again by the reconciler for a finished event whose
    evidence is missing or whose pairs are stale. Returns how many games it counted."""
    return fairplay.fairplay_count(tournament_id=tournament_id, full=full)


@shared_task(name="tournaments.reconcile")
def reconcile() -> int:
    """Beat, every few seconds: send the job of every piece of work that is due and not done
    (``tournaments.reconcile``); returns how many were sent."""
    return len(reconciler.reconcile())


@shared_task(name="tournaments.webhook_deliver")
def webhook_deliver(delivery_id: int) -> str:
    """One attempt at a webhook delivery; a failure schedules the next one itself (backoff in
    ``tournaments.services.webhooks.delivery``), so no Celery retry here either."""
    return webhook_delivery.webhook_deliver(delivery_id=delivery_id)


@shared_task(name="tournaments.webhooks_sweep")
def webhooks_sweep() -> int:
    """Safety net (beat): ask again for overdue webhook deliveries whose job was lost."""
    return webhook_delivery.webhooks_sweep()


@shared_task(name="tournaments.idempotency_expire")
def idempotency_expire() -> int:
    """Daily (beat): forget the API's stored answers to writes older than a day."""
    return idempotency.idempotency_expire()
