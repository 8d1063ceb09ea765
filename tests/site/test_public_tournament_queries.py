"""The public pages of an event take as many queries for 256 players as for 8 (issue #12: "no
page runs more than a fixed number of queries whatever the tournament's size"), finished or in
play, with rounds opened or not. The events are the API's query test's (its builders, reused).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api.test_events import finished_event
from tests.site.test_public_tournament import running_event
from tournaments.models import Round, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def urls(tournament: Tournament) -> dict[str, str]:
    """The pages to count, by a label that does not depend on the event."""
    rounds = Round.objects.filter(stage__tournament=tournament).order_by("stage__order", "number")
    first, last = rounds.first(), rounds.last()
    assert first is not None and last is not None
    page = f"/tournaments/{tournament.slug}/"
    embed = f"/embed/tournaments/{tournament.slug}/"
    return {
        "page": page,
        "page, two rounds opened": f"{page}?round={first.pk}&round={last.pk}",
        "page, second page of standings": f"{page}?stage1_page=2",
        "page, second page of a round's tables": f"{page}?round={first.pk}&round{first.pk}_page=2",
        "page, a player's table looked for": f"{page}?round={first.pk}&find=a",
        "embed: standings": embed + "standings/",
        "embed: stage 1 standings": embed + "standings/?stage=1",
        "embed: stage 1 standings, a page of 5": embed + "standings/?stage=1&page=2&limit=5",
        "embed: bracket": embed + "bracket/",
    }


def count(client: Client, tournament: Tournament) -> dict[str, int]:
    counts = {}
    for label, url in urls(tournament).items():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        counts[label] = len(queries)
    return counts


def report(title: str, small: dict[str, int], large: dict[str, int]) -> None:
    print(f"\n{title}: queries per page (8 players / 256 players)")
    for label, queries in small.items():
        print(f"  {queries:3d} {large[label]:3d}  {label}")


def test_a_finished_events_pages_take_the_same_queries_for_8_and_256_players(
    client: Client,
) -> None:
    small, large = (
        count(client, finished_event(players, name=f"Кубок на {players}")) for players in (8, 256)
    )
    report("finished", small, large)
    assert small == large
    assert max(small.values()) <= 30


def test_a_running_events_pages_take_the_same_queries_for_8_and_256_players(
    client: Client,
) -> None:
    small, large = (count(client, running_event(players)) for players in (8, 256))
    report("running", small, large)
    assert small == large
    assert max(small.values()) <= 30
