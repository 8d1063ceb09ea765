"""The console's admin actions: each runs one service per selected object, in one transaction
per object; the service checks who acts and records it in the audit log.

:func:`console_action` turns ``step(request, obj, reason)`` (one service call) into an admin
action that:

- refuses the whole selection (404) if it names an object its user does not see, and (403) if
  the action is not offered on one of them (:data:`OFFERED`: ``can_manage`` or
  ``can_referee``, as the action's ``permission`` says), before asking for a reason or changing
  anything. That is what the console offers, not the rule: each service checks its actor
  itself and writes its own audit row (a refusal there is that object's error message);
- asks for a reason first when the action needs one: an intermediate page like Django's delete
  confirmation, with a required reason;
- runs ``step`` for each object inside ``transaction.atomic()``; a service's refusal is an error
  message naming the object (that object is left as it was, the others go on), never a 500.

The actions of the console's pages follow: on tournaments (open and close registration, start,
cancel with a reason, pair the next round, play to the end with bots), entries (check in;
withdraw and disqualify, with a reason; re-enter), rounds (request pairing; hand their seats to
bots) and tables (hand their seats to bots); a hand-over names the round or table it was for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext, ngettext, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from tournaments.console.admin_base import ConsoleAdmin
from tournaments.errors import StateError
from tournaments.models import Entry, Round, Seat, Table, Tournament
from tournaments.permissions import can_manage, can_referee
from tournaments.selectors.play import round_places, table_places
from tournaments.services.automation import tournament_play_to_end
from tournaments.services.progression import tournament_start
from tournaments.services.registration import (
    entry_check_in,
    entry_disqualify,
    entry_reenter,
    entry_withdraw,
    tournament_cancel,
    tournament_close_registration,
    tournament_open_registration,
)
from tournaments.services.rounds import round_request_pairing
from tournaments.services.seating import seats_hand_to_bots

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

REASON_TEMPLATE = "admin/console/action_reason.html"


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Kept in the audit log, and shown to the players where it concerns them."),
    )


# A step: the service call for one object (``reason``: "" unless asked for); what it returns,
# if anything, is that object's own success message (instead of the count of ``done``).
Step = Callable[[HttpRequest, Any, str], str | None]
Action = Callable[[ConsoleAdmin[Any], HttpRequest, QuerySet[Any]], HttpResponse | None]


def _selection(
    modeladmin: ConsoleAdmin[Any], request: HttpRequest, queryset: QuerySet[Any]
) -> list[Any]:
    objects = list(queryset)
    if request.POST.get("select_across") != "1":
        selected = set(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME))
        if len(objects) < len(selected):
            raise Http404(_("There is no such object, or it is not yours to see."))
    return objects


#: Which selected objects an action is offered on: the per-object counterpart of
#: ``ConsoleAdmin.has_<permission>_permission`` (which shows the action at all).
OFFERED: dict[str, Callable[[Any, Tournament], bool]] = {
    "manage": can_manage,
    "referee": can_referee,
}


def console_action(
    *,
    description: str | _StrPromise,
    permission: str,
    done: str | _StrPromise,
    reason: bool = False,
    consequences: str | _StrPromise = "",
) -> Callable[[Step], Action]:
    """An admin action that runs ``step`` for each selected object it is offered on.

    ``permission`` names the ``ConsoleAdmin.has_<permission>_permission`` that shows the action
    at all (and, per object, :data:`OFFERED`); ``done`` is the message after it, with
    ``%(count)d`` objects (an object whose step returns its own message is told by that
    instead); ``consequences``, what the action does, on the page that asks for the
    reason.
    """
    offered = OFFERED[permission]

    def decorate(step: Step) -> Action:
        @admin.action(description=description, permissions=[permission])
        @functools.wraps(step)
        def action(
            modeladmin: ConsoleAdmin[Any], request: HttpRequest, queryset: QuerySet[Any]
        ) -> HttpResponse | None:
            objects = _selection(modeladmin, request, queryset)
            for obj in objects:
                tournament = modeladmin.tournament_of(obj)
                if tournament is None or not offered(request.user, tournament):
                    raise PermissionDenied
            text = ""
            if reason:
                form = ReasonForm(request.POST if request.POST.get("post") == "yes" else None)
                if not form.is_valid():
                    return _ask_reason(
                        modeladmin=modeladmin,
                        request=request,
                        objects=objects,
                        form=form,
                        description=description,
                        step=step,
                        consequences=consequences,
                    )
                text = form.cleaned_data["reason"].strip()
            count = 0
            for obj in objects:
                try:
                    with transaction.atomic():
                        said = step(request, obj, text)
                except ServiceError as exc:
                    modeladmin.message_user(request, f"{obj}: {exc.message}", messages.ERROR)
                else:
                    if said:
                        modeladmin.message_user(request, said, messages.SUCCESS)
                    else:
                        count += 1
            if count:
                modeladmin.message_user(request, done % {"count": count}, messages.SUCCESS)
            return None

        return action

    return decorate


def _ask_reason(
    *,
    modeladmin: ConsoleAdmin[Any],
    request: HttpRequest,
    objects: list[Model],
    form: ReasonForm,
    description: str | _StrPromise,
    step: Step,
    consequences: str | _StrPromise = "",
) -> HttpResponse:
    """The intermediate page: what is about to happen to which objects, and why (required)."""
    opts = modeladmin.model._meta
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": description,
        "subtitle": None,
        "consequences": consequences,
        "objects": objects,
        "form": form,
        "action_name": getattr(step, "__name__", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "opts": opts,
        "app_label": opts.app_label,
        "media": modeladmin.media,
    }
    request.current_app = modeladmin.admin_site.name
    return TemplateResponse(request, REASON_TEMPLATE, context)


# --- actions: one service each (which checks its actor and writes its audit row) ------------


@console_action(
    description=_("Open registration"),
    permission="manage",
    done=ngettext_lazy(
        "Registration opened for %(count)d tournament.",
        "Registration opened for %(count)d tournaments.",
        "count",
    ),
)
def open_registration(request: HttpRequest, tournament: Tournament, reason: str) -> None:
    tournament_open_registration(tournament=tournament, actor=request.user)


@console_action(
    description=_("Close registration"),
    permission="manage",
    done=ngettext_lazy(
        "Registration closed for %(count)d tournament.",
        "Registration closed for %(count)d tournaments.",
        "count",
    ),
)
def close_registration(request: HttpRequest, tournament: Tournament, reason: str) -> None:
    tournament_close_registration(tournament=tournament, actor=request.user)


@console_action(
    description=_("Start"),
    permission="manage",
    done=ngettext_lazy("%(count)d tournament started.", "%(count)d tournaments started.", "count"),
)
def start(request: HttpRequest, tournament: Tournament, reason: str) -> None:
    tournament_start(tournament=tournament, actor=request.user)


@console_action(
    description=_("Cancel (with a reason)"),
    permission="manage",
    reason=True,
    done=ngettext_lazy(
        "%(count)d tournament cancelled.", "%(count)d tournaments cancelled.", "count"
    ),
)
def cancel(request: HttpRequest, tournament: Tournament, reason: str) -> None:
    tournament_cancel(tournament=tournament, actor=request.user, reason=reason)


@console_action(
    description=_("Request pairing"),
    permission="referee",
    done=ngettext_lazy(
        "Pairing requested for %(count)d tournament.",
        "Pairing requested for %(count)d tournaments.",
        "count",
    ),
)
def pair_next_round(request: HttpRequest, tournament: Tournament, reason: str) -> None:
    """Request the pairing of the tournament's next pending round."""
    round_ = (
        Round.objects.filter(stage__tournament=tournament, status=Round.Status.PENDING)
        .select_related("stage__tournament")
        .order_by("stage__order", "number")
        .first()
    )
    if round_ is None:
        raise StateError(gettext("no round is waiting to be paired"))
    round_request_pairing(round_=round_, actor=request.user)


