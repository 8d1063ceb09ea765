"""Random events with random incidents (``simulate_tournament --incidents-seed``) keep the
invariants of ``tournaments.simulation.invariants``: the event finishes, every entry that started
has one place by the rule for leaving an event, the payouts add up to the pool, no job failed.

The property test is bounded for the suite (SQLite, jobs in-process, a few examples, no
shrinking: an event is too slow to shrink, and a failure prints the command line that replays
it); ``python -m bench.incidents --events N`` runs many more.
"""

from __future__ import annotations

from io import StringIO
from typing import Any, TypeVar

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from tournaments.simulation.events import command_line, random_event

T = TypeVar("T")


class HypothesisPicker:
    """``random_event``'s choices drawn by hypothesis."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(min_value=low, max_value=high))

    def choice(self, options: tuple[T, ...]) -> T:
        return self.draw(st.sampled_from(options))


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    options = random_event(HypothesisPicker(draw), largest=12)
    assume(options is not None)
    assert options is not None
    return options


def play(options: dict[str, Any]) -> str:
    out = StringIO()
    try:
        call_command("simulate_tournament", no_progress=True, timeout=120, stdout=out, **options)
    except CommandError as exc:
        pytest.fail(f"{exc}\nreplay: {command_line(options)}\n{out.getvalue()}")
    return out.getvalue()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=8,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(options=events())
def test_random_events_with_random_incidents_keep_the_invariants(
    eager_jobs: None, options: dict[str, Any]
) -> None:
    output = play(options)
    assert "Invariants held" in output
