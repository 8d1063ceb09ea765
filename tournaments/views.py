"""Server-rendered tournament pages (reads through ``tournaments.selectors``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

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
