"""The live-table benchmark's spectator accounting (``bench.live_tables``), without servers."""

from __future__ import annotations

import pytest

from bench.live_tables import percentile, spectator_figures


def test_every_state_reached_by_every_spectator_times_commit_to_first_and_last() -> None:
    # Two states committed at t=10.0 and t=11.0 (seconds), game 7.
    reached = {(7, 1): 10.0, (7, 2): 11.0}
    seen = [
        {(7, 0): 9.0, (7, 1): 10.010, (7, 2): 11.050},  # an earlier state is not counted
        {(7, 1): 10.200, (7, 2): 11.020},
    ]
    acks = {(7, 1): 10.005}

    figures = spectator_figures(reached, seen, acks)

    assert (figures.states, figures.spectators) == (2, 2)
    assert (figures.missed, figures.spectators_missing) == (0, 0)
    assert figures.to_first == pytest.approx([10.0, 20.0])
    assert figures.to_last == pytest.approx([50.0, 200.0])
    assert figures.to_each == pytest.approx([10.0, 20.0, 50.0, 200.0])
    assert figures.ack_to_last == pytest.approx([195.0])


def test_a_state_a_spectator_never_got_is_missed_and_times_only_those_that_got_it() -> None:
    reached = {(7, 1): 10.0, (7, 2): 11.0, (8, 0): 12.0}
    seen = [
        {(7, 1): 10.1, (7, 2): 11.1, (8, 0): 12.1},
        {(7, 1): 10.3},  # closed after the first state
        {},  # never got one
    ]

    figures = spectator_figures(reached, seen, {})

    assert figures.missed == 2 + 3
    assert figures.spectators_missing == 2
    assert figures.to_last == pytest.approx([100.0, 100.0, 300.0])
    assert figures.ack_to_last == []
    assert percentile(figures.to_last, 50) == pytest.approx(100.0)
