"""Final places with the entries that left (``tournaments.scoring.places``, ``docs/leaving.md``)."""

from __future__ import annotations

import pytest

from tournaments.scoring.errors import ScoringError
from tournaments.scoring.places import Leaving, final_places


def test_a_withdrawn_entry_comes_below_its_stage_and_above_the_stage_before() -> None:
    field = [
        Leaving("a", 2),
        Leaving("b", 2),
        Leaving("w2", 2, "withdrawn"),
        Leaving("c", 1),
        Leaving("d", 1),
        Leaving("w1", 1, "withdrawn"),
    ]
    # w2 led stage 1 and won a game of stage 2 before leaving it
    orders = {
        1: [["w2"], ["a"], ["w1"], ["b"], ["c"], ["d"]],
        2: [["w2"], ["b"], ["a"]],
    }
    assert final_places(field, orders) == [
        ("b", 1),
        ("a", 2),
        ("w2", 3),
        ("c", 4),
        ("d", 5),
        ("w1", 6),
    ]


def test_withdrawn_entries_of_one_stage_keep_its_order_and_share_equal_standing() -> None:
    field = [
        Leaving("a", 1),
        Leaving("x", 1, "withdrawn"),
        Leaving("y", 1, "withdrawn"),
        Leaving("z", 1, "withdrawn"),
        Leaving("never", 1, "withdrawn"),  # left before it had a standing
    ]
    orders = {1: [["y"], ["a"], ["x", "z"]]}
    assert final_places(field, orders) == [
        ("a", 1),
        ("y", 2),
        ("x", 3),
        ("z", 3),
        ("never", 5),
    ]


def test_the_disqualified_share_the_last_place_and_the_others_move_up() -> None:
    field = [
        Leaving("a", 1),
        Leaving("b", 1, "disqualified"),
        Leaving("c", 1),
        Leaving("d", 1, "disqualified"),
        Leaving("e", 1),
    ]
    orders = {1: [["b"], ["a"], ["c"], ["d"], ["e"]]}
    # n = 5 entries, k = 2 disqualified: the others take 1..3, the disqualified 5 - 2 + 1 = 4
    assert final_places(field, orders) == [
        ("a", 1),
        ("c", 2),
        ("e", 3),
        ("b", 4),
        ("d", 4),
    ]


def test_every_entry_gets_one_place_and_twice_listed_is_refused() -> None:
    assert final_places([], {}) == []
    with pytest.raises(ScoringError):
        final_places([Leaving("a", 1), Leaving("a", 1, "withdrawn")], {})
    with pytest.raises(ScoringError):
        Leaving("a", 1, "vanished")  # type: ignore[arg-type]
