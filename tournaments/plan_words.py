"""A plan's problems in its reader's language: the fields named in words, and the refusals of
the pure packages (the engine's rules, the pairing code's stages, the scoring tables, the prize
pool) worded from their ``reason``/``code`` and ``params``.

The pure packages keep their English messages (they import no Django); what an organiser reads
is made here, with ``gettext`` when the error is made, so the active language (the request's,
through ``LocaleMiddleware``) decides. A problem without words here (a new reason) shows the
pure package's own message after a sentence in the reader's language, never a bare English line.

Both ``plan_schema`` (the field labels of its joined message) and ``services.plans.validate_plan``
use this module; the faces read the labels through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.engine.cards import DECK_SIZES
from games.engine.errors import RulesError
from tournaments.pairing.errors import ConfigError
from tournaments.plan_options import rule_label
from tournaments.scoring.errors import ScoringError

__all__ = [
    "field_label",
    "pool_problem",
    "rules_problem",
    "scoring_problem",
    "stage_problem",
    "table_phrase",
]

# The settings of a plan as the console's form labels them (the same catalogue entries).
SETTING_LABELS: dict[str, Promise] = {
    "name": _("Name"),
    "stages": _("Stages"),
    "rules": _("Rules"),
    "team_size": _("Entries"),
    "max_entries": _("Max entries"),
    "check_in_required": _("Check-in required"),
    "late_registration_rounds": _("Late registration (rounds)"),
    "currency": _("Currency"),
    "entry_fee": _("Entry fee"),
    "rake_percent": _("Rake %"),
    "guarantee": _("Guarantee"),
    "reentry_fee": _("Re-entry fee"),
    "payout_structure": _("Payouts by place (%)"),
    "move_clock_seconds": _("Move clock (seconds)"),
    "two_person_rule": _("Two-person rule"),
    "dropout_rule": _("When a player drops out mid-game"),
    "absent_bots": _("Bots play for absent players"),
    "absent_bots_seconds": _("Absent for (seconds)"),
    "is_public": _("Public"),
    "seed": _("Seed"),
    "league": _("League"),
}
# A stage's settings as the stage rows label them.
STAGE_LABELS: dict[str, Promise] = {
    "name": _("Name"),
    "format": _("Format"),
    "table_size": _("Table size"),
    "rounds": _("Rounds"),
    "groups": _("Groups"),
    "advance_per_table": _("Go on per table"),
    "advance": _("Advance"),
    "top": _("Advance"),
    "per_table": _("Advance"),
    "series": _("Series"),
    "target": _("Series length"),
    "scoring": _("Points by place"),
    "tables": _("Points by place"),
    "fool_pogony_penalty": _("Pogony penalty"),
    "bye_points": _("Points for a bye"),
    "tiebreaks": _("Tie-breaks"),
}
# The engine's options the stages set per table (refused in a plan's rules).
PER_TABLE_LABELS: dict[str, Promise] = {
    "players": _("Players per table"),
    "teams": _("Teams"),
}
NON_FIELD = "non_field_errors"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def field_label(path: Sequence[Any]) -> str:
    """The field at ``path`` (keys and indexes of the plan's field errors) in words:

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     field_label(["stages", 1, "series", "target"])
    'Stage 2, series length'
    >>> with translation.override("ru"):
    ...     field_label(["stages", 1, "table_size"])
    'Этап 2, размер стола'
    """
    parts: list[str] = []
    where = "plan"  # which labels the next key takes: the plan's, a stage's, the rules'
    pending = ""
    for key in path:
        if key == NON_FIELD:
            continue
        if where == "plan":
            if key == "stages":
                where = "stages"
                continue
            if key == "rules":
                parts.append(str(SETTING_LABELS["rules"]))
                where = "rules"
                continue
            parts.append(str(SETTING_LABELS.get(str(key), key)))
            where = "payouts" if key == "payout_structure" else "other"
        elif where == "stages":
            index = _index(key)
            if index is None:
                parts.append(str(SETTING_LABELS["stages"]))
                where = "other"
            else:
                parts.append(gettext("Stage %(number)d") % {"number": index + 1})
                where = "stage"
        elif where == "stage":
            label = STAGE_LABELS.get(str(key))
            text = str(label) if label is not None else str(key)
            if key in ("series", "advance", "scoring"):
                pending = text  # named by its own key, if one follows
                continue
            pending = ""
            parts.append(text)
            where = {"tables": "tables", "tiebreaks": "items"}.get(str(key), "other")
        elif where == "tables":
            size = _index(key)
            parts.append(
                gettext("table of %(seats)s") % {"seats": key}
                if size is None
                else table_phrase(size, "nominative")
            )
            where = "places"
        elif where in ("places", "payouts"):
            index = _index(key)
            parts.append(
                gettext("place %(place)s") % {"place": index + 1} if index is not None else str(key)
            )
            where = "other"
        elif where == "rules":
            parts.append(str(PER_TABLE_LABELS.get(str(key)) or rule_label(str(key))))
            where = "other"
        elif where == "items" and _index(key) is not None:
            continue  # one of a list's items: the list's label says enough
        else:
            parts.append(str(key))
    if pending:
        parts.append(pending)
    if where == "stages":  # the list of stages itself
        parts.append(str(SETTING_LABELS["stages"]))
    if not parts:
        return ""
    return ", ".join([parts[0], *(_lower_first(p) for p in parts[1:])])


def _index(key: Any) -> int | None:
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and key.isascii() and key.isdigit():
        return int(key)
    return None


def table_phrase(seats: int, case: str = "genitive") -> str:
    """A table of ``seats`` seats, as a phrase inside a sentence ("стола на 4 места")."""
    if case == "nominative":
        return ngettext("table of %(seats)d seat", "table of %(seats)d seats", seats) % {
            "seats": seats
        }
    return ngettext("a table of %(seats)d seat", "a table of %(seats)d seats", seats) % {
        "seats": seats
    }


# --- the engine's rules ---------------------------------------------------------------------------

_KINDS = {
    "int": _("a whole number"),
    "bool": _("yes or no (true or false)"),
    "str": _("text"),
    "list": _("a list"),
}


def rules_problem(exc: RulesError) -> str:
    """A refusal of the engine's rules, in words (``exc.option`` names the rule)."""
    reason, params = exc.reason, exc.params
    if reason == "hands_deck":
        players = ngettext("for %(count)d player", "for %(count)d players", params["players"]) % {
            "count": params["players"]
        }
        hand = ngettext("with %(count)d card each", "with %(count)d cards each", params["hand"]) % {
            "count": params["hand"]
        }
        fits = [deck for deck in DECK_SIZES if deck >= params["needed"]]
        if fits:
            return gettext("%(players)s %(hand)s, the %(deck)d-card deck is needed") % {
                "players": players,
                "hand": hand,
                "deck": min(fits),
            }
        return ngettext(
            "%(players)s %(hand)s, %(needed)d card is needed, more than the largest deck "
            "(%(largest)d)",
            "%(players)s %(hand)s, %(needed)d cards are needed, more than the largest deck "
            "(%(largest)d)",
            params["needed"],
        ) % {
            "players": players,
            "hand": hand,
            "needed": params["needed"],
            "largest": max(DECK_SIZES),
        }
    if reason == "players_deck":
        return gettext(
            "%(table)s needs the 52-card deck (with 24 or 36 cards, 6 seats at most)"
        ) % {"table": table_phrase(params["players"], "nominative")}
    if reason == "players_range":
        return gettext("with %(deck)d cards a table seats 2 to %(max)d players") % {
            "deck": params["deck"],
            "max": params["max"],
        }
    if reason == "at_least_one":
        return gettext("must be at least 1")
    if reason == "pogony_range":
        return gettext("must be 1 to 4, not %(value)s") % {"value": params["value"]}
    if reason == "transfer_only":
        return gettext("only in the transfer variant")
    if reason == "simple_throw_in":
        return gettext("the simple variant has no throw-ins")
    if reason == "type":
        kind = _KINDS.get(params.get("kind", ""), params.get("kind", ""))
        return gettext("must be %(kind)s, not %(value)r") % {
            "kind": kind,
            "value": params.get("value"),
        }
    if reason == "choice":
        return gettext("must be one of %(choices)s, not %(value)r") % {
            "choices": ", ".join(str(c) for c in params.get("choices", ())),
            "value": params.get("value"),
        }
    if reason == "unknown":
        return gettext("there is no such rule")
    if reason == "not_object":
        return gettext("must be an object of rule options")
    return gettext("the game's engine refuses these rules: %(problem)s") % {"problem": exc}


# --- the pairing code's stages -------------------------------------------------------------------


def stage_problem(exc: ConfigError) -> str:
    """A refusal of the pairing code about one stage (``exc.stage``, ``exc.field``), in words;
    the stage's number is its field label's, not the message's."""
    reason, p = exc.reason, exc.params
    if reason == "no_stages":
        return gettext("a tournament needs at least one stage")
    if reason == "table_size":
        return gettext("a table seats 2 to 6, not %(size)s") % {"size": p["size"]}
    if reason == "team_size":
        return gettext("teams have 2 or 3 players, not %(team_size)s") % p
    if reason == "team_table":
        return ngettext(
            "a team table of %(team)d×%(team)d has %(seats)d seat, not %(size)d",
            "a team table of %(team)d×%(team)d has %(seats)d seats, not %(size)d",
            p["seats"],
        ) % {"team": p["team_size"], "seats": p["seats"], "size": p["size"]}
    if reason == "rounds":
        return gettext("a swiss stage needs at least one round")
    if reason == "groups":
        return gettext("a round-robin stage needs at least one group")
    if reason == "knockout":
        return gettext("say how many of each table go on")
    if reason == "knockout_advance_none":
        return gettext("at least one player of each table must go on")
    if reason == "knockout_advance_all":
        return ngettext(
            "from a table of %(size)d seat at most %(most)d go on: otherwise nobody is knocked out",
            "from a table of %(size)d seats at most %(most)d go on: otherwise nobody is "
            "knocked out",
            p["size"],
        ) % {"size": p["size"], "most": p["size"] - 1}
    if reason == "knockout_advance_half":
        return ngettext(
            "at most half of a table of %(size)d seat can go on (%(half)d): the qualifiers "
            "of two tables must fit one next table; for a bigger cut use a swiss stage that "
            "advances the top N",
            "at most half of a table of %(size)d seats can go on (%(half)d): the qualifiers "
            "of two tables must fit one next table; for a bigger cut use a swiss stage that "
            "advances the top N",
            p["size"],
        ) % {"size": p["size"], "half": p["size"] // 2}
    if reason == "knockout_not_last":
        return gettext(
            "a knockout ends with its own final table (its last round is the final), so no "
            "stage can follow it: make the knockout the last stage"
        )
    if reason == "knockout_advances":
        return gettext("a knockout ends with its final table: nobody goes on from it")
    if reason == "advance_rule":
        return gettext("advance either the top N overall or the top K of each table")
    if reason == "advance_none":
        return gettext("at least one entry must go on")
    if reason == "advance_per_table":
        return (
            ngettext(
                "%(advance)d per table cannot go on from a table of %(size)d seat",
                "%(advance)d per table cannot go on from a table of %(size)d seats",
                p["size"],
            )
            % p
        )
    if reason == "last_advances":
        return gettext("this is the last stage: there is no stage to advance to")
    if reason == "no_advance":
        return gettext("say who advances to stage %(next)d") % p
    if reason == "too_few_entries":
        return (
            ngettext(
                "only %(entries)d entry would reach this stage; it needs at least 2",
                "only %(entries)d entries would reach this stage; it needs at least 2",
                p["entries"],
            )
            % p
        )
    if reason == "groups_unfilled":
        return (
            ngettext(
                "%(entries)d entry cannot fill %(groups)d groups of at least 2",
                "%(entries)d entries cannot fill %(groups)d groups of at least 2",
                p["entries"],
            )
            % p
        )
    if reason == "advance_over_entries":
        return (
            ngettext(
                "%(top)d are to advance but the stage has only %(entries)d entry",
                "%(top)d are to advance but the stage has only %(entries)d entries",
                p["entries"],
            )
            % p
        )
    if reason == "advance_over_group":
        return (
            ngettext(
                "%(advance)d per group cannot go on: the smallest group has %(smallest)d entry",
                "%(advance)d per group cannot go on: the smallest group has %(smallest)d entries",
                p["smallest"],
            )
            % p
        )
    return gettext("the pairing code refuses this stage: %(problem)s") % {"problem": exc}


# --- the scoring tables and the prize pool --------------------------------------------------------


def scoring_problem(exc: ScoringError) -> str:
    """A refusal of a stage's scoring (its points by place, penalty, bye, tie-breaks)."""
    code, p = exc.code, exc.params
    if code in ("table_length", "table_negative", "table_increases"):
        table = table_phrase(p["size"])
        if code == "table_length":
            return ngettext(
                "%(table)s needs one value for each place, %(size)d in all, not %(count)d",
                "%(table)s needs one value for each place, %(size)d in all, not %(count)d",
                p["size"],
            ) % {"table": table, "size": p["size"], "count": p["count"]}
        if code == "table_negative":
            return gettext("the points of %(table)s must not be negative") % {"table": table}
        return gettext(
            "the points of %(table)s must not increase: a worse place cannot score more"
        ) % {"table": table}
    if code == "table_size":
        return gettext("a table size is a whole number from 1, not %(size)r") % p
    if code == "penalty_negative":
        return gettext("the pogony penalty must not be negative (it is subtracted)")
    if code == "bye_negative":
        return gettext("the points for a bye must not be negative")
    if code == "tie_break_unknown":
        return gettext("there is no tie-break %(name)r") % p
    if code == "tie_break_twice":
        return gettext("a tie-break is listed twice")
    return gettext("the points cannot be counted: %(problem)s") % {"problem": exc}


def pool_problem(exc: ScoringError) -> str:
    """A refusal of the prize pool (the rake, an amount, the payout percentages)."""
    code, p = exc.code, exc.params
    if code == "payout_sum":
        return gettext(
            "the payout percentages must add up to exactly 100%%; now they add up to %(total)s%%"
        ) % {"total": p["total"]}
    if code == "payout_negative":
        return gettext("the payout percentages must not be negative")
    if code == "payout_empty":
        return gettext("a payout structure pays at least one place")
    if code == "rake_range":
        return gettext("the rake is a percentage from 0 to 100")
    if code == "minor_units":
        unit = Decimal(1).scaleb(-int(p["exponent"]))
        return gettext(
            "%(amount)s %(currency)s cannot be paid: the smallest amount in %(currency)s is "
            "%(unit)s"
        ) % {"amount": p["amount"], "currency": p["currency"], "unit": unit}
    if code == "negative":
        return gettext("must not be negative")
    return gettext("the prize pool cannot be worked out: %(problem)s") % {"problem": exc}
