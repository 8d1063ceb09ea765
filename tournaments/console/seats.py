"""The console's seat-swap page of a round: a referee or organiser swaps two seats before play
begins at their tables, with a reason. Only the seats of tables where nothing is played yet are
offered (``selectors.seating``); the others are listed apart with their move count and why. The
swap goes through ``services.seats_swap``, which re-validates the two tables (repeat meetings,
shared clubs are computed again and shown here), deals their first games again for the new
players and writes the audit row; a refusal (play has begun meanwhile, a team event) shows on
the form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from tournaments.console.admin_base import console_page
from tournaments.form_errors import form_error
from tournaments.models import Round, Seat
from tournaments.permissions import can_referee
from tournaments.selectors.seating import round_swap_tables
from tournaments.services.rounds import seats_swap
from tournaments.wording import compromise_lines

TEMPLATE = "admin/tournaments/round/swap_seats.html"


class SwapForm(forms.Form):
    first = forms.TypedChoiceField(label=_("Seat"), coerce=int)
    second = forms.TypedChoiceField(label=_("swaps with"), coerce=int)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=_("Kept in the audit log."),
    )

    def __init__(self, *args: Any, seats: list[Seat], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "—")] + [
            (
                str(seat.pk),
                gettext("Table %(table)s, seat %(seat)s: %(player)s")
                % {
                    "table": seat.table.number,
                    "seat": seat.position + 1,
                    "player": seat.player.display_name,
                },
            )
            for seat in seats
        ]
        for name in ("first", "second"):
            field = self.fields[name]
            assert isinstance(field, forms.TypedChoiceField)
            field.choices = choices


def round_swap_view(
    model_admin: admin.ModelAdmin[Round], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the round's seating and the form; POST: swap, then the page again with the new
    seating and the compromises the swap made."""
    round_ = model_admin.get_object(request, object_id)
    if round_ is None or not model_admin.has_view_permission(request, round_):
        raise PermissionDenied
    tournament = round_.stage.tournament
    if not can_referee(request.user, tournament):
        raise PermissionDenied
    tables = round_swap_tables(round_)
    # Only seats that can still move are offered; the service checks again under its locks.
    seats = [seat for row in tables if row.swappable for seat in row.seats]
    form = SwapForm(request.POST if request.method == "POST" else None, seats=seats)
    if request.method == "POST" and form.is_valid():
        by_pk = {seat.pk: seat for seat in seats}
        try:
            found = seats_swap(
                first=by_pk[form.cleaned_data["first"]],
                second=by_pk[form.cleaned_data["second"]],
                actor=request.user,
                reason=form.cleaned_data["reason"],
            )
        except ServiceError as exc:
            form_error(form, exc)
        else:
            done = gettext("The seats are swapped and the two tables dealt again.")
            if found:
                done += " " + gettext("The pairing now gives up: %(what)s.") % {
                    "what": "; ".join(compromise_lines(found))
                }
            model_admin.message_user(request, done, messages.WARNING if found else messages.SUCCESS)
            return HttpResponseRedirect(request.path)
    return console_page(
        model_admin,
        request,
        TEMPLATE,
        title=gettext("Swap seats: %(round)s") % {"round": round_},
        round=round_,
        tournament=tournament,
        tables=[(row, compromise_lines(row.table.compromises or [])) for row in tables],
        form=form,
    )
