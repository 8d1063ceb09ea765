"""A service's refusal shown on a Django form: used by every face that has forms (the console's
pages and the public site's account pages), so it lives below them."""

from __future__ import annotations

from collections.abc import Mapping

from django import forms

from durak_site.errors import ServiceError

__all__ = ["form_error"]


def form_error(form: forms.BaseForm, exc: ServiceError) -> None:
    """A service's refusal on the form: each message on the field it names when the form has
    that field, the rest (and a refusal naming no field) above the form."""
    placed = False
    if isinstance(exc.fields, Mapping):
        for name, detail in exc.fields.items():
            if name in form.fields and name not in form.errors:
                for message in detail if isinstance(detail, list) else [detail]:
                    form.add_error(name, str(message))
                placed = True
    if not placed:
        form.add_error(None, exc.message)
