"""A service's refusal shown on a Django form: used by every face that has forms (the console's
pages and the public site's account pages), so it lives below them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from durak_site.errors import ServiceError
from tournaments.plan_schema import error_lines
from tournaments.plan_words import field_label

__all__ = ["form_error"]


def form_error(form: forms.BaseForm, exc: ServiceError) -> None:
    """A service's refusal on the form: each message on the field it names when the form has
    that field, the rest (and a refusal naming no field) above the form."""
    placed = False
    if isinstance(exc.fields, Mapping):
        for name, detail in exc.fields.items():
            if name in form.fields and name not in form.errors:
                for message in _messages(str(name), detail):
                    form.add_error(name, message)
                placed = True
    if not placed:
        form.add_error(None, exc.message)


def _messages(name: str, detail: Any) -> list[str]:
    """One field's messages; nested errors (a plan's rules by option, its payouts by place)
    each after the part of the field it is about, in words."""
    if not isinstance(detail, (Mapping, list)):
        return [str(detail)]
    base = field_label((name,))
    lines = []
    for path, message in error_lines(detail, (name,)):
        label = field_label(path).removeprefix(base).removeprefix(", ")
        lines.append(f"{label[:1].upper()}{label[1:]}: {message}" if label else message)
    return lines
