"""The console's teams page: the partners of team events.

A team, like a player, belongs to no tournament: a console user sees the teams of the events it
sees, those it made and those it plays in (``permissions.teams_for``; any other is a 404);
organisers add them (``team_create``) and rename them or change their members
(``team_update``, which keeps the members of a team that has played), only those of their own
events, or, in none, those they made (``permissions.can_change_team``). A form's search for a
team to register (the autocomplete) finds every team. The partners are chosen
one by one with the players' search (``PlayerAdmin.search_fields``), in their order at the
table. Nothing is deleted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from games.actors import Actor
from tournaments.console.admin_base import ConsoleAdmin, adopt, choosing, form_error
from tournaments.models import Player, Team, TeamMember
from tournaments.permissions import can_change_team, is_console_user, is_organiser, teams_for
from tournaments.services.people import (
    team_create,
    team_update,
    validate_team_change,
    validate_team_members,
)

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

#: The form's partners, in their order at the table (a team has two or three).
MEMBER_FIELDS = ("first", "second", "third")


def _partner(
    label: str | _StrPromise, *, required: bool, help_text: str | _StrPromise = ""
) -> forms.ModelChoiceField[Player]:
    return forms.ModelChoiceField(
        queryset=Player.objects.all(),
        label=label,
        required=required,
        help_text=help_text,
        # The players' search of the admin, not a list of every player.
        widget=AutocompleteSelect(TeamMember._meta.get_field("player"), admin.site),
    )


class TeamForm(forms.ModelForm[Team]):
    """A team's name and its partners in order, checked by the services' own rules
    (``validate_team_members``, ``validate_team_change``) so that a refusal shows on the form."""

    first = _partner(_("First partner"), required=True)
    second = _partner(_("Second partner"), required=True)
    third = _partner(_("Third partner"), required=False, help_text=_("Only in a team of three."))

    class Meta:
        model = Team
        fields = ["name"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        name = self.fields.get("name")  # not on a page that only shows the team
        if name is not None:
            name.required = False
            name.help_text = _("Empty: the partners' names.")
        if self.instance.pk is not None:
            ordered = self.instance.memberships.values_list("player_id", flat=True)
            for field, player_id in zip(MEMBER_FIELDS, ordered, strict=False):
                self.initial.setdefault(field, player_id)

    def partners(self) -> list[Player]:
        """The chosen partners, in order (after validation)."""
        return [self.cleaned_data[f] for f in MEMBER_FIELDS if self.cleaned_data.get(f)]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors:
            try:
                if self.instance.pk is None:
                    validate_team_members(self.partners())
                else:
                    validate_team_change(self.instance, self.partners())
            except ServiceError as exc:
                form_error(self, exc)
        return cleaned


class TeamAdmin(ConsoleAdmin[Team]):
    """Teams: those of its user's events, those it made and its own; organisers add them and
    change those of their own events."""

    form = TeamForm
    list_display = ["name", "member_names", "clubs", "created_at"]
    ordering = ["name", "id"]
    search_fields = ["name", "members__display_name", "members__club"]

    def scope(self, user: Actor, queryset: QuerySet[Team]) -> QuerySet[Team]:
        return queryset.filter(pk__in=teams_for(user))

    def may_view(self, user: Actor, obj: Team) -> bool:
        return teams_for(user).filter(pk=obj.pk).exists()

    def get_queryset(self, request: HttpRequest) -> QuerySet[Team]:
        memberships = TeamMember.objects.select_related("player").order_by("order")
        if choosing(request) and is_console_user(request.user):
            queryset = admin.ModelAdmin.get_queryset(self, request)
        else:
            queryset = super().get_queryset(request)
        return queryset.prefetch_related(Prefetch("memberships", memberships, to_attr="ordered"))

    @staticmethod
    def _members(obj: Team) -> list[Player]:
        ordered = getattr(obj, "ordered", None)
        if ordered is None:  # not from get_queryset (an object Django made)
            ordered = obj.memberships.select_related("player").order_by("order")
        return [m.player for m in ordered]

    @admin.display(description=_("Members"))
    def member_names(self, obj: Team) -> str:
        return ", ".join(str(p) for p in self._members(obj)) or "—"

    @admin.display(description=_("Clubs"))
    def clubs(self, obj: Team) -> str:
        return ", ".join(dict.fromkeys(p.club for p in self._members(obj) if p.club)) or "—"

    def get_fields(self, request: HttpRequest, obj: Team | None = None) -> tuple[str, ...]:
        if obj is None:
            return ("name", *MEMBER_FIELDS)
        if self.has_change_permission(request, obj):
            return ("name", *MEMBER_FIELDS, "created_at")
        return ("name", "member_names", "created_at")

    def get_readonly_fields(self, request: HttpRequest, obj: Team | None = None) -> tuple[str, ...]:
        return () if obj is None else ("member_names", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_organiser(request.user) and self.model_permission(request, "add")

    def has_change_permission(self, request: HttpRequest, obj: Team | None = None) -> bool:
        if not self.model_permission(request, "change"):
            return False
        if obj is None:
            return is_organiser(request.user)
        return can_change_team(request.user, obj)

    def save_model(self, request: HttpRequest, obj: Team, form: Any, change: Any) -> None:
        name, partners = form.cleaned_data.get("name") or "", form.partners()
        if change:
            saved = team_update(team=obj, actor=request.user, name=name, players=partners)
        else:
            saved = team_create(name=name, players=partners, actor=request.user)
        adopt(obj, saved)
