"""The console's result grid of a round: the results of a round played over the board, entered
from the slips a table at a time on one page, with the keyboard (``static/js/grid.js``: Enter
moves on like Tab; the last row's Enter saves).

A row per table: a place for each seat, as the slip has them written, and whether the last two
drew. Each row is validated apart: an empty row is skipped, a row with an error keeps what was
typed and shows its error at the row, and every valid row is saved through
``services.corrections.table_result_enter``, which checks that the user referees the event,
applies the two-person rule (the result then waits for a second referee) and writes the audit
row. A table that already has a result (or one waiting) is shown read-only with a link to its
result page, where it is corrected; pogony are entered there too, and so is a team event's table
(its places are the teams', not the seats').

For the event's referees (and its organiser, who referees it too); one out of scope is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from tournaments.console.admin_base import console_page
from tournaments.form_errors import form_error
from tournaments.models import Round, Table, TableResult
from tournaments.permissions import can_referee
from tournaments.selectors.paper import SheetTable, round_heading, round_sheet
from tournaments.services.corrections import table_result_enter

TEMPLATE = "admin/tournaments/round/results_grid.html"


class RowForm(forms.Form):
    """A table's row: the place of each seat (1 = first out) and a draw of the last two."""

    draw = forms.BooleanField(label=_("The last two drew"), required=False)

    def __init__(self, *args: Any, table: SheetTable, **kwargs: Any) -> None:
        kwargs["prefix"] = f"t{table.table.pk}"
        super().__init__(*args, **kwargs)
        self.table = table
        size = len(table.seats)
        for seat in table.seats:
            self.fields[f"seat_{seat.number}"] = forms.IntegerField(
                label=gettext("Place of %(player)s") % {"player": seat.player},
                min_value=1,
                max_value=size,
                required=False,
                widget=forms.TextInput(
                    attrs={"inputmode": "numeric", "size": 2, "autocomplete": "off"}
                ),
            )
        self.fields["draw"].widget.attrs["aria-label"] = gettext("The last two drew")
        self.order_fields([*(f"seat_{s.number}" for s in table.seats), "draw"])

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{seat.number}"] for seat in self.table.seats]

    def is_empty(self) -> bool:
        """Nothing typed in the row (checked on the raw data: a bad value is not empty)."""
        return not any((self.data.get(self.add_prefix(name)) or "").strip() for name in self.fields)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        typed = {seat.entry_id: cleaned.get(f"seat_{seat.number}") for seat in self.table.seats}
        places: dict[int, int] = {e: p for e, p in typed.items() if p is not None}
        if len(places) != len(typed):
            raise forms.ValidationError(_("Enter a place for every player of the table."))
        if len(set(places.values())) != len(places):
            raise forms.ValidationError(_("Each player takes one place."))
        cleaned["places"] = sorted(places, key=places.__getitem__)
        return cleaned

    def service_arguments(self) -> dict[str, Any]:
        places: list[int] = self.cleaned_data["places"]
        draw = bool(self.cleaned_data["draw"])
        return {
            "places": places,
            "fool": None if draw else places[-1],
            "drawn": places[-2:] if draw else [],
        }


@dataclass(frozen=True)
class GridRow:
    """A table of the grid: its form, or (it has a result, waits for its players or is a bye)
    no form and why."""

    table: SheetTable
    form: RowForm | None


def _rows(sheet: list[SheetTable], posted: Any = None) -> list[GridRow]:
    rows = []
    for table in sheet:
        # A team's table (two seats, one entry) is entered on its own page, by entry.
        open_ = (
            not table.table.is_bye
            and not table.has_result
            and not table.shared
            and table.table.status != Table.Status.WAITING
        )
        rows.append(GridRow(table=table, form=RowForm(posted, table=table) if open_ else None))
    return rows


def _summary(saved: int, pending: int, failed: int) -> str:
    parts = []
    if saved:
        parts.append(
            ngettext("%(count)d result saved", "%(count)d results saved", saved) % {"count": saved}
        )
    if pending:
        parts.append(
            ngettext(
                "%(count)d waits for a second referee's confirmation",
                "%(count)d wait for a second referee's confirmation",
                pending,
            )
            % {"count": pending}
        )
    if failed:
        parts.append(
            ngettext("%(count)d row with an error", "%(count)d rows with errors", failed)
            % {"count": failed}
        )
    return ", ".join(parts)


def round_results_grid_view(
    model_admin: admin.ModelAdmin[Round], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the round's tables as a grid; POST: save each valid row, show the rest again."""
    round_ = model_admin.get_object(request, object_id)
    if round_ is None or not model_admin.has_view_permission(request, round_):
        raise PermissionDenied
    tournament = round_.stage.tournament
    if not can_referee(request.user, tournament):
        raise PermissionDenied
    rows = _rows(round_sheet(round_), request.POST if request.method == "POST" else None)
    if request.method == "POST":
        saved = pending = 0
        kept: dict[int, RowForm] = {}
        for row in rows:
            form = row.form
            if form is None or form.is_empty():
                continue
            if form.is_valid():
                try:
                    result = table_result_enter(
                        table=row.table.table, actor=request.user, **form.service_arguments()
                    )
                except ServiceError as exc:
                    form_error(form, exc)
                else:
                    saved += 1
                    pending += result.status == TableResult.Status.PENDING
                    continue
            kept[row.table.table.pk] = form
        level = messages.ERROR if kept else messages.SUCCESS
        if not saved and not kept:
            model_admin.message_user(
                request, gettext("Nothing to save: every row is empty."), messages.WARNING
            )
        else:
            model_admin.message_user(request, _summary(saved, pending, len(kept)), level)
        if not kept:
            return HttpResponseRedirect(request.path)
        # The page again: saved rows now read-only, the rows with errors as they were typed.
        rows = [
            GridRow(table=row.table, form=kept.get(row.table.table.pk, row.form))
            if row.form is not None
            else row
            for row in _rows(round_sheet(round_))
        ]
    return console_page(
        model_admin,
        request,
        TEMPLATE,
        title=gettext("Results of %(round)s") % {"round": round_heading(round_)},
        round=round_,
        tournament=tournament,
        rows=rows,
        width=max((len(row.table.seats) for row in rows), default=0),
    )
