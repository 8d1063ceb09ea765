"""A knockout whose field is not a full bracket: the top seeds go straight to round 2, and a
round-2 table fed by byes only is seated at once (no feeder will finish to seat it)."""

from __future__ import annotations

import pytest

from tests.builders import make_tournament
from tournaments import services
from tournaments.models import Entry, Player, Table, Tournament


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("field", [5, 9])
def test_a_knockout_with_byes_plays_to_the_end(
    bot_players: list[Player], eager_jobs: None, field: int
) -> None:
    tournament = make_tournament(
        bot_players[:field],
        stages=[{"format": "knockout", "table_size": 2, "advance_per_table": 1}],
    )
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert not Table.objects.filter(round__stage__tournament=tournament).exclude(
        status=Table.Status.FINISHED
    )
    places = list(Entry.objects.filter(tournament=tournament).values_list("final_place", flat=True))
    assert None not in places
    assert min(p for p in places if p is not None) == 1
