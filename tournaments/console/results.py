"""The console's result page of a table: a referee enters the result of a table played over the
board, corrects a result (a new result with a reason, shown before and after), and, under the
two-person rule, confirms or rejects a result another referee entered.

Every write is a service of ``tournaments.services.corrections`` (which checks that the user
referees the event, keeps the rule's invariants and writes the audit row); a refusal shows on
the form, never as an error page. A correction that would change a round already seated from
the old result is refused with the service's message, and the form then offers to pair that
round again. Everyone who sees the event in the console sees the page and the table's history
of results; only its referees get the forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from games.engine.cards import RANKS
from tournaments import selectors
from tournaments.console.admin_base import console_page
from tournaments.form_errors import form_error
from tournaments.models import Seat, Table, TableResult
from tournaments.permissions import can_referee
from tournaments.services.corrections import (
    RepairNeeded,
    table_result_confirm,
    table_result_enter,
    table_result_reject,
)

TEMPLATE = "admin/tournaments/table/result.html"
#: Rows of the pogony part of the form: more than a table's series ever needs in practice.
POGONY_ROWS = 3
RANK_CHOICES = [("", "—"), *((rank, "10" if rank == "T" else rank) for rank in RANKS)]


class ResultForm(forms.Form):
    """Places by name (first out first, the fool last), a draw, pogony, a reason, a re-pair."""

    draw = forms.BooleanField(
        label=_("The last two drew"),
        required=False,
        help_text=_("Nobody is the fool: the last two share the last places."),
    )
    reason = forms.CharField(
        label=_("Reason"),
        required=False,
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=_("Required for a correction; kept in the audit log."),
    )
    repair = forms.BooleanField(
        label=_("Pair the next round again"),
        required=False,
        help_text=_(
            "If the next round (or knockout table) was already seated from the old result: "
            "seat it again from the corrected one. Possible only while none of its games has "
            "a move."
        ),
    )

    def __init__(self, *args: Any, seats: list[Seat], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        entries = list(dict.fromkeys(seat.entry_id for seat in seats))
        names = selectors.entry_names(entries)
        choices = [("", "—"), *((str(e), names[e]) for e in entries)]
        self.entry_ids = entries
        last = len(entries)
        for place in range(1, last + 1):
            label = (
                gettext("Place %(place)d (the fool)") % {"place": place}
                if place == last
                else gettext("Place %(place)d") % {"place": place}
            )
            self.fields[f"place_{place}"] = forms.TypedChoiceField(
                label=label, choices=choices, coerce=int
            )
        for row in range(1, POGONY_ROWS + 1):
            self.fields[f"pogony_{row}_by"] = forms.TypedChoiceField(
                label=gettext("Pogony %(row)d: hung by") % {"row": row},
                choices=choices,
                coerce=int,
                required=False,
                empty_value=None,
            )
            self.fields[f"pogony_{row}_on"] = forms.TypedMultipleChoiceField(
                label=gettext("on"),
                choices=choices[1:],
                coerce=int,
                required=False,
                widget=forms.CheckboxSelectMultiple,
            )
            self.fields[f"pogony_{row}_rank"] = forms.ChoiceField(
                label=pgettext_lazy("pogony", "rank"), choices=RANK_CHOICES, required=False
            )
        order = [f"place_{p}" for p in range(1, last + 1)]
        self.order_fields([*order, "draw"])

    def place_fields(self) -> list[forms.BoundField]:
        return [self[f"place_{p}"] for p in range(1, len(self.entry_ids) + 1)]

    def pogony_rows(self) -> list[list[forms.BoundField]]:
        return [
            [self[f"pogony_{row}_{part}"] for part in ("by", "on", "rank")]
            for row in range(1, POGONY_ROWS + 1)
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        places = [cleaned.get(f"place_{p}") for p in range(1, len(self.entry_ids) + 1)]
        if None not in places and len(set(places)) != len(places):
            raise forms.ValidationError(_("Each player takes one place."))
        cleaned["places"] = places
        pogony = []
        for row in range(1, POGONY_ROWS + 1):
            by = cleaned.get(f"pogony_{row}_by")
            on = cleaned.get(f"pogony_{row}_on") or []
            rank = cleaned.get(f"pogony_{row}_rank") or ""
            if by is None and not on and not rank:
                continue
            if by is None or not on or not rank:
                self.add_error(
                    f"pogony_{row}_by", _("A hanging needs who hung them, on whom, and the rank.")
                )
                continue
            pogony.append({"by": by, "on": list(on), "rank": rank})
        cleaned["pogony"] = pogony
        return cleaned

    def service_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        places: list[int] = data["places"]
        return {
            "places": places,
            "fool": None if data["draw"] else places[-1],
            "drawn": places[-2:] if data["draw"] else [],
            "pogony": data["pogony"],
            "reason": data["reason"],
            "repair": data["repair"],
        }


class ReviewForm(forms.Form):
    """The second referee's answer to a pending result."""

    note = forms.CharField(
        label=_("Why it is rejected"),
        required=False,
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=_("Required to reject; kept in the audit log."),
    )


