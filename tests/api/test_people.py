"""``/api/v1/players/`` and ``/api/v1/teams/``: public profiles, only visible tournaments, no
account data, bounded queries."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api.test_games import own_throttle_history
from tests.builders import make_tournament
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.console.csv_import import parse_players_csv
from tournaments.models import (
    Entry,
    League,
    Player,
    RankRecord,
    RatingChange,
    Team,
    Tournament,
)
from tournaments.services.imports import entries_import

pytestmark = pytest.mark.django_db
__all__ = ["own_throttle_history"]  # the autouse fixture, imported to apply here too

PLAYERS = "/api/v1/players/"
TEAM_PLAN = [{"format": "swiss", "table_size": 4, "rounds": 1}]


def player_url(player: Player) -> str:
    return f"{PLAYERS}{player.pk}/"


def finished(tournament: Tournament) -> Tournament:
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def ann() -> Player:
    return PlayerFactory.create(display_name="Анна Каренина", club="Спартак", city="Тула")


@pytest.fixture
def public_and_private(ann: Player) -> tuple[Tournament, Tournament]:
    """Ann played a finished public tournament (place 2) and a private one."""
    public = finished(make_tournament([ann], name="Открытый кубок"))
    Entry.objects.filter(tournament=public, player=ann).update(final_place=2)
    private = make_tournament([ann], name="Закрытый кубок", is_public=False)
    for tournament in (public, private):
        RatingChange.objects.create(
            player=ann,
            tournament=tournament,
            mu_before=25.0,
            sigma_before=8.0,
            mu_after=26.0,
            sigma_after=7.5,
        )
        RankRecord.objects.create(
            player=ann,
            tournament=tournament,
            rank="сержант",
            pogony_received=1,
            history=[{"game": "1:0", "by": str(ann.pk), "before": "", "after": "сержант"}],
        )
    return public, private


def test_the_list_is_paginated_by_cursor_and_searches_name_and_club(client: Client) -> None:
    PlayerFactory.create(display_name="Анна", club="Динамо")
    PlayerFactory.create(display_name="Борис", club="Анна-клуб")
    PlayerFactory.create(display_name="Вера", club="Спартак")
    BotPlayerFactory.create_batch(3)

    found = client.get(PLAYERS, {"search": "анна"}).json()
    assert sorted(p["display_name"] for p in found["results"]) == ["Анна", "Борис"]
    assert [
        p["display_name"] for p in client.get(PLAYERS, {"club": "спартак"}).json()["results"]
    ] == ["Вера"]
    assert len(client.get(PLAYERS, {"is_bot": "true"}).json()["results"]) == 3

    first = client.get(PLAYERS, {"page_size": 4}).json()
    assert len(first["results"]) == 4 and first["next"]
    rest = client.get(first["next"]).json()
    ids = [p["id"] for p in first["results"] + rest["results"]]
    assert ids == sorted(ids) and len(set(ids)) == 6


def test_a_profile_has_no_account_fields(client: Client, ann: Player) -> None:
    body = client.get(player_url(ann)).json()
    assert body["display_name"] == "Анна Каренина"
    assert body["club"] == "Спартак" and body["city"] == "Тула" and body["is_bot"] is False
    assert body["rating"]["ordinal"] == pytest.approx(ann.rating_mu - 3 * ann.rating_sigma)
    assert ann.user is not None
    text = client.get(player_url(ann)).content.decode() + client.get(PLAYERS).content.decode()
    for secret in (ann.user.username, ann.user.email or "@", "user", "email", "password"):
        assert secret not in text


def test_the_displayed_rating_of_an_imported_player_is_the_elo_it_was_imported_with(
    client: Client, organiser: User
) -> None:
    # given: players imported from a club's list with Elo-like strengths, one without any
    tournament = make_tournament([], name="Импорт", created_by=organiser)
    parsed = parse_players_csv(
        "Имя;Клуб;Рейтинг\nИванов;Ферзь;1900\nПетров;Ферзь;712,5\nСидоров;;\n".encode()
    )
    assert entries_import(actor=organiser, tournament=tournament, rows=parsed.rows, paid=True) == 3
    shown = {}
    for entry in Entry.objects.filter(tournament=tournament).select_related("player"):
        assert entry.player is not None
        body = client.get(player_url(entry.player)).json()
        shown[body["display_name"]] = body["rating"]["rating"]
        assert body["rating"]["rating"] == entry.player.rating_displayed
    # then: each shows as imported before playing; a player with none, the scale's 1500
    assert shown == {"Иванов": 1900, "Петров": 712, "Сидоров": 1500}
    # and the list says the same
    listed = {
        p["display_name"]: p["rating"]["rating"] for p in client.get(PLAYERS).json()["results"]
    }
    assert listed["Иванов"] == 1900


def test_a_profile_shows_only_the_tournaments_the_caller_may_read(
    client: Client, ann: Player, public_and_private: tuple[Tournament, Tournament]
) -> None:
    public, private = public_and_private

    # given: an anonymous reader
    body = client.get(player_url(ann)).json()

    # then: the private tournament is in no part of the profile
    assert [t["tournament"]["slug"] for t in body["tournaments"]] == [public.slug]
    assert body["tournaments"][0]["final_place"] == 2
    assert [c["tournament"]["slug"] for c in body["rating_history"]] == [public.slug]
    assert body["rating_history"][0]["ordinal_after"] == pytest.approx(26.0 - 22.5)
    # the displayed rating beside them: 1500 + 40 (mu - 3 sigma)
    change = body["rating_history"][0]
    assert (change["rating_before"], change["rating_after"]) == (1540, 1640)
    assert [r["tournament"]["slug"] for r in body["ranks"]] == [public.slug]
    assert body["ranks"][0]["history"] == [
        {"by": ann.pk, "by_name": "Анна Каренина", "before": "", "after": "сержант"}
    ]
    assert private.slug not in client.get(player_url(ann)).content.decode()

    # when: Ann herself reads it, she sees her private tournament too (not yet placed)
    assert ann.user is not None
    client.force_login(ann.user)
    mine = client.get(player_url(ann)).json()
    assert {t["tournament"]["slug"] for t in mine["tournaments"]} == {public.slug, private.slug}
    placed = {t["tournament"]["slug"]: t["final_place"] for t in mine["tournaments"]}
    assert placed[private.slug] is None
    assert len(mine["rating_history"]) == 2 and len(mine["ranks"]) == 2


def test_an_outsider_does_not_see_a_private_tournament(
    client: Client, outsider: User, ann: Player, public_and_private: tuple[Tournament, Tournament]
) -> None:
    _, private = public_and_private
    client.force_login(outsider)
    assert private.slug not in client.get(player_url(ann)).content.decode()


def test_a_league_rank_is_shown_with_its_league(client: Client, ann: Player) -> None:
    league = League.objects.create(name="Лига", slug="liga", season="2026")
    RankRecord.objects.create(player=ann, league=league, rank="старшина", pogony_received=2)
    rank = client.get(player_url(ann)).json()["ranks"][0]
    assert rank["scope"] == "league" and rank["tournament"] is None
    assert rank["league"] == {"slug": "liga", "name": "Лига", "season": "2026"}


def test_no_such_player_is_404_in_the_error_shape(client: Client) -> None:
    response = client.get(f"{PLAYERS}999999/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("count", [5, 50])
def test_the_player_list_takes_the_same_queries_for_5_and_50_players(
    client: Client, count: int
) -> None:
    BotPlayerFactory.create_batch(count)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(PLAYERS)
    assert len(response.json()["results"]) == count
    assert len(queries) == 1


def test_the_team_list_and_profile_queries_do_not_grow_with_size(client: Client) -> None:
    def page_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/api/v1/teams/").status_code == 200
        return len(queries)

    services.team_create(name="", players=PlayerFactory.create_batch(2))
    few = page_queries()
    for _ in range(10):
        services.team_create(name="", players=PlayerFactory.create_batch(3))
    assert page_queries() == few == 2


def test_a_team_lists_its_partners_in_order_and_its_visible_tournaments(client: Client) -> None:
    partners = PlayerFactory.create_batch(2)
    team = services.team_create(name="Дуэт", players=[partners[1], partners[0]])
    public = make_tournament([], TEAM_PLAN, name="Парный", team_size=2)
    private = make_tournament([], TEAM_PLAN, name="Тайный парный", team_size=2, is_public=False)
    for tournament in (public, private):
        services.entry_register(tournament=tournament, team=team)

    body = client.get(f"/api/v1/teams/{team.pk}/").json()
    assert body["name"] == "Дуэт"
    assert [m["display_name"] for m in body["members"]] == [
        partners[1].display_name,
        partners[0].display_name,
    ]
    assert [t["tournament"]["slug"] for t in body["tournaments"]] == [public.slug]
    listed = client.get("/api/v1/teams/").json()["results"]
    assert [t["name"] for t in listed] == ["Дуэт"]

    # a partner reads the team's private tournament too, and finds it on its own profile
    assert partners[0].user is not None
    client.force_login(partners[0].user)
    body = client.get(f"/api/v1/teams/{team.pk}/").json()
    assert {t["tournament"]["slug"] for t in body["tournaments"]} == {public.slug, private.slug}
    mine = client.get(player_url(partners[0])).json()["tournaments"]
    assert {t["team"] for t in mine} == {"Дуэт"}
    assert Team.objects.count() == 1


def test_people_answers_say_how_long_they_may_be_kept(
    client: Client, ann: Player, outsider: User
) -> None:
    assert client.get(player_url(ann))["Cache-Control"] == "public, max-age=60"
    client.force_login(outsider)
    assert client.get(PLAYERS)["Cache-Control"] == "private, no-cache"
