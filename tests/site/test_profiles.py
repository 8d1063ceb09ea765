"""A player's public profile (``/players/<id>/``): rating and its plot, ranks and pogony, the
tournaments played, recent games with their replays; what a private tournament hides; a fixed
number of queries however long the history."""

from __future__ import annotations

import doctest
import re
from collections.abc import Sequence
from itertools import pairwise

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.template.defaultfilters import floatformat
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from games.models import Game
from tests.api.test_events import finished_event
from tests.builders import make_tournament
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.models import League, Player, RankRecord, RatingChange, Tournament
from tournaments.site.people import charts
from tournaments.site.people.charts import line_chart, nice_ticks

#: A small swiss event of bots with real games (24 cards, so they are short).
SMALL_SWISS = [{"format": "swiss", "table_size": 4, "rounds": 2}]


def played_league(
    bots: Sequence[Player], tournaments: int, *, league: League | None = None, **kw: object
) -> list[Tournament]:
    """``tournaments`` finished swiss events of ``bots``, every game played by the bots through
    the jobs (run in-process: the caller needs ``eager_jobs`` and a transactional test)."""
    played = []
    for i in range(tournaments):
        tournament = make_tournament(
            bots,
            stages=SMALL_SWISS,
            rules={"deck_size": 24},
            name=f"Кубок {i + 1}",
            league=league,
            **kw,
        )
        services.tournament_start(tournament=tournament)
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED
        played.append(tournament)
    return played


def client_for(user: User | None = None) -> Client:
    client = Client(headers={"accept-language": "en"})
    if user is not None:
        client.force_login(user)
    return client


def polyline(html: str, key: str) -> list[tuple[float, float]]:
    match = re.search(rf'<polyline class="line {key}" points="([^"]*)"', html)
    assert match is not None, f"no {key} line"
    return [(float(x), float(y)) for x, y in (p.split(",") for p in match.group(1).split())]


def section(html: str, name: str) -> str:
    """The page's section titled ``<name>-title``."""
    match = re.search(rf'<section aria-labelledby="{name}-title">(.*?)</section>', html, re.S)
    assert match is not None, name
    return match.group(1)


