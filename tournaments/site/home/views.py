"""The front page (reads through ``tournaments.selectors`` and the site's league list)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from tournaments import selectors
from tournaments.selectors.play import live_tables
from tournaments.site.people.pages import league_list

#: How many league seasons the front page lists (all of them are on ``/leagues/``).
HOME_LEAGUES = 6


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The front page: the tables being played now that the visitor may watch, public
    tournaments (running ones first) and the newest league seasons."""
    context = {
        "watch": live_tables(request.user),
        "groups": selectors.public_tournaments(),
        "leagues": league_list(request.user, limit=HOME_LEAGUES),
    }
    return render(request, "site/home.html", context)