@console_action(
    description=_("Request pairing"),
    permission="referee",
    done=ngettext_lazy(
        "Pairing requested for %(count)d round.", "Pairing requested for %(count)d rounds.", "count"
    ),
)
def request_pairing(request: HttpRequest, round_: Round, reason: str) -> None:
    round_request_pairing(round_=round_, actor=request.user)


@console_action(
    description=_("Check in"),
    permission="referee",
    done=ngettext_lazy("%(count)d entry checked in.", "%(count)d entries checked in.", "count"),
)
def check_in(request: HttpRequest, entry: Entry, reason: str) -> None:
    entry_check_in(entry=entry, actor=request.user, reason=reason)


@console_action(
    description=_("Withdraw (with a reason)"),
    permission="referee",
    reason=True,
    done=ngettext_lazy("%(count)d entry withdrawn.", "%(count)d entries withdrawn.", "count"),
    consequences=_(
        "Before the start, the entry leaves the field: no place, and its fee leaves the prize "
        "pool. After the start, it is eliminated at the stage it is in: its games played stand, "
        "it is not seated again, and it is placed below everyone who completes that stage and "
        "above those eliminated earlier. Its fee stays in the prize pool; it is paid if its "
        "place pays, and scores its place's league points."
    ),
)
def withdraw(request: HttpRequest, entry: Entry, reason: str) -> None:
    entry_withdraw(entry=entry, reason=reason, actor=request.user)


