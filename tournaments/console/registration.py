"""The console's "add entry" page: register a player for a tournament its user manages, through
``services.entry_register`` (audited); a refusal (registration closed, the event full, the
player already in) is shown on the form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from tournaments.console.admin_base import form_error, managed_tournaments
from tournaments.models import AuditEvent, Entry, Player, Tournament
from tournaments.permissions import can_manage
from tournaments.services.audit import audit_record
from tournaments.services.registration import entry_register

TEMPLATE = "admin/tournaments/entry/register.html"


def open_for_registration(user: Any) -> QuerySet[Tournament]:
    """The tournaments ``user`` manages that take entries now (or may, during the first rounds
    of late registration: the service has the last word)."""
    return managed_tournaments(user).filter(
        Q(status=Tournament.Status.REGISTRATION)
        | Q(status=Tournament.Status.RUNNING, late_registration_rounds__gt=0)
    )


class EntryRegisterForm(forms.Form):
    tournament = forms.ModelChoiceField(
        queryset=Tournament.objects.none(),
        label=_("Tournament"),
        help_text=_("Your tournaments that are open for registration."),
    )
    player = forms.ModelChoiceField(queryset=Player.objects.all(), label=_("Player"))  # see below
    paid = forms.BooleanField(label=_("Entry fee paid"), required=False, initial=True)

    def __init__(self, *args: Any, user: Any, admin_site: admin.AdminSite, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tournament = self.fields["tournament"]
        assert isinstance(tournament, forms.ModelChoiceField)
        tournament.queryset = open_for_registration(user).order_by("-created_at")
        # The players' search of the admin (``PlayerAdmin.search_fields``), not a list of all.
        self.fields["player"] = forms.ModelChoiceField(
            queryset=Player.objects.all(),
            label=_("Player"),
            widget=AutocompleteSelect(Entry._meta.get_field("player"), admin_site),
        )


def entry_register_view(model_admin: admin.ModelAdmin[Entry], request: HttpRequest) -> HttpResponse:
    """GET: the form; POST: register, then back to the tournament's entries."""
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    site = model_admin.admin_site
    data = request.POST if request.method == "POST" else None
    form = EntryRegisterForm(data, user=request.user, admin_site=site)
    if data is not None and form.is_valid():
        tournament = form.cleaned_data["tournament"]
        if not can_manage(request.user, tournament):
            raise PermissionDenied
        try:
            with transaction.atomic():
                entry = entry_register(
                    tournament=tournament,
                    player=form.cleaned_data["player"],
                    paid=form.cleaned_data["paid"],
                )
                audit_record(
                    actor=request.user,
                    action=AuditEvent.Action.ENTRY_REGISTER,
                    tournament=tournament,
                    target=entry,
                    after={"status": entry.status, "paid": entry.paid},
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
