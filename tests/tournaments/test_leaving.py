"""Entries that leave an event (issue #18): withdrawn or disqualified, the event still finishes
with one place for every entry that started, a prize pool paid out exactly, league points and
the API's standings (the rule: ``docs/leaving.md``).

The events are worked by their jobs in this process (``tests.builders.run_jobs``): bots play
every game, and a test withdraws or disqualifies an entry where the console would, in the
middle of the event.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.builders import make_tournament, run_jobs
from tests.factories import BotPlayerFactory
from tournaments import services
from tournaments.models import (
    Entry,
    Payout,
    PrizePool,
    Round,
    Seat,
    Stage,
    Tournament,
)
from tournaments.services.placing import stage_final_order

pytestmark = pytest.mark.django_db

SWISS_36_THEN_KNOCKOUT = [
    {"format": "swiss", "table_size": 4, "rounds": 3, "advance": {"top": 16}},
    {"format": "knockout", "table_size": 4, "advance_per_table": 2},
]


def event(players: int, stages: list[dict[str, Any]], owner: User, **kw: Any) -> Tournament:
    """A started event of ``players`` bots owned by ``owner``, with a move clock (a withdrawn
    entry's game is then played to its end for it: the dropout rule ``clock``)."""
    tournament = make_tournament(
        BotPlayerFactory.create_batch(players), stages=stages, created_by=owner, **kw
    )
    Tournament.objects.filter(pk=tournament.pk).update(move_clock_seconds=60)
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    return tournament


def playing(tournament: Tournament, stage: int, number: int) -> Round:
    """Run the event's jobs until round ``number`` of stage ``stage`` plays; that round."""

    def plays() -> bool:
        return Round.objects.filter(
            stage__tournament=tournament,
            stage__order=stage,
            number=number,
            status=Round.Status.PLAYING,
        ).exists()

    run_jobs(tournament, until=plays)
    return Round.objects.get(stage__tournament=tournament, stage__order=stage, number=number)


def seated_in(round_: Round) -> list[Entry]:
    ids = Seat.objects.filter(table__round=round_, table__is_bye=False).values_list(
        "entry_id", flat=True
    )
    return list(Entry.objects.filter(pk__in=set(ids)).order_by("pk"))


def finish(tournament: Tournament) -> Tournament:
    run_jobs(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament


def places(tournament: Tournament) -> dict[int, int | None]:
    rows = Entry.objects.filter(tournament=tournament).values_list("pk", "final_place")
    return dict(rows)


def assert_competition_ranking(values: list[int]) -> None:
    values = sorted(values)
    expected = 1
    for i, place in enumerate(values):
        if i and place == values[i - 1]:
            continue
        assert place == i + 1, values
        expected = place
    assert expected >= 1


def assert_paid_exactly(tournament: Tournament, entries: int) -> PrizePool:
    pool = PrizePool.objects.get(tournament=tournament)
    assert pool.final
    assert pool.paid_entries == entries  # every fee of the field stays in the pool
    assert pool.total == Decimal(entries * 90)  # 100 each, less 10 %
    paid = sum(Payout.objects.filter(tournament=tournament).values_list("amount", flat=True))
    assert paid == pool.total
    return pool


def test_a_withdrawal_in_a_swiss_round_leaves_the_event_paid_out_and_placed(
    organiser: User,
) -> None:
    # given a 36-entry swiss (4 seats, 3 rounds, top 16 on) then knockout, in swiss round 2
    tournament = event(36, SWISS_36_THEN_KNOCKOUT, organiser)
    round_2 = playing(tournament, 1, 2)
    leaver = seated_in(round_2)[5]

    # when the organiser withdraws an entry from the console's service, with a reason
    services.entry_withdraw(entry=leaver, reason="заболел", actor=organiser)
    # and the event is played to its end
    tournament = finish(tournament)

    # then every entry has a place, by competition ranking, the leaver below all 35 others
    final = places(tournament)
    assert None not in final.values()
    assert_competition_ranking([p for p in final.values() if p is not None])
    assert final[leaver.pk] == 36
    assert sum(place == 36 for place in final.values()) == 1
    # its round-1 result stands: it is in the swiss standings, not seated in round 3
    swiss = tournament.stages.get(order=1)
    assert [leaver.pk] in stage_final_order(swiss)
    round_3 = Round.objects.get(stage=swiss, number=3)
    assert leaver not in seated_in(round_3)
    # the pool keeps its fee and is paid out exactly
    pool = assert_paid_exactly(tournament, 36)
    assert pool.total == Decimal("3240")
    assert Payout.objects.filter(tournament=tournament).exists()
    tournament.refresh_from_db()
    assert tournament.ranks_computed_at is not None
    assert tournament.ratings_applied_at is not None

    # and the API's standings show the payouts
    answer = Client().get(f"/api/v1/tournaments/{tournament.slug}/standings/")
    assert answer.status_code == 200
    rows = answer.json()["rows"]
    assert len(rows) == 36
    by_entry = {row["entry_id"]: row for row in rows}
    assert by_entry[leaver.pk]["place"] == 36
    assert by_entry[leaver.pk]["status"] == Entry.Status.WITHDRAWN
    assert by_entry[leaver.pk]["payout"] is None
    paid = [Decimal(row["payout"]) for row in rows if row["payout"] is not None]
    assert paid and sum(paid) == pool.total
    assert rows[0]["place"] == 1 and rows[0]["payout"] is not None


def test_a_stage_order_of_the_knockout_lists_everyone_with_a_result(organiser: User) -> None:
    # a finished knockout's order names all its entries (the placing reads it for everyone)
    tournament = finish(event(16, SWISS_36_THEN_KNOCKOUT, organiser))
    knockout = tournament.stages.get(format=Stage.Format.KNOCKOUT)
    named = [e for group in stage_final_order(knockout) for e in group]
    assert sorted(named) == sorted(knockout.stage_entries.values_list("entry_id", flat=True))
