"""The prize pool (призовой фонд) and its payouts, exactly, in a named currency (tournaments.md).

Exact: amounts are ``Decimal`` in whole minor units of a :class:`Currency`, and the payouts add
up to the pool exactly. The readings (rake rounding, guarantee, default structure, ties, odd
units) are in ``docs/readings.md`` ("The prize pool and payouts").

>>> rub = currency("RUB")
>>> rules = PoolRules(currency=rub, rake_percent=Decimal("10"))
>>> payments = [Payment("entry", Decimal("100.00"))] * 7
>>> report = compute_prizes(rules, payments, final_places=[("a", 1), ("b", 2), ("c", 2),
...                         ("d", 4), ("e", 5), ("f", 6), ("g", 7)])
>>> str(report.pool.total), [str(p.amount) for p in report.by_place]
('630.00', ['420.00', '210.00'])
>>> [(a.entry, str(a.amount)) for a in report.awards if a.amount]
[('a', '420.00'), ('b', '105.00'), ('c', '105.00')]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from tournaments.scoring._common import Exact, place_groups, to_fraction
from tournaments.scoring.errors import PrizeError

__all__ = [
    "ISO_4217_EXPONENTS",
    "Award",
    "Currency",
    "Payment",
    "PaymentKind",
    "PayoutStructure",
    "PlacePayout",
    "Pool",
    "PoolRules",
    "PrizeReport",
    "compute_prizes",
    "currency",
    "distribute",
    "prize_pool",
]

# Minor-unit exponents of ISO 4217 for the currencies a Durak league is likely to meet; any other
# code works with an explicit exponent (currency("XTS", 2)).
ISO_4217_EXPONENTS: dict[str, int] = {
    "RUB": 2, "BYN": 2, "KZT": 2, "UAH": 2, "UZS": 2, "KGS": 2, "TJS": 2, "AMD": 2, "AZN": 2,
    "GEL": 2, "MDL": 2, "TMT": 2, "USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "CAD": 2, "AUD": 2,
    "NZD": 2, "CNY": 2, "HKD": 2, "SGD": 2, "INR": 2, "ILS": 2, "TRY": 2, "PLN": 2, "CZK": 2,
    "HUF": 2, "SEK": 2, "NOK": 2, "DKK": 2, "RSD": 2, "BGN": 2, "RON": 2, "AED": 2, "SAR": 2,
    "QAR": 2, "EGP": 2, "ZAR": 2, "BRL": 2, "MXN": 2, "ARS": 2, "THB": 2, "MYR": 2, "PHP": 2,
    "JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "PYG": 0, "UGX": 0, "XAF": 0, "XOF": 0,
    "KWD": 3, "BHD": 3, "OMR": 3, "JOD": 3, "TND": 3, "LYD": 3, "IQD": 3,
}  # fmt: skip

PaymentKind = Literal["entry", "re_entry", "add_on"]
PAYMENT_KINDS: tuple[PaymentKind, ...] = ("entry", "re_entry", "add_on")
HUNDRED = Fraction(100)


@dataclass(frozen=True)
class Currency:
    """A currency code and its minor-unit exponent (2: cents/kopeks, 0: yen, 3: fils).

    >>> Currency("KWD", 3).quantum
    Decimal('0.001')
    """

    code: str
    exponent: int

    def __post_init__(self) -> None:
        if not (len(self.code) == 3 and self.code.isascii() and self.code.isalpha()):
            raise PrizeError(f"a currency code is three letters, not {self.code!r}")
        object.__setattr__(self, "code", self.code.upper())
        if isinstance(self.exponent, bool) or not 0 <= self.exponent <= 6:
            raise PrizeError(
                f"minor-unit exponent of {self.code} must be 0..6, not {self.exponent}"
            )

    @property
    def quantum(self) -> Decimal:
        """The minor unit as a Decimal (``Decimal('0.01')`` for RUB)."""
        return Decimal(1).scaleb(-self.exponent)

    def to_units(self, amount: Decimal | int | str, what: str) -> int:
        """``amount`` in whole minor units; refuses fractions of a minor unit and negatives."""
        if isinstance(amount, (bool, float)):
            raise PrizeError(f"{what} must be a Decimal, not {amount!r}")
        value = Decimal(amount)
        if not value.is_finite():
            raise PrizeError(f"{what} must be a finite amount, not {amount}")
        units = value.scaleb(self.exponent)
        if units != units.to_integral_value():
            raise PrizeError(
                f"{what} {amount} {self.code} is not a whole number of minor units",
                code="minor_units",
                params={"amount": str(amount), "currency": self.code, "exponent": self.exponent},
            )
        if units < 0:
            raise PrizeError(
                f"{what} must not be negative, got {amount} {self.code}", code="negative"
            )
        return int(units)

    def from_units(self, units: int) -> Decimal:
        """Minor units back to a Decimal amount with exactly ``exponent`` decimals."""
        return Decimal(units).scaleb(-self.exponent).quantize(self.quantum)


def currency(code: str, exponent: int | None = None) -> Currency:
    """The currency ``code``, with the ISO 4217 exponent unless ``exponent`` is given.

    >>> currency("jpy")
    Currency(code='JPY', exponent=0)
    >>> currency("XTS", 2).exponent
    2
    """
    upper = code.upper()
    if exponent is None:
        if upper not in ISO_4217_EXPONENTS:
            raise PrizeError(f"unknown currency {code!r}: pass its minor-unit exponent")
        exponent = ISO_4217_EXPONENTS[upper]
    return Currency(upper, exponent)


@dataclass(frozen=True)
class PoolRules:
    """A tournament's prize-pool rules: rake in percent (0..100), optional guaranteed minimum."""

    currency: Currency
    rake_percent: Decimal = Decimal(0)
    guaranteed_minimum: Decimal | None = None
    re_entries: bool = False
    add_ons: bool = False

    def __post_init__(self) -> None:
        rake = to_fraction(self.rake_percent, "the rake percentage", PrizeError)
        if not 0 <= rake <= HUNDRED:
            raise PrizeError(
                f"the rake must be between 0 and 100 percent, not {self.rake_percent}",
                code="rake_range",
            )
        if self.guaranteed_minimum is not None:
            self.currency.to_units(self.guaranteed_minimum, "the guaranteed minimum")


