"""The options an organiser sets in an event's plan, with their wording: the game's rules (one
per engine option, ``games.engine.rules``), the tie-breaks and the currencies.

The console's plan form offers them (``console.rules_form``, ``console.stage_forms``,
``console.forms``) and the public pages write an event's rules with the same labels and choices
(``site.events.words``): what both faces say lives here, below both.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine.cards import DECK_SIZES
from games.engine.rules import NEXT_GAME_FIRST, THROW_IN_BY, VARIANTS, Rules
from tournaments.scoring.points import TIE_BREAKS
from tournaments.scoring.prizes import ISO_4217_EXPONENTS
from tournaments.wording import TIE_BREAK_LABELS, yes_no

__all__ = [
    "CURRENCIES",
    "ENGINE_CHOICES",
    "PER_TABLE_OPTIONS",
    "RULE_CHOICES",
    "TIE_BREAK_CHOICES",
    "TRANSFER_OPTIONS",
    "rule_help",
    "rule_label",
    "rule_options",
    "rule_value_text",
]

# --- the rules: the engine's options ----------------------------------------------------------

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

#: The options with a fixed set of values, each with its label, in the engine's order.
RULE_CHOICES: dict[str, list[tuple[Any, Promise]]] = {
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


def rule_label(name: str) -> str | Promise:
    """An option's label; an option the engine gains later is named after itself until it has
    one here."""
    label, _help = _LABELS.get(name, (None, None))
    return label if label is not None else name.replace("_", " ").capitalize()


def rule_value_text(name: str, value: Any) -> str:
    """An option's value in words: its choice's label, yes or no, or the number."""
    if name in RULE_CHOICES:
        labels = {str(key): str(label) for key, label in RULE_CHOICES[name]}
        return labels.get(str(value), str(value))
    if isinstance(value, bool):
        return yes_no(value)
    return str(value)


def rule_help(name: str) -> Promise | None:
    """An option's help text, if it has one."""
    return _LABELS.get(name, (None, None))[1]


# --- the stages and the money -----------------------------------------------------------------

#: The tie-breaks a stage may use, in the scoring's order, with their names.
TIE_BREAK_CHOICES: list[tuple[str, str | Promise]] = [
    (name, TIE_BREAK_LABELS.get(name, name)) for name in TIE_BREAKS
]

#: The currencies an event's money may be in (ISO 4217 codes the prize pool knows), sorted.
CURRENCIES: list[str] = sorted(ISO_4217_EXPONENTS)
