"""Resources that link: a table (``/tables/{id}/``, ``selectors.tables``), game ids and links on
round tables and bracket nodes, and one call for an overlay (``/tournaments/{slug}/live/``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import Game
from tests.api.test_events import finished_event
from tests.api.test_games import own_throttle_history, play
from tests.builders import LiveTable, make_tournament, start_live_table
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.models import Entry, Payout, Round, Table, TableResult, Tournament
from tournaments.selectors.tables import tables_facts

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["own_throttle_history"]  # the autouse fixture, imported to apply here too

API = "/api/v1/"


def get(client: Client, url: str, **headers: str) -> Any:
    return client.get(API + url, headers={"Accept-Language": "en", **headers})


def running_swiss(players: int) -> Tournament:
    """A started swiss event of ``players`` people at 4-seat tables, round 1 paired, its games
    dealt and waiting for their first move."""
    tournament = make_tournament(
        PlayerFactory.create_batch(players),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 2}],
    )
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    return tournament


# --- the selector ---------------------------------------------------------------------------------


def test_the_facts_of_any_number_of_tables_take_the_same_queries(eager_jobs: None) -> None:
    small, large = running_swiss(8), running_swiss(32)
    counts = []
    for event in (small, large):
        tables = Table.objects.filter(round__stage__tournament=event).order_by("number")
        with CaptureQueriesContext(connection) as queries:
            facts = tables_facts(tables)
        counts.append(len(queries))
        assert [f.number for f in facts] == list(range(1, len(facts) + 1))
        for fact in facts:
            assert fact.tournament_slug == event.slug and fact.stage_order == 1
            assert fact.round_number == 1 and fact.status == Table.Status.PLAYING
            assert len(fact.seats) == 4 and all(s.place is None for s in fact.seats)
            games = Game.objects.filter(table_id=fact.id, status=Game.Status.ACTIVE)
            assert fact.current_game == games.get().pk == fact.game
            assert fact.finished_games == []
    assert len(tables_facts(Table.objects.filter(round__stage__tournament=large))) == 8
    assert counts[0] == counts[1] <= 4


# --- a table --------------------------------------------------------------------------------------


def test_a_table_in_play_has_its_seats_game_and_the_spectators_state(
    client: Client, live_table: LiveTable
) -> None:
    game = play(live_table.game, moves=3)
    body = get(client, f"tables/{live_table.table.pk}/").json()
    assert body["id"] == live_table.table.pk and body["tournament"] == live_table.tournament.slug
    assert (body["stage"], body["round"], body["number"]) == (1, 1, 1)
    assert body["status"] == "playing" and body["current_game"] == game.pk == body["game"]
    assert body["finished_games"] == []
    assert [g["id"] for g in body["games"]] == [game.pk]
    seats = body["seats"]
    assert {s["player_id"] for s in seats} == {p.pk for p in live_table.players}
    assert all(s["place"] is None for s in seats)
    assert seats[0]["links"]["player"] == f"/api/v1/players/{seats[0]['player_id']}/"
    # the spectator's state: the game's version, no hand for anyone
    spectator = body["spectator"]
    assert spectator["id"] == game.pk and spectator["version"] == game.version
    assert spectator["view"]["hand"] is None and "hands" not in spectator["view"]
    assert spectator["seed"] is None
    slug = live_table.tournament.slug
    assert body["links"] == {
        "self": f"/api/v1/tables/{live_table.table.pk}/",
        "tournament": f"/api/v1/tournaments/{slug}/",
        "round": f"/api/v1/tournaments/{slug}/stages/1/rounds/1/",
        "stage": {
            "rounds": f"/api/v1/tournaments/{slug}/stages/1/rounds/",
            "standings": f"/api/v1/tournaments/{slug}/stages/1/standings/",
            "bracket": None,
        },
        "live": f"/api/v1/tournaments/{slug}/live/",
        "game": f"/api/v1/games/{game.pk}/",
    }
    # every link leads somewhere readable
    for href in [body["links"]["round"], body["links"]["game"], body["links"]["live"]]:
        assert client.get(href).status_code == 200, href


def test_a_seated_player_gets_the_spectators_state_too(live_table: LiveTable) -> None:
    seated = Client()
    seated.force_login(live_table.user_at(0))
    body = get(seated, f"tables/{live_table.table.pk}/").json()
    assert body["spectator"]["view"]["hand"] is None


def test_a_table_answers_304_until_the_game_moves(client: Client, live_table: LiveTable) -> None:
    url = f"tables/{live_table.table.pk}/"
    first = get(client, url)
    etag = first["ETag"]
    with CaptureQueriesContext(connection) as queries:
        again = get(client, url, **{"If-None-Match": etag})
    assert again.status_code == 304 and len(queries) <= 2
    play(live_table.game, moves=1)
    moved = get(client, url, **{"If-None-Match": etag})
    assert moved.status_code == 200 and moved["ETag"] != etag
    assert "X-Durak-Stamp" not in moved


def test_a_finished_table_has_its_places_and_finished_games(
    client: Client, live_table: LiveTable
) -> None:
    game = play(live_table.game)
    assert game.is_over
    table = Table.objects.get(pk=live_table.table.pk)
    assert table.status == Table.Status.FINISHED
    body = get(client, f"tables/{table.pk}/").json()
    result = TableResult.objects.get(table=table)
    places = {entry: place for place, entry in enumerate(result.places, 1)}
    assert {s["entry"]["id"]: s["place"] for s in body["seats"]} == places
    assert body["current_game"] is None and body["spectator"] is None
    assert body["finished_games"] == [game.pk] == [body["game"]]
    assert body["series"]["finished"] is True


def test_a_private_events_table_is_404_to_outsiders(eager_jobs: None, referee: User) -> None:
    hidden = start_live_table(is_public=False, referees=[referee])
    url = f"tables/{hidden.table.pk}/"
    assert get(Client(), url).status_code == 404
    assert get(Client(), "tables/999999/").status_code == 404
    seated = Client()
    seated.force_login(hidden.user_at(0))
    assert get(seated, url).status_code == 200


# --- round tables and bracket nodes ---------------------------------------------------------------


def test_round_tables_carry_their_game_and_links(eager_jobs: None, client: Client) -> None:
    event = running_swiss(8)
    body = get(client, f"tournaments/{event.slug}/stages/1/rounds/1/").json()
    assert body["links"]["self"] == f"/api/v1/tournaments/{event.slug}/stages/1/rounds/1/"
    for table in body["tables"]:
        game = Game.objects.get(table_id=table["id"], status=Game.Status.ACTIVE)
        assert table["game"] == game.pk
        assert table["links"] == {
            "self": f"/api/v1/tables/{table['id']}/",
            "game": f"/api/v1/games/{game.pk}/",
        }
        assert all(s["links"]["player"] for s in table["seats"])
    rounds = get(client, f"tournaments/{event.slug}/stages/1/rounds/").json()
    assert rounds[0]["links"]["self"] == body["links"]["self"]


def test_bracket_nodes_carry_their_last_game_and_links(client: Client) -> None:
    event = finished_event(8, name="Кубок восьми")
    body = get(client, f"tournaments/{event.slug}/stages/2/bracket/").json()
    for node in body["nodes"]:
        assert node["links"]["self"] == f"/api/v1/tables/{node['id']}/"
        table = Table.objects.get(pk=node["id"])
        assert node["game"] == (table.series_state.get("game_ids") or [None])[-1]
        game = node["game"] and f"/api/v1/games/{node['game']}/"
        assert node["links"]["game"] == game


# --- one call for an overlay ----------------------------------------------------------------------


def test_live_shows_the_current_round_its_tables_and_the_standings(
    eager_jobs: None, client: Client
) -> None:
    event = running_swiss(8)
    response = get(client, f"tournaments/{event.slug}/live/")
    assert response.status_code == 200
    body = response.json()
    assert body["tournament"]["slug"] == event.slug and body["tournament"]["status"] == "running"
    assert body["stage"]["order"] == 1 and body["stage"]["status"] == "running"
    assert body["round"]["number"] == 1 and body["round"]["status"] == "playing"
    assert [t["number"] for t in body["tables"]] == [1, 2]
    for table in body["tables"]:
        game = Game.objects.get(table_id=table["id"], status=Game.Status.ACTIVE)
        assert table["current_game"] == game.pk == table["game"]
        assert table["series"]["games_played"] == 0
    players = dict(Entry.objects.filter(tournament=event).values_list("pk", "player_id"))
    assert {r["entry_id"]: r["player_id"] for r in body["standings"]} == players
    assert body["finished"] is False and body["final_standings"] == []
    # one ETag: 304 while nothing changes, from the tournament's row
    etag = response["ETag"]
    with CaptureQueriesContext(connection) as queries:
        again = get(client, f"tournaments/{event.slug}/live/", **{"If-None-Match": etag})
    assert again.status_code == 304 and len(queries) == 1


def test_live_of_a_finished_event_has_the_final_standings_and_payouts(client: Client) -> None:
    event = finished_event(8, name="Кубок восьми", entry_fee="100")
    body = get(client, f"tournaments/{event.slug}/live/").json()
    assert body["finished"] is True and body["tables"] == []
    assert body["stage"]["order"] == 2 and body["stage"]["links"]["bracket"]
    final = get(client, f"tournaments/{event.slug}/standings/").json()
    assert body["final_standings"] == final["rows"]
    paid = {p.entry_id for p in Payout.objects.filter(tournament=event)}
    assert paid and {r["entry_id"] for r in body["final_standings"] if r["payout"]} == paid
    assert body["prize_pool"]["final"] is True


def test_live_of_a_private_event_is_404_to_outsiders(eager_jobs: None) -> None:
    event = running_swiss(8)
    Tournament.objects.filter(pk=event.pk).update(is_public=False)
    assert get(Client(), f"tournaments/{event.slug}/live/").status_code == 404


def test_live_has_no_stage_or_round_before_the_start(client: Client) -> None:
    event = make_tournament(BotPlayerFactory.create_batch(4))
    body = get(client, f"tournaments/{event.slug}/live/").json()
    assert body["round"] is None and body["tables"] == []
    assert Round.objects.filter(stage__tournament=event).count() == 0


def test_a_game_ending_mid_series_moves_live_and_the_round(
    eager_jobs: None, client: Client
) -> None:
    # given a best-of-3 table of two people, its first game in play
    event = make_tournament(
        PlayerFactory.create_batch(2),
        stages=[
            {
                "format": "swiss",
                "table_size": 2,
                "rounds": 1,
                "series": {"format": "best_of", "target": 3},
            }
        ],
        rules={"deck_size": 24},
    )
    services.tournament_start(tournament=event)
    first = Game.objects.get(table__round__stage__tournament=event)
    url = f"tournaments/{event.slug}/live/"
    before = get(client, url)
    assert before.json()["tables"][0]["current_game"] == first.pk
    # when the first game ends and the second is dealt
    assert play(first).is_over
    # then the overlay's ETag moves, and it shows the new game and the score
    after = get(client, url, **{"If-None-Match": before["ETag"]})
    assert after.status_code == 200
    table = after.json()["tables"][0]
    second = Game.objects.get(table_id=table["id"], number=2)
    assert table["current_game"] == second.pk and table["series"]["games_played"] == 1
