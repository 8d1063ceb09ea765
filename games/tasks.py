"""Game jobs: bots acting, the move clock, and what follows the end of a game. Each is named
after the service it calls, takes ids, is guarded by the game's version or status, and is safe
to run twice."""

from __future__ import annotations

from celery import shared_task

from games import hooks, services


@shared_task(name="games.game_play_bots")
def game_play_bots(game_id: int, version: int) -> int:
    return services.game_play_bots(game_id=game_id, version=version).version


@shared_task(name="games.game_clock_expire")
def game_clock_expire(game_id: int, version: int) -> int:
    return services.game_clock_expire(game_id=game_id, version=version).version


@shared_task(name="games.game_finished")
def game_finished(game_id: int) -> str:
    """Announce a finished game to the seating layer (``games.hooks``)."""
    return hooks.tables().game_finished(game_id=game_id)
