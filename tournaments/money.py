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
    "1,440.00 RUB" in English. How every face shows money; the API keeps amounts as data.

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     money(Decimal("1000.000"), "JPY"), money(Decimal("1261.345"), "KWD")
    ('1,000\xa0JPY', '1,261.345\xa0KWD')
    """
    amount = Decimal(amount)
    try:
        places = currency(code).exponent
    except ScoringError:  # a code the scoring does not know: as stored, without trailing zeros
        amount = amount.normalize()
        places = max(0, -int(amount.as_tuple().exponent))
    # Rounded here: number_format cuts the digits beyond ``places`` off.
    amount = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{number_format(amount, places, force_grouping=True)}\u00a0{currency_sign(code)}"


def currency_sign(code: str) -> str:
    """The sign a reader of the active language writes after an amount of ``code``: its own
    where the catalogue has one ("₽" for RUB in Russian), else the ISO code ("RUB")."""
    return pgettext("currency sign", code.upper())
