"""An event's plan and money in words, for the public pages: the rules of the game, each
stage's format, what is played at a table, who advances, the scoring, and the money.

The wording of the rules' options is the domain's (``tournaments.plan_options``: each engine
option's label and choices), which the organiser's form offers too, so the console and the public
page say the same thing; the tie-breaks' names are the stage form's (``TIE_BREAK_LABELS``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext, ngettext

from tournaments.models import Stage
from tournaments.money import money
from tournaments.plan_options import TRANSFER_OPTIONS, rule_label, rule_options, rule_value_text
from tournaments.wording import TIE_BREAK_LABELS, payout_shares, points_text, yes_no


@dataclasses.dataclass(frozen=True)
class Line:
    """One fact of the plan: a label and its value in words."""

    label: str
    value: str


def rule_lines(rules: Mapping[str, Any]) -> list[Line]:
    """Every option of the game an organiser sets (``rules``: those that differ from the
    engine's defaults), in words: the whole rule set, defaults included, so a player reads what
    is played; the transfer options only for transfer durak."""
    options = rule_options()
    defaults = {option.name: option.default for option in options}
    variant = str(rules.get("variant", defaults["variant"]))
    lines = []
    for option in options:
        if option.name in TRANSFER_OPTIONS and variant != "transfer":
            continue
        value = rules.get(option.name, option.default)
        lines.append(Line(str(rule_label(option.name)), rule_value_text(option.name, value)))
    return lines


def series_text(series_format: str, target: int) -> str:
    """What is played at a table: "one game", "best of 3 games", "first to 5 points"."""
    if series_format == Stage.SeriesFormat.BEST_OF:
        return ngettext("best of %(n)s game", "best of %(n)s games", target) % {"n": target}
    if series_format == Stage.SeriesFormat.FIRST_TO:
        return ngettext("first to %(n)s point", "first to %(n)s points", target) % {"n": target}
    if series_format == Stage.SeriesFormat.LONG:
        return gettext("long durak")
    return gettext("one game")


def advance_text(stage: Mapping[str, Any]) -> str:
    """Who goes on from the stage (``stage``: ``data.stage_row``)."""
    if stage["format"] == Stage.Format.KNOCKOUT:
        count = stage["knockout_advance"] or 1
        return ngettext(
            "the first out of each table goes on",
            "the first %(n)s out of each table go on",
            count,
        ) % {"n": count}
    mode, count = stage["advance"]["mode"], stage["advance"]["count"]
    if mode == Stage.AdvanceMode.TOP_N:
        return ngettext("the top %(n)s goes on", "the top %(n)s go on", count) % {"n": count}
    if mode == Stage.AdvanceMode.TOP_K_PER_TABLE:
        return ngettext(
            "the top %(n)s of each group goes on", "the top %(n)s of each group go on", count
        ) % {"n": count}
    return gettext("the final standings")


def stage_summary(stage: Mapping[str, Any]) -> list[str]:
    """A stage's plan in short phrases: players per table, rounds or groups, the series, who
    advances (``stage``: ``data.stage_row``)."""
    size = stage["table_size"]
    parts = [ngettext("%(n)s player per table", "%(n)s players per table", size) % {"n": size}]
    if stage["format"] == Stage.Format.SWISS and stage["rounds_planned"]:
        count = stage["rounds_planned"]
        parts.append(ngettext("%(n)s round", "%(n)s rounds", count) % {"n": count})
    if stage["format"] == Stage.Format.ROUND_ROBIN and stage["groups"]:
        count = stage["groups"]
        parts.append(ngettext("%(n)s group", "%(n)s groups", count) % {"n": count})
    parts.append(series_text(stage["series"]["format"], stage["series"]["target"]))
    parts.append(advance_text(stage))
    return parts


def scoring_lines(stage: Mapping[str, Any]) -> list[Line]:
    """A stage's scoring in words: points by place for each table size, the pogony penalty, a
    bye's points, the tie-breaks in order (``stage``: ``data.stage_row``)."""
    scoring = stage["scoring"]
    lines = []
    for size, points in scoring["points_by_place"].items():
        label = gettext("Points by place, %(n)s at the table") % {"n": size}
        lines.append(Line(label, " · ".join(points_text(p) for p in points)))
    if stage["format"] != Stage.Format.KNOCKOUT:
        penalty = scoring["fool_pogony_penalty"]
        lines.append(
            Line(
                gettext("The fool with pogony"),
                f"−{points_text(penalty)}" if penalty else gettext("no penalty"),
            )
        )
        lines.append(Line(gettext("A bye"), points_text(scoring["bye_points"])))
        breaks = [str(TIE_BREAK_LABELS.get(c, c)) for c in stage["tie_breaks"]]
        lines.append(Line(gettext("Tie-breaks"), " → ".join([*breaks, gettext("a seeded draw")])))
    return lines


def play_lines(play: Mapping[str, Any], team_size: int) -> list[Line]:
    """The settings of play: the move clock, teams, check-in, the field's limit."""
    clock = play["move_clock_seconds"]
    lines = [
        Line(
            gettext("Move clock"),
            ngettext("%(n)s second a move", "%(n)s seconds a move", clock) % {"n": clock}
            if clock
            else gettext("none"),
        )
    ]
    if team_size > 1:
        lines.append(
            Line(gettext("Teams"), gettext("%(n)s players, partners sit apart") % {"n": team_size})
        )
    lines.append(Line(gettext("Check-in required"), yes_no(play["check_in_required"])))
    if play["max_entries"]:
        lines.append(Line(gettext("Maximum entries"), str(play["max_entries"])))
    return lines


def money_lines(money_row: Mapping[str, Any]) -> list[Line]:
    """The entry fee, re-entries, rake, guarantee and payout structure in words
    (``money_row``: ``data.tournament_detail``'s ``money``)."""
    code = money_row["currency"]
    fee = Decimal(money_row["entry_fee"])
    lines = [Line(gettext("Entry fee"), money(fee, code) if fee else gettext("free"))]
    if Decimal(money_row["reentry_fee"]):
        lines.append(Line(gettext("Re-entry fee"), money(Decimal(money_row["reentry_fee"]), code)))
    if Decimal(money_row["rake_percent"]):
        lines.append(Line(gettext("Rake, %"), points_text(money_row["rake_percent"])))
    if Decimal(money_row["guarantee"]):
        lines.append(Line(gettext("Guaranteed prize pool"), money(money_row["guarantee"], code)))
    # The default scale depends on the field's size, which moves until the start: in words.
    default = money_row.get("payout_structure_default", False)
    structure: Sequence[str] = [] if default else money_row["payout_structure"]
    if structure:
        lines.append(Line(gettext("Prizes by place"), payout_shares(structure)))
    elif fee:
        lines.append(
            Line(gettext("Prizes by place"), gettext("about the top 15 %, on a falling scale"))
        )
    return lines
