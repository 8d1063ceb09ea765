"""``/api/v1/games/<id>/`` and ``.../actions/``: the spectator's view while in play, the record
and the fairness check once over, a private tournament's games hidden, conditional GET."""

from __future__ import annotations

import random
import uuid

import pytest
from django.contrib.auth.models import User
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import engine
from games import services as game_services
from games.engine import GameState
from games.models import Game
from tests.builders import LiveTable, start_live_table
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle
from tournaments.models import League, RankRecord

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def own_throttle_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts its own reads: ids and the test client's address repeat from test to
    test and from run to run while the shared cache (Redis) remembers them for a minute."""
    cache = LocMemCache(f"reads-{uuid.uuid4()}", {})
    monkeypatch.setattr(ApiAnonThrottle, "cache", cache)
    monkeypatch.setattr(ApiUserThrottle, "cache", cache)


def game_url(game: Game, tail: str = "") -> str:
    return f"/api/v1/games/{game.pk}/{tail}"


def play(game: Game, moves: int | None = None, seed: int = 7) -> Game:
    """Random legal moves through the service (``moves`` of them, or to the end)."""
    chooser = random.Random(seed)
    done = 0
    game.refresh_from_db()
    while game.status == Game.Status.ACTIVE and (moves is None or done < moves):
        state = GameState.from_dict(game.state)
        legal = [a for s in range(len(game.players)) for a in engine.legal_actions(state, s)]
        action = chooser.choice(legal)
        body = {k: v for k, v in action.to_json().items() if k != "seat"}
        game_services.game_apply_action(
            game_id=game.pk, seat=action.seat, action=body, version=game.version
        )
        game.refresh_from_db()
        done += 1
    return game


@pytest.fixture
def private_table(eager_jobs: None, referee: User) -> LiveTable:
    return start_live_table(is_public=False, referees=[referee])


def test_a_game_in_play_shows_only_the_spectators_view(
    client: Client, live_table: LiveTable
) -> None:
    game = play(live_table.game, moves=3)
    body = client.get(game_url(game)).json()

    assert body["status"] == "active" and body["over"] is False
    assert body["version"] == 3 and body["table"] == live_table.table.pk
    assert body["tournament"] == live_table.tournament.slug
    assert body["players"] == [p.display_name for p in live_table.players]
    assert body["ranks"] == ["", ""]  # neither wears a rank
    assert body["view"]["hand"] is None and "hands" not in body["view"]
    assert body["view"]["hand_sizes"] == [len(h) for h in game.state["hands"]]
    assert body["seed_commitment"] == game.seed_commitment
    assert body["seed"] is None and game.seed not in str(body)
    assert body["result"] is None and body["actions"] is None and body["fairness"] is None
    assert [e["seq"] for e in body["log"]] == [1, 2, 3]


def test_a_seated_player_and_a_referee_get_the_same_spectators_view(
    client: Client, live_table: LiveTable, referee: User
) -> None:
    game = play(live_table.game, moves=2)
    anonymous = client.get(game_url(game)).json()
    client.force_login(live_table.user_at(0))
    assert client.get(game_url(game)).json() == anonymous
    client.force_login(referee)
    assert client.get(game_url(game)).json() == anonymous


def test_a_finished_game_has_its_record_and_the_fairness_check(
    client: Client, live_table: LiveTable
) -> None:
    game = play(live_table.game)
    assert game.status == Game.Status.FINISHED

    body = client.get(game_url(game)).json()

    assert body["over"] is True and body["seed"] == game.seed
    assert body["result"] == game.result
    assert [a["seq"] for a in body["actions"]] == list(range(1, game.version + 1))
    assert all(a["time"] for a in body["actions"])
    fairness = body["fairness"]
    assert fairness["commitment_ok"] is True and fairness["replay_ok"] is True
    assert fairness["seed"] == game.seed and fairness["seed_commitment"] == game.seed_commitment
    assert fairness["deal"]["hands"]


def test_an_adjudicated_game_reveals_its_seed_and_is_checked(
    client: Client, live_table: LiveTable, referee: User
) -> None:
    game = play(live_table.game, moves=4)
    assert client.get(game_url(game)).json()["fairness"] is None
    game_services.game_adjudicate(
        game_id=game.pk, places=[1, 0], fool=0, reason="a phone rang", referee=referee
    )
    body = client.get(game_url(game)).json()
    assert body["status"] == "adjudicated" and body["seed"] == game.seed
    assert body["fairness"]["commitment_ok"] and body["fairness"]["replay_ok"]
    assert body["result"]["places"] == [1, 0]


def test_the_log_is_paginated_once_over_and_only_the_tail_while_in_play(
    client: Client, live_table: LiveTable
) -> None:
    game = play(live_table.game, moves=5)
    live = client.get(game_url(game, "actions/")).json()
    assert live["next"] is None
    assert [a["seq"] for a in live["results"]] == [e["seq"] for e in game.log_tail]
    assert all(a["time"] is None for a in live["results"])

    game = play(game)
    seqs: list[int] = []
    url: str | None = game_url(game, "actions/?page_size=7")
    while url:
        page = client.get(url).json()
        seqs += [a["seq"] for a in page["results"]]
        assert len(page["results"]) <= 7
        url = page["next"]
    assert seqs == list(range(1, game.version + 1))


def test_a_private_tournaments_game_is_404_to_outsiders(
    client: Client, private_table: LiveTable, outsider: User, referee: User
) -> None:
    game = private_table.game
    for tail in ("", "actions/"):
        response = client.get(game_url(game, tail))
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    client.force_login(outsider)
    assert client.get(game_url(game)).status_code == 404
    assert client.get(game_url(game, "actions/")).status_code == 404

    client.force_login(private_table.user_at(1))
    answer = client.get(game_url(game))
    assert answer.status_code == 200 and answer["Cache-Control"] == "private, no-cache"
    client.force_login(referee)
    assert client.get(game_url(game, "actions/")).status_code == 200


def test_a_game_of_no_tournament_or_no_game_is_404(client: Client, game: Game) -> None:
    assert client.get(game_url(game)).status_code == 404
    assert client.get("/api/v1/games/999999/").status_code == 404


def test_if_none_match_gives_304_in_one_query_until_the_game_moves(
    client: Client, live_table: LiveTable
) -> None:
    game = live_table.game
    first = client.get(game_url(game))
    etag = first["ETag"]
    assert first["Cache-Control"] == "public, no-cache"

    with CaptureQueriesContext(connection) as queries:
        again = client.get(game_url(game), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and not again.content
    assert again["ETag"] == etag
    assert len(queries) == 1

    play(game, moves=1)
    moved = client.get(game_url(game), HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved["ETag"] != etag


def test_a_game_that_is_over_may_be_cached(client: Client, live_table: LiveTable) -> None:
    game = play(live_table.game)
    for tail in ("", "actions/"):
        response = client.get(game_url(game, tail))
        assert response["Cache-Control"] == "public, max-age=3600"
        assert (
            client.get(game_url(game, tail), HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
        )


@pytest.mark.parametrize(("language", "title"), [("ru", "сержант"), ("en", "sergeant")])
def test_a_game_names_each_seats_rank_in_the_requests_language(
    client: Client, live_table: LiveTable, language: str, title: str
) -> None:
    # given: the player of seat 0 is a сержант of a league season
    league = League.objects.create(name="Лига", slug="liga", season="2026")
    RankRecord.objects.create(
        player=live_table.players[0], league=league, rank="сержант", pogony_received=1
    )
    # then: the game's spectator view names it by its seat, in the reader's language
    body = client.get(game_url(live_table.game), headers={"accept-language": language}).json()
    assert body["ranks"] == [title, ""]
