"""The live table's WebSocket, in-process (``WebsocketCommunicator`` on the real ASGI app).

Who may connect and as what, what each role receives, and how every bad message is refused
without harming the connection.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from pytest_django import Settings
from rest_framework.authtoken.models import Token

from durak_site.asgi import application
from games import consumers, sockets
from games.models import Game, GameAction, RefereeEvent
from tests.builders import LiveTable, session_cookie, start_live_table
from tests.factories import referee_user
from tests.sockets import refusal

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = "http://testserver"
HOST = b"testserver"
Message = dict[str, Any]


async def open_socket(
    table_id: int,
    user: User | None = None,
    *,
    token: str | None = None,
    origin: str = ORIGIN,
    expect: bool = True,
    language: str | None = None,
) -> WebsocketCommunicator:
    """A connected socket (``expect``: the handshake must succeed and the first state come;
    ``language``: the browser's Accept-Language; ``token``: an API token in the Authorization
    header)."""
    headers = [(b"host", HOST)]
    if origin:
        headers.append((b"origin", origin.encode()))
    if language is not None:
        headers.append((b"accept-language", language.encode()))
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    if token is not None:
        headers.append((b"authorization", f"Token {token}".encode()))
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    if expect:
        connected, code = await comm.connect(timeout=10)
        assert connected, f"refused with {code}"
    return comm


async def receive_until(
    comm: WebsocketCommunicator, pred: Callable[[Message], bool], timeout: float = 10
) -> tuple[Message, list[Message]]:
    """Receive until a message matches ``pred``: (that message, every message received)."""
    seen: list[Message] = []
    while True:
        message = await comm.receive_json_from(timeout=timeout)
        seen.append(message)
        if pred(message):
            return message, seen


def is_state(version: int | None = None, game: int | None = None) -> Callable[[Message], bool]:
    def pred(m: Message) -> bool:
        return (
            m["type"] == "state"
            and (version is None or m["version"] == version)
            and (game is None or m["game"] == game)
        )

    return pred


def is_type(kind: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == kind


def without_seat(action: Message) -> Message:
    return {k: v for k, v in action.items() if k != "seat"}


@database_sync_to_async
def game_row(game_id: int) -> Game:
    return Game.objects.get(pk=game_id)


@database_sync_to_async
def logged_actions(game_id: int) -> int:
    return GameAction.objects.filter(game_id=game_id).count()


async def attacker_socket(live: LiveTable) -> tuple[WebsocketCommunicator, Message, int]:
    """Sockets of both players; returns the attacker's socket, its first state and its seat."""
    socks = [await open_socket(live.table.pk, live.user_at(s)) for s in (0, 1)]
    states = [await s.receive_json_from(timeout=5) for s in socks]
    attacker = states[0]["view"]["attacker"]
    await socks[1 - attacker].disconnect()
    return socks[attacker], states[attacker], attacker


# --- connecting -----------------------------------------------------------------------------------


async def test_each_role_gets_its_own_first_state(
    live_table: LiveTable, referee: User, outsider: User
) -> None:
    player = await open_socket(live_table.table.pk, live_table.user_at(1))
    spectator = await open_socket(live_table.table.pk)  # anonymous: the tournament is public
    logged_in_spectator = await open_socket(live_table.table.pk, outsider)
    referee_sock = await open_socket(live_table.table.pk, referee)
    mine = await player.receive_json_from(timeout=5)
    assert (mine["role"], mine["seat"], len(mine["view"]["hand"])) == ("player", 1, 6)
    assert mine["players"] == [p.display_name for p in live_table.players]
    assert mine["seed"] is None and len(mine["seed_commitment"]) == 64
    for sock in (spectator, logged_in_spectator):
        seen = await sock.receive_json_from(timeout=5)
        assert (seen["role"], seen["seat"], seen["view"]["hand"]) == ("spectator", None, None)
        assert "hands" not in seen["view"] and seen["legal"] == []
    full = await referee_sock.receive_json_from(timeout=5)
    assert full["role"] == "referee" and [len(h) for h in full["view"]["hands"]] == [6, 6]
    for sock in (player, spectator, logged_in_spectator, referee_sock):
        await sock.disconnect()


async def test_a_socket_for_a_missing_table_is_refused(live_table: LiveTable) -> None:
    comm = await open_socket(live_table.table.pk + 1000, expect=False)
    assert await refusal(comm) == ("not_found", 4404)


