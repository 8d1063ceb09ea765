"""A whole multi-stage tournament of bots, through the live services and the jobs."""

from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from tests.builders import make_tournament, pairs_event
from tests.factories import BotPlayerFactory
from tournaments import reconcile, services
from tournaments.models import (
    Entry,
    Payout,
    Player,
    PrizePool,
    RankRecord,
    Round,
    Seat,
    Table,
    TableResult,
    Tournament,
)


def assert_finished_correctly(tournament: Tournament) -> None:
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = list(Entry.objects.filter(tournament=tournament))
    assert all(e.final_place is not None for e in entries)
    places = sorted(e.final_place for e in entries if e.final_place is not None)
    assert places[0] == 1
    assert all(1 <= p <= len(entries) for p in places)
    # every round: each entry seated at most once, seats unique (the database guarantees it too)
    for round_ in Round.objects.filter(stage__tournament=tournament):
        seated = list(Seat.objects.filter(table__round=round_).values_list("entry_id", flat=True))
        assert len(seated) == len(set(seated))
        assert round_.status == Round.Status.FINISHED
    # the knockout is a tree ending in one final table fed by the tables before it
    knockout = tournament.stages.get(format="knockout")
    final_round = knockout.rounds.latest("number")
    final = final_round.tables.get()
    assert final.score_group == "final"
    assert {f["table"] for f in final.feeds_from} == set(
        Table.objects.filter(
            round__stage=knockout, round__number=final_round.number - 1
        ).values_list("pk", flat=True)
    )
    winner = Entry.objects.get(tournament=tournament, final_place=1)
    assert TableResult.objects.get(table=final).places[0] == winner.pk
    # the prize pool is paid out exactly
    pool = PrizePool.objects.get(tournament=tournament)
    assert pool.final
    assert pool.total == Decimal("1440")  # 16 x 100 less 10 %
    paid = sum(p.amount for p in Payout.objects.filter(tournament=tournament))
    assert paid == pool.total
    assert tournament.ranks_computed_at is not None
    assert tournament.ratings_applied_at is not None


def snapshot(tournament: Tournament) -> dict[str, Any]:
    return {
        "payouts": list(
            Payout.objects.filter(tournament=tournament).values_list("entry", "amount")
        ),
        "ranks": list(
            RankRecord.objects.filter(tournament=tournament).values_list(
                "player", "rank", "pogony_received", "pogony_given"
            )
        ),
        "ratings": list(Player.objects.order_by("pk").values_list("rating_mu", "rating_sigma")),
        "tables": Table.objects.count(),
        "results": TableResult.objects.count(),
        "places": list(Entry.objects.order_by("pk").values_list("final_place", flat=True)),
    }


@pytest.mark.django_db(transaction=True)
def test_a_swiss_then_knockout_tournament_plays_to_the_end(
    bot_players: list[Player], eager_jobs: None
) -> None:
    tournament = make_tournament(bot_players)
    services.tournament_start(tournament=tournament)
    assert_finished_correctly(tournament)
    swiss = tournament.stages.get(format="swiss")
    assert swiss.rounds.count() == 2
    assert all("score_groups" in r.explanation for r in swiss.rounds.all())


@pytest.mark.django_db(transaction=True)
def test_every_job_run_twice_changes_nothing_the_second_time(
    bot_players: list[Player], eager_jobs: None
) -> None:
    tournament = make_tournament(bot_players)
    services.tournament_start(tournament=tournament)
    before = snapshot(tournament)
    # when every job runs again
    for round_ in Round.objects.filter(stage__tournament=tournament):
        services.round_pair(round_id=round_.pk)
        services.round_complete(round_id=round_.pk)
    services.prize_pool_compute(tournament_id=tournament.pk)
    services.tournament_ranks_compute(tournament_id=tournament.pk)
    services.ratings_update(tournament_id=tournament.pk)
    assert reconcile.due_jobs(grace=timedelta(0)) == []  # nothing is due
    # then nothing changed
    assert snapshot(tournament) == before


