"""Tournament jobs. Each takes ids, calls one service and is safe to run twice or to be killed
half-way: the services claim their work under a row lock and re-check the status first."""

from __future__ import annotations

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.pair_round")
def pair_round(round_id: int) -> str:
    round_ = services.round_pair(round_id=round_id)
    return round_.status


@shared_task(name="tournaments.complete_round")
def complete_round(round_id: int) -> str:
    round_ = services.round_complete(round_id=round_id)
    return round_.status


@shared_task(name="tournaments.compute_prize_pool")
def compute_prize_pool(tournament_id: int) -> str:
    return str(services.prize_pool_compute(tournament_id=tournament_id).total)


@shared_task(name="tournaments.compute_tournament_ranks")
def compute_tournament_ranks(tournament_id: int) -> int:
    return services.tournament_ranks_compute(tournament_id=tournament_id)


@shared_task(name="tournaments.compute_league_ranks")
def compute_league_ranks(league_id: int) -> int:
    return services.league_ranks_compute(league_id=league_id)


@shared_task(name="tournaments.update_ratings")
def update_ratings(tournament_id: int) -> int:
    return services.ratings_update(tournament_id=tournament_id)


@shared_task(name="tournaments.sweep_rounds")
def sweep_rounds() -> int:
    """Safety net (beat): complete any playing round whose tables have all finished, in case
    the job that should have done it was lost."""
    return services.rounds_sweep()