async def test_a_foreign_origin_is_refused_at_the_handshake(live_table: LiveTable) -> None:
    comm = await open_socket(
        live_table.table.pk, live_table.user_at(0), origin="https://evil.example", expect=False
    )
    assert await refusal(comm) == ("forbidden", 4403)
    # a client that sends no Origin is no browser: it connects, but its cookie counts for nothing
    no_origin = await open_socket(live_table.table.pk, live_table.user_at(0), origin="")
    first = await no_origin.receive_json_from(timeout=5)
    assert (first["role"], first["seat"]) == ("spectator", None)
    await no_origin.disconnect()


@pytest.mark.usefixtures("eager_jobs")
async def test_a_private_tournament_admits_only_its_players_and_referees(
    referee: User, outsider: User
) -> None:
    live = await database_sync_to_async(start_live_table)(is_public=False, referees=[referee])
    for user in (None, outsider):
        # to them the table does not exist: the answer of a missing table
        comm = await open_socket(live.table.pk, user, expect=False)
        assert await refusal(comm) == ("not_found", 4404)
    for user in (live.user_at(0), referee):
        comm = await open_socket(live.table.pk, user)
        assert (await comm.receive_json_from(timeout=5))["type"] == "state"
        await comm.disconnect()


async def test_token_auth_seats_a_bot_client_and_a_bad_token_is_refused(
    live_table: LiveTable,
) -> None:
    token = await database_sync_to_async(Token.objects.create)(user=live_table.user_at(0))
    comm = await open_socket(live_table.table.pk, token=token.key)
    first = await comm.receive_json_from(timeout=5)
    assert (first["role"], first["seat"]) == ("player", 0)
    assert first["view"]["hand"] and len(first["view"]["hand"]) == 6
    await comm.disconnect()
    bad = await open_socket(live_table.table.pk, token="not-a-token", expect=False)
    assert await refusal(bad) == ("authentication_failed", 4401)


# --- acting -------------------------------------------------------------------------------------


async def test_a_legal_action_is_acked_and_every_socket_gets_the_new_state(
    live_table: LiveTable,
) -> None:
    socks = [await open_socket(live_table.table.pk, live_table.user_at(s)) for s in (0, 1)]
    spectator = await open_socket(live_table.table.pk)
    states = [await s.receive_json_from(timeout=5) for s in socks]
    await spectator.receive_json_from(timeout=5)
    attacker = states[0]["view"]["attacker"]
    move = states[attacker]["legal"][0]
    assert move["type"] == "attack"
    # when the attacker plays
    await socks[attacker].send_json_to(
        {"type": "action", "id": "a-1", "version": 0, "action": move, "game": states[0]["game"]}
    )
    # then it is acknowledged, and everyone sees the card on the table
    ack, _ = await receive_until(socks[attacker], is_type("ack"))
    assert (ack["id"], ack["version"], ack["duplicate"]) == ("a-1", 1, False)
    seen = {}
    for name, sock in (("attacker", socks[attacker]), ("defender", socks[1 - attacker])):
        seen[name], _ = await receive_until(sock, is_state(1))
    seen["spectator"], _ = await receive_until(spectator, is_state(1))
    for state in seen.values():
        assert state["view"]["table"] == [{"attack": move["cards"][0], "defense": None}]
        assert state["log"][-1]["type"] == "attack" and state["log"][-1]["seat"] == attacker
    # the defender may now defend or take; the attacker waits
    assert {"take"} <= {a["type"] for a in seen["defender"]["legal"]}
    assert seen["spectator"]["legal"] == []
    for sock in (*socks, spectator):
        await sock.disconnect()


async def test_a_socket_gets_the_log_once_then_only_what_is_new(live_table: LiveTable) -> None:
    socks = [await open_socket(live_table.table.pk, live_table.user_at(s)) for s in (0, 1)]
    states = [await s.receive_json_from(timeout=5) for s in socks]
    assert states[0]["log"] == []
    for version in (1, 2):
        seat = next(s for s in (0, 1) if states[s]["legal"])
        move = states[seat]["legal"][0]
        await socks[seat].send_json_to(
            {"type": "action", "id": f"l-{version}", "version": version - 1, "action": move}
        )
        for s in (0, 1):
            states[s], _ = await receive_until(socks[s], is_state(version))
            # only the entry this socket has not had yet
            assert [e["seq"] for e in states[s]["log"]] == [version]
    # a new socket (a reconnect) and a sync get the whole tail
    late = await open_socket(live_table.table.pk)
    assert [e["seq"] for e in (await late.receive_json_from(timeout=5))["log"]] == [1, 2]
    await socks[0].send_json_to({"type": "sync"})
    synced, _ = await receive_until(socks[0], is_state(2))
    assert [e["seq"] for e in synced["log"]] == [1, 2]
    for sock in (*socks, late):
        await sock.disconnect()