@dataclass(frozen=True)
class ResultLine:
    """A result of the table's history as the page shows it."""

    result: TableResult
    named: selectors.NamedResult
    in_force: bool


def _lines(table: Table) -> list[ResultLine]:
    rows = list(
        TableResult.objects.filter(table=table)
        .select_related("entered_by", "reviewed_by", "supersedes")
        .order_by("id")
    )
    names = selectors.entry_names(e for r in rows for e in selectors.result_entry_ids(r))
    effective = selectors.effective_result(table)
    return [
        ResultLine(
            result=r,
            named=selectors.named_result(r, names),
            in_force=effective is not None and r.pk == effective.pk,
        )
        for r in rows
    ]


def table_result_view(
    model_admin: admin.ModelAdmin[Table], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the table, its results and the forms; POST ``enter``, ``confirm`` or ``reject``."""
    table = model_admin.get_object(request, object_id)
    if table is None or not model_admin.has_view_permission(request, table):
        raise PermissionDenied
    tournament = table.round.stage.tournament
    may_referee = can_referee(request.user, tournament)
    seats = list(table.seats.select_related("player").order_by("position"))
    pending = table.results.filter(status=TableResult.Status.PENDING).first()
    # Who may enter or review is the services' rule (a refusal is said on the page); here
    # ``may_referee`` only decides whether the forms are shown.
    posted = request.POST if request.method == "POST" else None
    form = ResultForm(
        posted if posted is not None and "enter" in posted else None,
        seats=seats,
        initial=_initial(table),
    )
    review = ReviewForm(posted if posted is not None and "enter" not in posted else None)
    try:
        if posted is not None and "enter" in posted and form.is_valid():
            result = table_result_enter(table=table, actor=request.user, **form.service_arguments())
            done = (
                gettext("The result waits for a second referee's confirmation.")
                if result.status == TableResult.Status.PENDING
                else gettext("The result is recorded; the standings follow it.")
            )
            model_admin.message_user(request, done, messages.SUCCESS)
            return HttpResponseRedirect(request.path)
        if posted is not None and pending is not None and review.is_valid():
            if "confirm" in posted:
                table_result_confirm(result=pending, actor=request.user)
                done = gettext("The result is confirmed; the standings follow it.")
            else:
                table_result_reject(
                    result=pending, actor=request.user, note=review.cleaned_data["note"]
                )
                done = gettext("The result is rejected; it does not count.")
            model_admin.message_user(request, done, messages.SUCCESS)
            return HttpResponseRedirect(request.path)
    except RepairNeeded as exc:
        form.add_error("repair", exc.message)
    except ServiceError as exc:
        if "enter" in (posted or {}):
            form_error(form, exc)
        else:  # a review refused (the enterer's own result, ...): said above the page
            model_admin.message_user(request, exc.message, messages.ERROR)
    effective = selectors.effective_result(table)
    return console_page(
        model_admin,
        request,
        TEMPLATE,
        title=gettext("Result of %(table)s") % {"table": table},
        table=table,
        tournament=tournament,
        seats=seats,
        form=form,
        review=review,
        pending=pending,
        may_referee=may_referee and table.status != Table.Status.WAITING and not table.is_bye,
        may_review=pending is not None and may_referee and pending.entered_by_id != request.user.pk,
        correcting=effective is not None,
        lines=_lines(table),
    )


def _initial(table: Table) -> dict[str, Any]:
    """The form starts from the result in force (a correction changes what is wrong in it)."""
    effective = selectors.effective_result(table)
    if effective is None:
        return {}
    initial: dict[str, Any] = {f"place_{p}": e for p, e in enumerate(effective.places, 1)}
    initial["draw"] = bool(effective.drawn)
    for row, hung in enumerate(effective.pogony[:POGONY_ROWS], 1):
        initial[f"pogony_{row}_by"] = hung["by"]
        initial[f"pogony_{row}_on"] = hung["on"]
        initial[f"pogony_{row}_rank"] = hung["rank"]
    return initial
