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
from tournaments.console.progress import league_table_page
from tournaments.models import (
    Entry,
    Payout,
    PrizePool,
    Round,
    Seat,
    Stage,
    Tournament,
)
from tournaments.selectors.standings import standing_rows
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


def swiss_order(tournament: Tournament, order: int = 1) -> list[int]:
    stage = tournament.stages.get(order=order)
    return [e for group in stage_final_order(stage) for e in group]


def test_a_disqualification_mid_event_places_last_pays_nothing_and_scores_no_league_points(
    organiser: User,
) -> None:
    # given an 8-entry swiss of a league whose scale scores every place, paying 8 places
    league = services.league_create(
        name="Лига", season="2026", actor=organiser, points_scale=[10, 8, 6, 5, 4, 3, 2, 1]
    )
    structure = ["30", "20", "15", "10", "10", "5", "5", "5"]
    tournament = event(
        8,
        [{"format": "swiss", "table_size": 4, "rounds": 2}],
        organiser,
        league=league,
        payout_structure=structure,
    )
    cheat = seated_in(playing(tournament, 1, 2))[0]

    # when a referee disqualifies an entry in round 2 and the event plays to its end
    services.entry_disqualify(entry=cheat, reason="подглядывал в карты")
    tournament = finish(tournament)

    # then it is last (8 - 1 + 1), the others keep the standings' order above it, 1 to 7
    final = places(tournament)
    assert final[cheat.pk] == 8
    others = [e for e in swiss_order(tournament) if e != cheat.pk]
    assert [final[e] for e in others] == [1, 2, 3, 4, 5, 6, 7]
    # its games stand: it is still in the standings
    assert cheat.pk in swiss_order(tournament)
    # paid nothing; the others are paid exactly the pool (8 fees stay in)
    assert_paid_exactly(tournament, 8)
    assert not Payout.objects.filter(entry=cheat).exists()
    assert Payout.objects.filter(tournament=tournament).count() == 7
    # no league points; the 7th scores the scale's 7th
    lines = {line.name: line for line in league_table_page(league, user=organiser).lines}
    assert lines[cheat.name].points == "0"
    seventh = Entry.objects.get(pk=others[-1])
    assert lines[seventh.name].points == "2"
    # and the API's league table agrees
    answer = Client().get(f"/api/v1/leagues/{league.slug}/table/")
    assert answer.status_code == 200
    rows = {row["player_id"]: row for row in answer.json()["rows"]}
    assert rows[cheat.player_id]["points"] == 0
    assert rows[cheat.player_id]["places"] == [8]


def test_a_disqualification_after_the_end_places_and_pays_again(organiser: User) -> None:
    # given a finished 8-entry swiss
    tournament = finish(event(8, [{"format": "swiss", "table_size": 4, "rounds": 2}], organiser))
    winner = Entry.objects.get(tournament=tournament, final_place=1)
    second = Entry.objects.get(tournament=tournament, final_place=2)
    # when its winner is disqualified after the end (the pool is computed again by its job)
    services.entry_disqualify(entry=winner, reason="допинг")
    run_jobs(tournament)
    # then the winner is last and unpaid, the second is first and paid first place's prize
    final = places(tournament)
    assert final[winner.pk] == 8
    assert final[second.pk] == 1
    assert not Payout.objects.filter(entry=winner).exists()
    assert Payout.objects.get(entry=second).place == 1
    assert_paid_exactly(tournament, 8)