async def test_an_illegal_action_gets_the_engine_code_and_changes_nothing(
    live_table: LiveTable,
) -> None:
    sock, first, _attacker = await attacker_socket(live_table)
    await sock.send_json_to({"type": "action", "id": "x", "version": 0, "action": {"type": "pass"}})
    error = await sock.receive_json_from(timeout=5)
    assert (error["type"], error["id"], error["code"]) == ("error", "x", "illegal")
    not_mine = next(
        c for c in ("6S", "7S", "8S", "9S", "TS", "JS") if c not in first["view"]["hand"]
    )
    await sock.send_json_to(
        {
            "type": "action",
            "id": "y",
            "version": 0,
            "action": {"type": "attack", "cards": [not_mine]},
        }
    )
    error = await sock.receive_json_from(timeout=5)
    assert error["code"] in {"card_not_in_hand", "illegal"}
    await sock.send_json_to({"type": "sync"})
    state = await sock.receive_json_from(timeout=5)
    assert state["version"] == 0 and (await game_row(live_table.game.pk)).version == 0
    await sock.disconnect()


async def test_a_stale_version_gets_an_error_and_a_fresh_state(live_table: LiveTable) -> None:
    sock, first, _attacker = await attacker_socket(live_table)
    await sock.send_json_to(
        {"type": "action", "id": "s", "version": 7, "action": first["legal"][0]}
    )
    error = await sock.receive_json_from(timeout=5)
    assert (error["type"], error["code"], error["id"]) == ("error", "stale_version", "s")
    fresh = await sock.receive_json_from(timeout=5)
    assert (fresh["type"], fresh["version"]) == ("state", 0)
    # an action meant for another game of the table is stale as well
    await sock.send_json_to(
        {"type": "action", "id": "g", "version": 0, "action": first["legal"][0], "game": 999999}
    )
    assert (await sock.receive_json_from(timeout=5))["code"] == "stale_version"
    await sock.disconnect()


async def test_a_refusal_speaks_the_language_of_its_socket(live_table: LiveTable) -> None:
    # given the attacker's socket from a browser that asks for no language (the site's default,
    # Russian) and another socket of the same player's from an English browser
    sock, first, attacker = await attacker_socket(live_table)
    english = await open_socket(live_table.table.pk, live_table.user_at(attacker), language="en")
    await english.receive_json_from(timeout=5)
    stale = {"type": "action", "version": 7, "action": first["legal"][0]}

    # when each sends an action at a stale version (refused by the service, on a database thread)
    # and a message of no known type (refused by the consumer)
    await sock.send_json_to({**stale, "id": "ru"})
    await english.send_json_to({**stale, "id": "en"})
    russian, _ = await receive_until(sock, is_type("error"))
    in_english, _ = await receive_until(english, is_type("error"))
    await sock.send_json_to({"type": "dance", "id": "ru"})
    await english.send_json_to({"type": "dance", "id": "en"})
    russian_bad, _ = await receive_until(sock, is_type("error"))
    english_bad, _ = await receive_until(english, is_type("error"))

    # then each socket reads its refusals in its own language, with the same stable codes
    assert russian["code"] == in_english["code"] == "stale_version"
    assert russian["message"] == "версия партии — 0, а не 7: синхронизируйтесь и повторите"
    assert in_english["message"] == "the game is at version 0, not 7: sync and retry"
    assert russian_bad["code"] == english_bad["code"] == "bad_request"
    assert russian_bad["message"].startswith("неизвестный тип сообщения 'dance'")
    assert english_bad["message"].startswith("unknown message type 'dance'")
    await sock.disconnect()
    await english.disconnect()


