"""An event's dashboard (``admin/tournaments/tournament/<id>/dashboard/``): the console's home of
one tournament, for whoever may see it there (its organiser, its referees, a superuser; anyone
else gets the 404 a missing event gets).

It says where the event stands, offers the one next step as one button, lists what is missing
or late (each item linking to where it is put right) and links the event's other pages. The
facts and the next step come from ``selectors.dashboard``; this module puts them in words.

A button posts the step it showed. The step runs through the console's own admin action
(``console.admin_actions``: open or close registration, start, pair the next round) or the
progress page's recompute, so the services check who acts and write the audit row as they
do from the list; then the page comes back with the message. A step posted that is no longer
the next one (a second click, another referee was quicker) changes nothing and says so.
Confirming a result is a link to that table's result page (``console.results``), where the
second referee reads it first.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext_lazy as _

from tournaments.console.admin_actions import (
    OFFERED,
    close_registration,
    open_registration,
    pair_next_round,
    start,
)
from tournaments.console.admin_base import ConsoleAdmin, console_page
from tournaments.console.progress import awards_recompute, visible_or_refused
from tournaments.console.registration import (
    FROM_DASHBOARD,
    open_for_registration,
    registration_closed,
)
from tournaments.models import Tournament
from tournaments.permissions import can_referee
from tournaments.selectors.dashboard import (
    STEP_PERMISSION,
    DashboardFacts,
    Step,
    dashboard_facts,
    next_step,
)
from tournaments.services.failures import failure_text

TEMPLATE = "admin/tournaments/tournament/dashboard.html"

#: The steps a button posts, each by the admin action the list runs.
ACTIONS = {
    Step.OPEN_REGISTRATION: open_registration,
    Step.CLOSE_REGISTRATION: close_registration,
    Step.START: start,
    Step.PAIR: pair_next_round,
}

BUTTONS = {
    Step.OPEN_REGISTRATION: _("Open registration"),
    Step.CLOSE_REGISTRATION: _("Close registration"),
    Step.START: _("Start the tournament"),
    Step.PAIR: _("Pair the next round"),
    Step.CONFIRM: _("Confirm results"),
    Step.RECOMPUTE: _("Recompute"),
}


@dataclass(frozen=True)
class NextStep:
    step: Step
    text: str  # what the state asks for, in words
    button: str  # "" for no button
    link: str = ""  # a step that is a page to open (confirming a result), not a post
    refused: str = ""  # why its reader may not take it ("" if they may)


@dataclass(frozen=True)
class Link:
    label: str
    url: str


def _step_text(facts: DashboardFacts, step: Step) -> str:
    if step == Step.OPEN_REGISTRATION:
        return gettext("The tournament is a draft: players cannot register yet.")
    if step == Step.CLOSE_REGISTRATION:
        return gettext("Registration is open. Close it when the field is complete.")
    if step == Step.START:
        return gettext("Registration is closed. Start the tournament: its first round is paired.")
    if step == Step.PAIR:
        return gettext("No round is in play and the next one waits for its pairing.")
    if step == Step.PLAYING:
        return gettext("A round is in play: the next step comes when its tables finish.")
    if step == Step.CONFIRM:
        count = len(facts.pending_results)
        return ngettext(
            "%(count)d result waits for a second referee's confirmation.",
            "%(count)d results wait for a second referee's confirmation.",
            count,
        ) % {"count": count}
    if step == Step.RECOMPUTE:
        return gettext(
            "A computation at the end of the tournament failed: fix its cause, then recompute."
        )
    if step == Step.CANCELLED:
        return gettext("The tournament was cancelled.")
    return gettext("The tournament is over.")


def _next(facts: DashboardFacts, tournament: Tournament, request: HttpRequest) -> NextStep:
    step = next_step(facts)
    button = str(BUTTONS.get(step, ""))
    link = ""
    if step == Step.CONFIRM:
        link = reverse(
            "admin:tournaments_table_result", args=[facts.pending_results[0].table.table_id]
        )
    permission = STEP_PERMISSION.get(step)
    refused = ""
    if permission is not None and not OFFERED[permission](request.user, tournament):
        refused = gettext("Only the tournament's organiser can take this step.")
    return NextStep(step, _step_text(facts, step), button if permission else "", link, refused)


def _state(facts: DashboardFacts, tournament: Tournament) -> list[tuple[str, str]]:
    """The event's state, as (what, in words) lines."""
    lines = [(gettext("Status"), str(tournament.get_status_display()))]
    if facts.status == Tournament.Status.REGISTRATION:
        lines.append(
            (
                gettext("Registration"),
                pgettext("registration", "open")
                if facts.registration_open
                else pgettext("registration", "closed"),
            )
        )
    e = facts.entries
    lines.append(
        (
            gettext("Entries"),
            ngettext("%(count)d registered", "%(count)d registered", e.active) % {"count": e.active}
            + ", "
            + ngettext("%(count)d checked in", "%(count)d checked in", e.checked_in)
            % {"count": e.checked_in}
            + ", "
            + ngettext("%(count)d withdrawn", "%(count)d withdrawn", e.withdrawn)
            % {"count": e.withdrawn}
            # once a stage has been played, those who went no further are entries too
            + (
                ", "
                + ngettext("%(count)d eliminated", "%(count)d eliminated", e.eliminated)
                % {"count": e.eliminated}
                if e.eliminated
                else ""
            ),
        )
    )
    if facts.stage:
        lines.append((gettext("Stage"), facts.stage))
    if facts.round:
        t = facts.tables
        lines.append(
            (
                gettext("Round"),
                facts.round
                + ": "
                + ngettext("%(count)d table finished", "%(count)d tables finished", t.finished)
                % {"count": t.finished}
                + ", "
                + ngettext("%(count)d in play", "%(count)d in play", t.playing)
                % {"count": t.playing}
                + ", "
                + ngettext("%(count)d not started", "%(count)d not started", t.waiting)
                % {"count": t.waiting},
            )
        )
    return lines


