"""The account pages: thin views that parse a form, call one service and render.

Every login goes through ``authenticate(request, ...)`` (``LoginForm``, the parent's ``clean``),
which django-axes watches (``lockout``). A player's language (``Player.language``) becomes the
site's language cookie when they log in, sign up or save the profile.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_POST

from durak_site.errors import ServiceError
from tournaments.form_errors import form_error
from tournaments.models import Entry, Player
from tournaments.selectors import visibility
from tournaments.selectors.staff import InvitationError, invitation_by_token
from tournaments.services.people import (
    player_check_in,
    player_enter,
    player_profile_create,
    player_profile_update,
    player_sign_up,
    player_withdraw,
)
from tournaments.services.staff import invitation_accept
from tournaments.site.accounts.data import my_games
from tournaments.site.accounts.forms import (
    LABEL_SUFFIX,
    InvitationAccountForm,
    LoginForm,
    ProfileForm,
    SignUpForm,
)
from tournaments.site.accounts.panel import user_player

#: The backend ``login`` names after a sign-up (several are configured: django-axes' first).
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def remember_language(response: HttpResponse, code: str) -> HttpResponse:
    """Make ``code`` the reader's language from the next page on: the cookie
    ``LocaleMiddleware`` reads, set as Django's own ``set_language`` view sets it. An empty
    ``code`` (the browser's choice) clears it."""
    if not code:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, path=settings.LANGUAGE_COOKIE_PATH)
        return response
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response


