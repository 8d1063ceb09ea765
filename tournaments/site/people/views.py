"""Public pages about people: a player's profile, the leagues and a league season's page.

Thin: parse, read (``pages.py``), render. Server-rendered and complete without JavaScript;
Russian by default (``LocaleMiddleware``). What a private tournament holds (its entries,
ranks, rating changes, games) appears only to whoever may read it
(``visibility.tournaments_visible_to``); to anyone else it is as if it did not exist.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from tournaments.site.people import pages


@require_safe
def player_profile(request: HttpRequest, player_id: int) -> HttpResponse:
    """``/players/<id>/``: the profile, the rating and its plot, ranks and pogony, the
    tournaments played with places, the recent games with links to their replays."""
    page = pages.player_page(player_id, request.user)
    if page is None:
        raise Http404("no such player")
    return render(request, "players/profile.html", {"page": page})


@require_safe
def league_list(request: HttpRequest) -> HttpResponse:
    """``/leagues/``: every league season with a tournament the reader may read."""
    return render(request, "leagues/list.html", {"leagues": pages.league_list(request.user)})


@require_safe
def league_latest(request: HttpRequest, slug: str) -> HttpResponse:
    """``/leagues/<slug>/``: the league's newest season the reader may read (a redirect; a
    season's own address is ``/leagues/<slug>/<season>/``, as a slug is unique per season)."""
    seasons = pages.league_seasons(slug, request.user)
    if not seasons:
        raise Http404("no such league")
    return HttpResponseRedirect(reverse("league", args=[slug, seasons[0].season]))


@require_safe
def league_season(request: HttpRequest, slug: str, season: str) -> HttpResponse:
    """``/leagues/<slug>/<season>/``: the season's table, its tournaments and a ratings
    leaderboard."""
    page = pages.league_page(slug, season, request.user)
    if page is None:
        raise Http404("no such league season")
    return render(request, "leagues/league.html", {"page": page})
