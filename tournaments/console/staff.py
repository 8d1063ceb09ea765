"""The console's referees pages ("Судьи"): an organiser's referees, its open invitations, and
the forms that invite by e-mail, make an account, remove a referee and revoke an invitation
(``services.staff``, which checks every event named and writes the audit rows).

- ``admin/tournaments/tournament/staff/``: every event its user manages (a superuser: all);
  for organisers (anyone else: 403).
- ``admin/tournaments/tournament/<id>/referees/``: one event, linked from its page; an event out
  of the user's scope is a 404 as on the admin's own pages, one it sees but does not manage
  (its referee) a 403.

A link the organiser must hand over (the invitation's, an account's set-password link) is shown
once, in the answer to the POST that made it, and kept nowhere else. Removing asks first (the
page again with ``?remove=<user id>``, then a POST).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseRedirect,
)
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import Forbidden, ServiceError
from tournaments.console.admin_base import console_page
from tournaments.form_errors import form_error
from tournaments.models import Tournament
from tournaments.permissions import can_manage, is_organiser, managed_tournaments
from tournaments.selectors.staff import (
    InvitationLine,
    RefereeLine,
    open_invitations,
    referees_of,
)
from tournaments.services.staff import (
    INVITATION_LIFETIME,
    OVER,
    invitation_revoke,
    referee_create,
    referee_invite,
    referee_remove,
)

TEMPLATE = "admin/tournaments/tournament/staff.html"


class EventsField(forms.ModelMultipleChoiceField):  # type: ignore[type-arg]
    """The events a referee is for: ticked among the user's open events, or the page's one."""

    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.name} ({obj.get_status_display()})"


def _events_field(events: QuerySet[Tournament], *, fixed: bool) -> EventsField:
    return EventsField(
        label=_("Tournaments"),
        queryset=events,
        widget=forms.MultipleHiddenInput if fixed else forms.CheckboxSelectMultiple,
        initial=[t.pk for t in events] if fixed else None,
        help_text="" if fixed else _("The referee sees and referees only these."),
    )


class InviteForm(forms.Form):
    prefix = "invite"
    email = forms.EmailField(label=_("Email"))
    language = forms.ChoiceField(label=_("Language of the letter"), choices=settings.LANGUAGES)

    def __init__(self, *args: Any, events: QuerySet[Tournament], fixed: bool, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.fields["tournaments"] = _events_field(events, fixed=fixed)
        self.fields["language"].initial = get_language()
        days = INVITATION_LIFETIME.days
        self.fields["email"].help_text = ngettext(
            "The letter carries a link that works once, for %(count)s day.",
            "The letter carries a link that works once, for %(count)s days.",
            days,
        ) % {"count": days}


class CreateForm(forms.Form):
    prefix = "create"
    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        help_text=_("To log in with. Letters, digits and @ . + - _ only."),
    )
    display_name = forms.CharField(label=_("Full name"), max_length=150, required=False)
    email = forms.EmailField(
        label=_("Email"), required=False, help_text=_("Optional: to reset the password.")
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        required=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=_(
            "Leave it empty to get a link instead, with which the referee sets a password."
        ),
    )

    def __init__(self, *args: Any, events: QuerySet[Tournament], fixed: bool, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.fields["tournaments"] = _events_field(events, fixed=fixed)


def _set_password_link(request: HttpRequest, user: Any) -> str:
    """The site's set-password page for ``user`` (Django's password reset link: it works
    until a password is set, for ``PASSWORD_RESET_TIMEOUT``)."""
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    return request.build_absolute_uri(path)


def _invitation_link(request: HttpRequest, token: str) -> str:
    return request.build_absolute_uri(reverse("referee-invitation", kwargs={"token": token}))


def _find(lines: list[Any], attribute: str, raw: str) -> Any:
    """The line of ``lines`` whose ``attribute`` has the id ``raw``; 404 if none (an id out of
    the page's scope looks missing)."""
    for line in lines:
        if raw.isdigit() and getattr(line, attribute).pk == int(raw):
            return line
    raise Http404(gettext("There is no such object, or it is not yours to see."))


def staff_view(model_admin: admin.ModelAdmin[Tournament], request: HttpRequest) -> HttpResponse:
    """The referees of every event its user manages (organisers and superusers only)."""
    if not is_organiser(request.user):
        raise PermissionDenied
    return _page(model_admin, request, scope=managed_tournaments(request.user), tournament=None)


def tournament_referees_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest, object_id: str
) -> HttpResponse:
    """The referees of the event ``object_id``: its organiser's (and a superuser's)."""
    tournament = model_admin.get_object(request, object_id)
    if tournament is None:
        raise Http404(gettext("There is no such object, or it is not yours to see."))
    if not can_manage(request.user, tournament):
        raise PermissionDenied
    scope = Tournament.objects.filter(pk=tournament.pk)
    return _page(model_admin, request, scope=scope, tournament=tournament)


