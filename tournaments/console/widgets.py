"""Small widget helpers shared by the console's forms."""

from __future__ import annotations

from typing import Any

from django import forms


def number_input(width: str = "6em", **attrs: Any) -> forms.NumberInput:
    """A number box ``width`` wide (the admin's default is too wide for counts)."""
    return forms.NumberInput(attrs={"style": f"width: {width}", **attrs})
