"""The prize pool: exact money, rake, guarantee, payout structures, ties and rounding."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tournaments.scoring import (
    Currency,
    Payment,
    PayoutStructure,
    PoolRules,
    PrizeError,
    compute_prizes,
    currency,
    distribute,
    prize_pool,
)

RUB = currency("RUB")


def fees(amount: str, count: int, kind: str = "entry") -> list[Payment]:
    return [Payment(kind, Decimal(amount))] * count  # type: ignore[arg-type]


# --- currencies -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "exponent"), [("RUB", 2), ("USD", 2), ("EUR", 2), ("JPY", 0), ("KWD", 3)]
)
def test_iso_exponents(code: str, exponent: int) -> None:
    assert currency(code).exponent == exponent
    assert currency(code.lower()) == Currency(code, exponent)


def test_unknown_currency_needs_an_exponent() -> None:
    with pytest.raises(PrizeError, match="pass its minor-unit exponent"):
        currency("XTS")
    assert currency("XTS", 4).quantum == Decimal("0.0001")


def test_fractions_of_a_minor_unit_and_floats_are_refused() -> None:
    with pytest.raises(PrizeError, match="whole number of minor units"):
        prize_pool(PoolRules(RUB), fees("10.005", 1))
    with pytest.raises(PrizeError, match="whole number of minor units"):
        prize_pool(PoolRules(currency("JPY")), fees("0.5", 1))
    with pytest.raises(PrizeError, match="must be a Decimal"):
        prize_pool(PoolRules(RUB), [Payment("entry", 10.5)])  # type: ignore[arg-type]
    with pytest.raises(PrizeError, match="negative"):
        prize_pool(PoolRules(RUB), fees("-1", 1))


# --- the pool -------------------------------------------------------------------------------


def test_rake_is_rounded_down_in_the_players_favour() -> None:
    pool = prize_pool(PoolRules(RUB, rake_percent=Decimal("10")), fees("0.99", 1))
    assert (pool.gross, pool.rake, pool.total) == (
        Decimal("0.99"),
        Decimal("0.09"),
        Decimal("0.90"),
    )


def test_guarantee_raises_the_pool_and_shows_the_topup() -> None:
    rules = PoolRules(RUB, rake_percent=Decimal(20), guaranteed_minimum=Decimal("5000"))
    small = prize_pool(rules, fees("1000", 4))
    assert (small.net, small.topup, small.total) == (
        Decimal("3200.00"),
        Decimal("1800.00"),
        Decimal("5000.00"),
    )
    big = prize_pool(rules, fees("1000", 10))
    assert (big.topup, big.total) == (Decimal("0.00"), Decimal("8000.00"))


def test_re_entries_and_add_ons_count_only_when_enabled() -> None:
    payments = fees("100", 3) + fees("100", 2, "re_entry") + fees("50", 1, "add_on")
    rules = PoolRules(RUB, re_entries=True, add_ons=True)
    assert prize_pool(rules, payments).total == Decimal("550.00")
    with pytest.raises(PrizeError, match="re-entries are not enabled"):
        prize_pool(PoolRules(RUB, add_ons=True), payments)
    with pytest.raises(PrizeError, match="add-ons are not enabled"):
        prize_pool(PoolRules(RUB, re_entries=True), payments)


@pytest.mark.parametrize("rake", [Decimal(-1), Decimal("100.01")])
def test_rake_outside_0_100_is_refused(rake: Decimal) -> None:
    with pytest.raises(PrizeError, match="between 0 and 100"):
        PoolRules(RUB, rake_percent=rake)


# --- structures -----------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 100), min_size=1, max_size=10).filter(lambda p: sum(p) != 100))
def test_percentages_not_summing_to_100_are_refused(percentages: list[int]) -> None:
    with pytest.raises(PrizeError, match="add up to exactly 100"):
        PayoutStructure.from_percentages(percentages)


def test_decimal_percentages_that_sum_exactly_are_accepted() -> None:
    s = PayoutStructure.from_percentages(["33.33", "33.33", "33.34"])
    assert sum(s.shares) == 1
    with pytest.raises(PrizeError, match="exactly 100"):
        PayoutStructure.from_percentages(["33.33", "33.33", "33.33"])
    with pytest.raises(PrizeError, match="exact number"):
        PayoutStructure.from_percentages([50.0, 50.0])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("field", "paid"), [(0, 1), (1, 1), (2, 1), (6, 1), (7, 2), (20, 3), (100, 15), (101, 16)]
)
def test_default_structure_pays_about_the_top_15_percent(field: int, paid: int) -> None:
    s = PayoutStructure.default(field)
    assert len(s.shares) == paid
    assert sum(s.shares) == 1
    assert list(s.shares) == sorted(s.shares, reverse=True)
    assert s.shares[0] / s.shares[-1] == paid  # harmonic: place i weighs 1/i


# --- payouts --------------------------------------------------------------------------------


def test_tied_places_share_their_payouts_and_the_remainder_goes_up() -> None:
    pool = prize_pool(PoolRules(RUB), fees("100.00", 1))
    structure = PayoutStructure.from_percentages([50, 30, 20])
    awards = distribute(pool, structure, [("a", 1), ("b", 2), ("c", 2), ("d", 2), ("e", 5)])
    amounts = {a.entry: a.amount for a in awards}
    # b, c, d share 30% + 20% = 50.00 -> 16.67, 16.67, 16.66 (odd kopek to the first given)
    assert amounts == {
        "a": Decimal("50.00"),
        "b": Decimal("16.67"),
        "c": Decimal("16.67"),
        "d": Decimal("16.66"),
        "e": Decimal("0.00"),
    }
    assert [a.tied for a in awards] == [1, 3, 3, 3, 1]


def test_fewer_entries_than_paid_places_scale_up() -> None:
    pool = prize_pool(PoolRules(RUB), fees("90.00", 1))
    structure = PayoutStructure.from_percentages([50, 25, 25])
    awards = distribute(pool, structure, [("a", 1), ("b", 2)])
    assert [a.amount for a in awards] == [Decimal("60.00"), Decimal("30.00")]


def test_bad_places_are_refused() -> None:
    pool = prize_pool(PoolRules(RUB), fees("1", 1))
    structure = PayoutStructure.default(3)
    with pytest.raises(PrizeError, match="competition ranking"):
        distribute(pool, structure, [("a", 1), ("b", 3)])
    with pytest.raises(PrizeError, match="more than one place"):
        distribute(pool, structure, [("a", 1), ("a", 2)])
    with pytest.raises(PrizeError, match="no final places"):
        distribute(pool, structure, [])


def test_provisional_and_final_come_from_the_same_function() -> None:
    rules = PoolRules(RUB, rake_percent=Decimal(10))
    payments = fees("500", 20)
    provisional = compute_prizes(rules, payments, field_size=20)
    assert not provisional.final and provisional.awards == ()
    assert sum(p.amount for p in provisional.by_place) == provisional.pool.total
    places = [(f"e{i}", i) for i in range(1, 21)]
    final = compute_prizes(rules, payments, final_places=places)
    assert final.final and final.by_place == provisional.by_place
    assert [a.amount for a in final.awards[:3]] == [p.amount for p in final.by_place]
    assert compute_prizes(rules, payments, final_places=places) == final


def test_compute_needs_a_field() -> None:
    with pytest.raises(PrizeError, match="field_size"):
        compute_prizes(PoolRules(RUB), [])


# --- properties -----------------------------------------------------------------------------


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[PoolRules, list[Payment], list[tuple[str, int]]]:
    exponent = draw(st.integers(0, 3))
    cur = Currency(draw(st.sampled_from(["RUB", "JPY", "KWD", "XTS"])), exponent)
    field = draw(st.integers(1, 80))
    fee_units = draw(st.integers(0, 10**6))
    fee = Decimal(fee_units).scaleb(-exponent)
    rake = Decimal(draw(st.integers(0, 10_000))).scaleb(-2)
    guarantee = draw(st.none() | st.integers(0, 10**8).map(lambda u: Decimal(u).scaleb(-exponent)))
    re_entries = draw(st.integers(0, 10))
    rules = PoolRules(cur, rake_percent=rake, guaranteed_minimum=guarantee, re_entries=True)
    payments = [Payment("entry", fee)] * field + [Payment("re_entry", fee)] * re_entries
    # random ties: split the field into groups in competition ranking
    sizes: list[int] = []
    left = field
    while left:
        size = draw(st.integers(1, min(left, 5)))
        sizes.append(size)
        left -= size
    places: list[tuple[str, int]] = []
    for size in sizes:
        start = len(places)
        places.extend((f"e{start + i}", start + 1) for i in range(size))
    return rules, payments, places


structures = st.none() | st.lists(st.integers(0, 60), min_size=1, max_size=12).filter(
    lambda w: sum(w) > 0
)


def _structure(weights: list[int] | None, field: int) -> PayoutStructure:
    if weights is None:
        return PayoutStructure.default(field)
    # integer weights turned into exact percentages that add up to 100
    total = sum(weights)
    return PayoutStructure(tuple(Fraction(w, total) for w in weights))


@settings(max_examples=300, deadline=None)
@given(t=tournaments(), weights=structures)
def test_payouts_add_up_to_the_pool_exactly_and_ties_share(
    t: tuple[PoolRules, list[Payment], list[tuple[str, int]]], weights: list[int] | None
) -> None:
    rules, payments, places = t
    structure = _structure(weights, len(places))
    report = compute_prizes(rules, payments, final_places=places, structure=structure)
    cur = rules.currency
    quantum = cur.quantum
    amounts = [a.amount for a in report.awards]
    # exact: the awards and the by-place table both add up to the pool, in whole minor units
    assert sum(amounts) == report.pool.total
    assert sum(p.amount for p in report.by_place) == report.pool.total
    assert all(a >= 0 and a == a.quantize(quantum) for a in amounts)
    assert all(a.as_tuple().exponent == -cur.exponent for a in amounts)
    # ties: within one minor unit of each other, the odd units to the first given
    by_place: dict[int, list[Decimal]] = {}
    for award in report.awards:
        by_place.setdefault(award.place, []).append(award.amount)
    for group in by_place.values():
        assert max(group) - min(group) <= quantum
        assert group == sorted(group, reverse=True)
    # each group is within one unit per group of its exact share, the slack going to place 1
    total_units = Fraction(cur.to_units(report.pool.total, "pool"))
    live = structure.shares[: len(places)]
    scale = sum(live) or Fraction(1)
    for place, group in by_place.items():
        exact = total_units * sum(live[place - 1 : place - 1 + len(group)], Fraction(0)) / scale
        got = sum(cur.to_units(a, "award") for a in group)
        if place == 1:
            assert got >= math.floor(exact)
        else:
            assert got == math.floor(exact)


@settings(max_examples=100, deadline=None)
@given(t=tournaments(), shuffle=st.randoms())
def test_recomputing_gives_the_same_answer(
    t: tuple[PoolRules, list[Payment], list[tuple[str, int]]], shuffle: random.Random
) -> None:
    rules, payments, places = t
    first = compute_prizes(rules, payments, final_places=places)
    assert compute_prizes(rules, payments, final_places=places) == first
    shuffled = list(payments)
    shuffle.shuffle(shuffled)
    assert compute_prizes(rules, shuffled, final_places=places).pool == first.pool


@settings(max_examples=100, deadline=None)
@given(t=tournaments())
def test_pool_arithmetic(t: tuple[PoolRules, list[Payment], list[tuple[str, int]]]) -> None:
    rules, payments, _ = t
    pool = prize_pool(rules, payments)
    assert pool.gross == sum((p.amount for p in payments), Decimal(0))
    assert pool.net == pool.gross - pool.rake
    assert pool.total == pool.net + pool.topup
    exact_rake = pool.gross * rules.rake_percent / 100
    assert pool.rake <= exact_rake < pool.rake + rules.currency.quantum
    if rules.guaranteed_minimum is not None:
        assert pool.total >= rules.guaranteed_minimum
        assume(pool.topup > 0)
        assert pool.total == rules.guaranteed_minimum