@console_action(
    description=_("Disqualify (with a reason)"),
    permission="referee",
    reason=True,
    done=ngettext_lazy("%(count)d entry disqualified.", "%(count)d entries disqualified.", "count"),
    consequences=_(
        "The entry is placed last (the disqualified share the last place), is paid nothing and "
        "scores no league points: the entries below it move up. Its games played stand for its "
        "opponents, and its fee stays in the prize pool. After the end of the tournament, its "
        "final places and prize pool are computed again."
    ),
)
def disqualify(request: HttpRequest, entry: Entry, reason: str) -> None:
    entry_disqualify(entry=entry, reason=reason, actor=request.user)


def _hand_to_bots(request: HttpRequest, tables: QuerySet[Table], reason: str, place: str) -> str:
    """Hand the seats of ``tables`` in play to bots; the message names ``place`` (the round or
    the table, as every face names it: ``selectors.play``) and how many seats went over."""
    seats = Seat.objects.filter(table__in=tables, table__status=Table.Status.PLAYING)
    handed = seats_hand_to_bots(
        seats=list(seats.exclude(table__is_bye=True)), actor=request.user, reason=reason
    )
    if not handed:
        return gettext("%(place)s: bots played every seat already.") % {"place": place}
    return ngettext(
        "%(place)s: %(count)d seat handed to bots.",
        "%(place)s: %(count)d seats handed to bots.",
        handed,
    ) % {"place": place, "count": handed}


@console_action(
    description=_("Hand the seats to bots (with a reason)"),
    permission="referee",
    reason=True,
    done=ngettext_lazy(
        "The seats of %(count)d table are played by bots now.",
        "The seats of %(count)d tables are played by bots now.",
        "count",
    ),
)
def hand_table_to_bots(request: HttpRequest, table: Table, reason: str) -> str:
    """Every seat of the table is played by a bot for the rest of its series."""
    place = table_places([table.pk])[table.pk].text
    return _hand_to_bots(request, Table.objects.filter(pk=table.pk), reason, place)


@console_action(
    description=_("Hand the round's seats to bots (with a reason)"),
    permission="referee",
    reason=True,
    done=ngettext_lazy(
        "The seats of %(count)d round are played by bots now.",
        "The seats of %(count)d rounds are played by bots now.",
        "count",
    ),
)
def hand_round_to_bots(request: HttpRequest, round_: Round, reason: str) -> str:
    """Every seat of the round's playing tables is played by a bot for the rest of its series."""
    place = round_places([round_.pk])[round_.pk]
    return _hand_to_bots(request, Table.objects.filter(round=round_), reason, place)


@console_action(
    description=_("Play to the end with bots (with a reason)"),
    permission="manage",
    reason=True,
    done=ngettext_lazy(
        "Bots play %(count)d tournament to the end.",
        "Bots play %(count)d tournaments to the end.",
        "count",
    ),
    consequences=_(
        "For the rest of the event, bots play every seat: the seats of the tables in play now, "
        "and every seat of the later rounds and stages, until the tournament finishes. Players "
        "do not get their seats back. For demonstrations and tests."
    ),
)
def play_to_end(request: HttpRequest, tournament: Tournament, reason: str) -> str:
    """The event's bots for absent players become "every seat" (``services.automation``)."""
    tournament_play_to_end(tournament=tournament, actor=request.user, reason=reason)
    return gettext("%(tournament)s: bots play every seat until it finishes.") % {
        "tournament": tournament
    }


@console_action(
    description=_("Re-enter (pays the re-entry fee)"),
    permission="manage",
    done=ngettext_lazy("%(count)d re-entry recorded.", "%(count)d re-entries recorded.", "count"),
)
def reenter(request: HttpRequest, entry: Entry, reason: str) -> None:
    """A re-entry where the plan allows one (a re-entry fee, registration open)."""
    entry_reenter(entry=entry, actor=request.user)
