"""The public pages of an event: the tournament page and the embeds of its standings and
bracket (``pages`` assembles what they show; the templates are ``templates/tournaments/`` and
``templates/embed/``).

A private tournament, or a draft, exists only for those who may read it
(``visibility.tournaments_visible_to``): anyone else gets the 404 of a tournament that does not
exist. The pages are complete without a script; ``static/js/tournament.js`` keeps them live over
the tournament's feed (``/ws/tournaments/<slug>/``) by fetching the page again and swapping the
parts that changed.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from tournaments.models import Tournament
from tournaments.selectors import visibility
from tournaments.site.accounts.panel import entry_panel, user_player
from tournaments.site.events import pages, snippets
from tournaments.wording import status_badge


def _tournament(request: HttpRequest, slug: str) -> Tournament:
    tournament = (
        visibility.tournaments_visible_to(request.user)
        .filter(slug=slug)
        .select_related("league")
        .first()
    )
    if tournament is None:
        raise Http404(gettext("There is no such tournament."))
    return tournament


@require_safe
def tournament_page(request: HttpRequest, slug: str) -> HttpResponse:
    """``/tournaments/<slug>/``: the status, the rules in words, the money, every stage with its
    rounds and tables, standings with every tie-break, the knockout bracket drawn, and once
    finished the final places with payouts and ranks; the code that embeds its standings and
    bracket in another page. ``?round=<id>`` opens that round; an open round's tables come a
    page at a time (``?round<id>_page=``), ``?find=<name>`` keeps those where a player of that
    name sits, and the reader's own table comes first."""
    tournament = _tournament(request, slug)
    # The reader's own entry: register, check in, withdraw (tournaments.site.accounts); their
    # table first in the round in play.
    panel = entry_panel(request, tournament)
    reader = user_player(request.user) if panel["entry_panel"].entry is not None else None
    page = pages.event_page(tournament, request.GET, player_id=reader.pk if reader else None)
    embeds = snippets.embed_snippets(request, page)
    context = {"page": page, "embeds": embeds, **panel}
    return render(request, "tournaments/tournament.html", context)


@require_safe
@xframe_options_exempt
def embed_standings(request: HttpRequest, slug: str) -> HttpResponse:
    """``/embed/tournaments/<slug>/standings/``: the standings alone, for an ``<iframe>``;
    ``?stage=<n>`` a stage's, else the final places once finished, else the current stage's;
    ``?theme=light|dark|auto``; ``?id=`` names it in the height it posts to its parent page
    (``static/js/embed.js``)."""
    tournament = _tournament(request, slug)
    embed = pages.standings_embed(tournament, request.GET)
    if embed is None:
        raise Http404(gettext("This tournament has no such standings."))
    return render(
        request,
        "embed/standings.html",
        {**_embed_context(request, tournament), "embed": embed},
    )


@require_safe
@xframe_options_exempt
def embed_bracket(request: HttpRequest, slug: str) -> HttpResponse:
    """``/embed/tournaments/<slug>/bracket/``: a knockout stage's bracket alone, for an
    ``<iframe>``; ``?stage=<n>`` (default: the current or last knockout stage),
    ``?theme=light|dark|auto``, ``?id=`` as for the standings."""
    tournament = _tournament(request, slug)
    block = pages.bracket_embed(tournament, request.GET)
    if block is None:
        raise Http404(gettext("This tournament has no such knockout stage."))
    return render(
        request,
        "embed/bracket.html",
        {**_embed_context(request, tournament), "s": block},
    )


def _embed_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """What every embed's frame (``templates/embed/base.html``) shows: the tournament, its
    status badge (the live indicator only while it runs) and the theme asked for."""
    return {
        "tournament": tournament,
        "badge": status_badge("tournament", tournament.status),
        "theme": pages.theme(request.GET),
    }