def test_a_sockets_language_is_chosen_as_a_pages_is(settings: Settings) -> None:
    def scope(**headers: str) -> dict[str, Any]:
        return {"headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]}

    cookie = f"{settings.LANGUAGE_COOKIE_NAME}=en"
    assert sockets.scope_language(scope()) == "ru"  # the site's default
    assert sockets.scope_language(scope(accept_language="en-GB,en;q=0.9")) == "en"
    assert sockets.scope_language(scope(accept_language="de-DE,de")) == "ru"
    # the language the person chose on the site wins over the browser's
    assert sockets.scope_language(scope(cookie=cookie, accept_language="ru")) == "en"
    parsed = {"headers": [], "cookies": {settings.LANGUAGE_COOKIE_NAME: "en"}}  # Channels' own
    assert sockets.scope_language(parsed) == "en"


async def test_a_repeated_client_id_is_acked_again_and_applied_once(
    live_table: LiveTable,
) -> None:
    sock, first, _attacker = await attacker_socket(live_table)
    message = {"type": "action", "id": "same", "version": 0, "action": first["legal"][0]}
    await sock.send_json_to(message)
    ack, _ = await receive_until(sock, is_type("ack"))
    await receive_until(sock, is_state(1))
    # when the client retries (it never saw the ack, say)
    await sock.send_json_to(message)
    again, _ = await receive_until(sock, is_type("ack"))
    assert (again["id"], again["version"], again["duplicate"]) == ("same", 1, True)
    assert ack["version"] == 1
    assert await logged_actions(live_table.game.pk) == 1
    await sock.disconnect()


async def test_outsiders_and_referees_cannot_act(
    live_table: LiveTable, outsider: User, referee: User
) -> None:
    for user in (outsider, None, referee):
        sock = await open_socket(live_table.table.pk, user)
        state = await sock.receive_json_from(timeout=5)
        # even naming a seat is refused: the seat is never the client's to choose
        await sock.send_json_to(
            {"type": "action", "id": "o", "version": 0, "action": {"type": "take"}}
        )
        error = await sock.receive_json_from(timeout=5)
        assert (error["code"], error["id"]) == ("not_seated", "o"), state["role"]
        await sock.send_json_to(
            {"type": "action", "id": "o", "version": 0, "action": {"type": "take", "seat": 0}}
        )
        assert (await sock.receive_json_from(timeout=5))["code"] == "bad_request"
        await sock.disconnect()
    assert await logged_actions(live_table.game.pk) == 0


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        "[1, 2]",
        '"sync"',
        '{"type": "dance"}',
        '{"no": "type"}',
        '{"type": "action", "version": 0, "action": {"type": "take"}}',
        '{"type": "action", "id": "m", "action": {"type": "take"}}',
        '{"type": "action", "id": "m", "version": 0}',
        '{"type": "action", "id": "m", "version": "0", "action": {"type": "take"}}',
        '{"type": "action", "id": "m", "version": 0, "action": "take"}',
    ],
)
async def test_malformed_messages_are_bad_requests(live_table: LiveTable, raw: str) -> None:
    sock = await open_socket(live_table.table.pk, live_table.user_at(0))
    await sock.receive_json_from(timeout=5)
    await sock.send_to(text_data=raw)
    error = await sock.receive_json_from(timeout=5)
    assert (error["type"], error["code"]) == ("error", "bad_request"), error
    # the connection goes on
    await sock.send_json_to({"type": "sync"})
    assert (await sock.receive_json_from(timeout=5))["type"] == "state"
    await sock.disconnect()


async def test_an_engine_bad_action_passes_its_code_through(live_table: LiveTable) -> None:
    sock = await open_socket(live_table.table.pk, live_table.user_at(0))
    await sock.receive_json_from(timeout=5)
    await sock.send_json_to(
        {"type": "action", "id": "z", "version": 0, "action": {"type": "attack", "cards": ["ZZ"]}}
    )
    assert (await sock.receive_json_from(timeout=5))["code"] == "bad_request"
    await sock.disconnect()


async def test_a_message_over_4_kib_is_too_large(live_table: LiveTable) -> None:
    sock = await open_socket(live_table.table.pk, live_table.user_at(0))
    await sock.receive_json_from(timeout=5)
    await sock.send_to(text_data=json.dumps({"type": "sync", "pad": "x" * 5000}))
    error = await sock.receive_json_from(timeout=5)
    assert (error["type"], error["code"]) == ("error", "too_large")
    await sock.send_json_to({"type": "sync"})
    assert (await sock.receive_json_from(timeout=5))["type"] == "state"
    await sock.disconnect()


