"""A change of what a tournament's answers show, made outside the tournament (a player's name,
club or city, a team's name, a league's name), moves the version of every tournament that shows
it (``tournaments.services.feed``: ``player_changed``, ``team_changed``, ``league_changed``), so
that no stale ``304`` survives it: not Django's ETag, not the API's front, not a game's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import Game
from tests.api.test_events import finished_event, get
from tests.api.test_front import HEADERS, Counted, call
from tests.builders import make_tournament
from tests.factories import BotPlayerFactory, PlayerFactory, UserFactory
from tournaments import services, versions
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle
from tournaments.api.front import NotModifiedFront
from tournaments.models import Player, Round, Table, Tournament, Webhook, WebhookDelivery
from tournaments.services.people import player_profile_update

pytestmark = pytest.mark.django_db

TEAM_PLAN = [{"format": "swiss", "table_size": 4, "rounds": 1}]


@pytest.fixture(autouse=True)
def _fresh_board() -> Iterator[None]:
    versions.board.cache_clear()
    yield
    versions.board.cache_clear()


@pytest.fixture(autouse=True)
def _no_throttling(monkeypatch: pytest.MonkeyPatch) -> None:
    for throttle in (ApiAnonThrottle, ApiUserThrottle):
        monkeypatch.setattr(throttle, "allow_request", lambda self, request, view: True)


def version(tournament: Tournament) -> int:
    return int(Tournament.objects.values_list("version", flat=True).get(pk=tournament.pk))


def names(answer: Any) -> set[str]:
    return {row["name"] for row in answer.json()["rows"]}


def test_a_renamed_player_is_never_behind_an_old_etag(client: Client) -> None:
    # given a finished event, its standings read (in Russian, the default) with their ETag
    players = PlayerFactory.create_batch(8)
    event = finished_event(players, name="Кубок имён")
    url = f"tournaments/{event.slug}/standings/"
    first = client.get("/api/v1/" + url)
    assert first.status_code == 200 and players[0].display_name in names(first)
    etag = first["ETag"]
    assert client.get("/api/v1/" + url, headers={"If-None-Match": etag}).status_code == 304
    # when the player renames themselves
    user = players[0].user
    player_profile_update(player=players[0], actor=user, display_name="Новое Имя")
    # then the old ETag gets the new standings, with the new name
    fresh = client.get("/api/v1/" + url, headers={"If-None-Match": etag})
    assert fresh.status_code == 200
    assert "Новое Имя" in names(fresh) and players[0].display_name not in names(fresh)
    # and the CSV download too
    as_csv = get(client, f"tournaments/{event.slug}/standings.csv")
    assert "Новое Имя" in as_csv.content.decode("utf-8-sig")


def test_a_club_or_city_moves_the_version_and_a_language_does_not() -> None:
    players = PlayerFactory.create_batch(4)
    event = make_tournament(players, TEAM_PLAN, name="Кубок клубов")
    editor = UserFactory.create(is_superuser=True)
    before = version(event)
    services.player_update(player=players[0], actor=editor, club="Спартак")
    assert version(event) == before + 1
    services.player_update(player=players[0], actor=editor, city="Тверь")
    assert version(event) == before + 2
    services.player_update(player=players[0], actor=editor, language="en")
    services.player_update(player=players[0], actor=editor, club="Спартак")  # no change at all
    assert version(event) == before + 2
    # the change is announced: its webhook gets a people_changed delivery
    hook = Webhook.objects.create(tournament=event, url="https://example.org/hook", events=[])
    services.player_update(player=players[0], actor=editor, display_name="Клубный")
    delivery = WebhookDelivery.objects.get(webhook=hook)
    assert delivery.event == "people_changed"
    assert delivery.payload["data"] == {"player": players[0].pk, "fields": ["display_name"]}
    assert delivery.payload["version"] == before + 3


def test_every_event_of_the_player_moves_in_a_fixed_number_of_queries() -> None:
    editor = UserFactory.create(is_superuser=True)
    counts = []
    for events in (2, 5):  # (one event takes one query fewer: no lock taken first)
        player = PlayerFactory.create()
        field = [player, *BotPlayerFactory.create_batch(3)]
        made = [
            make_tournament(field, TEAM_PLAN, name=f"Кубок {events}-{i}") for i in range(events)
        ]
        elsewhere = make_tournament(BotPlayerFactory.create_batch(4), TEAM_PLAN, name="Чужой")
        before = {t.pk: version(t) for t in [*made, elsewhere]}
        with CaptureQueriesContext(connection) as queries:
            services.player_update(player=player, actor=editor, display_name=f"Игрок {events}")
        counts.append(len(queries))
        # every event the player is in moved once, another one did not
        assert all(version(t) == before[t.pk] + 1 for t in made)
        assert version(elsewhere) == before[elsewhere.pk]
    assert counts[0] == counts[1], counts


def test_a_teams_new_name_and_a_partners_new_name_reach_its_events(client: Client) -> None:
    # given a team event whose one table has a result
    partners = PlayerFactory.create_batch(4)
    teams = [
        services.team_create(name="Дуэт", players=partners[:2]),
        services.team_create(name="Тандем", players=partners[2:]),
    ]
    event = make_tournament([], TEAM_PLAN, name="Парный кубок", team_size=2)
    for team in teams:
        services.entry_register(tournament=event, team=team)
    services.tournament_start(tournament=event)
    round_ = Round.objects.get(stage__tournament=event)
    services.round_pair(round_id=round_.pk)
    table = Table.objects.get(round=round_)
    a, b = dict.fromkeys(table.seats.order_by("position").values_list("entry_id", flat=True))
    services.table_record_result(table=table, places=[a, b], fool=b)
    url = f"/api/v1/tournaments/{event.slug}/stages/1/standings/"
    first = client.get(url)
    assert names(first) == {"Дуэт", "Тандем"}
    # when a team is renamed, the old ETag gets the new name
    editor = UserFactory.create(is_superuser=True)
    services.team_update(team=teams[0], actor=editor, name="Новый дуэт")
    fresh = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert fresh.status_code == 200 and names(fresh) == {"Новый дуэт", "Тандем"}
    # and a partner's new name (the rounds seat the partners by name) moves it too
    round_url = f"/api/v1/tournaments/{event.slug}/stages/1/rounds/1/"
    seated = client.get(round_url)
    services.player_update(player=partners[3], actor=editor, display_name="Партнёр")
    fresh = client.get(round_url, headers={"If-None-Match": seated["ETag"]})
    assert fresh.status_code == 200 and "Партнёр" in fresh.content.decode()


def test_a_leagues_new_name_reaches_its_tournaments_details(client: Client) -> None:
    league = services.league_create(name="Лига", season="2026", actor=None)
    event = make_tournament(BotPlayerFactory.create_batch(4), TEAM_PLAN, league=league)
    url = f"/api/v1/tournaments/{event.slug}/"
    first = client.get(url)
    assert first.json()["league"]["name"] == "Лига"
    services.league_update(league=league, actor=None, name="Высшая лига")
    fresh = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert fresh.status_code == 200 and fresh.json()["league"]["name"] == "Высшая лига"


def test_a_finished_games_etag_follows_its_players_names(client: Client) -> None:
    players = PlayerFactory.create_batch(8)
    event = finished_event(players, name="Кубок партий")
    game = Game.objects.filter(table__round__stage__tournament=event).first()
    if game is None:  # results recorded without games: make one on a table of the event
        pytest.skip("the event's results were recorded without games")
    url = f"/api/v1/games/{game.pk}/"
    first = client.get(url)
    assert client.get(url, headers={"If-None-Match": first["ETag"]}).status_code == 304
    seated = Player.objects.get(pk=game.players[0])
    services.player_update(
        player=seated, actor=UserFactory.create(is_superuser=True), display_name="Переименован"
    )
    fresh = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert fresh.status_code == 200 and "Переименован" in fresh.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_rename_reaches_past_the_front() -> None:
    """The ASGI front answers 304 from the version published after commit: the rename's
    commit publishes every event's new version, and the old ETag goes to Django."""
    django = Counted()
    front = NotModifiedFront(django)
    players = PlayerFactory.create_batch(8)
    event = finished_event(players, name="Кубок фронта имён")
    url = f"/api/v1/tournaments/{event.slug}/standings/"
    for language in ("ru", "en"):
        headers = {**HEADERS, "Accept-Language": language}
        django.calls.clear()
        first = call(front, url, headers)
        assert first.status == 200
        etag = first.headers["etag"]
        assert call(front, url, {**headers, "If-None-Match": etag}).status == 304
        assert django.calls == [url]  # the 304 came from the front
        services.player_update(
            player=players[1],
            actor=UserFactory.create(is_superuser=True),
            display_name=f"Имя после ({language})",
        )
        fresh = call(front, url, {**headers, "If-None-Match": etag})
        assert fresh.status == 200 and f"Имя после ({language})".encode() in fresh.body
        assert len(django.calls) == 2