@dataclass(frozen=True)
class Payment:
    """One paid fee: an entry, a re-entry or an add-on (refunded fees are simply not passed)."""

    kind: PaymentKind
    amount: Decimal

    def __post_init__(self) -> None:
        if self.kind not in PAYMENT_KINDS:
            raise PrizeError(f"unknown payment kind {self.kind!r}; choose from {PAYMENT_KINDS}")


@dataclass(frozen=True)
class Pool:
    """The prize pool, every step shown: ``total = net + topup``, ``net = gross - rake``."""

    currency: Currency
    gross: Decimal
    rake: Decimal
    net: Decimal
    topup: Decimal
    total: Decimal


def prize_pool(rules: PoolRules, payments: Sequence[Payment]) -> Pool:
    """The pool from the paid fees, less the rake (rounded down), raised to the guarantee.

    >>> rules = PoolRules(currency=currency("RUB"), rake_percent=Decimal("12.5"),
    ...                   guaranteed_minimum=Decimal("1000"))
    >>> pool = prize_pool(rules, [Payment("entry", Decimal("333.33"))] * 3)
    >>> pool.gross, pool.rake, pool.net, pool.total
    (Decimal('999.99'), Decimal('124.99'), Decimal('875.00'), Decimal('1000.00'))
    """
    cur = rules.currency
    gross = 0
    for i, payment in enumerate(payments):
        if payment.kind == "re_entry" and not rules.re_entries:
            raise PrizeError("a re-entry was paid but re-entries are not enabled")
        if payment.kind == "add_on" and not rules.add_ons:
            raise PrizeError("an add-on was paid but add-ons are not enabled")
        gross += cur.to_units(payment.amount, f"payment #{i + 1}")
    rake_fraction = to_fraction(rules.rake_percent, "the rake percentage", PrizeError) / HUNDRED
    # Floor: the part of a minor unit the rake cannot take stays with the players.
    rake = math.floor(gross * rake_fraction)
    net = gross - rake
    guarantee = (
        0
        if rules.guaranteed_minimum is None
        else cur.to_units(rules.guaranteed_minimum, "the guaranteed minimum")
    )
    total = max(net, guarantee)
    return Pool(
        currency=cur,
        gross=cur.from_units(gross),
        rake=cur.from_units(rake),
        net=cur.from_units(net),
        topup=cur.from_units(total - net),
        total=cur.from_units(total),
    )


