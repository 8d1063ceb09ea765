"""The console's registration pages: "add entry" registers a player (or, for a team event, a
team) for a tournament its user manages, through ``services.entry_register`` (audited); a
refusal (registration closed, the event full, the player already in) is shown on the form.
"Import players from CSV" (a tournament's page) reads a file (``console.csv_import``), previews
what each line will do (nothing stored), and on confirmation creates the new players and
registers every valid line (``services.imports.entries_import``: one transaction, or nothing
if the service refuses a line). The
preview's rows travel to the confirmation signed (``django.core.signing``), not stored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from games.actors import Actor
from tournaments.console import csv_import
from tournaments.form_errors import form_error
from tournaments.models import Entry, Player, Team, Tournament
from tournaments.permissions import can_manage, managed_tournaments
from tournaments.services.imports import (
    ImportRefused,
    MatchedRow,
    entries_import,
    players_matched,
)
from tournaments.services.registration import entry_register, registration_check_open

TEMPLATE = "admin/tournaments/entry/register.html"


def open_for_registration(user: Actor) -> QuerySet[Tournament]:
    """The tournaments ``user`` manages that take entries now (or may, during the first rounds
    of late registration: the service has the last word)."""
    return managed_tournaments(user).filter(
        Q(status=Tournament.Status.REGISTRATION, registration_closed_at__isnull=True)
        | Q(status=Tournament.Status.RUNNING, late_registration_rounds__gt=0)
    )


class EntryRegisterForm(forms.Form):
    tournament = forms.ModelChoiceField(
        queryset=Tournament.objects.none(),
        label=_("Tournament"),
        help_text=_("Your tournaments that are open for registration."),
    )
    paid = forms.BooleanField(label=_("Entry fee paid"), required=False, initial=True)

    def __init__(self, *args: Any, user: Actor, admin_site: admin.AdminSite, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tournament = self.fields["tournament"]
        assert isinstance(tournament, forms.ModelChoiceField)
        tournament.queryset = open_for_registration(user).order_by("-created_at")
        # The admin's searches of players and teams (``search_fields``), not lists of all.
        self.fields["player"] = forms.ModelChoiceField(
            queryset=Player.objects.all(),
            label=_("Player"),
            required=False,
            help_text=_("An individual event: the player."),
            widget=AutocompleteSelect(Entry._meta.get_field("player"), admin_site),
        )
        self.fields["team"] = forms.ModelChoiceField(
            queryset=Team.objects.all(),
            label=_("Team"),
            required=False,
            help_text=_("A team event: the team (add it on the teams page first)."),
            widget=AutocompleteSelect(Entry._meta.get_field("team"), admin_site),
        )
        self.order_fields(["tournament", "player", "team", "paid"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        tournament = cleaned.get("tournament")
        if tournament is None:
            return cleaned
        wanted, other = ("team", "player") if tournament.is_team_event else ("player", "team")
        if not cleaned.get(wanted):
            self.add_error(
                wanted, _("%(tournament)s takes this kind of entry.") % {"tournament": tournament}
            )
        cleaned[other] = None
        return cleaned


def entry_register_view(model_admin: admin.ModelAdmin[Entry], request: HttpRequest) -> HttpResponse:
    """GET: the form; POST: register, then back to the tournament's entries."""
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    site = model_admin.admin_site
    data = request.POST if request.method == "POST" else None
    form = EntryRegisterForm(data, user=request.user, admin_site=site)
    if data is not None and form.is_valid():
        tournament = form.cleaned_data["tournament"]  # one of the user's (the form's choices)
        try:
            # The service refuses who may not register an entry in it (and audits the entry).
            entry = entry_register(
                tournament=tournament,
                player=form.cleaned_data["player"],
                team=form.cleaned_data["team"],
                paid=form.cleaned_data["paid"],
                actor=request.user,
            )
        except ServiceError as exc:
            form_error(form, exc)
        else:
            model_admin.message_user(
                request,
                _("%(entry)s is registered for %(tournament)s.")
                % {"entry": entry, "tournament": tournament},
                messages.SUCCESS,
            )
            changelist = reverse(f"{site.name}:tournaments_entry_changelist")
            return HttpResponseRedirect(f"{changelist}?tournament__id__exact={tournament.pk}")
    opts = model_admin.model._meta
    context = {
        **site.each_context(request),
        "title": _("Register a player"),
        "subtitle": None,
        "form": form,
        "opts": opts,
        "app_label": opts.app_label,
        "media": model_admin.media + form.media,
    }
    request.current_app = site.name
    return TemplateResponse(request, TEMPLATE, context)


# --- importing players from a CSV file -----------------------------------------------------------

IMPORT_TEMPLATE = "admin/tournaments/tournament/import_players.html"
IMPORT_SALT = "tournaments.console.import-players"
IMPORT_MAX_AGE = 60 * 60  # seconds between the preview and the confirmation


class PlayersFileForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_(
            "A header row, then a line per player: name (or имя, игрок), and optionally club "
            "(клуб) and rating (рейтинг, 0–3000, 1500 being average). UTF-8 or Windows-1251, "
            "separated by commas or semicolons; at most 2000 lines and 1 MiB."
        ),
    )
    paid = forms.BooleanField(label=_("Entry fees paid"), required=False, initial=True)


