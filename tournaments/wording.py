"""How every face writes an event's facts in words: points, money, a table's score group, a
round's pairing explanation, what decided a place. The console's progress pages and the public
pages (``tournaments.site``) say the same thing the same way."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.formats import number_format
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.models import Stage
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.points import DRAW
from tournaments.scoring.prizes import currency

#: The tie-breaks' names, as the stage form offers them and the standings head their columns.
TIE_BREAK_LABELS: dict[str, Promise] = {
    "points": _("Points"),
    "first_places": _("First places"),
    "buchholz": _("Buchholz"),
    "fewest_fools": _("Fewest fools"),
    "head_to_head": _("Head-to-head"),
}


def points_text(value: Fraction | float | Decimal | None) -> str:
    """Points as people write them: 9, 9.75, 1.5 (to two decimals at most), localised; "—" for
    none."""
    if value is None:
        return "—"
    exact = (
        Decimal(value.numerator) / Decimal(value.denominator)
        if isinstance(value, Fraction)
        else Decimal(str(value))
    )
    text = f"{exact.quantize(Decimal('0.01'))}".rstrip("0").rstrip(".")
    return number_format(Decimal(text))


def money(amount: Decimal, code: str) -> str:
    """``amount`` in the currency ``code``, to its minor unit and localised: "1 440,00 RUB"."""
    try:
        places = currency(code).exponent
    except ScoringError:  # a code the scoring does not know: as stored, without trailing zeros
        amount = amount.normalize()
        places = max(0, -int(amount.as_tuple().exponent))
    return f"{number_format(amount, places, force_grouping=True)}\u00a0{code}"


def group_label(group: str) -> str:
    """A table's score group in words: "final", "round 2", "group A", or a swiss score."""
    kind, _, rest = group.partition(" ")
    if group == "final":
        return gettext("final")
    if group == "bye":
        return gettext("bye")
    if kind == "round" and rest:
        return gettext("round %(number)s") % {"number": rest}
    if kind == "group" and rest:
        return gettext("group %(name)s") % {"name": rest}
    return group


def _lines(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def explanation_words(info: dict[str, Any], *, seed: str = "") -> list[tuple[str, list[str]]]:
    """A pairing explanation's keys in words, as (label, lines) pairs; ``seed``: the draw seed
    to show ("": none, as on the public pages, which keep it to the console)."""
    info = dict(info)
    if not info:
        return []
    out: list[tuple[str, list[str]]] = []
    algorithm = str(info.pop("algorithm", ""))
    if algorithm:
        label = Stage.Format(algorithm).label if algorithm in Stage.Format.values else algorithm
        out.append((gettext("Algorithm"), [str(label)]))
    info.pop("seed", None)
    if algorithm != Stage.Format.KNOCKOUT and seed:
        out.append((gettext("Draw seed"), [seed]))
    if info.pop("waiting_for_feeders", False):
        out.append((gettext("Seating"), [gettext("as its feeding tables finish")]))
    rounds_label = (
        gettext("Tables per round")
        if algorithm == Stage.Format.KNOCKOUT
        else gettext("Rounds per group")
    )
    labels = {
        "score_groups": gettext("Score groups"),
        "rounds": rounds_label,
        "lower_bounds": gettext("Fewest rounds possible per group"),
        "advance_per_table": gettext("Advance from each table"),
        "byes": gettext("Byes"),
    }
    for key, label in labels.items():
        if key in info:
            value = _lines(info.pop(key))
            # A bye is a sentence of its own; the rest are short lists of numbers or labels.
            out.append((label, value if key == "byes" else [", ".join(value)]))
    compromises = _lines(info.pop("compromises", []))
    if algorithm != Stage.Format.KNOCKOUT:
        out.append((gettext("Compromises"), compromises or [gettext("none")]))
    for key, value in info.items():  # anything newer than this page: as stored
        out.append((key, [json.dumps(value, ensure_ascii=False)]))
    return [(label, lines) for label, lines in out if lines and lines != [""]]


def decided_by_label(criterion: str | None) -> str:
    """What placed a standings line below the previous one, in words ("" for nothing)."""
    if criterion is None:
        return ""
    if criterion == DRAW:
        return gettext("Draw")
    labels = {
        **TIE_BREAK_LABELS,
        "countback": gettext("Countback"),
        "played": gettext("Tournaments played"),
    }
    return str(labels.get(criterion, criterion))
