"""How every face writes an event's facts in words: points, yes/no, payout shares, a table's
score group, a round's pairing explanation and its compromises, what decided a place, a rank
(звание); money is ``tournaments.money``'s. The console's progress pages and the public pages
(``tournaments.site``) say the same thing the same way."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.formats import number_format
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.engine.ranks import DEFAULT_LADDER
from tournaments.models import Round, Stage, Table, Tournament
from tournaments.scoring.points import DRAW

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


def yes_no(value: bool) -> str:
    """A yes-or-no setting in words."""
    return gettext("yes") if value else gettext("no")


def payout_shares(structure: Iterable[Any]) -> str:
    """A payout structure (percentages by place, as stored) in words: "1. 50 %, 2. 30 %,
    3. 20 %"; "" for none (the default scale)."""
    return ", ".join(
        gettext("%(place)s. %(share)s %%") % {"place": place, "share": points_text(share)}
        for place, share in enumerate((Decimal(str(s)) for s in structure), 1)
    )


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


#: The default ladder's ranks (``games.engine.ranks.DEFAULT_LADDER``, stored in Russian as the
#: seeds name them) in the reader's language; a league's own ladder is shown as its organiser
#: wrote it.
RANK_TITLES: dict[str, Promise] = dict(
    zip(
        DEFAULT_LADDER,
        (
            pgettext_lazy("rank", "sergeant"),
            pgettext_lazy("rank", "sergeant major"),
            pgettext_lazy("rank", "warrant officer"),
            pgettext_lazy("rank", "lieutenant"),
            pgettext_lazy("rank", "senior lieutenant"),
            pgettext_lazy("rank", "captain"),
            pgettext_lazy("rank", "major"),
            pgettext_lazy("rank", "lieutenant colonel"),
            pgettext_lazy("rank", "colonel"),
            pgettext_lazy("rank", "general"),
        ),
        strict=True,
    )
)


def rank_title(rank: str | None) -> str:
    """A rank (звание) as stored, in the reader's language: "сержант" in Russian, "sergeant" in
    English; a rank of a league's own ladder as written; "" for none."""
    if not rank:
        return ""
    return str(RANK_TITLES.get(rank, rank))


# Compromises stored as English sentences before they were stored as data
# (``pairing.Compromise.describe``): read back into data, so that they too are worded in the
# reader's language.
_LEGACY = (
    (
        re.compile(r"^(?P<a>.+) and (?P<b>.+) meet again \(met (?P<times>\d+) times? before\)$"),
        "repeat",
    ),
    (re.compile(r"^(?P<a>.+) and (?P<b>.+) share the club '(?P<value>.*)'$"), "same_club"),
    (re.compile(r"^(?P<a>.+) and (?P<b>.+) share the team '(?P<value>.*)'$"), "same_team"),
    (
        re.compile(r"^(?P<a>.+) attacks first again \(already did (?P<times>\d+) times?\)$"),
        "seat_imbalance",
    ),
    (re.compile(r"^(?P<a>.+) gets a bye \((?P<times>\d+) before\)$"), "bye"),
    (re.compile(r"^(?P<a>.+) goes straight to round 2 \(top seed\)$"), "knockout_bye"),
)


def _legacy_compromise(text: str) -> dict[str, Any] | None:
    for pattern, kind in _LEGACY:
        match = pattern.match(text)
        if match is not None:
            found = match.groupdict()
            names = [found[k] for k in ("a", "b") if found.get(k)]
            return {
                "kind": kind,
                "names": names,
                "times": int(found.get("times") or 0),
                "value": found.get("value"),
            }
    return None


def compromise_text(item: Any) -> str:
    """A pairing compromise (``pairing.Compromise.to_json``), or a knockout's bye to a top seed
    (``{"kind": "knockout_bye", "names": [name]}``), as a sentence in the reader's language;
    anything else as stored.

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     compromise_text({"kind": "repeat", "names": ["Ann", "Bob"], "times": 2})
    'Ann and Bob meet again (met 2 times before)'
    """
    data = _legacy_compromise(item) if isinstance(item, str) else item
    if not isinstance(data, Mapping):
        return str(item)
    kind = data.get("kind")
    names = [str(n) for n in data.get("names") or []]
    try:
        times = int(data.get("times") or 0)
    except (TypeError, ValueError):
        times = 0
    value = "" if data.get("value") is None else str(data.get("value"))
    if kind == "repeat" and len(names) == 2:
        return ngettext(
            "%(a)s and %(b)s meet again (met %(count)s time before)",
            "%(a)s and %(b)s meet again (met %(count)s times before)",
            times,
        ) % {"a": names[0], "b": names[1], "count": times}
    if kind == "same_club" and len(names) == 2:
        return gettext("%(a)s and %(b)s share the club “%(club)s”") % {
            "a": names[0],
            "b": names[1],
            "club": value,
        }
    if kind == "same_team" and len(names) == 2:
        return gettext("%(a)s and %(b)s share the team “%(team)s”") % {
            "a": names[0],
            "b": names[1],
            "team": value,
        }
    if kind == "seat_imbalance" and names:
        return ngettext(
            "%(name)s attacks first again (already did %(count)s time)",
            "%(name)s attacks first again (already did %(count)s times)",
            times,
        ) % {"name": names[0], "count": times}
    if kind == "bye" and names:
        return gettext("%(name)s gets a bye (%(count)s before)") % {
            "name": names[0],
            "count": times,
        }
    if kind == "knockout_bye" and names:
        return gettext("%(name)s goes straight to round 2 (top seed)") % {"name": names[0]}
    return str(item) if isinstance(item, str) else json.dumps(item, ensure_ascii=False)


