"""The live table's page (reads through ``games.selectors`` and ``tournaments.selectors``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from games.errors import Forbidden, NotFound
from games.hooks import REFEREE
from games.selectors import table_access
from tournaments import selectors
from tournaments.permissions import can_correct_in_console
from tournaments.selectors.play import table_links


@require_safe
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/``: the live table; the page fills itself over the table's WebSocket
    (``games.consumers``). A private tournament's table does not exist for anyone it is not
    open to, logged in or not: 404, as a missing table (a redirect to the login page would
    tell that it exists)."""
    try:
        access = table_access(table_id=table_id, user=request.user)
    except (NotFound, Forbidden):
        raise Http404("no such table") from None
    table = selectors.table_with_tournament(table_id)
    return render(
        request,
        "games/table.html",
        {
            "table": table,
            "tournament": table.round.stage.tournament,
            "role": access.role,
            # The way back and on: the table named, its event page's part (``place.anchor``),
            # and its series' games that can be replayed (``table_links``).
            "links": table_links(table_id),
            # The referee panel's link to the console's result page (correct, undo a ruling).
            "console_result": access.role == REFEREE
            and can_correct_in_console(request.user, table.round.stage.tournament),
        },
    )
