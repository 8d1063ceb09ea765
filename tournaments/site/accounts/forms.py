"""The account pages' forms. They parse and show errors; the rules are the services' (a
service's refusal lands on its field through ``form_error``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.models import ApiToken
from tournaments.models import Player
from tournaments.services.people import NAME_MAX, USERNAME_MAX, same_text

#: Labels sit above their fields: no colon after them (the accessible name is the label alone).
LABEL_SUFFIX = ""


def language_choices() -> list[tuple[str, str]]:
    """The site's languages, and "" for the browser's choice (in the reader's language)."""
    return [("", gettext("As my browser asks")), *settings.LANGUAGES]


class LoginForm(AuthenticationForm):
    """Log in with a username or an email address, in any case.

    The name is resolved to the account's own username before ``authenticate(request, ...)``
    (the parent's ``clean``), so that django-axes counts the failures of one account under one
    name however it is typed.
    """

    username = forms.CharField(
        label=_("Username or email"),
        max_length=254,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "username"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", LABEL_SUFFIX)
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        typed = (self.cleaned_data.get("username") or "").strip()
        if typed:
            self.cleaned_data["username"] = canonical_username(typed)
        return super().clean()


def canonical_username(typed: str) -> str:
    """The username of the account ``typed`` names (its username in any case, or its email
    address), or ``typed`` itself when it names none."""
    users = get_user_model().objects
    match = users.filter(same_text("username", typed)).values_list("username", flat=True)[:2]
    if len(match) == 1:
        return str(match[0])
    if "@" in typed:
        by_email = users.filter(same_text("email", typed)).values_list("username", flat=True)[:2]
        if len(by_email) == 1:
            return str(by_email[0])
    return typed


class ProfileForm(forms.Form):
    """What a player changes of their own profile."""

    display_name = forms.CharField(
        label=_("Display name"),
        max_length=NAME_MAX,
        help_text=_("The name shown at the tables and in the standings."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
    club = forms.CharField(label=_("Club"), max_length=NAME_MAX, required=False)
    city = forms.CharField(
        label=_("City"),
        max_length=NAME_MAX,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "address-level2"}),
    )
    language = forms.ChoiceField(label=_("Language of the site"), required=False, choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", LABEL_SUFFIX)
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = language_choices()  # type: ignore[attr-defined]

    @classmethod
    def of(cls, player: Player | None) -> ProfileForm:
        if player is None:
            return cls()
        return cls(
            initial={
                "display_name": player.display_name,
                "club": player.club,
                "city": player.city,
                "language": player.language,
            }
        )


class SignUpForm(ProfileForm):
    """A new account and its player: the login, then the profile."""

    username = forms.CharField(
        label=_("Username"),
        max_length=USERNAME_MAX,
        help_text=_("To log in with. Letters, digits and @ . + - _ only."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        label=_("Email"),
        help_text=_("Only for resetting your password; never shown."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_again = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    field_order = [
        "username",
        "email",
        "password",
        "password_again",
        "display_name",
        "club",
        "city",
        "language",
    ]

    def login_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("username", "email", "password", "password_again")]

    def profile_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ProfileForm.base_fields]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password") != data.get("password_again"):
            self.add_error("password_again", _("The two passwords differ."))
        return data


class InvitationAccountForm(forms.Form):
    """A new referee's login, made on the invitation's page (its email address is the
    invitation's)."""

    username = forms.CharField(
        label=_("Username"),
        max_length=USERNAME_MAX,
        help_text=_("To log in with. Letters, digits and @ . + - _ only."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    display_name = forms.CharField(
        label=_("Your name"),
        max_length=USERNAME_MAX,
        required=False,
        help_text=_("How the organiser and the other referees see you."),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_again = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", LABEL_SUFFIX)
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password") != data.get("password_again"):
            self.add_error("password_again", _("The two passwords differ."))
        return data


#: The expiries a token may be given, in days ("" for none: until revoked).
TOKEN_EXPIRIES = ("", "7", "30", "90", "365")


class ApiTokenForm(forms.Form):
    """A new personal API token: its name, scope and expiry (the rules: ``services.tokens``)."""

    name = forms.CharField(
        label=_("Name"),
        max_length=100,
        help_text=_("What uses it, e.g. “TV overlay” or “my bot”."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    scope = forms.ChoiceField(
        label=_("Access"),
        choices=ApiToken.Scope.choices,
        initial=ApiToken.Scope.READ,
        widget=forms.RadioSelect,
        help_text=_(
            "Read: fetch the API and watch tables. Read and write: also act as you do on the "
            "site (register, enter results, play your moves)."
        ),
    )
    expires = forms.ChoiceField(label=_("Expires"), required=False, choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", LABEL_SUFFIX)
        super().__init__(*args, **kwargs)
        self.fields["expires"].choices = [  # type: ignore[attr-defined]
            ("", gettext("Never (until revoked)")),
            *(
                (days, ngettext("In %(days)s day", "In %(days)s days", int(days)) % {"days": days})
                for days in TOKEN_EXPIRIES[1:]
            ),
        ]

    def expires_at(self, now: dt.datetime) -> dt.datetime | None:
        days = self.cleaned_data.get("expires") or ""
        return now + dt.timedelta(days=int(days)) if days else None
