"""An entry that leaves a knockout after winning its table is not seated again: the next of that
table's finishing order goes on in its place (``docs/leaving.md``: not seated again)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.builders import make_tournament
from tournaments import services
from tournaments.models import Player, Round, Seat, Table


def seated(table: Table) -> list[int]:
    return list(table.seats.order_by("position").values_list("entry_id", flat=True))


@pytest.mark.django_db  # on_commit never fires here: the test runs the jobs' bodies itself
@pytest.mark.parametrize("leaving", ["withdraw", "disqualify"])
def test_the_next_of_the_table_goes_on_for_a_winner_who_left(
    bot_players: list[Player], referee: User, leaving: str
) -> None:
    # given a knockout of four at two-seat tables, one goes on from each
    tournament = make_tournament(
        bot_players[:4],
        stages=[{"format": "knockout", "table_size": 2, "advance_per_table": 1}],
    )
    tournament.referees.add(referee)  # the referee of this event withdraws
    services.tournament_start(tournament=tournament)
    first_round = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=first_round.pk)
    one, two = Table.objects.filter(round=first_round).order_by("number")
    winner, runner_up = seated(one)
    services.table_record_result(table=one, places=[winner, runner_up], fool=runner_up)
    # when the winner of table 1 leaves before the final is seated
    entry = tournament.entries.get(pk=winner)
    if leaving == "withdraw":
        services.entry_withdraw(entry=entry, reason="ушёл", actor=referee)
    else:
        services.entry_disqualify(entry=entry, reason="краплёные карты", actor=referee)
    other_winner, other_loser = seated(two)
    services.table_record_result(table=two, places=[other_winner, other_loser], fool=other_loser)
    # then the final seats the runner-up of table 1 in its place
    final = Table.objects.get(round__stage__tournament=tournament, round__number=2)
    assert sorted(seated(final)) == sorted([runner_up, other_winner])
    assert not Seat.objects.filter(table=final, entry_id=winner).exists()
