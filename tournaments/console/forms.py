"""The forms of the console's stage-plan page: a tournament's settings, its rules options and its
stages as rows, turned into the plan that ``services.tournament_create`` takes, and the service's
refusals put back on the fields they are about.

The forms only parse (a number is a number, a choice is one of the choices); every rule about
the plan (bounds, what a format needs, what the engine and the pairing code accept) is the
service's, so that the page, the API and the management commands refuse the same plans with the
same reasons (``tournaments.plan_schema``, ``services.plans.validate_plan``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib.admin import helpers
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework.settings import api_settings

from durak_site.errors import ServiceError
from games.actors import Actor
from tournaments.console.rules_form import RulesForm
from tournaments.console.stage_forms import BaseStageFormSet, StageForm, StageFormSet
from tournaments.console.widgets import lock_field, number_input, refuse_locked
from tournaments.models import League, Tournament
from tournaments.permissions import managed_leagues
from tournaments.plan_options import CURRENCIES
from tournaments.plan_schema import error_lines, error_message
from tournaments.plan_words import field_label

__all__ = ["PlanForms", "TournamentSettingsForm", "settings_initial"]

NON_FIELD = api_settings.NON_FIELD_ERRORS_KEY
# The preview seats this many entries at most (a knockout bracket of 100,000 takes half a second).
MAX_EXPECTED_ENTRIES = 100_000


# --- the tournament's own settings ------------------------------------------------------------


class TournamentSettingsForm(forms.Form):
    """Everything of a plan but its rules and stages, plus the preview's expected entries."""

    name = forms.CharField(label=_("Name"), widget=forms.TextInput(attrs={"size": 50}))
    is_public = forms.BooleanField(
        label=_("Public"),
        required=False,
        initial=True,
        help_text=_("Anyone may watch; a private event is for its players and staff only."),
    )
    league = forms.ModelChoiceField(
        label=_("League"),
        queryset=League.objects.none(),
        required=False,
        empty_label=_("(no league)"),
    )
    team_size = forms.TypedChoiceField(
        label=_("Entries"),
        coerce=int,
        initial=1,
        choices=[
            (1, _("Individual players")),
            (2, _("Teams of 2 (2×2 tables)")),
            (3, _("Teams of 3 (3×3 tables)")),
        ],
    )
    max_entries = forms.IntegerField(
        label=_("Max entries"),
        required=False,
        widget=number_input(),
        help_text=_("Empty: no limit."),
    )
    check_in_required = forms.BooleanField(label=_("Check-in required"), required=False)
    late_registration_rounds = forms.IntegerField(
        label=_("Late registration (rounds)"),
        required=False,
        initial=0,
        widget=number_input(),
        help_text=_("Entries are taken until this round of the first stage; 0: none."),
    )
    move_clock_seconds = forms.IntegerField(
        label=_("Move clock (seconds)"),
        required=False,
        initial=60,
        widget=number_input(),
        help_text=_(
            "0: no clock. A change applies to the games dealt after it; a game already "
            "dealt keeps its clock."
        ),
    )
    absent_bots = forms.ChoiceField(
        label=_("Bots play for absent players"),
        choices=Tournament.AbsentBots.choices,
        initial=Tournament.AbsentBots.OFF,
        help_text=_(
            "For the whole event, with no action per round. A player who connects again takes "
            "their seat back at their next move."
        ),
    )
    absent_bots_seconds = forms.IntegerField(
        label=_("Absent for (seconds)"), required=False, initial=30, widget=number_input()
    )
    two_person_rule = forms.BooleanField(
        label=_("Two-person rule"),
        required=False,
        help_text=_(
            "A result a referee enters or corrects counts only when another referee confirms it."
        ),
    )
    dropout_rule = forms.ChoiceField(
        label=_("When a player drops out mid-game"),
        choices=Tournament.DropoutRule.choices,
        initial=Tournament.DropoutRule.CLOCK,
        help_text=_(
            "The next round is paired without them either way. Without a move clock the game "
            "is paused for a referee."
        ),
    )
    starts_at = forms.DateTimeField(
        label=_("Planned start"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Shown, with a countdown, on the page while registration is open."),
    )
    seed = forms.CharField(
        label=_("Seed"),
        required=False,
        help_text=_("Of the random draws (seating, the last tie-break); empty: the event's slug."),
    )
    currency = forms.ChoiceField(
        label=_("Currency"),
        required=False,
        initial="RUB",
        choices=[(code, code) for code in CURRENCIES],
    )
    entry_fee = forms.DecimalField(
        label=_("Entry fee"), required=False, initial=0, widget=number_input("8em", step="any")
    )
    rake_percent = forms.DecimalField(
        label=_("Rake %"),
        required=False,
        initial=0,
        widget=number_input(step="any"),
        help_text=_("The organiser's share of the fees, in percent."),
    )
    guarantee = forms.DecimalField(
        label=_("Guarantee"),
        required=False,
        initial=0,
        widget=number_input("8em", step="any"),
        help_text=_("The pool is raised to this minimum; 0: none."),
    )
    reentry_fee = forms.DecimalField(
        label=_("Re-entry fee"),
        required=False,
        initial=0,
        widget=number_input("8em", step="any"),
        help_text=_("0: no re-entries."),
    )
    payout_structure = forms.CharField(
        label=_("Payouts by place (%)"),
        required=False,
        widget=forms.TextInput(attrs={"size": 30, "placeholder": "50, 30, 20"}),
        help_text=_(
            "Percentages of the pool for places 1, 2, 3…, adding up to 100. "
            "Empty: the default, about the top 15 per cent on a falling scale."
        ),
    )
    expected_entries = forms.IntegerField(
        label=_("Expected entries"),
        required=False,
        min_value=2,
        max_value=MAX_EXPECTED_ENTRIES,
        widget=number_input(),
        help_text=_(
            "For the preview only; nothing is stored. Empty: the max entries, or else the "
            "fewest entries the plan can run with and a few usual field sizes."
        ),
    )

    PREVIEW_ONLY = ("expected_entries",)
    DEFAULTED = (
        "late_registration_rounds",
        "currency",
        "entry_fee",
        "rake_percent",
        "guarantee",
        "reentry_fee",
        "move_clock_seconds",
        "absent_bots_seconds",
    )
    FIELDSETS: list[tuple[Promise, dict[str, Any]]] = [
        (
            _("Tournament"),
            {
                "fields": [
                    "name",
                    "is_public",
                    "league",
                    "team_size",
                    ("max_entries", "late_registration_rounds"),
                    "starts_at",
                    "check_in_required",
                    ("move_clock_seconds", "seed"),
                    ("absent_bots", "absent_bots_seconds"),
                ]
            },
        ),
        (
            _("Referees"),
            {
                "fields": [
                    "two_person_rule",
                    "dropout_rule",
                ]
            },
        ),
        (
            _("Prize pool"),
            {
                "fields": [
                    ("currency", "entry_fee", "reentry_fee"),
                    ("rake_percent", "guarantee"),
                    "payout_structure",
                ]
            },
        ),
    ]
    PREVIEW_FIELDSETS: list[tuple[Promise | None, dict[str, Any]]] = [
        (None, {"fields": ["expected_entries"]}),
    ]

    def __init__(
        self,
        *args: Any,
        user: Actor,
        tournament: Tournament | None = None,
        locked: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        """``tournament``: the one whose settings are changed (none: a new one's), with its
        settings as the initial values; ``locked``: the settings that may not change, each with
        why (shown as the disabled field's help)."""
        if tournament is not None:
            kwargs["initial"] = settings_initial(tournament)
        super().__init__(*args, **kwargs)
        league = self.fields["league"]
        assert isinstance(league, forms.ModelChoiceField)
        league.queryset = managed_leagues(user)
        if tournament is None:
            return
        for name in self.PREVIEW_ONLY:  # a new plan's only
            del self.fields[name]
        if tournament.league_id:
            # The one it is in stays a choice (even if another organiser's league).
            current = League.objects.filter(pk=tournament.league_id)
            league.queryset = (league.queryset | current).distinct()
        for name, reason in (locked or {}).items():
            if name in self.fields:
                lock_field(self.fields[name], reason)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        refuse_locked(self, lambda name: str(self.fields[name].help_text))
        return cleaned

    def changes(self) -> dict[str, Any]:
        """What the organiser changed (``tournament_update``'s keyword arguments): the changed
        fields that are not disabled; a blanked amount or count is the setting's default."""
        changes = {}
        for name in self.changed_data:
            if self.fields[name].disabled:
                continue
            value = self.cleaned_data[name]
            if value in (None, "") and name in self.DEFAULTED:
                value = self.fields[name].initial  # the service's default, as on a new plan
            changes[name] = value
        return changes

    def clean_payout_structure(self) -> list[str]:
        text: str = self.cleaned_data.get("payout_structure") or ""
        # "50, 30, 20", "50% 30% 20%" or "50; 30; 20": decimals take a point, never a comma.
        return [part for part in re.split(r"[\s,;%]+", text) if part]

    def plan(self) -> dict[str, Any]:
        """The settings part of ``tournament_create``'s keyword arguments: every field (a new
        setting is a field here, a line of ``FIELDSETS`` and one of the service's
        ``SETTING_WINDOWS``), the preview's count aside."""
        data = self.cleaned_data
        plan = {
            name: data.get(name)
            for name in self.fields
            if name not in self.DEFAULTED and name not in self.PREVIEW_ONLY
        }
        # Left blank: the service's default (no fee, no rake, the standard clock, ...).
        for name in self.DEFAULTED:
            if data.get(name) not in (None, ""):
                plan[name] = data[name]
        return plan


def _plain(amount: Decimal) -> str:
    """An amount as typed: 100, 12.5 (the column's 100.000 and 12.500 are its scale)."""
    if amount == amount.to_integral_value():
        return str(amount.quantize(Decimal(1)))
    return format(amount.normalize(), "f")


def settings_initial(tournament: Tournament) -> dict[str, Any]:
    """A tournament's settings as the settings form's initial values."""
    initial: dict[str, Any] = {
        name: getattr(tournament, name)
        for name in TournamentSettingsForm.base_fields
        if hasattr(tournament, name) and name not in ("league", "payout_structure")
    }
    for name, value in initial.items():
        if isinstance(value, Decimal):
            initial[name] = _plain(value)
    initial["league"] = tournament.league_id
    initial["payout_structure"] = ", ".join(str(p) for p in tournament.payout_structure or [])
    if tournament.starts_at is not None:
        initial["starts_at"] = timezone.localtime(tournament.starts_at)
    return initial


# --- the whole page: three forms, one plan ----------------------------------------------------


class PlanForms:
    """The settings form, the rules form and the stages formset of one page, as one plan.

    ``plan()`` gives ``tournament_create``'s keyword arguments; ``refuse()`` puts a
    service's refusal back on the fields and rows it names.
    """

    def __init__(
        self,
        data: Mapping[str, Any] | None,
        *,
        user: Actor,
        previewing: bool = False,
        tournament: Tournament | None = None,
        locked: Mapping[str, str] | None = None,
    ) -> None:
        """A new plan's forms; with ``tournament``, the forms of its settings and rules (its
        stages are fixed: no formset), ``locked`` the settings that may not change, with why."""
        self.previewing = previewing
        self.tournament = tournament
        self.settings = TournamentSettingsForm(
            data, user=user, tournament=tournament, locked=locked
        )
        self.rules = RulesForm(
            data,
            rules=tournament.rules if tournament is not None else None,
            locked=(locked or {}).get("rules"),
        )
        self.stages: BaseStageFormSet = StageFormSet(  # type: ignore[assignment]
            data if tournament is None else None, prefix="stages"
        )
        # Whole-plan refusals no one field is to blame for: shown at the top; refusals about the
        # list of stages: above the stages.
        self.plan_errors: list[str] = []
        self.stage_list_errors: list[str] = []

    def is_valid(self) -> bool:
        if not self.previewing and "expected_entries" in self.settings.errors:
            # Only the preview reads it: a save does not stop at it.
            del self.settings.errors["expected_entries"]
        # All three, so that every parse error is shown at once.
        valid = [self.settings.is_valid(), self.rules.is_valid()]
        if self.tournament is None:
            valid.append(self.stages.is_valid())
        return all(valid)

    @property
    def has_errors(self) -> bool:
        return bool(
            self.plan_errors
            or self.stage_list_errors
            or (self.settings.is_bound and self.settings.errors)
            or (self.rules.is_bound and self.rules.errors)
            or (self.stages.is_bound and self.stages.total_error_count())
        )

    def plan(self) -> dict[str, Any]:
        """``tournament_create``'s keyword arguments (``created_by`` aside)."""
        return {
            **self.settings.plan(),
            "rules": self.rules.rules(),
            "stages": [form.spec() for form in self.stages.filled_forms()],
        }

    def changes(self) -> dict[str, Any]:
        """A tournament's changed settings and rules (``tournament_update``'s keyword
        arguments): the fields not locked that differ from the initial values."""
        changes = self.settings.changes()
        if self.rules.changed_data and not self.rules.locked:
            changes["rules"] = self.rules.rules()
        return changes

    @property
    def expected_entries(self) -> int | None:
        value = self.settings.cleaned_data.get("expected_entries")
        if value is None:
            value = self.settings.cleaned_data.get("max_entries")
        return value if isinstance(value, int) else None

    def admin_forms(self, model_admin: Any) -> dict[str, helpers.AdminForm]:
        """The forms as the admin renders them (fieldsets with the admin's look)."""
        # The admin's helpers take any form, though their stubs say a model form.
        settings: Any = self.settings
        rules: Any = self.rules
        shown = {
            "settings": helpers.AdminForm(
                settings, settings.FIELDSETS, {}, model_admin=model_admin
            ),
            "rules": helpers.AdminForm(rules, rules.fieldsets(), {}, model_admin=model_admin),
        }
        if self.tournament is None:  # the preview is a new plan's
            shown["preview"] = helpers.AdminForm(
                settings, settings.PREVIEW_FIELDSETS, {}, model_admin=model_admin
            )
        return shown

    # --- refusals back onto the fields -------------------------------------------------------

    def refuse(self, exc: ServiceError) -> None:
        """Show a refusal of the service: each field error on its field (a stage's on its row),
        the rest at the top."""
        placed = False
        for key, detail in (exc.fields or {}).items():
            self._place(str(key), detail)
            placed = True
        if not placed:
            self._place_message(exc.message)

    def refuse_field(self, name: str, message: str) -> None:
        """One more refusal on a settings field (the preview's own checks)."""
        self.settings.add_error(name, message)

    def _place(self, key: str, detail: Any) -> None:
        if key == "stages" and self.tournament is not None:
            # A tournament's stages are shown, not edited: their refusals go to the top.
            self.plan_errors.append(error_message({key: detail}))
        elif key == "stages":
            self._place_stages(detail)
        elif key == "rules":
            self._place_rules(detail)
        elif key == "payout_structure" and isinstance(detail, Mapping):
            for index, messages in detail.items():
                for message in _messages(messages):
                    self.settings.add_error(
                        "payout_structure",
                        gettext("place %(place)s: %(message)s")
                        % {"place": _index(index) + 1, "message": message},
                    )
        elif key in self.settings.fields:
            for message in _messages(detail):
                self.settings.add_error(key, message)
        elif key == NON_FIELD:
            self.plan_errors.extend(_messages(detail))
        else:
            self.plan_errors.append(error_message({key: detail}))

    def _place_rules(self, detail: Any) -> None:
        if isinstance(detail, Mapping):
            # {"players": [...]}: the schema's refusals name the option.
            for option, messages in detail.items():
                for message in _messages(messages):
                    self._rule_error(str(option), message, prefixed=False)
            return
        for message in _messages(detail):
            # The engine's messages start with the option: "hand_size: 6 hands of 6 cards ...".
            option, sep, rest = message.partition(": ")
            if sep:
                self._rule_error(option, rest, prefixed=True, whole=message)
            else:
                self.rules.add_error(None, message)

    def _rule_error(self, option: str, message: str, *, prefixed: bool, whole: str = "") -> None:
        if option in self.rules.fields:
            self.rules.add_error(option, message)
        elif option == NON_FIELD:
            self.rules.add_error(None, message)
        else:
            label = field_label(("rules", option))
            self.rules.add_error(None, whole if prefixed else f"{label}: {message}")

    def _place_stages(self, detail: Any) -> None:
        forms_ = self.stages.filled_forms()
        if isinstance(detail, Mapping):
            items: Iterable[tuple[Any, Any]] = detail.items()
        elif isinstance(detail, list) and all(isinstance(d, (Mapping, list)) for d in detail):
            items = enumerate(detail)
        else:
            # "a tournament needs at least one stage" and the like: about the list.
            self.stage_list_errors.extend(_messages(detail))
            return
        for index, errors in items:
            if not errors:
                continue
            if index == NON_FIELD:
                self.stage_list_errors.extend(_messages(errors))
                continue
            number = _index(index)
            if 0 <= number < len(forms_):
                _place_stage(forms_[number], errors)
            else:
                self.plan_errors.append(error_message({"stages": {index: errors}}))

    def _place_message(self, message: str) -> None:
        # The pairing code names a stage by its number from 1: "stage 2 (knockout): ...".
        match = re.match(r"stage (\d+)\b[^:]*:\s*(.+)", message, re.DOTALL)
        filled = self.stages.filled_forms()
        if match and 1 <= int(match.group(1)) <= len(filled):
            filled[int(match.group(1)) - 1].add_error(None, match.group(2))
        else:
            self.plan_errors.append(message)


# Where a stage spec's errors go in its row.
_STAGE_FIELDS = {
    "name": "name",
    "format": "format",
    "table_size": "table_size",
    "rounds": "rounds",
    "groups": "groups",
    "advance_per_table": "advance_per_table",
    "tiebreaks": "tiebreaks",
    "scoring": "points",
}
_SUB_FIELDS = {
    ("series", "format"): "series_format",
    ("series", "target"): "series_target",
    ("series", NON_FIELD): "series_format",
    ("advance", "top"): "advance_count",
    ("advance", "per_table"): "advance_count",
    ("advance", NON_FIELD): "advance_rule",
}


def _place_stage(form: StageForm, errors: Any) -> None:
    if not isinstance(errors, Mapping):
        for message in _messages(errors):
            form.add_error(None, message)
        return
    for name, detail in errors.items():
        key = str(name)
        if key == "scoring":
            # The points of one table size and place: named in words inside the row's field.
            base = field_label(("stages", 0, "scoring"))
            for path, message in error_lines(detail, ("stages", 0, "scoring")):
                label = field_label(path).removeprefix(base).removeprefix(", ")
                label = label[:1].upper() + label[1:]
                form.add_error("points", f"{label}: {message}" if label else message)
        elif key in _STAGE_FIELDS:
            for message in _flat(detail):
                form.add_error(_STAGE_FIELDS[key], message)
        elif key in ("series", "advance") and isinstance(detail, Mapping):
            for sub, messages in detail.items():
                field = _SUB_FIELDS.get((key, str(sub)))
                for message in _messages(messages):
                    if field is None:
                        label = field_label(("stages", 0, key, sub)).partition(", ")[2]
                        form.add_error(None, f"{label}: {message}")
                    else:
                        form.add_error(field, message)
        elif key in ("series", "advance"):
            for message in _messages(detail):
                form.add_error("series_format" if key == "series" else "advance_rule", message)
        elif key == NON_FIELD:
            for message in _messages(detail):
                form.add_error(None, message)
        else:
            form.add_error(None, error_message({key: detail}))


def _index(key: Any) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        return -1


def _messages(detail: Any) -> Iterator[str]:
    """The messages of one field's errors (a string or a list of them)."""
    if isinstance(detail, str):
        yield detail
    elif isinstance(detail, list):
        for item in detail:
            yield from _flat(item)
    else:
        yield from _flat(detail)


def _flat(detail: Any) -> Iterator[str]:
    """Nested errors as lines; a nested key leads its message (``4: must not increase``)."""
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            for message in _flat(value):
                yield message if key in (NON_FIELD, "tables") else f"{key}: {message}"
    elif isinstance(detail, list):
        for item in detail:
            yield from _flat(item)
    else:
        yield str(detail)