def safe_next(request: HttpRequest, default: str) -> str:
    """The ``next`` the request names, if it is an address of this site; else ``default``."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if target and allowed else default


class PlayerLoginView(auth_views.LoginView):
    """``accounts/login/``: a username or an email address, and the password."""

    template_name = "accounts/login.html"
    form_class = LoginForm
    redirect_authenticated_user = True

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        player = Player.objects.filter(user=form.get_user()).first()
        if player is not None and player.language:
            remember_language(response, player.language)
        return response


class PlayerLogoutView(auth_views.LogoutView):
    """``accounts/logout/`` (a POST, as Django asks: a link could log anyone out)."""

    template_name = "accounts/logged_out.html"


def sign_up(request: HttpRequest) -> HttpResponse:
    """``accounts/signup/``: a new account and its player, logged in at once."""
    if request.user.is_authenticated:
        return redirect("my-games")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            player = player_sign_up(
                username=data["username"],
                email=data["email"],
                password=data["password"],
                display_name=data["display_name"],
                club=data["club"],
                city=data["city"],
                language=data["language"],
            )
        except ServiceError as exc:
            form_error(form, exc)
        else:
            assert player.user is not None
            login(request, player.user, backend=MODEL_BACKEND)
            messages.success(
                request,
                gettext("Welcome, %(name)s! Your account is ready.")
                % {"name": player.display_name},
            )
            response = redirect(safe_next(request, reverse("my-games")))
            return remember_language(response, player.language) if player.language else response
    return render(request, "accounts/signup.html", {"form": form, "next": safe_next(request, "")})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """``accounts/profile/``: the player's display name, club, city and language (a user
    without a player, such as a console user, makes one here)."""
    player = user_player(request.user)
    form = ProfileForm(request.POST) if request.method == "POST" else ProfileForm.of(player)
    if request.method == "POST" and form.is_valid():
        changes = {name: form.cleaned_data[name] for name in form.fields}
        try:
            if player is None:
                player = player_profile_create(user=request.user, **changes)
            else:
                player = player_profile_update(player=player, actor=request.user, **changes)
        except ServiceError as exc:
            form_error(form, exc)
        else:
            messages.success(request, gettext("Your profile is saved."))
            return remember_language(redirect("profile"), player.language)
    return render(
        request,
        "accounts/profile.html",
        {"form": form, "player": player, "account": request.user},
    )


@login_required
def my_games_page(request: HttpRequest) -> HttpResponse:
    """``me/``: where I sit now, my tournaments and entries, my history and my games."""
    data = my_games(user=request.user, next=request.get_full_path())
    return render(request, "accounts/my_games.html", {"me": data})


#: The panel's actions: the service, and what a success says.
ENTRY_ACTIONS = {
    "register": (player_enter, gettext_noop("You are registered for %(tournament)s.")),
    "check-in": (player_check_in, gettext_noop("You are checked in for %(tournament)s.")),
    "withdraw": (player_withdraw, gettext_noop("You have withdrawn from %(tournament)s.")),
}


@require_POST
@login_required
def entry_action(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    """``me/entries/<slug>/<register|check-in|withdraw>/`` (a POST from the entry panel): the
    player's own entry; a refusal comes back as a message with its code. A tournament the
    reader may not see is a 404, as if it did not exist."""
    if action not in ENTRY_ACTIONS:
        raise Http404("no such action")
    tournament = visibility.tournaments_visible_to(request.user).filter(slug=slug).first()
    if tournament is None:
        raise Http404("no such tournament")
    back = safe_next(request, reverse("tournament", args=[slug]))
    player = user_player(request.user)
    if player is None:
        messages.error(
            request,
            gettext("Make your player profile first: then you can enter tournaments.")
            + " (no_player)",
        )
        return redirect("profile")
    service, success = ENTRY_ACTIONS[action]
    try:
        entry: Entry = service(player=player, tournament=tournament, actor=request.user)
    except ServiceError as exc:
        messages.error(request, f"{exc.message} ({exc.code})")
    else:
        messages.success(request, gettext(success) % {"tournament": entry.tournament})
    return HttpResponseRedirect(back)


def referee_invitation(request: HttpRequest, token: str) -> HttpResponse:
    """``accounts/invitation/<token>/``: an organiser's invitation to referee (sent by e-mail,
    ``services.staff``), accepted with a new account or the one logged in; then to the
    console. A link that no longer works says why (unknown: 404; used, revoked or expired:
    410)."""
    try:
        invitation = invitation_by_token(token)
    except InvitationError as exc:
        return _invitation_refused(request, exc)
    signed_in = request.user.is_authenticated
    posted = request.POST if request.method == "POST" else None
    form = None if signed_in else InvitationAccountForm(posted)
    error = ""
    if posted is not None and (form is None or form.is_valid()):
        data = form.cleaned_data if form is not None else {}
        try:
            user = invitation_accept(
                token=token,
                user=request.user if signed_in else None,
                username=data.get("username", ""),
                password=data.get("password", ""),
                display_name=data.get("display_name", ""),
            )
        except InvitationError as exc:
            return _invitation_refused(request, exc)
        except ServiceError as exc:
            if form is None:
                error = exc.message
            else:
                form_error(form, exc)
                # the address is the invitation's, not a field: its refusal goes above the form
                for message in exc.fields.get("email", []):
                    if message not in form.non_field_errors():
                        form.add_error(None, message)
        else:
            if not signed_in:
                login(request, user, backend=MODEL_BACKEND)
            messages.success(
                request,
                gettext("You referee %(tournaments)s now.")
                % {"tournaments": ", ".join(t.name for t in invitation.tournaments.all())},
            )
            return redirect("admin:tournaments_tournament_changelist")
    return render(
        request,
        "accounts/invitation.html",
        {"invitation": invitation, "form": form, "error": error},
    )


def _invitation_refused(request: HttpRequest, exc: InvitationError) -> HttpResponse:
    return render(
        request, "accounts/invitation.html", {"refusal": exc.message}, status=exc.http_status
    )


class LabelsAbove:
    """Django's own account forms, with labels as ours have them (``LABEL_SUFFIX``)."""

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = super().get_form_kwargs()  # type: ignore[misc]
        kwargs["label_suffix"] = LABEL_SUFFIX
        return kwargs


class PasswordResetView(LabelsAbove, auth_views.PasswordResetView):
    template_name = "accounts/password_reset_form.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(LabelsAbove, auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("password_reset_complete")


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


class PasswordChangeView(LabelsAbove, auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("profile")

    def form_valid(self, form: Any) -> HttpResponse:
        messages.success(self.request, gettext("Your password is changed."))
        return super().form_valid(form)