@dataclass(frozen=True)
class PayoutStructure:
    """Shares of the pool by place (1st first), exact fractions that add up to 1.

    Build it with :meth:`from_percentages` or :meth:`default`.

    >>> [str(s) for s in PayoutStructure.default(20).shares]
    ['6/11', '3/11', '2/11']
    >>> PayoutStructure.from_percentages(["50", "30", "15"])
    Traceback (most recent call last):
    ...
    tournaments.scoring.errors.PrizeError: payout percentages must add up to exactly 100, not 95
    """

    shares: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        shares = tuple(self.shares)
        if not shares:
            raise PrizeError("a payout structure pays at least one place")
        if any(s < 0 for s in shares):
            raise PrizeError("payout shares must not be negative")
        # Summed over one common denominator: adding 1,500 fractions one by one (the default
        # scale of a 10,000-entry field) reduces each partial sum, 23 ms; this, 2 ms.
        exact = [Fraction(s) for s in shares]
        common = math.lcm(*(s.denominator for s in exact))
        if sum(s.numerator * (common // s.denominator) for s in exact) != common:
            raise PrizeError("payout shares must add up to exactly the whole pool")
        object.__setattr__(self, "shares", shares)

    @classmethod
    def from_percentages(cls, percentages: Sequence[Exact]) -> PayoutStructure:
        """Explicit percentages by place; they must add up to exactly 100."""
        values = [
            to_fraction(p, f"the percentage for place {i + 1}", PrizeError)
            for i, p in enumerate(percentages)
        ]
        if not values:
            raise PrizeError("a payout structure pays at least one place", code="payout_empty")
        if any(v < 0 for v in values):
            raise PrizeError("payout percentages must not be negative", code="payout_negative")
        total = sum(values, Fraction(0))
        if total != HUNDRED:
            shown = total.numerator if total.denominator == 1 else float(total)
            raise PrizeError(
                f"payout percentages must add up to exactly 100, not {shown}",
                code="payout_sum",
                params={"total": str(shown)},
            )
        return cls(tuple(v / HUNDRED for v in values))

    @classmethod
    def default(cls, field_size: int) -> PayoutStructure:
        """Pay ``ceil(15%)`` of the field (at least 1 place), place ``i`` weighted ``1/i``."""
        if field_size < 0:
            raise PrizeError(f"the field size cannot be negative, got {field_size}")
        paid = max(1, -(-field_size * 15 // 100))
        weights = [Fraction(1, place) for place in range(1, paid + 1)]
        total = sum(weights, Fraction(0))
        return cls(tuple(w / total for w in weights))

    @property
    def percentages(self) -> tuple[Decimal, ...]:
        """The shares as percentages rounded to 0.01 for display (the payout math stays exact)."""
        return tuple(
            (Decimal(s.numerator) * 100 / Decimal(s.denominator)).quantize(Decimal("0.01"))
            for s in self.shares
        )


@dataclass(frozen=True)
class PlacePayout:
    """The payout of one place when nobody is tied (the provisional table)."""

    place: int
    amount: Decimal


@dataclass(frozen=True)
class Award:
    """What one entry receives; ``tied`` is how many entries shared its place (1 if alone)."""

    entry: str
    place: int
    amount: Decimal
    tied: int


@dataclass(frozen=True)
class PrizeReport:
    """The pool, the structure used, the payout by place and, when final, the awards."""

    pool: Pool
    structure: PayoutStructure
    by_place: tuple[PlacePayout, ...]
    awards: tuple[Award, ...]
    final: bool


def _group_units(
    total: int, shares: tuple[Fraction, ...], groups: Sequence[tuple[int, int]], field: int
) -> list[int]:
    """Minor units of each ``(first_place, size)`` group; they add up to ``total`` exactly."""
    # Places beyond the field cannot be collected: scale the existing ones up to the whole pool.
    live = shares[:field]
    live_total = sum(live, Fraction(0))
    if live_total == 0:
        live, live_total = (Fraction(1),), Fraction(1)
    amounts: list[int] = []
    for first, size in groups:
        share = sum(live[first - 1 : first - 1 + size], Fraction(0)) / live_total
        amounts.append(math.floor(total * share))
    # The units lost to flooring go to the best place (tournaments.md: "the remainder goes to the
    # highest tied/paid place"); the first group always holds place 1.
    amounts[0] += total - sum(amounts)
    return amounts


def distribute(
    pool: Pool, structure: PayoutStructure, final_places: Sequence[tuple[str, int]]
) -> tuple[Award, ...]:
    """Award ``pool.total`` to entries by final place (competition ranking, ties allowed).

    Every entry gets an :class:`Award` (0 if unpaid), in place order, ties in the order given.

    >>> pool = prize_pool(PoolRules(currency("USD")), [Payment("entry", Decimal("1.00"))])
    >>> half = PayoutStructure.from_percentages([50, 50])
    >>> [str(a.amount) for a in distribute(pool, half, [("x", 1), ("y", 1), ("z", 1)])]
    ['0.34', '0.33', '0.33']
    """
    if not final_places:
        raise PrizeError("there are no final places to pay")
    groups = place_groups(final_places, PrizeError)
    cur = pool.currency
    total = cur.to_units(pool.total, "the pool")
    units = _group_units(
        total, structure.shares, [(first, len(m)) for first, m in groups], len(final_places)
    )
    awards: list[Award] = []
    for (first, members), group_total in zip(groups, units, strict=True):
        each, extra = divmod(group_total, len(members))
        for i, entry in enumerate(members):
            amount = each + (1 if i < extra else 0)
            awards.append(Award(entry, first, cur.from_units(amount), len(members)))
    return tuple(awards)


def compute_prizes(
    rules: PoolRules,
    payments: Sequence[Payment],
    *,
    final_places: Sequence[tuple[str, int]] | None = None,
    field_size: int | None = None,
    structure: PayoutStructure | None = None,
) -> PrizeReport:
    """The whole prize computation, provisional or final; the job calls only this.

    - provisional (registration open): pass the payments so far and ``field_size`` (current
      entries); ``by_place`` shows what each place would pay, ``awards`` is empty;
    - final: pass ``final_places`` as ``(entry, place)`` in standings order; ``field_size``
      defaults to their number.

    ``structure`` defaults to :meth:`PayoutStructure.default` for the field size.

    >>> rules = PoolRules(currency=currency("JPY"))
    >>> report = compute_prizes(rules, [Payment("entry", Decimal(1000))] * 10, field_size=10)
    >>> [(p.place, str(p.amount)) for p in report.by_place], report.final
    ([(1, '6667'), (2, '3333')], False)
    """
    if final_places is not None and field_size is None:
        field_size = len(final_places)
    if field_size is None:
        raise PrizeError("pass field_size (provisional) or final_places (final)")
    if field_size < 0:
        raise PrizeError(f"the field size cannot be negative, got {field_size}")
    pool = prize_pool(rules, payments)
    chosen = structure if structure is not None else PayoutStructure.default(field_size)
    cur = pool.currency
    places = max(1, min(field_size, len(chosen.shares)))
    table_units = _group_units(
        cur.to_units(pool.total, "the pool"),
        chosen.shares,
        [(p, 1) for p in range(1, places + 1)],
        max(1, field_size),
    )
    by_place = tuple(
        PlacePayout(place, cur.from_units(units)) for place, units in enumerate(table_units, 1)
    )
    awards = () if final_places is None else distribute(pool, chosen, final_places)
    return PrizeReport(
        pool=pool,
        structure=chosen,
        by_place=by_place,
        awards=awards,
        final=final_places is not None,
    )
