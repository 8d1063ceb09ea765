"""Ranks (звания) next to the players' names, in the reader's language (issue 20): a stage's
standings, the league's table and the profile."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.builders import make_tournament
from tests.factories import BotPlayerFactory
from tournaments import services
from tournaments.models import League, Player, RankRecord, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def page(url: str, language: str) -> str:
    response = Client(headers={"accept-language": language}).get(url)
    assert response.status_code == 200
    return response.content.decode()


def name_cells(html: str) -> list[str]:
    """The row headers (a player's name and what stands next to it), tags stripped."""
    cells = re.findall(r'<th scope="row">(.*?)</th>', html, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in cells]


@pytest.mark.parametrize(("language", "title"), [("ru", "старшина"), ("en", "sergeant major")])
def test_standings_league_table_and_profile_show_the_rank_by_the_name(
    eager_jobs: None, language: str, title: str
) -> None:
    # given: a league season with a finished swiss of eight bots, one of whom is a старшина of
    # the season (as the ranks job stores it)
    league = League.objects.create(name="Лига", slug="liga", season="2026")
    bots: list[Player] = BotPlayerFactory.create_batch(8)
    for i, bot in enumerate(bots):
        bot.display_name = f"Бот {i + 1}"
        bot.save(update_fields=["display_name"])
    tournament = make_tournament(
        bots,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        rules={"deck_size": 24},
        league=league,
    )
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    RankRecord.objects.all().delete()  # only the one below: the rest of the cast wears none
    RankRecord.objects.create(player=bots[2], league=league, rank="старшина", pogony_received=2)
    ranked = f"Бот 3 {title}"
    # then: the stage's standings name it by the player
    standings = page(f"/tournaments/{tournament.slug}/", language)
    assert ranked in name_cells(standings)
    assert not [c for c in name_cells(standings) if c.startswith("Бот 1 ")]
    # and the league's table
    assert ranked in name_cells(page("/leagues/liga/2026/", language))
    # and the profile, in its heading and its table of ranks
    profile = page(f"/players/{bots[2].pk}/", language)
    heading = re.search(r"<h1>(.*?)</h1>", profile, re.S)
    assert heading is not None and title in heading.group(1)
    assert f"<td>{title}</td>" in profile
