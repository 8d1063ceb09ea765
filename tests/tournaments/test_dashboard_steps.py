"""The dashboard's next step (``selectors.dashboard.next_step``): a pure function of an event's
facts, one answer per state, in the order an event takes them."""

from __future__ import annotations

import datetime as dt
import doctest

import pytest

from tournaments.models import AwardsFailure
from tournaments.selectors import dashboard
from tournaments.selectors.dashboard import (
    STEP_PERMISSION,
    DashboardFacts,
    EntryCounts,
    PendingResult,
    Step,
    TableRef,
    next_step,
)

ENTRIES = EntryCounts(registered=6, checked_in=2)
PENDING = (PendingResult(TableRef(7, 2, "Round 1"), "referee", dt.datetime(2026, 3, 1, 12, 0)),)
FAILED = (AwardsFailure(job=AwardsFailure.Job.PRIZE_POOL, code="payouts"),)


def facts(status: str, **kw: object) -> DashboardFacts:
    return DashboardFacts(
        status=status,
        registration_open=bool(kw.pop("registration_open", False)),
        two_person_rule=True,
        entries=ENTRIES,
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("state", "step"),
    [
        (facts("draft"), Step.OPEN_REGISTRATION),
        (facts("registration", registration_open=True), Step.CLOSE_REGISTRATION),
        (facts("registration"), Step.START),
        # started: round 1 waits for its pairing (the job did not run, or could not pair)
        (facts("running", round_waiting=True), Step.PAIR),
        (facts("running", round_playing=True), Step.PLAYING),
        # the next round is already created while this one plays: watch, do not pair
        (facts("running", round_playing=True, round_waiting=True), Step.PLAYING),
        # a round done, the next one waiting
        (facts("running", round_waiting=True, round_playing=False), Step.PAIR),
        # a result waiting for a second referee comes first: it holds its round up
        (facts("running", round_playing=True, pending_results=PENDING), Step.CONFIRM),
        (facts("running", round_waiting=True, pending_results=PENDING), Step.CONFIRM),
        (facts("finished", failures=FAILED), Step.RECOMPUTE),
        (facts("finished", failures=FAILED, pending_results=PENDING), Step.RECOMPUTE),
        (facts("finished", pending_results=PENDING), Step.CONFIRM),
        (facts("finished"), Step.FINISHED),
        (facts("cancelled", pending_results=PENDING), Step.CANCELLED),
    ],
)
def test_each_state_has_its_next_step(state: DashboardFacts, step: Step) -> None:
    assert next_step(state) == step


def test_only_the_organiser_opens_closes_and_starts_and_referees_do_the_rest() -> None:
    assert {s for s, who in STEP_PERMISSION.items() if who == "manage"} == {
        Step.OPEN_REGISTRATION,
        Step.CLOSE_REGISTRATION,
        Step.START,
    }
    assert {s for s, who in STEP_PERMISSION.items() if who == "referee"} == {
        Step.PAIR,
        Step.CONFIRM,
        Step.RECOMPUTE,
    }
    # watching a round and an event over are no action at all
    assert not {Step.PLAYING, Step.FINISHED, Step.CANCELLED} & set(STEP_PERMISSION)


def test_problems_count_every_item_missing_or_late() -> None:
    assert facts("running").problems == 0
    assert facts("finished", failures=FAILED, pending_results=PENDING).problems == 2


def test_the_docstring_examples_hold() -> None:
    assert doctest.testmod(dashboard).failed == 0
