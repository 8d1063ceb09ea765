"""The rules part of the stage-plan page: one field per engine option (``games.engine.rules``),
only non-default values kept."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine.cards import DECK_SIZES
from games.engine.rules import NEXT_GAME_FIRST, THROW_IN_BY, VARIANTS, Rules
from tournaments.console.widgets import number_input

__all__ = ["TRANSFER_OPTIONS", "RulesForm", "rule_options"]


# --- the rules: one field per engine option ----------------------------------------------------

# Options set per table by the stages, not by the organiser.
PER_TABLE_OPTIONS = ("players", "teams")
# Shown only for the transfer variant (the engine refuses them with the others).
TRANSFER_OPTIONS = (
    "transfer_first_bout",
    "transfer_two_players",
    "transfer_over_trump",
    "transfer_to_go_out",
    "trump_show",
)

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

_CHOICES: dict[str, list[tuple[Any, Promise]]] = {
    "variant": [
        ("simple", _("Simple (no throw-ins)")),
        ("throw_in", _("Throw-in")),
        ("transfer", pgettext_lazy("durak variant", "Transfer")),
    ],
    "deck_size": [
        (24, _("24 cards (9 to ace)")),
        (36, _("36 cards (6 to ace)")),
        (52, _("52 cards (2 to ace)")),
    ],
    "throw_in_by": [
        ("all", _("Everyone")),
        ("neighbours", _("The defender's two neighbours")),
    ],
    "next_game_first": [
        ("from_under_fool", _("The fool's left neighbour (from under the fool)")),
        ("onto_fool", _("The fool's right neighbour (onto the fool)")),
        ("winner", _("The first player out")),
    ],
}
# Checked against the engine's own lists in the tests: a new value there shows up here.
ENGINE_CHOICES: dict[str, tuple[Any, ...]] = {
    "variant": VARIANTS,
    "deck_size": DECK_SIZES,
    "throw_in_by": THROW_IN_BY,
    "next_game_first": NEXT_GAME_FIRST,
}

_LABELS: dict[str, tuple[Promise, Promise | None]] = {
    "variant": (_("Variant"), None),
    "deck_size": (_("Deck"), None),
    "hand_size": (_("Hand size"), _("Cards dealt to each player.")),
    "bout_limit": (_("Cards per bout"), _("At most this many attack cards in one bout.")),
    "first_bout_limit": (
        _("Cards in the first bout"),
        _("The cap until the first successful defence of the game."),
    ),
    "unlimited_after_stock": (_("No bout limit once the stock is empty"), None),
    "throw_in_by": (_("Who throws in"), None),
    "transfer_first_bout": (_("Transfer in the first bout"), None),
    "transfer_two_players": (_("Transfer when only two players are left"), None),
    "transfer_over_trump": (_("Transfer while a trump lies on the table"), None),
    "transfer_to_go_out": (_("Transfer with the last card to go out"), None),
    "trump_show": (
        _("Transfer by showing a trump"),
        _("Once per game; the trump stays in hand."),
    ),
    "draw": (_("A draw is possible"), _("Off: the last defender is the fool.")),
    "pogony_min_cards": (
        _("Cards for pogony"),
        _("The winner's last cards of the pogony rank: at least this many (1 to 4)."),
    ),
    "redeal_five_of_suit": (_("Redeal for five cards of a suit"), None),
    "next_game_first": (_("Who attacks first in the next game"), None),
}


def rule_options() -> list[dataclasses.Field[Any]]:
    """The engine's options that an organiser sets for the whole event."""
    return [f for f in dataclasses.fields(Rules) if f.name not in PER_TABLE_OPTIONS]


def _rule_field(option: dataclasses.Field[Any]) -> forms.Field:
    label, help_text = _LABELS.get(option.name, (option.name.replace("_", " ").capitalize(), None))
    default: Any = option.default
    common: dict[str, Any] = {"label": label, "initial": default, "help_text": help_text or ""}
    if isinstance(default, bool):
        return forms.BooleanField(required=False, **common)
    if option.name in _CHOICES:
        kind: Callable[[Any], Any] = type(default)
        return forms.TypedChoiceField(
            choices=_CHOICES[option.name], coerce=kind, required=False, empty_value=None, **common
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for option in rule_options():
            self.fields[option.name] = _rule_field(option)

    def fieldsets(self) -> list[tuple[Promise, dict[str, Any]]]:
        laid_out = {name for line in RULES_LAYOUT for name in line}
        # An option the engine gains later gets a line of its own until it is laid out here.
        rest = [
            (f.name,)
            for f in rule_options()
            if f.name not in laid_out and f.name not in TRANSFER_OPTIONS
        ]
        return [
            (_("Rules"), {"fields": [*RULES_LAYOUT, *rest]}),
            (
                _("Transfer options"),
                {"fields": TRANSFER_LAYOUT, "classes": ["transfer-only"]},
            ),
        ]

    def rules(self) -> dict[str, Any]:
        """The options that differ from the engine's defaults."""
        out: dict[str, Any] = {}
        for option in rule_options():
            value = self.cleaned_data.get(option.name)
            if value is not None and value != option.default:
                out[option.name] = value
        return out