@dataclass(frozen=True)
class PlannedRow:
    """A line of the file, the player it names (``services.imports.players_matched``) and
    what confirming will do with it."""

    matched: MatchedRow[csv_import.Row]

    @property
    def row(self) -> csv_import.Row:
        return self.matched.row

    @property
    def to_register(self) -> bool:
        return self.matched.to_register

    @property
    def outcome(self) -> str:
        if not self.row.valid:
            return gettext("Skipped: an error")
        if self.matched.registered:
            return gettext("Skipped: already registered")
        if self.matched.player is not None:
            if self.row.rating is not None:
                return gettext("Existing player (its rating is kept, the file's is not used)")
            return gettext("Existing player")
        return gettext("New player")


def sign_rows(tournament: Tournament, rows: Sequence[csv_import.Row], paid: bool) -> str:
    payload = {
        "tournament": tournament.pk,
        "paid": paid,
        "rows": [[r.line, r.name, r.club, r.rating] for r in rows],
    }
    return signing.dumps(payload, salt=IMPORT_SALT, compress=True)


def unsign_rows(tournament: Tournament, token: str) -> tuple[list[csv_import.Row], bool]:
    """The rows and the "paid" choice :func:`sign_rows` signed for ``tournament``; raises
    ``signing.BadSignature`` (or ``SignatureExpired``) if the data was changed or is stale."""
    payload = signing.loads(token, salt=IMPORT_SALT, max_age=IMPORT_MAX_AGE)
    if payload.get("tournament") != tournament.pk:
        raise signing.BadSignature("signed for another tournament")
    rows = [
        csv_import.Row(int(line), str(name), str(club), None if rating is None else float(rating))
        for line, name, club, rating in payload["rows"]
    ]
    return rows, bool(payload["paid"])


def tournament_import_players_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the upload form; POST a file: the preview (nothing stored); POST ``rows`` (the
    preview's signed rows): register them all, or none, then the tournament's entries."""
    tournament = model_admin.get_object(request, object_id)  # outside the user's scope: 404
    if tournament is None:
        raise Http404
    if not can_manage(request.user, tournament):
        raise PermissionDenied
    context: dict[str, Any] = {"tournament": tournament, "form": None, "planned": None}
    status = 200
    closed = registration_closed(tournament)
    if closed:
        context["refusal"], status = closed, 409
    elif request.method == "POST" and "rows" in request.POST:
        try:
            rows, paid = unsign_rows(tournament, request.POST["rows"])
        except (signing.BadSignature, KeyError, TypeError, ValueError):
            context["refusal"] = gettext(
                "The import data was changed or is out of date: upload the file again."
            )
            context["form"], status = PlayersFileForm(), 400
        else:
            try:
                count = entries_import(
                    actor=request.user, tournament=tournament, rows=rows, paid=paid
                )
            except ImportRefused as exc:
                context["refusal"] = gettext(
                    "Line %(line)d was refused: %(message)s. Nothing was registered."
                ) % {"line": exc.line, "message": exc.message}
                context["form"], status = PlayersFileForm(), 409
            else:
                model_admin.message_user(
                    request,
                    ngettext("%(count)d player registered", "%(count)d players registered", count)
                    % {"count": count},
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(_after_import(model_admin, request, tournament))
    elif request.method == "POST":
        form = PlayersFileForm(request.POST, request.FILES)
        context["form"] = form
        if form.is_valid():
            upload = form.cleaned_data["file"]
            if upload.size > csv_import.MAX_BYTES:  # refused before it is read
                parsed = csv_import.too_big()
            else:
                parsed = csv_import.parse_players_csv(upload.read())
            context["file_errors"] = parsed.errors
            if not parsed.errors:
                planned = [PlannedRow(m) for m in players_matched(tournament, parsed.rows)]
                context["planned"] = planned
                context["to_register"] = sum(p.to_register for p in planned)
                context["with_errors"] = sum(bool(p.row.errors) for p in planned)
                context["signed_rows"] = sign_rows(
                    tournament, parsed.valid_rows, form.cleaned_data["paid"]
                )
    else:
        context["form"] = PlayersFileForm()
    opts = model_admin.model._meta
    site = model_admin.admin_site
    context.update(
        {
            **site.each_context(request),
            "title": _("Import players from CSV"),
            "subtitle": str(tournament),
            "opts": opts,
            "app_label": opts.app_label,
            "original": tournament,
        }
    )
    request.current_app = site.name
    return TemplateResponse(request, IMPORT_TEMPLATE, context, status=status)


#: The query of an import opened from the event's dashboard (the forms post to their own
#: address, so it stays through the preview): done, the organiser is back on the dashboard.
FROM_DASHBOARD = "from=dashboard"


def _after_import(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest, tournament: Tournament
) -> str:
    """Where a done import goes: the dashboard it was opened from, else the event's entries."""
    site = model_admin.admin_site.name
    if request.GET.get("from") == "dashboard":
        return reverse(f"{site}:tournaments_tournament_dashboard", args=[tournament.pk])
    changelist = reverse(f"{site}:tournaments_entry_changelist")
    return f"{changelist}?tournament__id__exact={tournament.pk}"


def registration_closed(tournament: Tournament) -> str | None:
    """Why ``tournament`` takes no players from a file now (None: it does)."""
    if tournament.is_team_event:
        return gettext("This is a team event: its entries are teams, not players from a file.")
    try:
        registration_check_open(tournament)
    except ServiceError:
        return gettext(
            "Registration for this tournament is not open, so no players can be imported."
        )
    return None
