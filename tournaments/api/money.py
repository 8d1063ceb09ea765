"""Money in the API: a string with exactly the minor-unit digits of its currency ("1261.34" in
RUB, "1000" in JPY, "2.500" in KWD), written by :func:`tournaments.money.amount_text`, the
one place that rounds an amount for a reader (the pages' ``|money`` filter rounds the same way).

A string, not a JSON number: a float would lose the exact cents, and a fixed count of
decimals for every currency (the database keeps three) would show RUB with a digit it does
not have. The currency's ISO 4217 code is always beside it, in the same object.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tournaments.money import amount_text

#: Digits, then the minor unit's digits after a point when the currency has one.
MONEY_PATTERN = r"^-?[0-9]+(\.[0-9]+)?$"


@extend_schema_field(
    {
        "type": "string",
        "format": "decimal",
        "pattern": MONEY_PATTERN,
        "example": "1261.34",
        "description": "An amount of the currency named beside it (`currency`), with exactly "
        "its minor-unit digits (ISO 4217): 2 for RUB, EUR, USD; 0 for JPY; 3 for KWD.",
    }
)
class MoneyField(serializers.Field):  # type: ignore[type-arg]
    """An amount as the string :func:`~tournaments.money.amount_text` writes, in the currency
    named by the key ``currency`` of the same object (read-only).

    The value is the row's amount (a ``Decimal``, or ``None`` with ``allow_null``); its
    currency is looked up in the object that holds it, so that the amount and its code cannot
    part.
    """

    def __init__(self, *, currency: str = "currency", **kwargs: Any) -> None:
        kwargs["read_only"] = True
        super().__init__(**kwargs)
        self.currency_key = currency

    def get_attribute(self, instance: Any) -> Any:
        amount = super().get_attribute(instance)
        if amount is None:
            return None
        code = (
            instance.get(self.currency_key)
            if isinstance(instance, dict)
            else getattr(instance, self.currency_key, None)
        )
        if not code:
            raise ValueError(f"{self.field_name}: no `{self.currency_key}` beside the amount")
        return amount, str(code)

    def to_representation(self, value: tuple[Decimal | int | str, str]) -> str:
        amount, code = value
        return amount_text(amount, code)
