"""The rules part of the stage-plan page: one field per engine option (``games.engine.rules``),
only non-default values kept. The options' labels and choices are the domain's
(``tournaments.plan_options``), which the public pages word the same way."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from tournaments.console.widgets import number_input, refuse_locked
from tournaments.plan_options import (
    RULE_CHOICES,
    TRANSFER_OPTIONS,
    rule_help,
    rule_label,
    rule_options,
)

__all__ = ["RulesForm"]


# --- the rules: one field per engine option ----------------------------------------------------

# The rules fieldset's lines (several fields to a line, as in the admin).
RULES_LAYOUT: list[tuple[str, ...]] = [
    ("variant", "deck_size"),
    ("hand_size", "bout_limit", "first_bout_limit"),
    ("throw_in_by", "unlimited_after_stock"),
    ("next_game_first", "draw"),
    ("pogony_min_cards", "redeal_five_of_suit"),
]
TRANSFER_LAYOUT: list[tuple[str, ...]] = [
    ("transfer_first_bout", "transfer_two_players", "transfer_over_trump"),
    ("transfer_to_go_out", "trump_show"),
]


def _rule_field(option: dataclasses.Field[Any]) -> forms.Field:
    default: Any = option.default
    common: dict[str, Any] = {
        "label": rule_label(option.name),
        "initial": default,
        "help_text": rule_help(option.name) or "",
    }
    if isinstance(default, bool):
        return forms.BooleanField(required=False, **common)
    if option.name in RULE_CHOICES:
        kind: Callable[[Any], Any] = type(default)
        return forms.TypedChoiceField(
            choices=RULE_CHOICES[option.name],
            coerce=kind,
            required=False,
            empty_value=None,
            **common,
        )
    if isinstance(default, int):
        return forms.IntegerField(required=False, widget=number_input("5em"), **common)
    return forms.CharField(required=False, **common)


class RulesForm(forms.Form):
    """The engine's options (``rules.md``), one field each, with the engine's defaults.

    Only the values that differ from the defaults go into the plan's ``rules``: a default left
    alone is not stored, so an event follows the engine's defaults.
    """

    prefix = "rules"

    def __init__(
        self,
        *args: Any,
        rules: Mapping[str, Any] | None = None,
        locked: str | None = None,
        **kwargs: Any,
    ) -> None:
        """``rules``: a tournament's (its options that differ from the defaults) as the initial
        values; ``locked``: why they may not change (the fields are disabled, the reason is the
        fieldsets' description)."""
        super().__init__(*args, **kwargs)
        self.locked = locked
        for option in rule_options():
            field = self.fields[option.name] = _rule_field(option)
            if rules and option.name in rules:
                field.initial = rules[option.name]
            field.disabled = locked is not None

    def fieldsets(self) -> list[tuple[Promise, dict[str, Any]]]:
        laid_out = {name for line in RULES_LAYOUT for name in line}
        # An option the engine gains later gets a line of its own until it is laid out here.
        rest = [
            (f.name,)
            for f in rule_options()
            if f.name not in laid_out and f.name not in TRANSFER_OPTIONS
        ]
        why = {"description": self.locked} if self.locked else {}
        return [
            (_("Rules"), {"fields": [*RULES_LAYOUT, *rest], **why}),
            (
                _("Transfer options"),
                {"fields": TRANSFER_LAYOUT, "classes": ["transfer-only"], **why},
            ),
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.locked:
            locked = self.locked
            refuse_locked(self, lambda name: locked)
        return cleaned

    def rules(self) -> dict[str, Any]:
        """The options that differ from the engine's defaults."""
        out: dict[str, Any] = {}
        for option in rule_options():
            value = self.cleaned_data.get(option.name)
            if value is not None and value != option.default:
                out[option.name] = value
        return out
