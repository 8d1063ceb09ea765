"""How every face writes an amount of money: to the currency's minor unit, grouped as the
reader's language groups digits, with the currency's sign in that language. Apart from
``tournaments.wording`` (which re-exports it) so that the models can name an amount too."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.utils.formats import number_format
from django.utils.translation import pgettext

from tournaments.scoring.errors import ScoringError
from tournaments.scoring.prizes import currency


def money(amount: Decimal | int | str, code: str) -> str:
    """``amount`` in the currency ``code``, to the currency's minor unit (2 decimals for RUB,
    none for JPY, 3 for KWD), grouped as the reader's language groups digits, with the
    currency's sign in that language (:func:`currency_sign`): "1 440,00 ₽" in Russian,
    "1,440.00 RUB" in English. How every face shows money; the API writes amounts as data
    (:func:`amount_text`), to the same minor unit.

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     money(Decimal("1000.000"), "JPY"), money(Decimal("1261.345"), "KWD")
    ('1,000\xa0JPY', '1,261.345\xa0KWD')
    """
    amount, places = to_minor_unit(amount, code)
    return f"{number_format(amount, places, force_grouping=True)}\u00a0{currency_sign(code)}"


def to_minor_unit(amount: Decimal | int | str, code: str) -> tuple[Decimal, int]:
    """``amount`` rounded (half up) to the minor unit of the currency ``code``, and the number
    of its digits after the point (2 for RUB, 0 for JPY, 3 for KWD). A code the scoring does
    not know keeps the amount as stored, without trailing zeros.

    >>> to_minor_unit(Decimal("1261.340"), "RUB"), to_minor_unit("1000.000", "JPY")
    ((Decimal('1261.34'), 2), (Decimal('1000'), 0))
    """
    amount = Decimal(amount)
    try:
        places = currency(code).exponent
    except ScoringError:  # a code the scoring does not know: as stored, without trailing zeros
        amount = amount.normalize()
        places = max(0, -int(amount.as_tuple().exponent))
    # Rounded here: number_format cuts the digits beyond ``places`` off.
    return amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP), places


def amount_text(amount: Decimal | int | str, code: str) -> str:
    """``amount`` as data: a plain decimal string with exactly the minor-unit digits of
    ``code``, no grouping, no sign of the currency. What the API and the exports write.

    >>> amount_text(Decimal("1261.340"), "RUB"), amount_text("1000.000", "JPY")
    ('1261.34', '1000')
    >>> amount_text("2.5", "KWD")
    '2.500'
    """
    value, places = to_minor_unit(amount, code)
    return f"{value or abs(value):.{places}f}"  # no "-0.00"


def currency_sign(code: str) -> str:
    """The sign a reader of the active language writes after an amount of ``code``: its own
    where the catalogue has one ("₽" for RUB in Russian), else the ISO code ("RUB")."""
    return pgettext("currency sign", code.upper())
