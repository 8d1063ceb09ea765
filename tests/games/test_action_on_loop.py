"""A live table's action written on the event loop (``games.services.live``), PostgreSQL only.

It must write what the locked path writes, let exactly one of two racing actions win, leave
everything else to the locked path, and lose nothing when its statement fails half way.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from games import consumers, engine, services
from games.broadcast import game_message
from games.models import Game, GameAction
from games.services import live
from tests.builders import LiveTable, start_live_table
from tests.games.test_table_socket import (
    attacker_socket,
    is_state,
    is_type,
    logged_actions,
    open_socket,
    receive_until,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.USES_POSTGRES, reason="the loop's statement is PostgreSQL's"),
]


@database_sync_to_async
def snapshot(game_id: int) -> dict[str, Any]:
    return game_message(Game.objects.get(pk=game_id))


@database_sync_to_async
def rows(game_id: int) -> tuple[Game, list[tuple[Any, ...]]]:
    game = Game.objects.get(pk=game_id)
    log = list(
        GameAction.objects.filter(game_id=game_id)
        .order_by("seq")
        .values_list("seq", "seat", "action", "kind", "client_id", "user_id")
    )
    return game, log


def first_move(message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    state = engine.GameState.from_dict(message["state"])
    seat = state.attacker
    action = engine.legal_actions(state, seat)[0].to_json()
    del action["seat"]
    return seat, action


async def test_the_loop_writes_what_the_locked_path_writes(eager_jobs: None) -> None:
    # given two tables whose games are dealt from the same seed
    tables = [await database_sync_to_async(start_live_table)(clock=30) for _ in range(2)]
    seed = tables[0].game.seed

    @database_sync_to_async
    def same_deal() -> None:
        Game.objects.filter(pk=tables[1].game.pk).update(
            seed=seed, state=Game.objects.get(pk=tables[0].game.pk).state
        )

    await same_deal()
    moves = []
    # when the same three moves are made on the loop at one and through the locked path at the
    # other
    for version in range(3):
        held = await snapshot(tables[0].game.pk)
        seat = next(
            s for s in (0, 1) if engine.legal_actions(engine.GameState.from_dict(held["state"]), s)
        )
        action = engine.legal_actions(engine.GameState.from_dict(held["state"]), seat)[0]
        move = {k: v for k, v in action.to_json().items() if k != "seat"}
        moves.append(move)
        user = tables[0].user_at(seat)
        applied = await live.table_act_on_loop(
            held,
            player_id=held["players"][seat],
            user_id=user.pk,
            action=move,
            version=version,
            client_id=f"loop-{version}",
        )
        assert applied is not None and applied.version == version + 1
        await database_sync_to_async(services.game_apply_action)(
            game_id=tables[1].game.pk,
            seat=seat,
            action=move,
            version=version,
            client_id=f"loop-{version}",
            user=tables[1].user_at(seat),
        )
    # then the rows say the same (but for the game's and the user's ids)
    (on_loop, loop_log), (locked, locked_log) = [await rows(t.game.pk) for t in tables]
    assert on_loop.version == locked.version == 3
    assert on_loop.state == locked.state
    assert on_loop.log_tail == locked.log_tail
    assert on_loop.status == locked.status == Game.Status.ACTIVE
    assert [r[:5] for r in loop_log] == [r[:5] for r in locked_log]
    assert [r[5] for r in loop_log] == [tables[0].user_at(r[1]).pk for r in loop_log]
    # the clock runs from the last move, as the locked path sets it
    assert on_loop.deadline is not None and locked.deadline is not None
    assert abs(on_loop.deadline - locked.deadline) < timedelta(seconds=10)
    assert on_loop.deadline > timezone.now() + timedelta(seconds=20)
    # and the change's message is the row's, with the clock's job to follow
    assert applied is not None
    assert applied.message == {**await snapshot(tables[0].game.pk), "event": "state"}
    assert applied.jobs == [("games.game_clock_expire", (tables[0].game.pk, 3), 30)]


async def test_of_two_actions_racing_for_one_version_exactly_one_is_written(
    live_table: LiveTable,
) -> None:
    held = await snapshot(live_table.game.pk)
    seat, move = first_move(held)
    # when two different client ids send a move at version 0 at once
    results = await asyncio.gather(
        *(
            live.table_act_on_loop(
                held,
                player_id=held["players"][seat],
                user_id=None,
                action=move,
                version=0,
                client_id=f"racer-{n}",
            )
            for n in range(4)
        )
    )
    # then one moved the game; the others found it moved and wrote nothing
    assert sum(r is not None for r in results) == 1
    game, log = await rows(live_table.game.pk)
    assert game.version == 1 and len(log) == 1


async def test_a_held_state_the_game_has_left_writes_nothing(live_table: LiveTable) -> None:
    held = await snapshot(live_table.game.pk)
    seat, move = first_move(held)
    # given the move made through the locked path first
    await database_sync_to_async(services.game_apply_action)(
        game_id=live_table.game.pk, seat=seat, action=move, version=0, client_id="locked"
    )
    # when the loop tries it at the version it held
    again = await live.table_act_on_loop(
        held,
        player_id=held["players"][seat],
        user_id=None,
        action=move,
        version=0,
        client_id="loop",
    )
    # then nothing is written: the locked path will say why
    assert again is None
    assert await logged_actions(live_table.game.pk) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"version": 1},  # a version other than the held one
        {"game_id": -1},  # another game
        {"player_id": -1},  # no seat in the game
        {"action": {"type": "take"}},  # the engine refuses it (the attacker cannot take)
    ],
)
async def test_what_the_loop_does_not_take_is_left_to_the_locked_path(
    live_table: LiveTable, change: dict[str, Any]
) -> None:
    held = await snapshot(live_table.game.pk)
    seat, move = first_move(held)
    call = {
        "player_id": held["players"][seat],
        "user_id": None,
        "action": move,
        "version": 0,
        "client_id": "x",
        **change,
    }
    assert await live.table_act_on_loop(held, **call) is None
    assert await logged_actions(live_table.game.pk) == 0


async def test_a_socket_plays_on_the_loop(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    sock, first, _ = await attacker_socket(live_table)

    def no_locked_path(**_: Any) -> None:
        raise AssertionError("the locked path was taken")

    monkeypatch.setattr(consumers, "_table_act", no_locked_path)
    await sock.send_json_to(
        {"type": "action", "id": "a", "version": 0, "action": first["legal"][0]}
    )
    ack, _ = await receive_until(sock, is_type("ack"))
    assert (ack["version"], ack["duplicate"]) == (1, False)
    state, _ = await receive_until(sock, is_state(1))
    assert state["log"][-1]["seq"] == 1
    await sock.disconnect()


async def test_a_statement_lost_after_its_commit_is_answered_once_and_broadcast(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given sockets of both players, and a connection that fails after the write committed
    socks = [await open_socket(live_table.table.pk, live_table.user_at(s)) for s in (0, 1)]
    states = [await s.receive_json_from(timeout=5) for s in socks]
    attacker = states[0]["view"]["attacker"]
    real = live.table_act_on_loop

    async def committed_then_lost(*args: Any, **kwargs: Any) -> None:
        await real(*args, **kwargs)
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(live, "table_act_on_loop", committed_then_lost)
    # when the attacker moves
    await socks[attacker].send_json_to(
        {"type": "action", "id": "lost", "version": 0, "action": states[attacker]["legal"][0]}
    )
    # then the move is acknowledged as the one logged under its id, applied once
    ack, _ = await receive_until(socks[attacker], is_type("ack"))
    assert (ack["id"], ack["version"], ack["duplicate"]) == ("lost", 1, True)
    assert await logged_actions(live_table.game.pk) == 1
    # and the opponent still gets the new state
    await receive_until(socks[1 - attacker], is_state(1))
    for sock in socks:
        await sock.disconnect()
