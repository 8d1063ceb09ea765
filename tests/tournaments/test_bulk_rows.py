"""Many rows' columns written in one statement (``tournaments.services.bulk.rows_update``)
read back as the ORM would have written them."""

from __future__ import annotations

import pytest

from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments.models import Entry, Player
from tournaments.services.bulk import rows_update


@pytest.mark.django_db
def test_each_row_gets_its_own_values_and_the_others_stay() -> None:
    # given five players and their entries, one of them placed
    players = PlayerFactory.create_batch(5)
    tournament = make_tournament(players)
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk"))
    Entry.objects.filter(pk=entries[4].pk).update(final_place=9)
    # when three entries' places and two players' ratings are written, in batches of two
    placed = rows_update(
        Entry,
        ["final_place"],
        {entries[0].pk: (2,), entries[1].pk: (1,), entries[4].pk: (None,)},
        batch_size=2,
    )
    rated = rows_update(
        Player, ["rating_mu", "rating_sigma"], {players[0].pk: (27.5, 7.25), players[3].pk: (20, 8)}
    )
    # then those rows have them, and only those
    assert (placed, rated) == (3, 2)
    assert list(
        Entry.objects.filter(tournament=tournament)
        .order_by("pk")
        .values_list("final_place", flat=True)
    ) == [2, 1, None, None, None]
    ratings = dict(Player.objects.values_list("pk", "rating_mu"))
    assert (ratings[players[0].pk], ratings[players[3].pk]) == (27.5, 20.0)
    assert ratings[players[1].pk] == Player._meta.get_field("rating_mu").default
    assert Player.objects.get(pk=players[0].pk).rating_sigma == 7.25
