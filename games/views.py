"""Pages and JSON endpoints of the games layer: the live table page and the fairness check.

Thin: check who may see it (``games.selectors``), call one service, render.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from durak_site.errors import ServiceError, error_body
from games import selectors, services
from games.errors import Forbidden, NotFound
from games.models import Game


@require_GET
def game_verify(request: HttpRequest, game_id: int) -> JsonResponse:
    """``GET /games/<id>/verify``: the revealed seed, the commitment and replay checks and the
    recomputed deal; 409 ``seed_secret`` while the game is in play."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not selectors.game_visible_to(game, request.user):
        return JsonResponse(error_body("not_found", f"there is no game {game_id}"), status=404)
    try:
        return JsonResponse(services.game_verify_deal(game=game))
    except ServiceError as exc:
        return JsonResponse(exc.as_dict(), status=exc.http_status)


@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/``: the live table; the page fills itself over the table's WebSocket."""
    try:
        access = selectors.table_access(table_id=table_id, user=request.user)
    except NotFound:
        raise Http404("no such table") from None
    except Forbidden:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied("this tournament is private") from None
    table = selectors.table_with_tournament(table_id)
    return render(
        request,
        "games/table.html",
        {"table": table, "tournament": table.round.stage.tournament, "role": access.role},
    )