def test_a_withdrawal_in_a_knockout_places_below_the_knockout_above_the_swiss(
    organiser: User,
) -> None:
    # given 16 entries: one swiss round, the top 8 on to a knockout, in its first round
    tournament = event(
        16,
        [
            {"format": "swiss", "table_size": 4, "rounds": 1, "advance": {"top": 8}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
        organiser,
    )
    leaver = seated_in(playing(tournament, 2, 1))[0]
    # when it is withdrawn mid-knockout and the event plays on
    services.entry_withdraw(entry=leaver, reason="уехал", actor=organiser)
    tournament = finish(tournament)
    # then it is 8th: below the 7 others of the knockout, above the 8 of the swiss
    final = {e: p or 0 for e, p in places(tournament).items()}
    assert final[leaver.pk] == 8
    knockout = set(tournament.stages.get(order=2).stage_entries.values_list("entry_id", flat=True))
    assert all(1 <= final[e] < 8 for e in knockout - {leaver.pk})
    assert all(final[e] > 8 for e in set(final) - knockout)
    assert_paid_exactly(tournament, 16)


def test_a_withdrawal_in_a_round_robin_stands_for_its_opponents(organiser: User) -> None:
    # given a round robin of 6 at two-seat tables (5 rounds), in round 2
    tournament = event(6, [{"format": "round_robin", "table_size": 2, "groups": 1}], organiser)
    round_2 = playing(tournament, 1, 2)
    leaver = seated_in(round_2)[0]
    # when it is withdrawn and the event plays on
    services.entry_withdraw(entry=leaver, reason="заболел", actor=organiser)
    tournament = finish(tournament)
    # then it is last, never seated after round 2, and its played games still count
    final = places(tournament)
    assert final[leaver.pk] == 6
    stage = tournament.stages.get()
    for round_ in stage.rounds.filter(number__gt=2):
        assert leaver not in seated_in(round_)
    row = next(r for r in standing_rows(stage) if r.entry == str(leaver.pk))
    assert row.played == 2
    assert_paid_exactly(tournament, 6)


def test_two_withdrawals_in_one_stage_keep_its_order_below_the_others(organiser: User) -> None:
    # given a 12-entry swiss of three rounds then a knockout of 8, in swiss round 2
    tournament = event(
        12,
        [
            {"format": "swiss", "table_size": 4, "rounds": 3, "advance": {"top": 8}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
        organiser,
    )
    first, second = seated_in(playing(tournament, 1, 2))[:2]
    # when two entries are withdrawn in that round
    services.entry_withdraw(entry=first, reason="опоздал на поезд", actor=organiser)
    services.entry_withdraw(entry=second, reason="заболел", actor=organiser)
    tournament = finish(tournament)
    # then they take the last two places, in the order of the swiss standings
    final = places(tournament)
    leavers = [e for e in swiss_order(tournament) if e in {first.pk, second.pk}]
    assert [final[e] for e in leavers] == [11, 12]
    assert sorted(p for p in final.values() if p is not None and p <= 10)[-1] <= 10
    assert_paid_exactly(tournament, 12)


def test_a_withdrawal_before_the_start_leaves_the_field_and_the_pool(organiser: User) -> None:
    players = BotPlayerFactory.create_batch(9)
    tournament = make_tournament(
        players, stages=[{"format": "swiss", "table_size": 4, "rounds": 1}], created_by=organiser
    )
    gone = Entry.objects.get(tournament=tournament, player=players[0])
    services.entry_withdraw(entry=gone, reason="передумал", actor=organiser)
    services.tournament_start(tournament=tournament)
    tournament = finish(tournament)
    gone.refresh_from_db()
    assert gone.final_place is None
    assert_paid_exactly(tournament, 8)


def test_a_knockout_seats_the_next_finisher_in_place_of_an_entry_that_left(
    organiser: User,
) -> None:
    # given a knockout of 8 (two tables of 4, two of each on to the final), round 1 seated
    tournament = make_tournament(
        BotPlayerFactory.create_batch(8),
        stages=[{"format": "knockout", "table_size": 4, "advance_per_table": 2}],
        created_by=organiser,
    )
    services.tournament_start(tournament=tournament)
    round_1 = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_1.pk)
    first, other = round_1.tables.order_by("number")
    seated = list(first.seats.order_by("position").values_list("entry_id", flat=True))
    leaver = Entry.objects.get(pk=seated[0])
    # when it is withdrawn while its table plays, and its games are played out for it: 1st
    services.entry_withdraw(entry=leaver, reason="уехал", actor=organiser)
    services.table_record_result(table=first, places=seated, fool=seated[-1], source="bot")
    rest = list(other.seats.order_by("position").values_list("entry_id", flat=True))
    services.table_record_result(table=other, places=rest, fool=rest[-1], source="bot")
    # then the final seats its table's 2nd and 3rd, not the entry that left
    final = Round.objects.get(stage__tournament=tournament, number=2).tables.get()
    finalists = set(final.seats.values_list("entry_id", flat=True))
    assert finalists == {seated[1], seated[2], rest[0], rest[1]}
    # and the API's bracket says who went on the same way
    bracket = Client().get(f"/api/v1/tournaments/{tournament.slug}/stages/1/bracket/").json()
    node = next(n for n in bracket["nodes"] if n["id"] == first.pk)
    assert [e["id"] for e in node["advancing"]] == [seated[1], seated[2]]
    # and once the event is over, the entry that left is last (it completed no stage)
    run_jobs(tournament)
    assert places(tournament)[leaver.pk] == 8


def test_a_withdrawal_between_two_stages_counts_the_stage_it_completed(organiser: User) -> None:
    # given 16 entries: one swiss round, the top 8 on to a knockout not yet paired
    tournament = event(
        16,
        [
            {"format": "swiss", "table_size": 4, "rounds": 1, "advance": {"top": 8}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
        organiser,
    )

    def knockout_waits() -> bool:
        return Round.objects.filter(
            stage__tournament=tournament, stage__order=2, status=Round.Status.PENDING
        ).exists()

    run_jobs(tournament, until=knockout_waits)
    knockout = tournament.stages.get(order=2)
    leaver = Entry.objects.get(pk=knockout.stage_entries.order_by("seed")[0].entry_id)
    # when an entry that advanced is withdrawn before the knockout's first round is paired
    services.entry_withdraw(entry=leaver, reason="не приехал на финал", actor=organiser)
    tournament = finish(tournament)
    # then it is never seated in the knockout, and is 8th: below the 7 who played it, above
    # the 8 eliminated after the swiss (it completed the swiss)
    assert not Seat.objects.filter(table__round__stage=knockout, entry=leaver).exists()
    final = {e: p or 0 for e, p in places(tournament).items()}
    assert final[leaver.pk] == 8
    assert sorted(final.values())[:7] == sorted(
        final[e]
        for e in knockout.stage_entries.values_list("entry_id", flat=True)
        if e != leaver.pk
    )
    assert_paid_exactly(tournament, 16)
