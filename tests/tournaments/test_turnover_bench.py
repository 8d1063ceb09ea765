"""The turnover benchmark (``bench.turnover``, issue 23) at a small size: its figures come from
real rounds, the next one really seated and dealt."""

from __future__ import annotations

import io

import pytest

from bench import turnover
from games import engine
from games.models import Game
from tournaments.models import Entry, Payout, Round, Seat, Table, Tournament


@pytest.mark.django_db(transaction=True)
def test_the_turnover_is_timed_up_to_the_next_round_seated_and_dealt(eager_jobs: None) -> None:
    # given the benchmark's event of 64 entries
    out = io.StringIO()
    # when it runs
    (figures,) = turnover.run([64], out=out)
    # then round 2 was seated and dealt: 16 tables of 4, one game each with its commitment
    tournament = Tournament.objects.get()
    second = Round.objects.get(stage__tournament=tournament, number=2)
    tables = list(Table.objects.filter(round=second, is_bye=False))
    assert len(tables) == figures.tables == figures.seated == figures.dealt == 16
    seats = Seat.objects.filter(table__round=second)
    assert seats.count() == 64
    assert len(set(seats.values_list("entry_id", flat=True))) == 64
    games = list(Game.objects.filter(table__round=second))
    assert len(games) == 16
    for game in games:
        assert game.seed_commitment == engine.seed_commitment(game.seed)
        table_players = seats.filter(table=game.table).values_list("player_id", flat=True)
        assert sorted(game.players) == sorted(table_players)
    # and the event was played to its end: places for all, the pool paid out
    assert tournament.status == Tournament.Status.FINISHED
    assert not Entry.objects.filter(tournament=tournament, final_place__isnull=True).exists()
    assert Payout.objects.filter(tournament=tournament).exists()
    # and what it printed are those figures: the phases add up to the turnover
    printed = out.getvalue()
    assert "64 entries, 16 tables of 4: round 2 seated 16/16, dealt 16/16" in printed
    assert f"{figures.turnover:.2f} s" in printed
    assert sum(figures.phases.values()) == pytest.approx(figures.turnover)
    assert figures.phases["pairing"] > 0 and figures.phases["seating"] > 0
    assert set(figures.end_jobs) == set(turnover.END_JOBS)
    assert set(figures.requests) == {"standings API", "standings page", "tournament page"}
    assert figures.reconcile > 0
    assert (
        f"the reconciler's scan between the rounds (median of 3): {figures.reconcile * 1000:.0f} ms"
        in printed
    )