async def test_a_flood_is_rate_limited_and_the_connection_survives(
    live_table: LiveTable,
) -> None:
    sock = await open_socket(live_table.table.pk, live_table.user_at(0))
    await sock.receive_json_from(timeout=5)
    for n in range(40):
        await sock.send_json_to({"type": "sync", "id": f"f{n}"})
    answers = [await sock.receive_json_from(timeout=10) for _ in range(40)]
    limited = [a for a in answers if a["type"] == "error"]
    assert limited and {a["code"] for a in limited} == {"rate_limited"}
    assert sum(a["type"] == "state" for a in answers) >= 20
    # a moment later the same socket is served again
    await asyncio.sleep(0.5)
    await sock.send_json_to({"type": "sync"})
    assert (await sock.receive_json_from(timeout=5))["type"] == "state"
    await sock.disconnect()


# --- referees -----------------------------------------------------------------------------------


async def test_referee_commands_over_the_socket_need_the_events_referee_and_a_reason(
    live_table: LiveTable, referee: User, outsider: User
) -> None:
    table = live_table.table.pk
    unassigned = await database_sync_to_async(referee_user)("unassigned-referee")
    player = await open_socket(table, live_table.user_at(0))
    outsider_sock = await open_socket(table, outsider)
    other_referee = await open_socket(table, unassigned)
    referee_sock = await open_socket(table, referee)
    for sock in (player, outsider_sock, referee_sock):
        await sock.receive_json_from(timeout=5)
    # a referee of other events is a spectator here
    assert (await other_referee.receive_json_from(timeout=5))["role"] == "spectator"
    # not a referee of this event: forbidden, whoever asks
    for sock in (player, outsider_sock, other_referee):
        await sock.send_json_to({"type": "referee", "id": "r", "command": "pause", "reason": "x"})
        assert (await sock.receive_json_from(timeout=5))["code"] == "forbidden"
    # a referee without a reason is refused
    await referee_sock.send_json_to(
        {"type": "referee", "id": "r0", "command": "pause", "reason": " "}
    )
    assert (await referee_sock.receive_json_from(timeout=5))["code"] == "reason_required"
    await referee_sock.send_json_to({"type": "referee", "id": "r0", "command": "pause"})
    assert (await referee_sock.receive_json_from(timeout=5))["code"] == "bad_request"
    # pause: the player sees the game paused and cannot act
    await referee_sock.send_json_to(
        {"type": "referee", "id": "r1", "command": "pause", "reason": "спор"}
    )
    await receive_until(referee_sock, is_type("ack"))
    paused, _ = await receive_until(player, lambda m: m.get("status") == "paused")
    assert paused["legal"] == []
    await player.send_json_to(
        {"type": "action", "id": "p", "version": 0, "action": {"type": "take"}}
    )
    assert (await player.receive_json_from(timeout=5))["code"] == "game_not_active"
    # resume, then adjudicate: the result and the seed reach the player
    await referee_sock.send_json_to(
        {"type": "referee", "id": "r2", "command": "resume", "reason": "разобрались"}
    )
    await receive_until(player, lambda m: m.get("status") == "active")
    await referee_sock.send_json_to(
        {
            "type": "referee",
            "id": "r3",
            "command": "adjudicate",
            "reason": "игрок ушёл",
            "places": [1, 0],
            "fool": 0,
        }
    )
    ruled, _ = await receive_until(player, lambda m: m.get("status") == "adjudicated")
    assert ruled["result"]["fool"] == 0 and ruled["seed"]
    kinds = await database_sync_to_async(
        lambda: list(RefereeEvent.objects.values_list("kind", "reason"))
    )()
    assert kinds == [("pause", "спор"), ("resume", "разобрались"), ("adjudicate", "игрок ушёл")]
    for sock in (player, outsider_sock, other_referee, referee_sock):
        await sock.disconnect()


