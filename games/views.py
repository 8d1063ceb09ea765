"""Pages and JSON endpoints of the games layer: the replay of a game that is over, and its
fairness check.

Thin: check who may see it (``games.selectors``), call one read or service, answer. The live
table page is the tournaments app's (``tournaments.site.tables.views.table_page``).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

from durak_site.errors import ServiceError, error_body
from games import engine, selectors, services
from games.models import Game
from games.replay import game_replay


@require_safe
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


def requested_step(request: HttpRequest) -> int:
    """``?step=N``: the state after N moves (0: the deal); anything else is the deal."""
    try:
        return max(0, int(request.GET.get("step", "0")))
    except ValueError:
        return 0


@require_safe
def game_replay_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """``/games/<id>/replay/``: a game that is over, move by move, every hand face up, with the
    verified deal. ``?step=N`` shows the board after N moves without JavaScript; the page's
    script steps through the same states in place. A game in play is not replayed (its seed
    is secret): the page says it is live and links to its table. Whoever may not watch the
    table (an outsider of a private event) gets a 404."""
    game = (
        Game.objects.select_related("table__round__stage__tournament")
        .defer("log_tail")
        .filter(pk=game_id)
        .first()
    )
    if game is None or not selectors.game_visible_to(game, request.user):
        raise Http404("no such game")
    # Where it was played, named as the event's pages name it: the way back to the event's
    # page (its round, or its bracket).
    around = {"place": selectors.game_place(game)}
    if not (game.is_over and game.seed_revealed):
        return render(request, "games/replay.html", {"game": game, "live": True, **around})
    replay = game_replay(game)
    board = replay.board(requested_step(request))
    return render(
        request,
        "games/replay.html",
        {
            "game": game,
            "live": False,
            "replay": replay,
            "board": board,
            "move": replay.moves[board.step - 1] if board.step else None,
            "seed_hash": engine.seed_commitment(game.seed),
            **around,
        },
    )
