"""Byes in a swiss stage: no entry has a second bye while another has had none (FIDE C.04), in
an individual or a team event; a team's bye (one seat, its first player) teaches the ratings
nothing, while its other rounds rate all its players."""

from __future__ import annotations

import pytest

from tests.builders import make_tournament, pairs_event
from tournaments import services
from tournaments.models import Player, RatingChange, Round, Table, Tournament


def play_rounds(tournament: Tournament, rounds: int) -> list[int]:
    """Pair and record every round (first seat first out); returns the bye of each round."""
    services.tournament_start(tournament=tournament)
    byes = []
    for number in range(1, rounds + 1):
        round_ = Round.objects.get(stage__tournament=tournament, number=number)
        services.round_pair(round_id=round_.pk)
        for table in Table.objects.filter(round=round_):
            seated = table.seats.order_by("position").values_list("entry_id", flat=True)
            entries = list(dict.fromkeys(seated))
            if table.is_bye:
                byes += entries
            else:
                services.table_record_result(
                    table=table, places=entries, fool=entries[-1], source="bot"
                )
        services.round_complete(round_id=round_.pk)
    return byes


@pytest.mark.django_db  # on_commit never fires here: the test runs the jobs' bodies itself
def test_no_second_bye_while_another_had_none(bot_players: list[Player]) -> None:
    tournament = make_tournament(
        bot_players[:5], stages=[{"format": "swiss", "table_size": 2, "rounds": 3}]
    )
    byes = play_rounds(tournament, 3)
    assert len(byes) == len(set(byes)) == 3


@pytest.mark.django_db
def test_the_ratings_of_a_team_event_with_byes(bot_players: list[Player]) -> None:
    # given three pairs in a two-round swiss at four-seat tables: a bye in each round
    tournament = pairs_event(bot_players[:6], rounds=2)
    byes = play_rounds(tournament, 2)
    assert len(set(byes)) == 2  # two pairs sat out once each, and played once
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    # when the ratings job runs, every player who played is rated (a bye teaches nothing)
    assert services.ratings_update(tournament_id=tournament.pk) == 6
    assert RatingChange.objects.filter(tournament=tournament).count() == 6