@pytest.mark.django_db(transaction=True)
def test_round_robin_groups_then_a_final_swiss_round(
    bot_players: list[Player], eager_jobs: None
) -> None:
    tournament = make_tournament(
        bot_players[:8],
        stages=[
            {"format": "round_robin", "table_size": 2, "groups": 2, "advance": {"per_table": 2}},
            {"format": "swiss", "table_size": 4, "rounds": 1},
        ],
    )
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    rr = tournament.stages.get(format="round_robin")
    # 2 groups of 4 at 2-seat tables: 3 rounds, every pair of a group meets exactly once
    assert rr.rounds.count() == 3
    meetings: dict[frozenset[int], int] = {}
    for table in Table.objects.filter(round__stage=rr):
        pair = frozenset(table.seats.values_list("entry_id", flat=True))
        meetings[pair] = meetings.get(pair, 0) + 1
    assert len(meetings) == 12 and set(meetings.values()) == {1}
    final = tournament.stages.get(format="swiss")
    assert final.stage_entries.count() == 4


@pytest.mark.django_db(transaction=True)
def test_more_groups_than_letters_each_play_and_send_their_winner_on(eager_jobs: None) -> None:
    # given 28 round-robin groups of 2 (more than the 26 letters A to Z)
    tournament = make_tournament(
        BotPlayerFactory.create_batch(56),
        stages=[
            {"format": "round_robin", "table_size": 2, "groups": 28, "advance": {"per_table": 1}},
            {"format": "swiss", "table_size": 4, "rounds": 1},
        ],
    )
    # when it is played
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    # then every group played its table, named A to Z then AA, AB, and each winner went on
    assert tournament.status == Tournament.Status.FINISHED
    rr = tournament.stages.get(format="round_robin")
    groups = sorted(
        Table.objects.filter(round__stage=rr).values_list("score_group", flat=True),
        key=lambda g: (len(g), g),
    )
    assert groups[:2] == ["group A", "group B"] and groups[-2:] == ["group AA", "group AB"]
    assert len(set(groups)) == 28
    assert tournament.stages.get(format="swiss").stage_entries.count() == 28


@pytest.mark.real_stack
@pytest.mark.django_db(transaction=True)
def test_the_jobs_run_on_a_real_worker(bot_players: list[Player], celery_worker: None) -> None:
    # given a tournament whose jobs go through Redis to a real worker process
    tournament = make_tournament(bot_players)
    # when it starts
    services.tournament_start(tournament=tournament)
    # then the worker pairs, plays, completes and pays it out by itself
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        tournament.refresh_from_db()
        if (
            tournament.ratings_applied_at
            and tournament.ranks_computed_at
            and (PrizePool.objects.filter(tournament=tournament, final=True).exists())
        ):
            break
        time.sleep(0.5)
    assert_finished_correctly(tournament)


@pytest.mark.django_db(transaction=True)
def test_a_team_event_seats_partners_apart_and_plays_to_the_end(
    bot_players: list[Player], eager_jobs: None
) -> None:
    tournament = pairs_event(bot_players, rounds=2, name="Парный турнир")
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    for table in Table.objects.filter(round__stage__tournament=tournament):
        seats = list(table.seats.order_by("position"))
        assert len(seats) == 4
        # partners sit across the table: seats 0 and 2, 1 and 3
        assert seats[0].entry_id == seats[2].entry_id != seats[1].entry_id == seats[3].entry_id
        result = TableResult.objects.get(table=table)
        assert len(result.places) == 2
        # the losing team is the fool's, unless the last cards went out together (a draw)
        assert result.fool_entry_id == (None if result.drawn else result.places[-1])
        assert table.games.earliest("number").rules["teams"] == [[0, 2], [1, 3]]


@pytest.mark.django_db  # on_commit never fires here: the test runs the jobs' bodies itself
def test_late_registration_joins_the_next_round(bot_players: list[Player]) -> None:
    tournament = make_tournament(
        bot_players[:8],
        stages=[{"format": "swiss", "table_size": 4, "rounds": 3}],
        late_registration_rounds=2,
    )
    services.tournament_start(tournament=tournament)  # jobs are queued, not run: round 1 pending
    round_1 = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_1.pk)
    late = services.entry_register(tournament=tournament, player=bot_players[8])
    assert late.stage_entries.get().seed == 9
    # when round 1 has finished, round 2 seats the late entry too
    for table in round_1.tables.all():
        entries = list(table.seats.order_by("position").values_list("entry_id", flat=True))
        services.table_record_result(table=table, places=entries, fool=entries[-1], source="bot")
    services.round_complete(round_id=round_1.pk)
    round_2 = Round.objects.get(stage__tournament=tournament, number=2)
    services.round_pair(round_id=round_2.pk)
    assert Seat.objects.filter(table__round=round_2, entry=late).exists()
    services.round_pair(round_id=round_2.pk)  # the job again: nothing changes
    assert Seat.objects.filter(table__round=round_2).count() == 9
