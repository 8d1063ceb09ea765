"""The public pages joined up (issue #20): every table, bracket node and round links to the live
table while it plays and to the replay once finished; the replay links back to its place on the
event's page and to the players; the same game is named the same on the bracket, the replay and
a profile; the home page lists the live tables; an open event shows when it starts and who has
registered; a finished event never says it is live."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game
from tests.builders import make_tournament, start_live_table
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.models import Player, Round, Table, Tournament

# jobs run in-process, after each commit: the bots play their games through them
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("eager_jobs")]

BEST_OF_3 = {"format": "best_of", "target": 3}
KNOCKOUT = [{"format": "knockout", "table_size": 2, "advance_per_table": 1, "series": BEST_OF_3}]


def page(client: Client, url: str, language: str = "en") -> str:
    response = client.get(url, headers={"Accept-Language": language})
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def hrefs(html: str) -> set[str]:
    return set(re.findall(r'href="([^"]+)"', html))


@pytest.fixture
def cup() -> Tournament:
    """Four bots through a knockout of best-of-3 heads-up series (semi-finals, then the final),
    every game played by the bots through the services and jobs."""
    tournament = make_tournament(
        BotPlayerFactory.create_batch(4, bot_kind="random"),
        stages=KNOCKOUT,
        name="Кубок ссылок",
        seed="links",
    )
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament


def last_game(table: Table) -> Game:
    game = Game.objects.filter(table=table).order_by("-number").first()
    assert game is not None and game.is_over
    return game


def final_table(cup: Tournament) -> Table:
    return Table.objects.get(round__stage__tournament=cup, round__number=2)


def test_a_finished_tables_card_and_bracket_node_open_its_last_games_replay(
    client: Client, cup: Tournament
) -> None:
    # given the finished cup's page with its semi-finals' round opened
    semis = Round.objects.get(stage__tournament=cup, number=1)
    html = page(client, f"/tournaments/{cup.slug}/?round={semis.pk}")
    links = hrefs(html)
    for table in Table.objects.filter(round__stage__tournament=cup):
        replay = f"/games/{last_game(table).pk}/replay/"
        # then the bracket node and (for an opened round) the table card link to the replay of
        # the game that decided the series, not to the live table
        assert replay in links
        assert f'<a href="{replay}"><text class="title"' in html
    assert f"/tables/{final_table(cup).pk}/" not in links
    card = html[html.index(f'id="table-{semis.tables.order_by("number")[0].pk}"') :]
    assert 'class="replay-link"' in card[: card.index("</article>")]


def test_a_playing_table_and_its_bracket_node_open_the_live_table(client: Client) -> None:
    # given a running event whose one table plays
    live = start_live_table()
    html = page(client, f"/tournaments/{live.tournament.slug}/")
    # then its card links to the live table, and a replay of its game in play says it is live
    assert f'href="/tables/{live.table.pk}/"' in html
    replay = page(client, f"/games/{live.game.pk}/replay/")
    assert f'href="/tables/{live.table.pk}/"' in replay


def test_the_replay_links_back_to_the_bracket_to_the_players_and_to_the_series_games(
    client: Client, cup: Tournament
) -> None:
    table = final_table(cup)
    game = last_game(table)
    html = page(client, f"/games/{game.pk}/replay/")
    links = hrefs(html)
    # the way back: the event, its bracket (a knockout's place on the page), the table
    assert f"/tournaments/{cup.slug}/" in links
    assert f"/tournaments/{cup.slug}/#bracket-1" in links
    # each player's profile
    for player_id in game.players:
        assert f"/players/{player_id}/" in links
    # the other games of the series, each to its replay
    others = Game.objects.filter(table=table).exclude(pk=game.pk)
    assert others.exists()
    for other in others:
        assert f"/games/{other.pk}/replay/" in links


def test_a_swiss_replay_links_back_to_its_round_opened() -> None:
    # given a finished swiss game (a two-seat swiss event: its one table)
    live = start_live_table()
    round_id = live.table.round_id
    Game.objects.filter(pk=live.game.pk).update(
        status=Game.Status.FINISHED, seed_revealed=True, result={"places": [0, 1], "fool": 1}
    )
    html = page(Client(), f"/games/{live.game.pk}/replay/")
    # then its crumbs open the round on the event's page
    assert f'href="/tournaments/{live.tournament.slug}/?round={round_id}#round-{round_id}"' in html


def test_the_same_game_is_named_the_same_on_the_bracket_the_replay_and_the_profile(
    client: Client, cup: Tournament
) -> None:
    table = final_table(cup)
    game = last_game(table)
    where = f"Плей-офф · Финал · Стол 1 · партия {game.number}"
    bracket = page(client, f"/tournaments/{cup.slug}/", "ru")
    replay = page(client, f"/games/{game.pk}/replay/", "ru")
    profile = page(client, f"/players/{game.players[0]}/", "ru")
    # the bracket's column and node, the replay's place line and the profile's game line
    assert ">Финал</text>" in bracket and ">Стол 1</text>" in bracket
    assert where in replay
    assert where in profile
    # and the profile's game opens its replay
    assert f'href="/games/{game.pk}/replay/"' in profile


def test_the_live_tables_page_gets_its_place_and_its_series_replays(
    client: Client, cup: Tournament
) -> None:
    # given the cup's final, finished
    table = final_table(cup)
    response = client.get(f"/tables/{table.pk}/", headers={"Accept-Language": "ru"})
    links = response.context["links"]
    # then its place on the event's page, named the one way, and every game's replay
    assert (links.place.tournament_slug, links.place.anchor) == (cup.slug, "bracket-1")
    assert links.place.text == "Плей-офф · Финал · Стол 1"
    games = list(Game.objects.filter(table=table).order_by("number").values_list("pk", "number"))
    assert links.replays == games
    assert links.replay == games[-1][0]
    # and the page links them: the heading to the bracket, each game to its replay
    html = response.content.decode()
    heading = html[html.index("<h1>") : html.index("</h1>")]
    assert f'href="/tournaments/{cup.slug}/#bracket-1">Плей-офф · Финал</a> · Стол 1' in heading
    replays = html[html.index('id="replays"') :].split("</p>")[0]
    for pk, number in games:
        assert f'href="/games/{pk}/replay/" data-game="{pk}">Партия {number}</a>' in replays


def test_two_unnamed_stages_of_one_format_are_told_apart_the_same_way_everywhere(
    client: Client,
) -> None:
    # given an event of two unnamed swiss stages, its first round in play
    event = make_tournament(
        PlayerFactory.create_batch(4),
        stages=[
            {"format": "swiss", "table_size": 2, "rounds": 1, "advance": {"top": 2}},
            {"format": "swiss", "table_size": 2, "rounds": 1},
        ],
        entry_fee="0",
    )
    services.tournament_start(tournament=event)
    table = Table.objects.filter(round__stage__tournament=event).order_by("number").first()
    assert table is not None
    # then the event's page, the home page's live tables and the API name the stage alike
    html = page(client, f"/tournaments/{event.slug}/", "ru")
    assert "Швейцарская система, этап 1" in html and "Швейцарская система, этап 2" in html
    home = page(client, "/", "ru")
    assert "Швейцарская система, этап 1 · Тур 1 · Стол 1" in home
    api = client.get(f"/api/v1/tournaments/{event.slug}/", headers={"Accept-Language": "ru"})
    assert [s["name"] for s in api.json()["stages"]] == [
        "Швейцарская система, этап 1",
        "Швейцарская система, этап 2",
    ]


def test_me_links_to_ones_own_public_profile() -> None:
    player = PlayerFactory.create()
    assert player.user is not None
    client = Client()
    client.force_login(player.user)
    html = page(client, "/me/")
    assert f'href="/players/{player.pk}/"' in html


# --- the home page's live tables ----------------------------------------------------------------


def test_the_home_page_lists_the_live_tables_a_visitor_may_watch(client: Client) -> None:
    # given a public event and a private one, each with a table in play
    public = start_live_table()
    private = start_live_table(is_public=False)
    html = page(client, "/", "ru")
    watch = html[html.index('id="watch-title"') : html.index("</section>")]
    # then the public table is listed: its players, its event and round, a link to it
    assert "Смотреть сейчас" in watch
    assert f'href="/tables/{public.table.pk}/"' in watch
    for player in public.players:
        assert player.display_name in watch
    assert public.tournament.name in watch and "Тур 1 · Стол 1" in watch
    # and the private one is not, to a visitor
    assert f'href="/tables/{private.table.pk}/"' not in watch
    # but it is to one of its players
    own = Client()
    own.force_login(private.user_at(0))
    assert f'href="/tables/{private.table.pk}/"' in page(own, "/")


def test_the_home_page_takes_the_same_queries_for_one_live_table_and_five(
    client: Client,
) -> None:
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            page(client, "/")
        return len(queries)

    start_live_table()
    one = count()
    for _ in range(4):
        start_live_table()
    assert count() == one


def test_a_finished_table_leaves_the_watch_list(client: Client, cup: Tournament) -> None:
    assert "/tables/" not in page(client, "/")


# --- an open event -------------------------------------------------------------------------------


def open_event(players: int, **kw: object) -> Tournament:
    return make_tournament(
        PlayerFactory.create_batch(players),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 2}],
        **kw,
    )


def test_an_open_event_shows_its_start_a_countdown_and_who_registered(client: Client) -> None:
    # given an event open for registration, planned to start in two days and three hours
    starts = timezone.now() + timedelta(days=2, hours=3, minutes=1)
    event = open_event(3, starts_at=starts)
    html = page(client, f"/tournaments/{event.slug}/", "ru")
    # then its start (a machine-readable time the script puts in the reader's zone), the time
    # left in words (the script counts it down), and the registered players linking to profiles
    assert f'datetime="{starts:%Y-%m-%dT%H:%M:%S}' in html
    assert 'id="countdown"' in html and "через 2\xa0дня, 3\xa0часа" in html
    assert '<script src="/static/js/countdown.js" defer></script>' in html
    registered = html[html.index('id="registered"') :]
    for player in Player.objects.filter(entries__tournament=event):
        assert f'<a href="/players/{player.pk}/">{player.display_name}</a>' in registered
    assert "Зарегистрированные игроки" in registered


def test_an_open_events_registered_list_is_paged_in_the_same_queries(client: Client) -> None:
    def visit(event: Tournament, url: str = "") -> tuple[str, int]:
        with CaptureQueriesContext(connection) as queries:
            html = page(client, f"/tournaments/{event.slug}/{url}")
        return html, len(queries)

    _, small_queries = visit(open_event(3))
    large_event = open_event(55)
    large, large_queries = visit(large_event)
    assert small_queries == large_queries
    # 50 names to a page, the rest on the second
    assert large.count('<li><a href="/players/') >= 50
    second, _ = visit(large_event, "?entries_page=2")
    listed = second[
        second.index('id="registered"') : second.index(
            "</section>", second.index('id="registered"')
        )
    ]
    assert listed.count('<li><a href="/players/') == 5
    assert 'start="51"' in listed


def test_an_event_without_a_planned_start_shows_none() -> None:
    html = page(Client(), f"/tournaments/{open_event(2).slug}/")
    assert 'id="countdown"' not in html


# --- badges --------------------------------------------------------------------------------------


def test_a_finished_event_never_says_it_is_live(client: Client, cup: Tournament) -> None:
    html = page(client, f"/tournaments/{cup.slug}/", "ru")
    assert 'id="live"' not in html
    assert '<span class="badge status-finished" id="tournament-status">Завершён</span>' in html


def test_a_running_event_has_its_live_indicator(client: Client) -> None:
    live = start_live_table()
    html = page(client, f"/tournaments/{live.tournament.slug}/")
    assert 'id="live"' in html
    assert 'class="badge status-running" id="tournament-status"' in html


def test_a_profile_badges_its_tournaments_status(client: Client, cup: Tournament) -> None:
    player_id = cup.entries.first().player_id  # type: ignore[union-attr]
    html = page(client, f"/players/{player_id}/", "ru")
    assert '<span class="badge status-finished">Завершён</span>' in html
