"""League pages: ``/leagues/`` (the seasons), ``/leagues/<slug>/`` (the newest season) and
``/leagues/<slug>/<season>/`` (the season table, its tournaments, a ratings leaderboard); what
a private tournament hides; a fixed number of queries for 8 and 256 players; the front page
links to them."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api.test_events import finished_event
from tests.builders import make_tournament
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.models import Player
from tournaments.selectors import visibility
from tournaments.selectors.leagues import league_standings

pytestmark = pytest.mark.django_db


def client_for(user: User | None = None) -> Client:
    client = Client(headers={"accept-language": "en"})
    if user is not None:
        client.force_login(user)
    return client


def section(html: str, name: str) -> str:
    match = re.search(rf'<section aria-labelledby="{name}-title">(.*?)</section>', html, re.S)
    assert match is not None, name
    return match.group(1)


def test_a_season_shows_its_table_tournaments_and_leaderboard() -> None:
    # given a league season of two finished tournaments and one open for registration
    league = services.league_create(name="Лига Москвы", season="2026", actor=None)
    field = BotPlayerFactory.create_batch(8)
    first = finished_event(field, name="Весенний кубок", league=league)
    second = finished_event(field[:4], name="Летний кубок", league=league)
    upcoming = make_tournament(BotPlayerFactory.create_batch(2), name="Осенний", league=league)
    # when the season's page is read
    response = client_for().get(f"/leagues/{league.slug}/2026/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Лига Москвы" in html and "2026" in html
    # then the season table: the selector's lines, in order, names linking to the profiles
    standing = league_standings(league, among=visibility.tournaments_visible_to(None))
    rows = standing.lines
    assert not standing.error and len(rows) == 8
    table = section(html, "table")
    names = re.findall(r'<th scope="row"><a href="/players/(\d+)/">([^<]+)</a>', table)
    assert [(int(i), n) for i, n in names] == [(r.player_id, r.name) for r in rows]
    assert "2 finished tournaments" in html
    # its tournaments (the upcoming one too), linking to their pages
    events = section(html, "events")
    for event in (first, second, upcoming):
        assert f'href="/tournaments/{event.slug}/"' in events
    # and the leaderboard by rating, best first
    board = section(html, "ratings")
    listed = [int(i) for i in re.findall(r'href="/players/(\d+)/"', board)]
    ordinals = {p.pk: p.rating_ordinal for p in Player.objects.filter(pk__in=listed)}
    assert listed == sorted(listed, key=lambda pk: -ordinals[pk])
    assert len(listed) == 8
    # each with the displayed rating beside mu - 3 sigma
    best = Player.objects.get(pk=listed[0])
    first_row = board.split(f'href="/players/{best.pk}/"', 1)[1].split("</tr>", 1)[0]
    assert f"<strong>{best.rating_displayed}</strong>" in first_row


def test_the_leaderboard_folds_after_twenty_players() -> None:
    league = services.league_create(name="Большая лига", season="2026", actor=None)
    finished_event(24, name="Кубок", league=league)
    html = client_for().get(f"/leagues/{league.slug}/2026/").content.decode()
    board = section(html, "ratings")
    top, rest = board.split("<details", 1)
    assert len(re.findall(r'href="/players/', top)) == 20
    assert len(re.findall(r'href="/players/', rest)) == 4
    assert "All 24 players" in rest


def test_a_slug_leads_to_its_newest_season_and_seasons_link_each_other() -> None:
    old = services.league_create(name="Лига", season="2025", actor=None)
    new = services.league_create(name="Лига", season="2026/27", actor=None)
    assert old.slug == new.slug
    finished_event(4, name="Старый", league=old)
    finished_event(4, name="Новый", league=new)
    response = client_for().get(f"/leagues/{old.slug}/")
    assert response.status_code == 302
    assert response["Location"] == f"/leagues/{new.slug}/2026/27/"
    html = client_for().get(response["Location"]).content.decode()
    assert "Новый" in html and "Старый" not in html
    assert f'href="/leagues/{old.slug}/2025/"' in html and 'aria-current="page">2026/27' in html
    assert client_for().get(f"/leagues/{old.slug}/2024/").status_code == 404
    assert client_for().get("/leagues/no-such-league/").status_code == 404


def test_a_league_of_private_events_is_nobody_elses_business(outsider: User) -> None:
    league = services.league_create(name="Клубная лига", season="2026", actor=None)
    ann = PlayerFactory.create(display_name="Анна")
    finished_event([ann, *BotPlayerFactory.create_batch(3)], league=league, is_public=False)
    url = f"/leagues/{league.slug}/2026/"
    for user in (None, outsider):
        assert client_for(user).get(url).status_code == 404
        assert "Клубная лига" not in client_for(user).get("/leagues/").content.decode()
        assert "Клубная лига" not in client_for(user).get("/").content.decode()
    assert ann.user is not None
    html = client_for(ann.user).get(url).content.decode()
    assert "Анна" in html
    assert "Клубная лига" in client_for(ann.user).get("/leagues/").content.decode()


def test_a_private_event_stays_out_of_a_public_leagues_table(outsider: User) -> None:
    league = services.league_create(name="Смешанная лига", season="2026", actor=None)
    finished_event(4, name="Открытый", league=league)
    ann = PlayerFactory.create(display_name="Тайная Анна")
    finished_event([ann, *BotPlayerFactory.create_batch(3)], league=league, is_public=False)
    html = client_for(outsider).get(f"/leagues/{league.slug}/2026/").content.decode()
    assert "Открытый" in html and "Тайная Анна" not in html
    assert "1 finished tournament." in html


def test_the_leagues_page_and_the_front_page_link_to_the_seasons() -> None:
    league = services.league_create(name="Лига Казани", season="2026", actor=None)
    finished_event(4, name="Кубок", league=league)
    for url in ("/leagues/", "/"):
        html = client_for().get(url).content.decode()
        assert f'href="/leagues/{league.slug}/2026/"' in html
    assert 'href="/leagues/"' in client_for().get("/").content.decode()
    assert '<html lang="ru">' in Client().get("/leagues/").content.decode()  # Russian by default


@pytest.mark.slow
def test_a_season_takes_the_same_queries_for_8_and_256_players() -> None:
    counts = []
    for players in (8, 256):
        league = services.league_create(name=f"Лига {players}", season="2026", actor=None)
        finished_event(players, name=f"Кубок на {players}", league=league)
        pages = {}
        for url in (f"/leagues/{league.slug}/2026/", "/leagues/", "/"):
            with CaptureQueriesContext(connection) as queries:
                response = client_for().get(url)
            assert response.status_code == 200
            pages[url.replace(league.slug, "<slug>")] = len(queries)
        counts.append(pages)
    print("\nqueries per page (8 players / 256 players):", counts)
    assert counts[0] == counts[1]
    assert max(counts[0].values()) <= 8