# --- the page, after real games -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("eager_jobs")
def test_a_bots_profile_after_three_tournaments() -> None:
    # given eight bots that played three tournaments of a league
    bots = BotPlayerFactory.create_batch(8)
    league = services.league_create(name="Лига ботов", season="2026", actor=None)
    events = played_league(bots, 3, league=league)
    bot = Player.objects.get(pk=bots[0].pk)
    # when its profile is read
    response = client_for().get(f"/players/{bot.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    # then: who it is, its rating now
    assert bot.display_name in html and ">bot<" in html
    with translation.override("en"):  # as the page rounds them: half up
        shown_numbers = floatformat(bot.rating_ordinal, 2), floatformat(bot.rating_mu, 2)
    assert all(number in html for number in shown_numbers)
    # the displayed rating first, as the API gives it: 1500 + 40 (mu - 3 sigma)
    shown = re.search(r'<dd title="1500 \+ 40 × \(μ − 3σ\)">(\d+)</dd>', html)
    assert shown is not None
    assert int(shown.group(1)) == bot.rating_displayed == round(1500 + 40 * bot.rating_ordinal)
    # the plot: one point per tournament and the start, accessible, with a table behind it
    ordinal, mu = polyline(html, "ordinal"), polyline(html, "mu")
    assert len(ordinal) == len(mu) == 4
    changes = list(RatingChange.objects.filter(player=bot).order_by("created_at", "id"))
    values = [changes[0].mu_before - 3 * changes[0].sigma_before] + [
        c.mu_after - 3 * c.sigma_after for c in changes
    ]
    # a higher rating is drawn higher (smaller y)
    for ((_, y1), (_, y2)), (v1, v2) in zip(pairwise(ordinal), pairwise(values), strict=True):
        assert (y2 < y1) == (v2 > v1) or abs(v2 - v1) < 1e-6
    assert 'role="img" aria-labelledby="chart-title chart-desc"' in html
    assert '<title id="chart-title">' in html and '<desc id="chart-desc">' in html
    assert "<details" in html and "The rating history as a table" in html
    assert html.count('<text class="y-label"') >= 3 and '<text class="x-label' in html
    # the tournaments, newest first, each with its place and a link
    for event in events:
        place = event.entries.get(player=bot).final_place
        assert f'href="/tournaments/{event.slug}/"' in html
        assert place is not None
    listed = re.findall(
        r'<th scope="row"><a href="/tournaments/([^/]+)/">', section(html, "tournaments")
    )
    assert listed == [e.slug for e in reversed(events)]
    # the recent games, each with a link to its replay, the opponents linking to their profiles
    games = Game.objects.filter(table__seats__player=bot).distinct()
    assert games.count() == 6
    for game in games:
        assert f'href="/games/{game.pk}/replay/"' in html
    other = next(p for p in Game.objects.filter(pk=games[0].pk).get().players if p != bot.pk)
    assert f'href="/players/{other}/"' in html
    # pogony and ranks: as stored for the visible tournaments
    records = RankRecord.objects.filter(player=bot, tournament__isnull=False)
    given = sum(r.pogony_given for r in records)
    received = sum(r.pogony_received for r in records)
    assert re.search(rf"<dt>Pogony received</dt><dd>{received}</dd>", html)
    assert re.search(rf"<dt>Pogony given</dt><dd>{given}</dd>", html)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("eager_jobs")
def test_in_a_team_event_the_partner_is_not_an_opponent() -> None:
    bots = BotPlayerFactory.create_batch(8)
    tournament = services.tournament_create(
        name="Парный кубок",
        team_size=2,
        move_clock_seconds=0,
        rules={"deck_size": 24},
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
    )
    services.tournament_open_registration(tournament=tournament)
    for i in range(0, 8, 2):
        team = services.team_create(name=f"Пара {i}", players=bots[i : i + 2])
        services.entry_register(tournament=tournament, team=team)
    services.tournament_start(tournament=tournament)
    html = client_for().get(f"/players/{bots[0].pk}/").content.decode()
    games = section(html, "games")
    partner = re.search(r"partner: <a href=\"/players/(\d+)/\">", games)
    assert partner is not None and int(partner.group(1)) == bots[1].pk
    opponents = re.findall(r'<td><a href="/players/(\d+)/"', games)
    assert len(opponents) == 1 and int(opponents[0]) not in (bots[0].pk, bots[1].pk)
    # the team's tournament is listed with the team's name
    assert "(team Пара 0)" in section(html, "tournaments")


@pytest.mark.django_db
def test_a_new_player_has_a_profile_without_a_plot() -> None:
    player = PlayerFactory.create(display_name="Новичок", club="Клуб", city="Казань")
    html = client_for().get(f"/players/{player.pk}/").content.decode()
    assert "Новичок" in html and "Клуб" in html and "Казань" in html
    assert "<svg" not in html and "No rated tournament yet" in html
    assert "No tournaments yet." in html and "No games yet." in html
    # never the account
    assert player.user is not None and player.user.username not in html
    assert client_for().get("/players/987654/").status_code == 404


@pytest.mark.django_db
def test_russian_by_default() -> None:
    player = PlayerFactory.create()
    html = Client().get(f"/players/{player.pk}/").content.decode()
    assert '<html lang="ru">' in html


@pytest.mark.django_db
def test_a_private_tournament_shows_only_to_those_who_may_see_it(outsider: User) -> None:
    # given a player of a public and of a private finished tournament
    ann = PlayerFactory.create(display_name="Анна")
    field = [ann, *BotPlayerFactory.create_batch(3)]
    public = finished_event(field, name="Открытый кубок")
    private = finished_event(field, name="Закрытый кубок", is_public=False)
    url = f"/players/{ann.pk}/"
    # then outsiders see the public one only (its rating change, rank and games too)
    for user in (None, outsider):
        html = client_for(user).get(url).content.decode()
        assert public.slug in html
        assert private.slug not in html and "Закрытый кубок" not in html
        for game in Game.objects.filter(table__round__stage__tournament=private):
            assert f"/games/{game.pk}/" not in html
    # and the player sees both
    assert ann.user is not None
    html = client_for(ann.user).get(url).content.decode()
    assert public.slug in html and private.slug in html


# --- queries ----------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.slow
def test_a_profile_takes_the_same_queries_for_3_and_30_tournaments(outsider: User) -> None:
    counts = {}
    for n in (3, 30):
        field = BotPlayerFactory.create_batch(4)
        for i in range(n):
            finished_event(field, name=f"Кубок {n}-{i}")
        player = field[0]
        assert RatingChange.objects.filter(player=player).count() == n
        for who, user in (("anonymous", None), ("logged in", outsider)):
            client = client_for(user)
            with CaptureQueriesContext(connection) as queries:
                response = client.get(f"/players/{player.pk}/")
            assert response.status_code == 200
            counts[(n, who)] = len(queries)
    print("\nqueries of a profile:", counts)
    assert counts[(3, "anonymous")] == counts[(30, "anonymous")] <= 10
    assert counts[(3, "logged in")] == counts[(30, "logged in")]


# --- the chart's geometry -----------------------------------------------------------------------


def test_ticks_are_round_and_cover_the_values() -> None:
    assert nice_ticks(-3.1, 12.4) == [-5.0, 0.0, 5.0, 10.0, 15.0]
    assert nice_ticks(7.0, 7.0) == [6.0, 6.5, 7.0, 7.5, 8.0]
    chart = line_chart(["a", "b", "c"], {"x": [1.0, 3.0, 2.0]})
    ys = [d.y for d in chart.lines[0].dots]
    assert ys[1] < ys[2] < ys[0]  # higher values are higher up
    assert chart.top <= min(ys) and max(ys) <= chart.bottom
    xs = [d.x for d in chart.lines[0].dots]
    assert xs == sorted(xs) and xs[0] == chart.left and xs[-1] == chart.right


def test_many_points_keep_a_readable_x_axis() -> None:
    labels = [f"{i:02d}.05" for i in range(31)]
    chart = line_chart(labels, {"x": [float(i) for i in range(31)]})
    shown = [t.label for t in chart.x_ticks]
    assert len(shown) <= 8 and shown[0] == "00.05" and shown[-1] == "30.05"
    gaps = [b.pos - a.pos for a, b in pairwise(chart.x_ticks)]
    assert min(gaps) >= 40  # labels of five characters never touch


def test_the_band_lies_between_its_two_lines() -> None:
    chart = line_chart(
        ["a", "b"], {"mu": [25.0, 26.0], "ordinal": [0.0, 4.0]}, band=("mu", "ordinal")
    )
    ring = chart.band.split()
    assert len(ring) == 4
    assert ring[0] == chart.lines[0].points.split()[0]
    assert ring[-1] == chart.lines[1].points.split()[0]


def test_the_doctests_pass() -> None:
    assert doctest.testmod(charts).failed == 0
