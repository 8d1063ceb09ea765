"""``{{ amount|money:currency }}``: an amount in a template as every face shows money
(:func:`tournaments.money.money`: to the currency's minor unit, in the reader's language)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import template

from tournaments.money import money as money_text

register = template.Library()


@register.filter
def money(amount: Any, currency: str) -> str:
    """``amount`` in ``currency``: "1 000,00 ₽"; "" for no amount or one that is not a number."""
    if amount is None or amount == "":
        return ""
    try:
        return money_text(Decimal(str(amount)), str(currency))
    except InvalidOperation:
        return ""
