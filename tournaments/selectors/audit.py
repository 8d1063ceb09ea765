"""The audit log in words: an ``AuditEvent``'s stored before and after (JSON, as the services
wrote them) as rows a person reads, in the reader's language.

Each changed value becomes a :class:`ChangeRow`: the setting's name (the model field's verbose
name, or the name of what the service recorded), and its value before and after in words:
yes/no for a flag, a choice's label for a status, money to the currency's minor unit, a league
by its name, referees by their names, a payout structure as shares by place, a rule set by its
options' labels, "—" for nothing. The stored rows are not changed: a value this module does not
know is shown as stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models
from django.utils import formats, timezone
from django.utils.dateparse import parse_datetime
from django.utils.functional import Promise
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournaments.models import AuditEvent, League, TableResult
from tournaments.money import money
from tournaments.plan_options import rule_label, rule_value_text
from tournaments.wording import (
    compromise_lines,
    payout_shares,
    points_text,
    stage_name,
    table_name,
    yes_no,
)

NOTHING = "—"

#: Amounts of money, by the name the services record them under.
MONEY = frozenset({"entry_fee", "reentry_fee", "guarantee", "amount", "gross", "rake", "total"})

#: What a service records that is no field of its target.
LABELS: dict[str, Promise] = {
    "places": _("Places (first out first)"),
    "fool": _("Fool"),
    "pogony": _("Pogony"),
    "compromises": _("Compromises"),
    "members": _("Members"),
    "seat": _("Seat"),
    "player": _("Player"),
    "bot": pgettext_lazy("move made by", "Bot"),
    "stages": _("Stages"),
    "line": _("Line"),
    "new_player": _("New player"),
    "failures": _("Failures"),
}


@dataclass(frozen=True)
class ChangeRow:
    """One changed value: what it is, and its value before and after, in words."""

    label: str
    before: str
    after: str


def _subject(event: AuditEvent) -> type[models.Model] | None:
    """The model whose fields the event's values are (a result's are the result's, though its
    target is the table)."""
    if event.action.startswith("result."):
        return TableResult
    for app in ("tournaments", "games"):
        try:
            return apps.get_model(app, event.target_type)
        except LookupError:
            continue
    return None


def _field(model: type[models.Model] | None, key: str) -> Any:
    if model is None:
        return None
    try:
        return model._meta.get_field(key)
    except Exception:  # FieldDoesNotExist: something the service recorded besides the fields
        return None


def _label(model: type[models.Model] | None, key: str) -> str:
    if key.isdigit():  # a seat swap records the players of each table by its number
        return table_name(int(key))
    if key in LABELS:
        return str(LABELS[key])
    field = _field(model, key)
    name = getattr(field, "verbose_name", None)
    return str(capfirst(name)) if name else key


def _empty(value: Any) -> bool:
    return value is None or value in ("", [], {})


class _Words:
    """The values of one event in words (the event's currency, the users it names)."""

    def __init__(self, event: AuditEvent, model: type[models.Model] | None) -> None:
        self.model = model
        sides = [v for v in (event.before, event.after) if isinstance(v, Mapping)]
        stated = next((str(s["currency"]) for s in sides if s.get("currency")), "")
        tournament = event.tournament
        self.currency = stated or (tournament.currency if tournament is not None else "")
        self.users = _user_names(
            name for side in sides for name in side.get("referees") or [] if isinstance(name, str)
        )

    def __call__(self, key: str, value: Any) -> str:
        if _empty(value):
            return NOTHING
        field = _field(self.model, key)
        if isinstance(value, bool):
            return yes_no(value)
        if key in MONEY and self.currency:
            amount = _decimal(value)
            if amount is not None:
                return money(amount, self.currency)
        if key == "rake_percent":
            amount = _decimal(value)
            return f"{points_text(amount)} %" if amount is not None else str(value)
        if key == "payout_structure" and isinstance(value, list):
            return payout_shares(value)
        if key == "rules" and isinstance(value, Mapping):
            return "; ".join(
                f"{rule_label(name)}: {rule_value_text(name, v)}" for name, v in value.items()
            )
        if key == "league":
            return _league(value)
        if key == "referees" and isinstance(value, list):
            return ", ".join(self.users.get(str(name), str(name)) for name in value)
        if key == "places" and isinstance(value, list):
            return ", ".join(f"{n}. {name}" for n, name in enumerate(value, 1))
        if key == "compromises":
            return "; ".join(compromise_lines(value)) or NOTHING
        if key == "stages" and isinstance(value, list):
            return ", ".join(_stage(stage) for stage in value)
        if key == "pogony" and isinstance(value, list):
            return "; ".join(str(v) for v in value)
        if getattr(field, "choices", None):
            labels = {str(k): str(v) for k, v in field.flatchoices}
            return labels.get(str(value), str(value))
        if isinstance(field, models.DateTimeField) and isinstance(value, str):
            return _moment(value)
        return self.plain(value)

    def plain(self, value: Any) -> str:
        """A value with no meaning of its own: a list or mapping of its parts, a number, text."""
        if _empty(value):
            return NOTHING
        if isinstance(value, bool):
            return yes_no(value)
        if isinstance(value, list):
            return ", ".join(self.plain(v) for v in value)
        if isinstance(value, Mapping):
            return "; ".join(f"{k}: {self.plain(v)}" for k, v in value.items())
        if isinstance(value, (int, float)):
            return str(formats.number_format(value))
        return str(value)


def _decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def _league(value: Any) -> str:
    """A league as recorded: ``{"id": .., "name": ..}`` by its name, an id by the league's."""
    if isinstance(value, Mapping):
        return str(value.get("name") or value.get("id") or NOTHING)
    if isinstance(value, int):
        league = League.objects.filter(pk=value).first()
        return str(league) if league is not None else f"#{value}"
    return str(value)


def _stage(stage: Any) -> str:
    if not isinstance(stage, Mapping):
        return str(stage)
    return stage_name(str(stage.get("name") or ""), str(stage.get("format") or ""))


def _moment(value: str) -> str:
    moment = parse_datetime(value)
    if moment is None:
        return value
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)
    return str(formats.date_format(moment, "SHORT_DATETIME_FORMAT"))


def _user_names(usernames: Iterable[str]) -> dict[str, str]:
    """People by the usernames the log records: their full names where they have one."""
    wanted = set(usernames)
    if not wanted:
        return {}
    users = get_user_model().objects.filter(username__in=wanted)
    return {user.get_username(): user.get_full_name() or user.get_username() for user in users}


def audit_change_rows(event: AuditEvent) -> list[ChangeRow]:
    """The values ``event`` changed, in words, in the order the service recorded them (a value
    only after, as when something was created, has "—" before)."""
    model = _subject(event)
    words = _Words(event, model)
    before, after = event.before, event.after
    if not isinstance(before, (Mapping, type(None))) or not isinstance(
        after, (Mapping, type(None))
    ):
        return [ChangeRow("", words.plain(before), words.plain(after))]
    before, after = before or {}, after or {}
    keys = [*before, *(key for key in after if key not in before)]
    return [
        ChangeRow(_label(model, key), words(key, before.get(key)), words(key, after.get(key)))
        for key in keys
    ]
