"""The replay of a game that is over (``/games/<id>/replay/``): every state from the deal to the
end, every hand face up, the verified deal; who may see it; a game in play is not replayed."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import engine
from games import services as game_services
from games.models import Game
from games.replay import card_face, game_replay
from games.services.fairness import replay_log
from tests.builders import TWO_SEATS, make_tournament, start_live_table
from tests.factories import BotPlayerFactory
from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("eager_jobs")]


def bot_game(*, players: int = 2, deck: int = 24, **kw: Any) -> Game:
    """A finished game of bots: a one-table tournament of ``players`` bots played to its end
    by the jobs (in-process)."""
    bots = BotPlayerFactory.create_batch(players)
    stages = [{**TWO_SEATS[0], "table_size": players}]
    tournament = make_tournament(bots, stages=stages, rules={"deck_size": deck}, **kw)
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    game = Game.objects.filter(table__round__stage__tournament=tournament).order_by("pk").first()
    assert game is not None and game.status == Game.Status.FINISHED and game.version > 4
    return game


def client_for(user: User | None = None) -> Client:
    client = Client(headers={"accept-language": "en"})
    if user is not None:
        client.force_login(user)
    return client


def shown_hands(html: str) -> list[list[str]]:
    """The cards of each seat's hand as the page draws them (``data-hand`` blocks)."""
    hands = re.findall(r'<div class="rp-hand" data-hand>(.*?)</div>', html, re.S)
    return [re.findall(r'data-card="(\w\w)"', hand) for hand in hands]


def shown_table(html: str) -> list[str]:
    block = re.search(r'<div id="rp-table"[^>]*>(.*?)</div>\s*</div>\s*</div>', html, re.S)
    assert block is not None
    return re.findall(r'data-card="(\w\w)"', block.group(1))


def test_a_finished_game_replays_move_by_move_with_every_hand() -> None:
    # given a finished game of bots
    game = bot_game()
    states, ok = replay_log(
        engine.Rules.from_dict(game.rules),
        game.seed,
        game.setup,
        game.actions.order_by("seq").values_list("action", flat=True),
    )
    assert ok and len(states) == game.version + 1
    url = f"/games/{game.pk}/replay/"
    # when the deal, a step in the middle and the end are asked for
    for step in (0, 3, game.version // 2, game.version):
        response = client_for().get(f"{url}?step={step}")
        assert response.status_code == 200
        html = response.content.decode()
        # then the page shows that step's every hand and its table, as the engine has them
        state = states[step]
        assert shown_hands(html) == [state.hand(s) for s in range(2)]
        on_table = [c for pair in state.table_json() for c in pair.values() if c]
        assert sorted(shown_table(html)) == sorted(on_table)
        assert f'id="rp-stock">{len(state.stock)}<' in html
        assert 'aria-current="step"' in html
        assert f'<a href="?step={step}#board" aria-current="step">' in html
    # a step past the end shows the end; nonsense shows the deal
    end = client_for().get(f"{url}?step=99999").content.decode()
    assert shown_hands(end) == [states[-1].hand(s) for s in range(2)]
    deal = client_for().get(f"{url}?step=x").content.decode()
    assert shown_hands(deal) == [states[0].hand(s) for s in range(2)]


def test_the_page_carries_every_step_and_the_verified_deal() -> None:
    game = bot_game()
    html = client_for().get(f"/games/{game.pk}/replay/").content.decode()
    # every move in words, a link to each step, the script's data for every step
    replay = game_replay(game)
    assert len(replay.moves) == game.version and len(replay.steps) == game.version + 1
    for move in replay.moves:
        assert f'href="?step={move.step}#board"' in html
    assert replay.moves[0].text.split()[0] in html
    assert 'id="rp-steps"' in html and "js/replay.js" in html
    # the fairness check: the seed, its commitment and sha256 of the seed, all matching
    assert game.seed in html and game.seed_commitment in html
    assert engine.seed_commitment(game.seed) == game.seed_commitment
    assert 'class="rp-verdict ok" id="seed-check"' in html
    assert 'class="rp-verdict ok" id="replay-check"' in html
    assert "Verified" in html
    # the result in names, and the players' names link to their profiles
    assert replay.outcome.places and all(name in html for name in replay.names)
    for player_id in game.players:
        assert f'href="/players/{player_id}/"' in html
    # the breadcrumbs: the tournament and the live table
    assert game.table is not None
    assert f'href="/tables/{game.table_id}/"' in html


def test_a_tampered_seed_shows_as_not_verified() -> None:
    game = bot_game()
    Game.objects.filter(pk=game.pk).update(seed_commitment="0" * 64)
    html = client_for().get(f"/games/{game.pk}/replay/").content.decode()
    assert 'class="rp-verdict bad" id="seed-check"' in html
    assert "Verified:" not in html


def test_a_game_in_play_is_not_replayed_and_keeps_its_secrets() -> None:
    live = start_live_table()
    response = client_for().get(f"/games/{live.game.pk}/replay/?step=3")
    assert response.status_code == 200
    html = response.content.decode()
    assert "is still being played" in html
    assert f'href="/tables/{live.table.pk}/"' in html
    # no seed, no card, no steps
    assert live.game.seed not in html
    assert "data-card=" not in html and "rp-steps" not in html
    state = engine.GameState.from_dict(live.game.state)
    for card in state.hand(0) + state.hand(1):
        assert card_face(card).label not in html


def test_a_private_games_replay_is_404_to_outsiders(referee: User, outsider: User) -> None:
    game = bot_game(is_public=False)
    assert game.table is not None
    game.table.round.stage.tournament.referees.add(referee)
    url = f"/games/{game.pk}/replay/"
    assert client_for().get(url).status_code == 404
    assert client_for(outsider).get(url).status_code == 404
    assert client_for(referee).get(url).status_code == 200
    assert client_for().get("/games/987654/replay/").status_code == 404


def test_an_adjudicated_game_replays_up_to_the_ruling(referee: User) -> None:
    game = start_live_table().game
    # two moves, then the referee ends it
    state = engine.GameState.from_dict(game.state)
    for version in range(2):
        seat, action = next(
            (s, a) for s in range(2) for a in engine.legal_actions(state, s) if a.type != "redeal"
        )
        game_services.game_apply_action(
            game_id=game.pk, seat=seat, action=action.to_json(), version=version
        )
        game.refresh_from_db()
        state = engine.GameState.from_dict(game.state)
    game_services.game_adjudicate(
        game_id=game.pk, places=[1, 0], fool=0, reason="a phone rang", referee=referee
    )
    html = client_for().get(f"/games/{game.pk}/replay/?step=2").content.decode()
    assert "Adjudicated by the referee" in html
    assert shown_hands(html) == [state.hand(0), state.hand(1)]
    assert 'id="rp-position">Move 2 of 2<' in html


def test_a_replay_takes_the_same_queries_for_a_short_and_a_long_game() -> None:
    short = bot_game(players=2, deck=24)
    long = bot_game(players=4, deck=36)
    assert long.version > short.version * 1.5
    counts = []
    for game in (short, long):
        with CaptureQueriesContext(connection) as queries:
            response = client_for().get(f"/games/{game.pk}/replay/")
        assert response.status_code == 200
        counts.append(len(queries))
    print(f"\nqueries of a replay ({short.version} and {long.version} moves):", counts)
    assert counts[0] == counts[1]
    assert counts[0] <= 8
