"""The code a club pastes into its own page to show an event's standings or bracket: an
``<iframe>`` of the embed (``/embed/tournaments/<slug>/...``) and our loader
(``static/js/embed-loader.js``), which sizes that frame to its content.

The embed itself (``static/js/embed.js``) posts its height to whatever page frames it,
``{type: "durak-embed-height", height, id}`` (``id``: the embed's ``?id=``, the frame's own id in
the snippet), so a page may also size it with a few lines of its own.

The addresses are absolute (the snippet runs on another site, or from a file on a computer),
and the loader's is its plain name, not collectstatic's hashed one: a snippet pasted today must
still find it after the next deployment.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, pgettext

from tournaments.models import Tournament
from tournaments.site.events.pages import EventPage

LOADER = "js/embed-loader.js"
DEFAULT_THEME = "light"


@dataclass(frozen=True)
class Snippet:
    kind: str  # "standings" or "bracket"
    label: str  # what it shows, for the reader of the tournament page
    code: SafeString  # the HTML to paste, also the page's own preview of it


def _snippet(
    request: HttpRequest, tournament: Tournament, *, kind: str, label: str, title: str, height: int
) -> Snippet:
    """``height``: the frame's until the loader sizes it (a page without the loader keeps it)."""
    frame_id = f"durak-{tournament.slug}-{kind}"
    path = reverse(f"embed-{kind}", args=[tournament.slug])
    query = urlencode({"theme": DEFAULT_THEME, "id": frame_id})
    src = request.build_absolute_uri(f"{path}?{query}")
    loader = request.build_absolute_uri(f"{settings.STATIC_URL}{LOADER}")
    code = format_html(
        '<iframe id="{}" src="{}" title="{}" width="100%" height="{}" style="border:0">'
        '</iframe>\n<script src="{}" async></script>',
        frame_id,
        src,
        title,
        height,
        loader,
    )
    return Snippet(kind=kind, label=label, code=code)


def embed_snippets(request: HttpRequest, page: EventPage) -> list[Snippet]:
    """The snippets for the embeds this event has: its standings (a stage that has them, or the
    final places) and its bracket (a knockout stage). None for an event that only its own
    people may see: its embeds are a 404 to everyone else."""
    tournament = page.tournament
    if not tournament.is_public or tournament.status == Tournament.Status.DRAFT:
        return []
    name = {"name": tournament.name}
    snippets = []
    if page.final is not None or any(not s.is_knockout for s in page.stages):
        label, title = gettext("Standings"), gettext("%(name)s: standings") % name
        snippets.append(
            _snippet(request, tournament, kind="standings", label=label, title=title, height=480)
        )
    if any(s.is_knockout for s in page.stages):
        label, title = pgettext("embed", "Bracket"), gettext("%(name)s: bracket") % name
        snippets.append(
            _snippet(request, tournament, kind="bracket", label=label, title=title, height=560)
        )
    return snippets
