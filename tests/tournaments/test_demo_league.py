"""The demo shows what makes the service its own (issue 20): a league season of two finished
tournaments whose players wear ranks (сержант, старшина, ...), and pages in the reader's
language, the pairing's compromises too."""

from __future__ import annotations

import io
import itertools
import time

import pytest
from django.core.management import call_command
from django.test import Client

from games import engine
from tests.factories import console_group
from tournaments.management.commands import demo
from tournaments.models import League, RankRecord, Tournament
from tournaments.selectors.leagues import league_standings

pytestmark = pytest.mark.django_db(transaction=True)

# What ``pairing.Compromise.describe`` writes: none of it may reach a Russian page.
ENGLISH = ("meet again", "share the club", "share the team", "attacks first again", "gets a bye")


def test_the_demo_seeds_a_league_season_whose_players_wear_ranks(
    eager_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given: deals from a fixed sequence of seeds (a game's seed is otherwise secret and random),
    # so that this run is the same every time
    seeds = (f"{n:032x}" for n in itertools.count(1))
    monkeypatch.setattr(engine, "new_seed", lambda: next(seeds))
    for group in ("organiser", "referee"):
        console_group(group)
    # when: the demo runs
    started = time.monotonic()
    out = io.StringIO()
    call_command("demo", players=8, timeout=60, stdout=out)
    first_run = time.monotonic() - started
    # then: a league season with its two tournaments finished, and its table
    league = League.objects.get(name=demo.LEAGUE_NAME, season=demo.LEAGUE_SEASON)
    events = Tournament.objects.filter(league=league)
    assert sorted(events.values_list("name", "status")) == sorted(
        (name, Tournament.Status.FINISHED) for name in demo.LEAGUE_EVENTS
    )
    table = league_standings(league, among=Tournament.objects.all())
    assert table.counted == 2 and len(table.lines) == demo.LEAGUE_PLAYERS and not table.error
    # and players who wear сержант and старшина, from the games' pogony (the ranks job's rows)
    ranks = set(RankRecord.objects.filter(league=league).values_list("rank", flat=True))
    assert {"сержант", "старшина"} <= ranks, ranks
    assert f"League season: /leagues/{league.slug}/{league.season}/" in out.getvalue()
    # and the league page shows them next to the names
    page = Client(headers={"accept-language": "ru"}).get(f"/leagues/{league.slug}/2026/")
    text = page.content.decode()
    assert page.status_code == 200 and "сержант" in text and "старшина" in text
    # and the running tournament's page in Russian says nothing of its pairing in English
    live = Tournament.objects.get(name=demo.LIVE_NAME)
    page = Client(headers={"accept-language": "ru"}).get(f"/tournaments/{live.slug}/")
    text = page.content.decode()
    assert page.status_code == 200 and not [w for w in ENGLISH if w in text]
    assert "Бот лиги" in text  # the live event's bots are the league's, ranks and all

    # when: the demo runs again
    call_command("demo", players=8, timeout=60, stdout=io.StringIO())
    # then: it plays nothing again
    assert Tournament.objects.filter(league=league).count() == 2
    assert Tournament.objects.filter(name=demo.LIVE_NAME).count() == 1
    assert first_run < 30, f"the demo took {first_run:.1f} s"