def _links(tournament: Tournament, request: HttpRequest) -> list[Link]:
    """The event's other console pages, and its public page; while it takes players and its
    reader manages it, the import of a file of players (registration's own page)."""
    pk = tournament.pk

    def listed(model: str, lookup: str) -> str:
        return reverse(f"admin:tournaments_{model}_changelist") + f"?{lookup}={pk}"

    links = [
        Link(gettext("Settings"), reverse("admin:tournaments_tournament_change", args=[pk])),
        Link(gettext("Progress"), reverse("admin:tournaments_tournament_progress", args=[pk])),
        Link(gettext("Entries"), listed("entry", "tournament__id__exact")),
    ]
    importing = open_for_registration(request.user).filter(pk=pk).exists()
    if importing and registration_closed(tournament) is None:
        url = reverse("admin:tournaments_tournament_import_players", args=[pk])
        links.append(Link(gettext("Import players from CSV"), f"{url}?{FROM_DASHBOARD}"))
    links += [
        Link(gettext("Rounds"), listed("round", "stage__tournament__id__exact")),
        Link(gettext("Tables"), listed("table", "round__stage__tournament__id__exact")),
    ]
    if tournament.status == Tournament.Status.RUNNING:
        live = reverse("admin:tournaments_tournament_live_tables") + f"?tournament={pk}"
        links.append(Link(gettext("Live tables"), live))
    if can_referee(request.user, tournament):
        url = reverse("admin:tournaments_tournament_fairplay", args=[pk])
        links.append(Link(gettext("Fair play"), url))
    links += [
        Link(gettext("Audit log"), listed("auditevent", "tournament__id__exact")),
        Link(gettext("Public page"), reverse("tournament", args=[tournament.slug])),
    ]
    return links


def tournament_dashboard_view(
    model_admin: ConsoleAdmin[Tournament], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the dashboard of the tournament ``object_id``; POST ``step``: take the next step
    (if it still is the next one), then back here."""
    tournament = visible_or_refused(model_admin, request, object_id)
    facts = dashboard_facts(tournament, user=request.user)
    shown = _next(facts, tournament, request)
    if request.method == "POST":
        _take(model_admin, request, tournament, shown)
        here = reverse("admin:tournaments_tournament_dashboard", args=[tournament.pk])
        return HttpResponseRedirect(here)
    return console_page(
        model_admin,
        request,
        TEMPLATE,
        title=gettext("Dashboard of %(name)s") % {"name": tournament.name},
        original=tournament,
        facts=facts,
        state=_state(facts, tournament),
        next=shown,
        failures=[(f.get_job_display(), failure_text(f)) for f in facts.failures],
        links=_links(tournament, request),
    )


def _take(
    model_admin: ConsoleAdmin[Tournament],
    request: HttpRequest,
    tournament: Tournament,
    shown: NextStep,
) -> None:
    """Take the posted step if it is the next one and a button's: the admin action's (one
    service, its message) or the recompute; its reader's refusal is a 403."""
    posted = request.POST.get("step", "")
    if posted != shown.step.value or not shown.button or shown.link:
        messages.info(
            request, gettext("The tournament has moved on: its next step is shown below.")
        )
        return
    if shown.refused:
        raise PermissionDenied
    if shown.step == Step.RECOMPUTE:
        awards_recompute(request, tournament)
        return
    queryset = model_admin.get_queryset(request).filter(pk=tournament.pk)
    ACTIONS[shown.step](model_admin, request, queryset)
