"""Knockouts and stages still finish when entries leave (``docs/leaving.md``, issue #18): a
knockout table is seated with the entries still in (one left alone takes it by a walkover), and
a stage with fewer than two entries to play is skipped, the event finishing."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from tests.builders import make_tournament
from tournaments import services
from tournaments.models import (
    Entry,
    Payout,
    Player,
    PrizePool,
    Round,
    Stage,
    Table,
    TableResult,
    Tournament,
)


def seated(table: Table) -> list[int]:
    return list(table.seats.order_by("position").values_list("entry_id", flat=True))


def places(tournament: Tournament) -> dict[int, int | None]:
    return dict(Entry.objects.filter(tournament=tournament).values_list("pk", "final_place"))


def pool_paid_in_full(tournament: Tournament) -> None:
    services.prize_pool_compute(tournament_id=tournament.pk)
    pool = PrizePool.objects.get(tournament=tournament)
    paid = sum((p.amount for p in Payout.objects.filter(tournament=tournament)), start=Decimal(0))
    assert pool.final
    assert paid == pool.total


KNOCKOUT_OF_TWOS = [{"format": "knockout", "table_size": 2, "advance_per_table": 1}]


def started(
    players: list[Player], stages: list[dict[str, Any]], *, referees: Sequence[User] = ()
) -> tuple[Tournament, Round]:
    """A started event of ``players`` refereed by ``referees``, and its first round, paired."""
    tournament = make_tournament(players, stages=stages)
    tournament.referees.add(*referees)
    services.tournament_start(tournament=tournament)
    first_round = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=first_round.pk)
    return tournament, first_round


def first_seats_win(round_: Round) -> list[int]:
    """Every table of ``round_`` finished with its first seat first; the winners."""
    winners = []
    for table in Table.objects.filter(round=round_):
        first, second = seated(table)
        services.table_record_result(table=table, places=[first, second], fool=second)
        winners.append(first)
    return winners


@pytest.mark.django_db  # on_commit never fires here: the test runs the jobs' bodies itself
def test_a_final_whose_bye_left_is_a_walkover(bot_players: list[Player], client: Client) -> None:
    # given a knockout of three at two-seat tables: the top seed goes straight to the final
    tournament, first_round = started(bot_players[:3], KNOCKOUT_OF_TWOS)
    final = Table.objects.get(round__stage__tournament=tournament, round__number=2)
    top_seed = next(f["entry"] for f in final.feeds_from if "entry" in f)
    # when the top seed withdraws before its final, and the first round's table finishes
    services.entry_withdraw(entry=Entry.objects.get(pk=top_seed), reason="ушёл")
    table = Table.objects.get(round=first_round)
    winner, loser = seated(table)
    services.table_record_result(table=table, places=[winner, loser], fool=loser)
    # then the final is the winner's walkover: no game, the winner first, and the event is over
    final.refresh_from_db()
    assert final.is_bye and final.status == Table.Status.FINISHED
    assert seated(final) == [winner]
    assert not final.games.exists()
    result = TableResult.objects.get(table=final)
    assert result.places == [winner] and result.source == TableResult.Source.BYE
    services.round_complete(round_id=first_round.pk)
    services.round_complete(round_id=final.round_id)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert places(tournament) == {winner: 1, loser: 2, top_seed: 3}
    pool_paid_in_full(tournament)
    # and the bracket shows it: the API's node, and the page's picture in words
    body = client.get(
        f"/api/v1/tournaments/{tournament.slug}/stages/1/bracket/",
        headers={"Accept-Language": "en"},
    ).json()
    node = next(n for n in body["nodes"] if n["id"] == final.pk)
    assert node["walkover"] is True
    assert [e["id"] for e in node["entries"]] == [winner]
    assert [p["entry"]["id"] for p in node["result"]["places"]] == [winner]
    page = client.get(f"/tournaments/{tournament.slug}/", headers={"Accept-Language": "en"})
    assert page.status_code == 200 and "walkover" in page.content.decode()


@pytest.mark.django_db
def test_a_final_everyone_left_is_void_and_the_event_finishes(bot_players: list[Player]) -> None:
    # given the same knockout of three
    tournament, first_round = started(bot_players[:3], KNOCKOUT_OF_TWOS)
    final = Table.objects.get(round__stage__tournament=tournament, round__number=2)
    top_seed = next(f["entry"] for f in final.feeds_from if "entry" in f)
    table = Table.objects.get(round=first_round)
    winner, loser = seated(table)
    # when everyone withdraws: the top seed, then both players while their table plays
    for entry_id in (top_seed, winner, loser):
        services.entry_withdraw(entry=Entry.objects.get(pk=entry_id), reason="ушёл")
    services.table_record_result(table=table, places=[winner, loser], fool=loser)
    # then the final is void: finished, nobody seated, no result, and the event is over
    final.refresh_from_db()
    assert final.is_bye and final.status == Table.Status.FINISHED
    assert seated(final) == []
    assert not TableResult.objects.filter(table=final).exists()
    services.round_complete(round_id=first_round.pk)
    services.round_complete(round_id=final.round_id)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    # all withdrawn in the knockout: by the last round each played, then its place there
    assert places(tournament) == {winner: 1, loser: 2, top_seed: 3}
    pool_paid_in_full(tournament)


@pytest.mark.django_db
@pytest.mark.parametrize("staying", [1, 0])
def test_a_stage_too_few_are_left_for_is_skipped(bot_players: list[Player], staying: int) -> None:
    # given a swiss round of four at two-seat tables, the top two going on to a knockout
    tournament, first_round = started(
        bot_players[:4],
        stages=[
            {"format": "swiss", "table_size": 2, "rounds": 1, "advance": {"top": 2}},
            {"format": "knockout", "table_size": 2, "advance_per_table": 1},
        ],
    )
    winners = first_seats_win(first_round)
    # when all but ``staying`` of them withdraw before the round is over
    stays = winners[:staying]
    for entry in Entry.objects.filter(tournament=tournament).exclude(pk__in=stays):
        services.entry_withdraw(entry=entry, reason="ушёл")
    services.round_complete(round_id=first_round.pk)
    # then the knockout is skipped (no round), and the event is over
    knockout = Stage.objects.get(tournament=tournament, order=2)
    assert knockout.status == Stage.Status.FINISHED
    assert not knockout.rounds.exists()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    final = places(tournament)
    assert sorted(place or 0 for place in final.values()) == [1, 2, 3, 4]
    if stays:  # the one left wins; the withdrawn follow the swiss standings (a win first)
        assert final[winners[0]] == 1 and final[winners[1]] == 2
    else:  # all withdrawn in the swiss: its standings
        assert {final[w] for w in winners} == {1, 2}
    pool_paid_in_full(tournament)


def simulate(**options: Any) -> str:
    out = StringIO()
    try:
        call_command("simulate_tournament", no_progress=True, timeout=300, stdout=out, **options)
    except CommandError as exc:
        pytest.fail(f"{exc}\n{out.getvalue()}")
    return out.getvalue()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_top_seed_that_withdrew_is_not_seated_in_round_2(eager_jobs: None) -> None:
    # the random-incident run that seated a withdrawn bye in round 2 (issue #18)
    output = simulate(
        players=12,
        plan="knockout:4:1",
        team_size=2,
        series="first_to:2",
        reentry_fee="50",
        seed="192668",
        incidents_seed="802429",
        incidents="withdraw_before_start=1,withdraw=2,withdraw_mid_game=1,late_entry=1,draw=1",
        incident_rate=0.2,
    )
    assert "Invariants held" in output, output


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_knockout_too_few_are_left_for_does_not_stall_the_event(eager_jobs: None) -> None:
    # the random-incident run whose knockout could never be paired (issue #18)
    output = simulate(
        players=8,
        plan="rr:4:2:per_table=1,knockout:4:1",
        team_size=2,
        series="best_of:3",
        two_person_rule=True,
        seed="525145",
        incidents_seed="723571",
        incidents=(
            "withdraw_before_start=1,withdraw=2,withdraw_mid_game=1,disqualify=2,late_entry=1,"
            "correct=2,correct_repair=1,seat_swap=1"
        ),
        incident_rate=0.2,
    )
    assert "Invariants held" in output, output


@pytest.mark.django_db
def test_round_robin_groups_shrink_to_the_entries_left(bot_players: list[Player]) -> None:
    # given a swiss round of six, the top four going on to two round-robin groups
    tournament, first_round = started(
        bot_players[:6],
        stages=[
            {"format": "swiss", "table_size": 2, "rounds": 1, "advance": {"top": 4}},
            {"format": "round_robin", "table_size": 2, "groups": 2},
        ],
    )
    winners = first_seats_win(first_round)
    # when all but two withdraw before the round is over (two groups of one could not play)
    for entry in Entry.objects.filter(tournament=tournament).exclude(pk__in=winners[:2]):
        services.entry_withdraw(entry=entry, reason="ушёл")
    services.round_complete(round_id=first_round.pk)
    # then the round robin is one group of the two: they play each other
    second_round = Round.objects.get(stage__order=2, stage__tournament=tournament, number=1)
    services.round_pair(round_id=second_round.pk)
    (table,) = Table.objects.filter(round=second_round)
    assert sorted(seated(table)) == sorted(winners[:2])


@pytest.mark.django_db
def test_a_knockout_table_plays_smaller_without_a_bye_that_left(bot_players: list[Player]) -> None:
    # given a knockout of six at four-seat tables: two top seeds go straight to the final
    tournament, first_round = started(
        bot_players[:6],
        stages=[{"format": "knockout", "table_size": 4, "advance_per_table": 1}],
    )
    final = Table.objects.get(round__stage__tournament=tournament, round__number=2)
    byes = [f["entry"] for f in final.feeds_from if "entry" in f]
    assert len(byes) == 2
    # when one top seed withdraws and the first round's tables finish
    services.entry_withdraw(entry=Entry.objects.get(pk=byes[0]), reason="ушёл")
    winners = first_seats_win(first_round)
    # then the final is played by the three still in, its game dealt to three
    final.refresh_from_db()
    assert final.status == Table.Status.PLAYING and not final.is_bye
    assert sorted(seated(final)) == sorted([byes[1], *winners])
    (game,) = final.games.all()
    assert len(game.players) == 3


@pytest.mark.django_db
def test_a_correction_decides_a_walkover_again(bot_players: list[Player], referee: User) -> None:
    # given the knockout of three whose final was a walkover after the top seed withdrew
    tournament, first_round = started(bot_players[:3], KNOCKOUT_OF_TWOS, referees=[referee])
    final = Table.objects.get(round__stage__tournament=tournament, round__number=2)
    top_seed = next(f["entry"] for f in final.feeds_from if "entry" in f)
    services.entry_withdraw(entry=Entry.objects.get(pk=top_seed), reason="ушёл")
    table = Table.objects.get(round=first_round)
    a, b = seated(table)
    services.table_record_result(table=table, places=[a, b], fool=b)
    # when a referee corrects the first round's result (before the final's round is closed)
    services.table_result_enter(
        table=table, actor=referee, places=[b, a], fool=a, reason="протест", repair=True
    )
    # then the walkover goes to the new winner, once
    final.refresh_from_db()
    assert final.is_bye and final.status == Table.Status.FINISHED
    assert seated(final) == [b]
    (result,) = TableResult.objects.filter(table=final)
    assert result.places == [b]
