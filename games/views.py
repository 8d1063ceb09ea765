"""JSON endpoints of the games layer: the fairness check of a finished game.

Thin: check who may see it (``games.selectors``), call one service, answer.
The live table page is the tournaments app's (``tournaments.views.table_page``).
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from durak_site.errors import ServiceError, error_body
from games import selectors, services
from games.models import Game


@require_GET
def game_verify(request: HttpRequest, game_id: int) -> JsonResponse:
    """``GET /games/<id>/verify``: the revealed seed, the commitment and replay checks and the
    recomputed deal; 409 ``seed_secret`` while the game is in play."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not selectors.game_visible_to(game, request.user):
        message = gettext("there is no game %(game)s") % {"game": game_id}
        return JsonResponse(error_body("not_found", message), status=404)
    try:
        return JsonResponse(services.game_verify_deal(game=game))
    except ServiceError as exc:
        return JsonResponse(exc.as_dict(), status=exc.http_status)
