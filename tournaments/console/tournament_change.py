"""A tournament's change page: its settings and rules on the add page's own forms
(``console.forms.PlanForms``: the same fields, widgets and refusals), inside the admin's change
form, which keeps its referees, its record and its stages (read-only).

What may change is the service's to say (``services.plans.SETTING_WINDOWS``): a setting locked
by the tournament's status is shown disabled, with why as its help; for a user who may only look
(a referee), every setting is. The changes are validated by the service's own checks
(``validate_tournament_changes``, every problem at once, each at its field) and saved by
``tournament_update``, which writes the audit row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django import forms
from django.contrib.admin import helpers
from django.utils.translation import gettext

from durak_site.errors import ServiceError
from games.actors import Actor
from tournaments.console.forms import PlanForms
from tournaments.models import Tournament
from tournaments.services.plans import (
    SETTING_WINDOWS,
    tournament_locked_fields,
    validate_tournament_changes,
)

__all__ = ["TournamentChangeForm", "locked_for"]


def locked_for(tournament: Tournament, *, may_change: bool) -> dict[str, str]:
    """The settings of ``tournament`` its user may not change, each with why: those its status
    locks, or all of them for a user who may not change it (``may_change``)."""
    if not may_change:
        why = gettext("Only the tournament's organiser can change its settings.")
        return dict.fromkeys(SETTING_WINDOWS, why)
    return tournament_locked_fields(tournament)


class TournamentChangeForm(forms.ModelForm[Tournament]):
    """The admin's form of a tournament (its referees: the model's own fields the page edits)
    with its settings and rules as ``plan`` (``PlanForms``).

    The admin makes it for one request: :meth:`for_request` binds the user and what is locked.
    """

    user: ClassVar[Actor | None] = None
    locked: ClassVar[Mapping[str, str]] = {}
    model_admin: ClassVar[Any] = None

    @classmethod
    def for_request(
        cls, *, user: Actor, locked: Mapping[str, str], model_admin: Any
    ) -> type[TournamentChangeForm]:
        attrs = {"user": user, "locked": dict(locked), "model_admin": model_admin}
        return type(cls.__name__, (cls,), attrs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert self.user is not None, "made by for_request"
        self.plan = PlanForms(
            self.data if self.is_bound else None,
            user=self.user,
            tournament=self.instance,
            locked=self.locked,
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.plan.is_valid():
            changes = self.plan.changes()
            if changes:
                try:
                    validate_tournament_changes(self.instance, changes)
                except ServiceError as exc:
                    self.plan.refuse(exc)
        return cleaned

    def is_valid(self) -> bool:
        return super().is_valid() and not self.plan.has_errors

    def changes(self) -> dict[str, Any]:
        """``tournament_update``'s keyword arguments: what was changed (after :meth:`is_valid`)."""
        return self.plan.changes()

    def plan_forms(self) -> dict[str, helpers.AdminForm]:
        """The settings and rules as the admin renders them (for the page's template)."""
        return self.plan.admin_forms(self.model_admin)