def compromise_lines(items: Any) -> list[str]:
    """Stored compromises (a list, or one) as sentences in the reader's language."""
    values: Iterable[Any] = items if isinstance(items, (list, tuple)) else [items]
    return [compromise_text(item) for item in values if item not in (None, "")]


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
            value = compromise_lines(info.pop(key)) if key == "byes" else _lines(info.pop(key))
            # A bye is a sentence of its own; the rest are short lists of numbers or labels.
            out.append((label, value if key == "byes" else [", ".join(value)]))
    compromises = compromise_lines(info.pop("compromises", []))
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


# --- one naming of stages, rounds, tables and games ---------------------------------------------
# The bracket, the tournament page, the replay, the profiles, the home page's live tables and the
# console all name a place of play with these, so that the same game reads the same everywhere.


def stage_name(name: str, format: str, *, order: int | None = None) -> str:
    """A stage as people call it: its own name, else its format ("Плей-офф", "Swiss"); with
    ``order`` (for an event with several unnamed stages of that format) also its place in the
    plan ("Swiss, stage 2")."""
    if name:
        return name
    names: dict[str, str] = {
        Stage.Format.SWISS: pgettext("stage name", "Swiss"),
        Stage.Format.ROUND_ROBIN: pgettext("stage name", "Round robin"),
        Stage.Format.KNOCKOUT: pgettext("stage name", "Knockout"),
    }
    text = names.get(format, format)
    if order is None:
        return text
    return pgettext("stage name", "%(format)s, stage %(order)s") % {"format": text, "order": order}


def stage_names(stages: Iterable[Stage]) -> dict[int, str]:
    """The names of an event's ``stages`` by their order: an unnamed stage whose format another
    unnamed stage shares is told apart by its order.

    >>> [*stage_names([Stage(order=1, format="swiss"), Stage(order=2, format="swiss"),
    ...                Stage(order=3, format="knockout")]).values()]
    ['Swiss, stage 1', 'Swiss, stage 2', 'Knockout']
    """
    stages = list(stages)
    formats = Counter(s.format for s in stages if not s.name)
    return {
        s.order: stage_name(
            s.name, s.format, order=s.order if formats[s.format] > 1 and not s.name else None
        )
        for s in stages
    }


def round_name(number: int, *, knockout: bool = False, rounds: int | None = None) -> str:
    """A round: "Round 2"; a knockout round by its distance from the final (``rounds``: the
    stage's number of rounds, the final being the last): "Final", "Semi-final",
    "Quarter-final", "1/8 final"... ("Round 2" when the number of rounds is not known).

    >>> round_name(3, knockout=True, rounds=3), round_name(1, knockout=True, rounds=3)
    ('Final', 'Quarter-final')
    """
    if knockout and rounds and 0 < number <= rounds:
        distance = rounds - number
        if distance == 0:
            return gettext("Final")
        if distance == 1:
            return gettext("Semi-final")
        if distance == 2:
            return gettext("Quarter-final")
        return gettext("1/%(part)s final") % {"part": 2**distance}
    return gettext("Round %(number)s") % {"number": number}


def table_name(number: int) -> str:
    """A table of a round: "Table 1"."""
    return gettext("Table %(number)s") % {"number": number}


def game_name(number: int) -> str:
    """A game of a table's series: "game 2"."""
    return gettext("game %(number)s") % {"number": number}


def place_name(
    *,
    stage: str,
    round: str,
    table: str = "",
    game: str = "",
) -> str:
    """Where a game was played in one line, from the names above: "Knockout · Final · Table 1
    · game 2" (an empty part is left out)."""
    return " · ".join(part for part in (stage, round, table, game) if part)


# --- status badges ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Badge:
    """A status as a badge: its words, its CSS class (``status-<status>``: the colours live in
    ``static/css/events.css``), and whether the thing is happening now (only then may a page
    say it is live)."""

    label: str
    css: str
    live: bool


#: What is happening now, per kind of thing: nothing finished or cancelled is ever live.
_LIVE: dict[str, set[str]] = {
    "tournament": {Tournament.Status.RUNNING},
    "stage": {Stage.Status.RUNNING},
    "round": {Round.Status.PLAYING},
    "table": {Table.Status.PLAYING},
}


def status_badge(kind: str, status: str) -> Badge:
    """The badge of a ``kind`` ("tournament", "stage", "round", "table") in ``status``: the one
    place the pages take a status's words and class from.

    >>> status_badge("tournament", "finished").live
    False
    """
    labels: dict[str, Any] = {
        "tournament": Tournament.Status,
        "stage": Stage.Status,
        "round": Round.Status,
        "table": Table.Status,
    }
    choices = labels.get(kind)
    label = str(choices(status).label) if choices and status in choices.values else status
    live = status in _LIVE.get(kind, set())
    return Badge(label=label, css=f"status-{status}", live=live)
