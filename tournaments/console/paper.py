"""Paper for the hall, per round of an event: the pairing list (by table, then by player name,
a page each), the result slips (one per table, two or four to an A4 sheet, each with a QR code
to the table's result page in the console), and the projector's screen of the current round and
the standings, kept live by the public pages' own script (``static/js/tournament.js`` over the
tournament feed's socket: no protocol of its own).

Pages of whoever sees the round in the console (its event's organiser and referees); one out of
scope is a 404 (``ConsoleAdmin.get_object``). The facts come from ``selectors.paper`` and
``selectors.standings``; here they are only laid out. The pages print on A4 in black and white
(``static/css/print.css``): no console chrome, a page break between lists and between sheets.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import segno
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from tournaments.models import Round, Table, Tournament
from tournaments.selectors.paper import (
    SheetTable,
    places_by_name,
    projected_round,
    round_heading,
    round_sheet,
)
from tournaments.selectors.standings import has_standings, stage_standings
from tournaments.wording import points_text

PAIRINGS = "admin/tournaments/round/pairings.html"
SLIPS = "admin/tournaments/round/slips.html"
PROJECTOR = "admin/tournaments/round/projector.html"
#: Slips to an A4 sheet: two (half a page each, room for eight seats) or four (quarters).
SLIPS_PER_SHEET = (2, 4)
#: Standing lines on one screen of the projector (the script pages through the rest).
PROJECTOR_LINES = 10
#: Empty lines a slip offers for pogony hung in the table's games.
SLIP_POGONY_LINES = 2


RoundPage = Callable[[admin.ModelAdmin[Round], HttpRequest, str], HttpResponse]


def _read_only(view: RoundPage) -> RoundPage:
    """A page to read (and print): GET and HEAD; anything else is a 405."""

    @functools.wraps(view)
    def page(
        model_admin: admin.ModelAdmin[Round], request: HttpRequest, object_id: str
    ) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        return view(model_admin, request, object_id)

    return page


def _round(model_admin: admin.ModelAdmin[Round], request: HttpRequest, object_id: str) -> Round:
    round_ = model_admin.get_object(request, object_id)
    if round_ is None or not model_admin.has_view_permission(request, round_):
        raise PermissionDenied
    return round_


def _page(
    request: HttpRequest, template: str, round_: Round, title: str, **context: Any
) -> TemplateResponse:
    """A page of its own (no console frame: it is printed or projected)."""
    tournament = round_.stage.tournament
    return TemplateResponse(
        request,
        template,
        {
            "title": title,
            "round": round_,
            "tournament": tournament,
            "heading": round_heading(round_),
            **context,
        },
    )


@_read_only
def round_pairings_view(
    model_admin: admin.ModelAdmin[Round], request: HttpRequest, object_id: str
) -> HttpResponse:
    """The round's pairing list by table, then (on the next page) by player name."""
    round_ = _round(model_admin, request, object_id)
    sheet = round_sheet(round_)
    return _page(
        request,
        PAIRINGS,
        round_,
        gettext("Pairings: %(round)s") % {"round": round_},
        tables=sheet,
        places=places_by_name(sheet),
        width=max((len(t.seats) for t in sheet), default=0),
    )


def qr_svg(url: str) -> SafeString:
    """``url`` as a QR code in inline SVG (medium error correction: a slip gets folded)."""
    code = segno.make(url, error="m", micro=False)
    # segno writes the SVG from the code's modules and escapes the title: no markup of ours.
    return mark_safe(code.svg_inline(scale=3, title=url))


@dataclass(frozen=True)
class Slip:
    table: SheetTable
    url: str
    qr: SafeString


def _slips(request: HttpRequest, sheet: Sequence[SheetTable]) -> list[Slip]:
    slips = []
    for table in sheet:
        if table.table.is_bye or not table.seats:  # a bye, or a knockout table still to fill
            continue
        url = request.build_absolute_uri(
            reverse("admin:tournaments_table_result", args=[table.table.pk])
        )
        slips.append(Slip(table=table, url=url, qr=qr_svg(url)))
    return slips


@_read_only
def round_slips_view(
    model_admin: admin.ModelAdmin[Round], request: HttpRequest, object_id: str
) -> HttpResponse:
    """A result slip per table (byes have none), ``?per=2`` or ``4`` to a sheet."""
    round_ = _round(model_admin, request, object_id)
    try:
        per = int(request.GET.get("per", SLIPS_PER_SHEET[0]))
    except ValueError:
        per = SLIPS_PER_SHEET[0]
    if per not in SLIPS_PER_SHEET:
        per = SLIPS_PER_SHEET[0]
    slips = _slips(request, round_sheet(round_))
    sheets = [slips[i : i + per] for i in range(0, len(slips), per)]
    return _page(
        request,
        SLIPS,
        round_,
        gettext("Result slips: %(round)s") % {"round": round_},
        sheets=sheets,
        per=per,
        choices=SLIPS_PER_SHEET,
        pogony_lines=range(SLIP_POGONY_LINES),
    )


@dataclass(frozen=True)
class ProjectedLine:
    place: int
    name: str
    points: str
    played: int
    screen: int  # which screen of the projector's pages shows it (from 1)


def _standings(round_: Round) -> list[ProjectedLine]:
    if not has_standings(round_.stage):
        return []
    return [
        ProjectedLine(
            place=line.place,
            name=line.name,
            points=points_text(line.points),
            played=line.played,
            screen=index // PROJECTOR_LINES + 1,
        )
        for index, line in enumerate(stage_standings(round_.stage))
    ]


@_read_only
def round_projector_view(
    model_admin: admin.ModelAdmin[Round], request: HttpRequest, object_id: str
) -> HttpResponse:
    """The event's current round (``selectors.paper.projected_round``: the round in the
    address only names the event, so a projector left on all day moves on by itself) and its
    stage's standings, on a screen of its own that the tournament feed keeps live."""
    named = _round(model_admin, request, object_id)
    tournament: Tournament = named.stage.tournament
    round_ = projected_round(tournament) or named
    sheet = round_sheet(round_)
    finished = sum(1 for t in sheet if t.table.status == Table.Status.FINISHED)
    lines = _standings(round_)
    return _page(
        request,
        PROJECTOR,
        round_,
        gettext("Projector: %(tournament)s") % {"tournament": tournament},
        tables=[t for t in sheet if not t.table.is_bye],
        byes=[seat for t in sheet if t.table.is_bye for seat in t.seats],
        finished=finished,
        total=sum(1 for t in sheet if not t.table.is_bye),
        lines=lines,
        screens=lines[-1].screen if lines else 0,
        feed=f"/ws/tournaments/{tournament.slug}/",
    )