def _page(
    model_admin: admin.ModelAdmin[Tournament],
    request: HttpRequest,
    *,
    scope: QuerySet[Tournament],
    tournament: Tournament | None,
) -> HttpResponse:
    open_events = scope.exclude(status__in=OVER).order_by("name", "pk")
    fixed = tournament is not None
    data = request.POST if request.method == "POST" else None
    action = request.POST.get("action", "") if data is not None else ""
    invite = InviteForm(data if action == "invite" else None, events=open_events, fixed=fixed)
    create = CreateForm(data if action == "create" else None, events=open_events, fixed=fixed)
    referees = referees_of(scope)
    invitations = open_invitations(scope)
    handed: dict[str, str] = {}  # a link to hand over, shown once
    try:
        if action == "invite" and invite.is_valid():
            handed = _invite(request, invite)
        elif action == "create" and create.is_valid():
            handed = _create(request, create)
        elif action == "remove":
            return _remove(request, _find(referees, "user", request.POST.get("user", "")))
        elif action == "revoke":
            line = _find(invitations, "invitation", request.POST.get("invitation", ""))
            return _revoke(request, line)
        elif action not in ("invite", "create") and data is not None:
            return HttpResponseBadRequest(gettext("Unknown action."))
    except Forbidden:
        raise PermissionDenied from None
    if handed:  # the lists again, with the new referee or invitation
        referees, invitations = referees_of(scope), open_invitations(scope)
        invite = InviteForm(None, events=open_events, fixed=fixed)
        create = CreateForm(None, events=open_events, fixed=fixed)
    removing = request.GET.get("remove", "")
    title = (
        gettext("Referees of %(name)s") % {"name": tournament.name}
        if tournament is not None
        else gettext("Referees")
    )
    return console_page(
        model_admin,
        request,
        TEMPLATE,
        title=title,
        original=tournament,
        referees=[_line(line) for line in referees],
        invitations=invitations,
        removing=_find(referees, "user", removing) if removing else None,
        invite=invite,
        create=create,
        can_add=open_events.exists(),
        handed=handed,
    )


def _line(line: RefereeLine) -> dict[str, Any]:
    """A referee's row, and whether the page can remove it (from an event not over)."""
    return {"line": line, "removable": any(t.status not in OVER for t in line.tournaments)}


def _invite(request: HttpRequest, form: InviteForm) -> dict[str, str]:
    data = form.cleaned_data
    try:
        invited = referee_invite(
            actor=request.user,
            email=data["email"],
            tournaments=data["tournaments"],
            link_for=lambda token: _invitation_link(request, token),
            language=data["language"],
        )
    except Forbidden:
        raise
    except ServiceError as exc:
        form_error(form, exc)
        return {}
    return {
        "message": gettext(
            "The invitation is sent to %(email)s. You may hand over its link yourself as well:"
        )
        % {"email": invited.invitation.email},
        "link": invited.link,
    }


def _create(request: HttpRequest, form: CreateForm) -> dict[str, str]:
    data = form.cleaned_data
    try:
        user = referee_create(
            actor=request.user,
            username=data["username"],
            display_name=data["display_name"],
            email=data["email"],
            password=data["password"] or None,
            tournaments=data["tournaments"],
        )
    except Forbidden:
        raise
    except ServiceError as exc:
        form_error(form, exc)
        return {}
    if data["password"]:
        return {
            "message": gettext(
                "The account %(username)s is made: hand its username and password to the referee."
            )
            % {"username": user.get_username()}
        }
    return {
        "message": gettext(
            "The account %(username)s is made. Hand this link to the referee: it sets the "
            "password, once."
        )
        % {"username": user.get_username()},
        "link": _set_password_link(request, user),
    }


def _acted(request: HttpRequest, act: Callable[[], object], done: str) -> HttpResponse:
    """Run a staff service's ``act``: its refusal as an error message (a permission refusal
    stays a 403), else ``done``; back to the page either way."""
    try:
        act()
    except Forbidden:
        raise
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return HttpResponseRedirect(request.path)


def _remove(request: HttpRequest, line: RefereeLine) -> HttpResponse:
    events = [t for t in line.tournaments if t.status not in OVER]
    if not events:
        messages.error(request, gettext("These tournaments are over: their referees are fixed."))
        return HttpResponseRedirect(request.path)
    return _acted(
        request,
        lambda: referee_remove(actor=request.user, user=line.user, tournaments=events),
        gettext("%(name)s no longer referees %(tournaments)s.")
        % {"name": line.name, "tournaments": ", ".join(t.name for t in events)},
    )


def _revoke(request: HttpRequest, line: InvitationLine) -> HttpResponse:
    return _acted(
        request,
        lambda: invitation_revoke(actor=request.user, invitation=line.invitation),
        gettext("The invitation to %(email)s is revoked: its link no longer works.")
        % {"email": line.invitation.email},
    )