async def test_a_voided_game_is_redealt_and_the_sockets_follow_the_table(
    live_table: LiveTable, referee: User
) -> None:
    table = live_table.table.pk
    players = [await open_socket(table, live_table.user_at(s)) for s in (0, 1)]
    referee_sock = await open_socket(table, referee)
    first = [await p.receive_json_from(timeout=5) for p in players]
    await referee_sock.receive_json_from(timeout=5)
    await referee_sock.send_json_to(
        {"type": "referee", "id": "v", "command": "void", "reason": "карта упала"}
    )
    # every socket moves on to the table's new game, the players each at their seat in it
    for n, sock in enumerate(players):
        new, _ = await receive_until(sock, lambda m: m["type"] == "state" and m["number"] == 2)
        assert new["game"] != first[n]["game"] and new["version"] == 0
        assert new["role"] == "player" and new["view"]["hand"]
        names = new["players"]
        assert names[new["seat"]] == first[n]["players"][first[n]["seat"]]
    # and a reconnect (or sync) returns the current game
    late = await open_socket(table)
    assert (await late.receive_json_from(timeout=5))["number"] == 2
    for sock in (*players, referee_sock, late):
        await sock.disconnect()


# --- a whole game: nobody sees a hidden card ------------------------------------------------------


def strings_in(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(strings_in(v) for v in obj)) if obj else set()
    return set()


def keys_in(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | set().union(*(keys_in(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(keys_in(v) for v in obj)) if obj else set()
    return set()


def hand_fields(obj: Any) -> list[Any]:
    """Every value stored under a key named ``hand`` or ``hands``, anywhere in a message."""
    found: list[Any] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("hand", "hands"):
                found.append(value)
            found.extend(hand_fields(value))
    elif isinstance(obj, list):
        for value in obj:
            found.extend(hand_fields(value))
    return found


async def test_a_whole_game_spectators_and_opponents_never_see_a_hidden_card(
    live_table: LiveTable, referee: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The moves go out as fast as the server answers: a long game can outrun the per-socket
    # rate limit (tested on its own above), which is not what this test is about.
    monkeypatch.setattr(consumers, "BURST", 1000)
    table = live_table.table.pk
    players = [await open_socket(table, live_table.user_at(s)) for s in (0, 1)]
    spectator = await open_socket(table)
    referee_sock = await open_socket(table, referee)  # the oracle: the full truth per version
    latest = [await p.receive_json_from(timeout=5) for p in players]
    received: dict[str, list[dict[str, Any]]] = {"0": [], "1": [], "spectator": []}
    received["spectator"].append(await spectator.receive_json_from(timeout=5))
    first = await referee_sock.receive_json_from(timeout=5)
    truth = {0: first["view"]}
    logs = {0: first["log"]}  # every card in a logged action was played face up
    received["0"].append(latest[0])
    received["1"].append(latest[1])
    version, steps = 0, 0
    while latest[0]["status"] == "active":
        steps += 1
        assert steps < 500, "the game does not end"
        seat = next(s for s in (0, 1) if latest[s]["legal"])
        move = latest[seat]["legal"][0]
        await players[seat].send_json_to(
            {"type": "action", "id": f"m{steps}", "version": version, "action": move}
        )
        version += 1
        full, _ = await receive_until(referee_sock, is_state(version))
        truth[version] = full["view"]
        logs[version] = full["log"]
        for key, sock in (("0", players[0]), ("1", players[1]), ("spectator", spectator)):
            state, seen = await receive_until(sock, is_state(version))
            received[key].extend(seen)
            if key != "spectator":
                latest[int(key)] = state
    assert steps > 10
    assert latest[0]["status"] == "finished" and latest[0]["seed"]
    assert latest[0]["result"] == truth[version]["result"]

    played: set[str] = {truth[0]["trump_card"]} - {None}
    public_by_version: dict[int, set[str]] = {}
    for v in sorted(truth):
        for pair in truth[v]["table"]:
            played |= {c for c in pair.values() if c}
        for logged in logs[v]:
            played |= set(logged.get("cards", []))
        public_by_version[v] = set(played)
    for key, messages in received.items():
        for message in messages:
            assert "hands" not in keys_in(message), key
            if message["type"] != "state":
                continue
            v = message["version"]
            hands = truth[v]["hands"]
            own = set(hands[int(key)]) if key != "spectator" else set()
            hidden = {c for s, h in enumerate(hands) if str(s) != key for c in h}
            hidden -= public_by_version[v]
            for value in hand_fields(message):
                assert value is None or set(value) == own, (key, v, value)
            assert not (strings_in(message) & hidden), (key, v, strings_in(message) & hidden)
    for sock in (*players, spectator, referee_sock):
        await sock.disconnect()
