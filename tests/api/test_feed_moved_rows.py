"""The feed's moved standings rows as a worker finds them (``selectors.standings`` updates the
standings it computed after the last result: ``scoring.points.Standings``) are the rows found
from the standings computed whole, event after event of a random bot event with withdrawals,
disqualifications, corrections (with and without a new pairing), draws and pogony."""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from tests.api.test_events import record
from tests.tournaments.test_corrections import enter, seated, started, tables
from tournaments.models import Stage, TableResult
from tournaments.scoring.points import Standings
from tournaments.selectors import facts, standings

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def computed_whole() -> Iterator[None]:
    """Standings computed whole inside: nothing kept, nothing updated, no line made before."""
    saved = standings._kept, standings._latest, standings._line_memo, standings.UPDATE_MAX
    standings._kept, standings._latest, standings._line_memo = (
        OrderedDict(),
        OrderedDict(),
        OrderedDict(),
    )
    standings.UPDATE_MAX = -1
    try:
        yield
    finally:
        standings._kept, standings._latest, standings._line_memo, standings.UPDATE_MAX = saved


def checked_moved_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Each of the feed's moved rows from now on, with those computed whole (and the stage's
    format)."""
    compared: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    real = facts.moved_standings

    def checked(stage: Stage, result_id: int) -> dict[str, Any]:
        found = real(stage, result_id)
        with computed_whole():
            whole = real(stage, result_id)
        compared.append((stage.format, found, whole))
        return found

    monkeypatch.setattr(facts, "moved_standings", checked)
    update = Standings.updated

    def counted(self: Standings, **changes: Any) -> Standings | None:
        made = update(self, **changes)
        if made is not None:
            UPDATES.append(len(made.rows))
        return made

    monkeypatch.setattr(Standings, "updated", counted)
    UPDATES.clear()
    return compared


#: The standings updated, not computed whole (their rows' count), since
#: :func:`checked_moved_rows`.
UPDATES: list[int] = []


@pytest.mark.slow
@pytest.mark.parametrize("seed", [5, 17])
def test_the_moved_rows_of_updated_standings_are_those_of_the_standings_computed_whole(
    eager_jobs: None, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    # given the feed's moved rows checked against the rows computed whole after each result
    standings.forget_kept()
    compared = checked_moved_rows(monkeypatch)
    # when a bot event with incidents is played out, its jobs in-process
    out = StringIO()
    call_command(
        "simulate_tournament",
        players=20,
        plan="swiss:4:3:top=8,knockout:4:2",
        incidents_seed=seed,
        incidents="withdraw=2,withdraw_mid_game=1,disqualify=1,correct=2,correct_repair=1,draw=1",
        incident_rate=0.3,
        seed=f"moved-{seed}",
        no_progress=True,
        timeout=120,
        stdout=out,
    )
    # then every table's result and correction carried the rows computed whole
    swiss = [(found, whole) for fmt, found, whole in compared if fmt == Stage.Format.SWISS]
    assert len(swiss) >= 15, out.getvalue()
    assert len(UPDATES) >= len(swiss) // 2
    for number, (found, whole) in enumerate(swiss):
        assert found == whole, (number, out.getvalue())
    # and the event had what changes standings besides a table's result
    assert sum(len(found["rows"]) for found, _ in swiss) > 4 * len(swiss)
    assert TableResult.objects.exclude(supersedes=None).exists(), out.getvalue()


def test_pogony_and_corrections_with_pogony_move_the_rows_computed_whole(
    eager_jobs: None, referee: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a swiss of 16 players at 4-seat tables where a fool with pogony loses a point, and
    # the feed's moved rows checked against the rows computed whole after each result
    standings.forget_kept()
    compared = checked_moved_rows(monkeypatch)
    stages = [
        {
            "format": "swiss",
            "table_size": 4,
            "rounds": 3,
            "scoring": {"fool_pogony_penalty": 1},
        }
    ]
    tournament = started(stages, players=16, referees=[referee])
    rng = random.Random(7)
    for number in (1, 2, 3):
        # when each round's tables finish, some with pogony, and a finished one is corrected
        # (its places turned round, pogony hung or taken away) while the others still play
        playing = tables(tournament, number)
        for i, table in enumerate(playing):
            record(table, pogony=rng.random() < 0.5)
            if i == 1:
                order = seated(playing[0])
                rng.shuffle(order)
                hung = [{"by": order[0], "on": [order[-1]], "rank": "7"}] if number != 2 else []
                enter(playing[0], referee, order, pogony=hung, reason="протокол")
    # then every table's result and correction carried the rows computed whole
    assert len(compared) == 15
    assert [found for _, found, _ in compared] == [whole for _, _, whole in compared]
    assert len(UPDATES) >= 12  # the rows found were updated ones
    assert TableResult.objects.exclude(pogony=[]).exists()
