"""The events endpoints take as many queries for a tournament of 256 players as for one of 8
(the issue's bar; Tabbycat's standings timed out on large events: TabbycatDebate/tabbycat#2913).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api.test_events import API, finished_event, swiss_then_knockout
from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle
from tournaments.models import Round, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def endpoints(tournament: Tournament) -> list[str]:
    t = f"tournaments/{tournament.slug}/"
    assert tournament.league is not None
    return [
        "tournaments/",
        f"tournaments/?status=finished&league={tournament.league.slug}",
        t,
        t + "live/",
        t + "stages/1/rounds/",
        t + "stages/1/rounds/1/",
        t + "stages/2/rounds/1/",
        t + "stages/1/standings/",
        t + "standings/",
        t + "stages/2/bracket/",
        t + "results/",
        t + "stages/1/standings.csv",
        t + "stages/1/standings.json",
        t + "standings.csv",
        t + "standings.json",
        t + "results.csv",
        t + "results.json",
        "leagues/",
        f"leagues/{tournament.league.slug}/table/",
    ]


def count_queries(client: Client, tournament: Tournament) -> dict[str, int]:
    counts = {}
    for url in endpoints(tournament):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(API + url)
        assert response.status_code == 200, url
        assert tournament.league is not None
        label = url.replace(tournament.slug, "<slug>").replace(tournament.league.slug, "<league>")
        counts[label] = len(queries)
    return counts


def test_every_list_and_standings_endpoint_takes_the_same_queries_for_8_and_256_players(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    for throttle in (ApiAnonThrottle, ApiUserThrottle):
        monkeypatch.setattr(throttle, "allow_request", lambda self, request, view: True)
    measured = []
    for players in (8, 256):
        league = services.league_create(name=f"Лига {players}", season="2026", actor=None)
        event = finished_event(players, name=f"Кубок на {players}", league=league)
        event = Tournament.objects.select_related("league").get(pk=event.pk)
        measured.append(count_queries(client, event))
    small, large = measured
    print("\nqueries per endpoint (8 players / 256 players):")
    for url, count in small.items():
        print(f"  {count:3d} {large[url]:3d}  {url}")
    assert small == large
    assert max(small.values()) <= 10


def test_live_takes_the_same_queries_for_8_and_256_players_while_they_play(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overlay's one call at a running event: the round's tables in play with their games
    and series scores, the stage's standings: as many queries for 64 tables as for 2."""
    for throttle in (ApiAnonThrottle, ApiUserThrottle):
        monkeypatch.setattr(throttle, "allow_request", lambda self, request, view: True)
    counts = []
    for players in (8, 256):
        # people, not bots: their games wait for a first move (no job plays them)
        event = make_tournament(
            PlayerFactory.create_batch(players),
            stages=swiss_then_knockout(players),
            name=f"Кубок на {players}",
        )
        services.tournament_start(tournament=event)
        services.round_pair(
            round_id=Round.objects.get(stage__tournament=event, stage__order=1, number=1).pk
        )
        with CaptureQueriesContext(connection) as queries:
            response = client.get(API + f"tournaments/{event.slug}/live/")
        assert response.status_code == 200
        assert len(response.json()["tables"]) == players // 4
        assert all(t["current_game"] for t in response.json()["tables"])
        counts.append(len(queries))
    print(f"\nqueries of live/ at a running event (8 players / 256 players): {counts}")
    assert counts[0] == counts[1] <= 10
