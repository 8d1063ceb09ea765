"""No answer of the games API ever holds a card its reader may not see.

Random games (random seeds, sizes and variants, random legal play from the deal for a random
number of moves, then left in play, paused, adjudicated or voided, or played to the end) are
stored as ``Game`` rows with their action logs at a public tournament's table; every game
endpoint (and the game's table, ``/tables/{id}/``, and its tournament's ``/live/``) is then read
as an anonymous caller, as the player seated at seat 0 and as a referee.

While a game is in play, no card of a hand, and no card of the stock but the face-up trump card,
may appear anywhere in any body, unless it is in the public log tail the answer shows (each card
there was played face up, and may since have been taken into a hand); nor may the seed (it
would reveal every hand), nor the deal. Once the game is over the seed is revealed, and with it
the deal: then the seed must be the committed one, and the view still holds no hand.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine
from games.engine import Action, GameState, Rules
from games.models import Game, GameAction
from tests.api.test_games import own_throttle_history
from tests.builders import LiveTable
from tests.factories import BotPlayerFactory
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("eager_jobs")]
__all__ = ["own_throttle_history"]  # the autouse fixture, imported to apply here too

ENDINGS = ["in_play", "paused", "adjudicated", "voided"]
_numbers = itertools.count(100)


def store_game(
    table: LiveTable,
    players: list[int],
    *,
    seed: int,
    rules: Rules,
    moves: int,
    ending: str,
) -> Game:
    """A game dealt from ``seed`` and played ``moves`` random legal moves (fewer if it ends),
    stored as the services store it: its state, its log rows, its public log tail."""
    seed_text = f"leak-test-{seed}"
    state = engine.new_game(rules, engine.rng_for_seed(seed_text))
    chooser = random.Random(seed)
    log: list[dict[str, Any]] = []
    for _ in range(moves):
        if state.finished:
            break
        legal = [a for s in range(rules.players) for a in engine.legal_actions(state, s)]
        action = chooser.choice(legal)
        log.append(action.to_json())
        state = engine.apply(state, action)
    status, result, revealed = Game.Status.ACTIVE, None, False
    if state.finished:
        assert state.result is not None
        status, result, revealed = Game.Status.FINISHED, state.result.to_json(), True
    elif ending == "paused":
        status = Game.Status.PAUSED
    elif ending == "adjudicated":
        places = list(range(rules.players))
        status, revealed = Game.Status.ADJUDICATED, True
        result = {"places": places, "fool": places[-1], "draw": False, "pogony": None}
    elif ending == "voided":
        status, revealed = Game.Status.VOIDED, True
    game = Game.objects.create(
        table=table.table,
        number=next(_numbers),
        rules=rules.to_dict(),
        seed=seed_text,
        seed_commitment=engine.seed_commitment(seed_text),
        seed_revealed=revealed,
        players=players[: rules.players],
        status=status,
        version=len(log),
        log_tail=[
            {"seq": seq, "kind": "player", **entry}
            for seq, entry in enumerate(log, start=1)
            if seq > len(log) - Game.LOG_TAIL
        ],
        state=state.to_dict(),
        result=result,
        finished_at=timezone.now() if revealed else None,
    )
    GameAction.objects.bulk_create(
        GameAction(game=game, seq=seq, seat=entry["seat"], action=entry)
        for seq, entry in enumerate(log, start=1)
    )
    return game


def shows(card: str, text: str) -> bool:
    """Whether ``text`` names ``card`` anywhere (as a JSON string or inside one)."""
    return re.search(rf"(?<![0-9A-Za-z]){card}(?![0-9A-Za-z])", text) is not None


def cards_of(entries: list[dict[str, Any]]) -> set[str]:
    """Every card named in log entries (played face up)."""
    out: set[str] = set()
    for entry in entries:
        out.update(entry.get("cards") or [])
        if entry.get("target"):
            out.add(entry["target"])
    return out


def hidden_cards(game: Game) -> set[str]:
    """The cards no spectator may see now: every hand and the stock, less the face-up trump
    card and the cards of the public log tail."""
    state = GameState.from_dict(game.state)
    public = state.public_json()
    hidden = {c for seat in range(len(game.players)) for c in state.hand(seat)}
    hidden |= set(game.state["stock"])
    hidden.discard(public["trump_card"])
    return hidden - cards_of(game.log_tail)


@pytest.fixture(autouse=True)
def no_read_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hundreds of reads a minute here (and more while hypothesis shrinks): not a throttle test."""
    rates = {**ApiAnonThrottle.THROTTLE_RATES, "anon": "100000/min", "user": "100000/min"}
    for throttle in (ApiAnonThrottle, ApiUserThrottle):
        monkeypatch.setattr(throttle, "THROTTLE_RATES", rates)


