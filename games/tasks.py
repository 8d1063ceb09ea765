"""Game jobs: bots acting, bots standing in for absent players, the move clock, and what follows
the end of a game. Each is named after the service it calls, takes ids, is guarded by the game's
version or status, and is safe to run twice. The reconciler (``tournaments.reconcile``, with the
finders of ``games.reconcile``) sends each of them again when its work is due and not done, so
each holds its lease while it runs (``durak_site.jobs.Reconciled``)."""

from __future__ import annotations

from celery import shared_task

from durak_site.errors import NotFound
from durak_site.jobs import Reconciled
from games import hooks, services
from games.models import Game

#: What a job answers for a game that no longer exists.
GONE = -1


@shared_task(name="games.game_play_bots", base=Reconciled)
def game_play_bots(game_id: int, version: int) -> int:
    try:
        return services.game_play_bots(game_id=game_id, version=version).version
    except NotFound:
        if _exists(game_id):
            raise
        return GONE


@shared_task(name="games.game_clock_expire", base=Reconciled)
def game_clock_expire(game_id: int, version: int) -> int:
    try:
        return services.game_clock_expire(game_id=game_id, version=version).version
    except NotFound:
        if _exists(game_id):
            raise
        return GONE


@shared_task(name="games.game_absent_check", base=Reconciled)
def game_absent_check(game_id: int, version: int) -> int:
    try:
        return services.game_absent_check(game_id=game_id, version=version).version
    except NotFound:
        if _exists(game_id):
            raise
        return GONE


def _exists(game_id: int) -> bool:
    """A game dealt and removed before its job ran (its table was dealt again: a seat swap, a
    round paired again after a correction) leaves its job nothing to do."""
    return Game.objects.filter(pk=game_id).exists()


@shared_task(name="games.game_finished", base=Reconciled)
def game_finished(game_id: int) -> str:
    """Announce a finished game to the seating layer (``games.hooks``)."""
    return hooks.tables().game_finished(game_id=game_id)
