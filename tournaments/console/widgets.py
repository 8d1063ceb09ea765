"""Small widget and field helpers shared by the console's forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms


def number_input(width: str = "6em", **attrs: Any) -> forms.NumberInput:
    """A number box ``width`` wide (the admin's default is too wide for counts)."""
    return forms.NumberInput(attrs={"style": f"width: {width}", **attrs})


def lock_field(field: forms.Field, reason: str) -> None:
    """Show ``field`` disabled, with why it is locked as its help."""
    field.disabled = True
    field.help_text = reason


def refuse_locked(form: forms.Form, reason: Callable[[str], str]) -> None:
    """Refuse, at its field with why (``reason(name)``), a value sent for a disabled field
    that differs from its initial one: a browser sends none, so it is a request made by hand,
    which must not look accepted (a disabled field keeps its initial value whatever is sent)."""
    for name, field in form.fields.items():
        key = form.add_prefix(name)
        if not field.disabled or key not in form.data:
            continue
        sent = field.widget.value_from_datadict(form.data, form.files, key)
        try:
            changed = field.clean(sent) != field.clean(form.get_initial_for_field(field, name))
        except forms.ValidationError:
            changed = True
        if changed:
            form.add_error(name, reason(name))
