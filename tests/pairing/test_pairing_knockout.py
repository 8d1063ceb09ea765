"""Knockout brackets (no database)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.pairing import (
    ConfigError,
    PairingError,
    TableRef,
    bracket_order,
    build_bracket,
    next_round_seating,
    team_seating,
)

CONFIGS = [(2, 1), (3, 1), (4, 1), (4, 2), (5, 2), (6, 2), (6, 3), (6, 1)]


def play_out(n: int, k: int, a: int, rng: random.Random | None) -> list[list[tuple[int, ...]]]:
    """Run a bracket to its end; with no ``rng`` the better seed always wins."""
    bracket = build_bracket(list(range(1, n + 1)), table_size=k, advance=a)
    seated = [{t.ref: t.entries for t in bracket.rounds[0]}]
    for rnd in range(1, len(bracket.rounds)):
        results = {}
        for ref, entries in seated[-1].items():
            order = sorted(entries)
            if rng is not None:
                rng.shuffle(order)
            results[ref] = order
        seated.append(next_round_seating(bracket, rnd, results))
    return [list(r.values()) for r in seated]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 80), config=st.sampled_from(CONFIGS), seed=st.integers(0, 1000))
def test_bracket_reaches_one_final_table_and_seats_everyone(
    n: int, config: tuple[int, int], seed: int
) -> None:
    k, a = config
    bracket = build_bracket(list(range(1, n + 1)), table_size=k, advance=a)
    # every entry once: in a first-round table or with a bye
    first = [e for t in bracket.rounds[0] for e in t.entries]
    assert sorted(first + list(bracket.byes)) == list(range(1, n + 1))
    # byes go to the top seeds
    assert list(bracket.byes) == list(range(1, len(bracket.byes) + 1))
    assert len(bracket.rounds[-1]) == 1 and bracket.final.is_final
    for rnd in bracket.rounds:
        for t in rnd:
            assert 2 <= t.seats <= k
            assert t.advance < t.seats or t.is_final
    # each table feeds exactly `advance` seats of the next round
    fed: dict[TableRef, int] = {}
    for rnd in bracket.rounds[1:]:
        for t in rnd:
            assert len(t.feeds_from) == t.seats
            for feed in t.feeds_from:
                if feed.table is not None:
                    fed[feed.table] = fed.get(feed.table, 0) + 1
    for rnd in bracket.rounds[:-1]:
        for t in rnd:
            assert fed[t.ref] == a
    # playing it out with random results ends at the single final table
    rounds = play_out(n, k, a, random.Random(seed))
    assert len(rounds[-1]) == 1


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 80), config=st.sampled_from(CONFIGS))
def test_top_two_seeds_meet_only_at_the_final(n: int, config: tuple[int, int]) -> None:
    k, a = config
    rounds = play_out(n, k, a, None)
    for tables in rounds[:-1]:
        for table in tables:
            assert not {1, 2} <= set(table)
    assert {1, 2} <= set(rounds[-1][0])


def test_snake_puts_seeds_one_and_two_in_different_halves() -> None:
    order = bracket_order(4, 2)
    half = len(order) // 2
    assert (1 in order[:half]) != (2 in order[:half])
    bracket = build_bracket(list(range(1, 17)), table_size=4, advance=2)
    tables = [t.entries for t in bracket.rounds[0]]
    assert tables[0] == (1, 8, 9, 16)
    halves = [set(tables[0] + tables[1]), set(tables[2] + tables[3])]
    assert (1 in halves[0]) != (2 in halves[0])


def test_next_round_rejects_incomplete_or_foreign_results() -> None:
    bracket = build_bracket(list(range(1, 9)), table_size=4, advance=2)
    t1, t2 = bracket.rounds[0]
    with pytest.raises(PairingError, match="no result"):
        next_round_seating(bracket, 1, {t1.ref: t1.entries})
    with pytest.raises(PairingError, match="not seated there"):
        next_round_seating(bracket, 1, {t1.ref: t2.entries, t2.ref: t1.entries})
    with pytest.raises(PairingError, match="no next round"):
        next_round_seating(bracket, 2, {})


@pytest.mark.parametrize(("k", "a"), [(4, 4), (4, 0), (7, 2), (4, 3), (1, 1)])
def test_bad_knockout_configs_are_refused(k: int, a: int) -> None:
    with pytest.raises(ConfigError):
        build_bracket([1, 2, 3, 4, 5], table_size=k, advance=a)


def test_team_tables_alternate_partners() -> None:
    assert team_seating([(1, 2, 3), (4, 5, 6)]) == ((1, 4, 2, 5, 3, 6), ((0, 2, 4), (1, 3, 5)))
    with pytest.raises(PairingError):
        team_seating([(1, 2), (3,)])
