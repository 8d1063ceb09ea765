"""Game jobs: bots acting, the move clock, and what follows the end of a game. Each takes ids,
is guarded by the game's version or status, and is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.play_bots")
def play_bots(game_id: int, version: int) -> int:
    return services.game_play_bots(game_id=game_id, version=version).version


@shared_task(name="games.clock_expire")
def clock_expire(game_id: int, version: int) -> int:
    return services.game_clock_expire(game_id=game_id, version=version).version


@shared_task(name="games.game_over")
def game_over(game_id: int) -> str:
    return services.series_after_game(game_id=game_id)
