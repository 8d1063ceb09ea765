"""Tournament jobs. Each is named after the service it calls (``tournaments.<service>``), takes
ids, and is safe to run twice or to be killed half-way: the services claim their work under a
row lock and re-check the status first.

No task retries here: the end-of-tournament services (prize pool, ranks, ratings) take their
locks in one order (``tournaments.services.awards``) and rerun their own transaction when
PostgreSQL aborts it for a deadlock or a serialization failure (``durak_site.dbretry``), which
covers eager jobs and direct callers too. A job that still fails after its attempts fails as a
task error, logged by the worker."""

from __future__ import annotations

from celery import shared_task

from tournaments import services
from tournaments.api import idempotency
from tournaments.services import webhooks


@shared_task(name="tournaments.round_pair")
def round_pair(round_id: int) -> str:
    return services.round_pair(round_id=round_id).status


@shared_task(name="tournaments.round_complete")
def round_complete(round_id: int) -> str:
    return services.round_complete(round_id=round_id).status


@shared_task(name="tournaments.prize_pool_compute")
def prize_pool_compute(tournament_id: int) -> str:
    return str(services.prize_pool_compute(tournament_id=tournament_id).total)


@shared_task(name="tournaments.tournament_ranks_compute")
def tournament_ranks_compute(tournament_id: int) -> int:
    return services.tournament_ranks_compute(tournament_id=tournament_id)


@shared_task(name="tournaments.league_ranks_compute")
def league_ranks_compute(league_id: int) -> int:
    return services.league_ranks_compute(league_id=league_id)


@shared_task(name="tournaments.ratings_update")
def ratings_update(tournament_id: int) -> int:
    return services.ratings_update(tournament_id=tournament_id)


@shared_task(name="tournaments.rounds_sweep")
def rounds_sweep() -> int:
    """Safety net (beat): complete any playing round whose tables have all finished, in case
    the job that should have done it was lost."""
    return services.rounds_sweep()


@shared_task(name="tournaments.webhook_deliver")
def webhook_deliver(delivery_id: int) -> str:
    """One attempt at a webhook delivery; a failure schedules the next one itself (backoff in
    ``tournaments.services.webhooks``), so no Celery retry here either."""
    return webhooks.webhook_deliver(delivery_id=delivery_id)


@shared_task(name="tournaments.webhooks_sweep")
def webhooks_sweep() -> int:
    """Safety net (beat): ask again for overdue webhook deliveries whose job was lost."""
    return webhooks.webhooks_sweep()


@shared_task(name="tournaments.idempotency_expire")
def idempotency_expire() -> int:
    """Daily (beat): forget the API's stored answers to writes older than a day."""
    return idempotency.expire_answers()