@pytest.fixture
def readers(live_table: LiveTable, referee: User) -> dict[str, Client]:
    seated, judge = Client(), Client()
    seated.force_login(live_table.user_at(0))
    judge.force_login(referee)
    return {"anonymous": Client(), "seated": seated, "referee": judge}


@pytest.fixture
def seat_pool(live_table: LiveTable) -> list[int]:
    """Six players for a game's seats, the seated user's player at seat 0."""
    bots = BotPlayerFactory.create_batch(4)
    return [live_table.players[0].pk, live_table.players[1].pk, *(b.pk for b in bots)]


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    spec=st.fixed_dictionaries(
        {
            "seed": st.integers(min_value=0, max_value=2**32),
            "players": st.integers(min_value=2, max_value=6),
            "variant": st.sampled_from(["simple", "throw_in", "transfer"]),
            "trump_show": st.booleans(),
            "moves": st.integers(min_value=0, max_value=300),
            "ending": st.sampled_from(ENDINGS),
        }
    )
)
def test_no_game_answer_holds_a_card_its_reader_may_not_see(
    live_table: LiveTable, readers: dict[str, Client], seat_pool: list[int], spec: dict[str, Any]
) -> None:
    options: dict[str, Any] = {"players": spec["players"], "variant": spec["variant"]}
    if spec["variant"] == "transfer":
        options["trump_show"] = spec["trump_show"]
    game = store_game(
        live_table,
        seat_pool,
        seed=spec["seed"],
        rules=Rules.from_dict(options),
        moves=spec["moves"],
        ending=spec["ending"],
    )
    hidden = hidden_cards(game)

    for who, client in readers.items():
        for url in (f"/api/v1/games/{game.pk}/", f"/api/v1/games/{game.pk}/actions/"):
            response = client.get(url)
            assert response.status_code == 200, (who, url, response.content)
            body = response.json()
            text = json.dumps(body)
            if "actions/" not in url:
                assert body["view"]["hand"] is None and "hands" not in body["view"], who
            if game.is_over:
                # The seed is out, so is the deal: it must be the committed one.
                if "actions/" not in url:
                    assert body["seed"] == game.seed
                    assert engine.seed_commitment(body["seed"]) == game.seed_commitment
                    assert body["fairness"]["commitment_ok"] and body["fairness"]["replay_ok"]
                # Its view still shows no hidden card: no hand, no stock.
                view = json.dumps(body.get("view"))
                assert not sorted(card for card in hidden if shows(card, view)), who
                continue
            assert game.seed not in text, (who, url)
            assert '"deal"' not in text or body.get("fairness") is None, (who, url)
            leaked = sorted(card for card in hidden if shows(card, text))
            assert not leaked, (who, url, leaked)
        # The table's answer (its game in play as a spectator sees it) and the overlay's.
        table = client.get(f"/api/v1/tables/{live_table.table.pk}/")
        assert table.status_code == 200, (who, table.content)
        shown = table.json()["spectator"]
        if shown is not None:
            current = Game.objects.get(pk=shown["id"])
            assert shown["view"]["hand"] is None and "hands" not in shown["view"], who
            text = json.dumps(table.json())
            assert current.seed not in text, who
            leaked = sorted(card for card in hidden_cards(current) if shows(card, text))
            assert not leaked, (who, "table", leaked)
        live = client.get(f"/api/v1/tournaments/{live_table.tournament.slug}/live/")
        assert live.status_code == 200, (who, live.content)
        text = live.content.decode()
        assert game.is_over or game.seed not in text, who
        assert game.is_over or not sorted(card for card in hidden if shows(card, text)), who


def test_the_generator_makes_games_that_replay(live_table: LiveTable, seat_pool: list[int]) -> None:
    """The stored games are real: their logs replay from their seeds to their states."""
    game = store_game(
        live_table,
        seat_pool,
        seed=5,
        rules=Rules.from_dict({"players": 3}),
        moves=1000,
        ending="in_play",
    )
    assert game.status == Game.Status.FINISHED
    state = engine.new_game(Rules.from_dict(game.rules), engine.rng_for_seed(game.seed))
    for row in game.actions.order_by("seq"):
        state = engine.apply(state, Action.from_json(row.action))
    assert state.to_dict() == game.state
