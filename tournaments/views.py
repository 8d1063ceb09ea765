"""Server-rendered tournament pages (reads through ``tournaments.selectors``)."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.errors import Forbidden, NotFound
from games.selectors import table_access
from tournaments import selectors


@require_GET
def tournament_page(request: HttpRequest, slug: str) -> HttpResponse:
    """``/tournaments/<slug>/``: the current round's tables (links to the live tables) and the
    current stage's standings. A private tournament exists only for its players and staff."""
    overview = selectors.tournament_overview(slug=slug, user=request.user)
    if overview is None:
        raise Http404("no such tournament")
    return render(request, "tournaments/tournament.html", {"o": overview})


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The front page: public tournaments, running ones first."""
    return render(request, "site/home.html", {"groups": selectors.public_tournaments()})


@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/``: the live table; the page fills itself over the table's WebSocket
    (``games.consumers``)."""
    try:
        access = table_access(table_id=table_id, user=request.user)
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
