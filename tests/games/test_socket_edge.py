"""The WebSocket edge (``games.sockets``, ``games.auth``), in-process on the real ASGI app: how a
handshake is refused so that a client can tell why, the Origin compared as scheme + host + port,
credentials that never sit in a URL, paths no socket serves, and messages nested too deep.
"""

from __future__ import annotations

import asyncio
import doctest
import json
import logging
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from pytest_django import Settings
from rest_framework.authtoken.models import Token

from durak_site import logs
from durak_site.asgi import application
from durak_site.logs import RedactSecrets, redact
from games import sockets
from games.services import tickets
from tests.builders import LiveTable, session_cookie
from tests.sockets import refusal

pytestmark = pytest.mark.django_db(transaction=True)

HOST = "testserver"


def communicator(
    path: str,
    *,
    origin: str | None = "http://testserver",
    host: str = HOST,
    cookie: str | None = None,
    raw: tuple[tuple[bytes, bytes], ...] = (),
    **headers: str,
) -> WebsocketCommunicator:
    """A handshake to ``path`` (``origin`` None: no Origin header; ``headers``: more of them,
    ``accept_language="en"`` as ``accept-language: en``; ``raw``: more still, as they are)."""
    sent = [(b"host", host.encode())]
    if origin is not None:
        sent.append((b"origin", origin.encode()))
    if cookie is not None:
        sent.append((b"cookie", cookie.encode()))
    sent += [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    return WebsocketCommunicator(application, path, headers=[*sent, *raw])


async def first_state(comm: WebsocketCommunicator) -> dict[str, Any]:
    connected, code = await comm.connect(timeout=10)
    assert connected, code
    message: dict[str, Any] = await comm.receive_json_from(timeout=5)
    assert message["type"] == "state", message
    return message


@database_sync_to_async
def token_of(user: User) -> str:
    return str(Token.objects.get_or_create(user=user)[0].key)


# --- paths no socket serves -----------------------------------------------------------------------


async def test_a_path_no_socket_serves_is_closed_with_4404(db: None) -> None:
    paths = ["/ws/", "/ws/nothing/", "/ws/tables/abc/", "/ws/tables/1/x/", "/tables/1/", "/ws/%00/"]
    for path in paths:
        assert await refusal(communicator(path)) == ("not_found", 4404), path


async def test_a_huge_table_id_is_a_missing_table(db: None) -> None:
    comm = communicator(f"/ws/tables/{10**30}/")
    assert await refusal(comm) == ("not_found", 4404)


# --- the Origin -----------------------------------------------------------------------------------


async def test_an_origin_other_than_the_sites_own_is_refused_with_4403(
    live_table: LiveTable,
) -> None:
    origins = [
        "http://testserver:8000",  # another port of the same host
        "https://testserver",  # another scheme
        "http://evil.example",
        "http://testserver.evil.example",
        "null",
        "http://testserver/path",
        "testserver",
        "",
    ]
    for origin in origins:
        comm = communicator(f"/ws/tables/{live_table.table.pk}/", origin=origin)
        assert await refusal(comm) == ("forbidden", 4403), origin


async def test_the_sites_own_origin_is_compared_with_its_port(live_table: LiveTable) -> None:
    path = f"/ws/tables/{live_table.table.pk}/"
    assert await first_state(
        communicator(path, host="localhost:8000", origin="http://localhost:8000")
    )
    assert await first_state(communicator(path, host="testserver:80", origin="http://TestServer"))
    refused = communicator(path, host="localhost:8000", origin="http://localhost:8001")
    assert await refusal(refused) == ("forbidden", 4403)


async def test_a_host_outside_allowed_hosts_has_no_own_origin(live_table: LiveTable) -> None:
    comm = communicator(
        f"/ws/tables/{live_table.table.pk}/", host="evil.example", origin="http://evil.example"
    )
    assert await refusal(comm) == ("forbidden", 4403)


async def test_two_origin_headers_are_refused(live_table: LiveTable) -> None:
    second = ((b"origin", b"http://evil.example"),)
    comm = communicator(f"/ws/tables/{live_table.table.pk}/", raw=second)
    assert await refusal(comm) == ("forbidden", 4403)


async def test_allowed_origins_are_exact(live_table: LiveTable, settings: Settings) -> None:
    settings.DURAK_ALLOWED_ORIGINS = ["https://club.example:8443"]
    path = f"/ws/tables/{live_table.table.pk}/"
    assert await first_state(communicator(path, origin="https://club.example:8443"))
    for other in (
        "https://club.example",
        "http://club.example:8443",
        "https://x.club.example:8443",
    ):
        assert await refusal(communicator(path, origin=other)) == ("forbidden", 4403), other


async def test_behind_a_tls_proxy_the_sites_origin_is_https(
    live_table: LiveTable, settings: Settings
) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    path = f"/ws/tables/{live_table.table.pk}/"
    secure = communicator(path, origin="https://testserver", x_forwarded_proto="https")
    assert await first_state(secure)
    plain = communicator(path, origin="http://testserver", x_forwarded_proto="https")
    assert await refusal(plain) == ("forbidden", 4403)
    assert await refusal(communicator(path, origin="https://testserver")) == ("forbidden", 4403)


async def test_without_an_origin_the_cookie_counts_for_nothing(live_table: LiveTable) -> None:
    # given a player's session cookie on a handshake with no Origin (not a browser's)
    cookie = await database_sync_to_async(session_cookie)(live_table.user_at(0))
    path = f"/ws/tables/{live_table.table.pk}/"
    state = await first_state(communicator(path, origin=None, cookie=cookie))
    # then it watches as anyone would; with its own token in a header it plays
    assert (state["role"], state["seat"]) == ("spectator", None)
    token = await token_of(live_table.user_at(0))
    bot = await first_state(communicator(path, origin=None, authorization=f"Token {token}"))
    assert (bot["role"], bot["seat"]) == ("player", 0)


def test_origins_parse_to_scheme_host_and_port() -> None:
    assert sockets.parse_origin("https://Example.org") == ("https", "example.org", 443)
    assert sockets.parse_origin("http://[::1]:8000") == ("http", "::1", 8000)
    for bad in ("null", "ftp://x", "http://x:99999", "http://x/y", "http://u@x", "http://"):
        assert sockets.parse_origin(bad) is None, bad


# --- credentials ----------------------------------------------------------------------------------


async def test_a_token_in_the_authorization_header_seats_its_player(
    live_table: LiveTable,
) -> None:
    token = await token_of(live_table.user_at(1))
    for scheme in ("Token", "Bearer", "token"):
        header = f"{scheme} {token}"
        comm = communicator(f"/ws/tables/{live_table.table.pk}/", authorization=header)
        state = await first_state(comm)
        assert (state["role"], state["seat"]) == ("player", 1), scheme
        await comm.disconnect()


async def test_a_bad_authorization_header_is_refused_with_4401(live_table: LiveTable) -> None:
    for header in ("Token nope", "Basic dXNlcjpwYXNz", "Token", "Token " + "x" * 65):
        comm = communicator(f"/ws/tables/{live_table.table.pk}/", authorization=header)
        assert await refusal(comm) == ("authentication_failed", 4401), header


async def test_a_token_in_the_url_is_refused_and_says_where_it_goes(live_table: LiveTable) -> None:
    token = await token_of(live_table.user_at(0))
    comm = communicator(f"/ws/tables/{live_table.table.pk}/?token={token}", accept_language="en")
    connected, _ = await comm.connect(timeout=10)
    assert connected
    error = await comm.receive_json_from(timeout=5)
    assert error["code"] == "authentication_failed" and "Authorization header" in error["message"]
    assert (await comm.receive_output(timeout=5))["code"] == 4401
    feed = communicator(f"/ws/tournaments/{live_table.tournament.slug}/?token={token}")
    assert await refusal(feed) == ("authentication_failed", 4401)


def ticket_for(user: User | None, token: str | None = None) -> tuple[int, dict[str, Any]]:
    client = Client()
    if user is not None:
        client.force_login(user)
    headers = {"authorization": f"Token {token}"} if token else {}
    response = client.post("/api/v1/socket-tickets/", headers=headers)
    return response.status_code, response.json()


async def test_a_ticket_opens_one_socket_once(live_table: LiveTable) -> None:
    # given a ticket asked for with the player's token
    token = await token_of(live_table.user_at(0))
    status, body = await database_sync_to_async(ticket_for)(None, token)
    assert status == 201 and body["expires_in"] == tickets.TICKET_SECONDS
    path = f"/ws/tables/{live_table.table.pk}/?ticket={body['ticket']}"
    # when it opens a socket, it seats the player
    state = await first_state(communicator(path))
    assert (state["role"], state["seat"]) == ("player", 0)
    # and it is used up
    assert await refusal(communicator(path)) == ("authentication_failed", 4401)
    assert await refusal(communicator(f"{path}x")) == ("authentication_failed", 4401)


async def test_a_ticket_expires(live_table: LiveTable, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tickets, "TICKET_SECONDS", 1)
    ticket = await database_sync_to_async(tickets.socket_ticket_issue)(user=live_table.user_at(0))
    await asyncio.sleep(1.2)
    comm = communicator(f"/ws/tables/{live_table.table.pk}/?ticket={ticket}")
    assert await refusal(comm) == ("authentication_failed", 4401)


def test_tickets_need_credentials_and_a_session_gets_one_too(live_table: LiveTable) -> None:
    status, body = ticket_for(None)
    assert (status, body["code"]) == (401, "not_authenticated")
    # a browser session (with its CSRF token: Client() skips the check, the API enforces it)
    status, body = ticket_for(live_table.user_at(1))
    assert status == 201 and tickets.socket_ticket_redeem(ticket=body["ticket"]) == (
        live_table.user_at(1).pk
    )
    assert tickets.socket_ticket_redeem(ticket=body["ticket"]) is None


def test_a_ticket_race_has_one_winner(live_table: LiveTable) -> None:
    ticket = tickets.socket_ticket_issue(user=live_table.user_at(0))
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    with ThreadPoolExecutor(8) as pool:
        won = list(pool.map(lambda _: tickets.socket_ticket_redeem(ticket=ticket), range(8)))
    assert won.count(live_table.user_at(0).pk) == 1 and won.count(None) == 7


# --- messages -------------------------------------------------------------------------------------


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


async def test_a_message_nested_too_deep_is_a_bad_request_and_the_socket_lives(
    live_table: LiveTable,
) -> None:
    comm = communicator(f"/ws/tables/{live_table.table.pk}/", accept_language="en")
    await first_state(comm)
    for raw in (
        nested(1500),  # 3,000 bytes: a RecursionError inside json without the limit
        '{"type": "sync", "x": ' + nested(40) + "}",
        '{"a":' * 600 + "1" + "}" * 600,
        "[" * 3000,  # not even closed
    ):
        await comm.send_to(text_data=raw)
        error = await comm.receive_json_from(timeout=5)
        assert (error["type"], error["code"]) == ("error", "bad_request"), error
        await comm.send_json_to({"type": "sync"})
        assert (await comm.receive_json_from(timeout=5))["type"] == "state"
    await comm.disconnect()


async def test_text_no_database_stores_is_a_bad_request(live_table: LiveTable) -> None:
    # a NUL or half a surrogate pair: valid JSON that PostgreSQL refuses (a client id is stored)
    token = await token_of(live_table.user_at(0))
    comm = communicator(f"/ws/tables/{live_table.table.pk}/", authorization=f"Token {token}")
    state = await first_state(comm)
    for bad in ("\\ud800", "x\\u0000"):
        raw = '{"type": "action", "id": "ID", "version": 0, "action": {"type": "take"}}'
        raw = raw.replace("ID", bad)
        await comm.send_to(text_data=raw)
        error = await comm.receive_json_from(timeout=5)
        assert error["code"] == "bad_request", error
    # an escaped pair is one character, and welcome
    move = {
        "type": "action",
        "id": "😀",
        "version": 0,
        "action": state["legal"][0] if state["legal"] else {"type": "take"},
    }
    text = json.dumps(move)
    assert "\\ud83d" in text
    await comm.send_to(text_data=text)
    reply = await comm.receive_json_from(timeout=5)
    assert reply["id"] == "😀" and reply.get("code") != "bad_request", reply
    await comm.disconnect()


def test_nesting_is_measured_outside_strings() -> None:
    assert sockets.nesting_depth('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[", "b": [1, [2]]}') == 3
    assert sockets.parse_json('{"cards": ["[", "{"]}') == {"cards": ["[", "{"]}
    with pytest.raises(sockets.TooDeep):
        sockets.parse_json(nested(17))
    assert sockets.parse_json(nested(16)) == [[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]


def test_frames_read_as_json_dumps_writes_them() -> None:
    for message in (
        {"type": "state", "players": ["Игрок", "Bot 2"], "view": {"hand": ["6S", "AH"]}},
        {"type": "error", "id": None, "code": "stale", "message": "Ход «устарел»\n"},
        {"seats": {0: "a", 1: None}, "deadline": None, "ok": True, "n": 2**62},
    ):
        text = sockets.frame_text(message)
        assert json.loads(text) == json.loads(json.dumps(message)), text
        assert "\\u" not in text and ", " not in text  # UTF-8 and compact


async def test_a_tables_frames_are_compact_utf8(live_table: LiveTable) -> None:
    comm = communicator(f"/ws/tables/{live_table.table.pk}/")
    connected, code = await comm.connect(timeout=10)
    assert connected, code
    text = await comm.receive_from(timeout=5)
    assert json.loads(text)["type"] == "state"
    assert text == sockets.frame_text(json.loads(text)), "written by frame_text"
    await comm.disconnect()


async def test_the_feed_answers_anything_read_only_and_lives(live_table: LiveTable) -> None:
    comm = communicator(f"/ws/tournaments/{live_table.tournament.slug}/")
    connected, _ = await comm.connect(timeout=10)
    assert connected and (await comm.receive_json_from(timeout=5))["type"] == "hello"
    for frame in (nested(1500), "{not json", '{"type": "sync"}'):
        await comm.send_to(text_data=frame)
        assert (await comm.receive_json_from(timeout=5))["code"] == "read_only"
    await comm.send_to(bytes_data=b"\xff\x00")
    assert (await comm.receive_json_from(timeout=5))["code"] == "read_only"
    await comm.disconnect()


def test_the_edge_modules_examples_hold() -> None:
    for module in (sockets, logs):
        assert doctest.testmod(module).failed == 0, module


async def test_a_refusal_speaks_the_sockets_language(db: None) -> None:
    english = communicator("/ws/tables/424242/", accept_language="en")
    await english.connect(timeout=10)
    assert (await english.receive_json_from(timeout=5))["message"] == "there is no table 424242"
    russian = communicator("/ws/tables/424242/")
    await russian.connect(timeout=10)
    assert (await russian.receive_json_from(timeout=5))["message"] != "there is no table 424242"


# --- logs -----------------------------------------------------------------------------------------


def test_secrets_in_a_logged_url_are_redacted() -> None:
    line = '127.0.0.1:5 - "GET /ws/tables/1/?ticket=T1&lang=en&token=T2;access_token=T3 HTTP/1.1"'
    assert redact(line) == (
        '127.0.0.1:5 - "GET /ws/tables/1/?ticket=[redacted]&lang=en&token=[redacted];'
        'access_token=[redacted] HTTP/1.1"'
    )
    assert redact("/api/v1/tournaments/?status=running&page=2") == (
        "/api/v1/tournaments/?status=running&page=2"
    )
    # linear in what a client sends (a regular expression that backtracks would hang the server)
    hostile = "GET /x?" + "%C2%9C" * 20_000 + "=" + "&a" * 5000 + " HTTP/1.1"
    started = time.monotonic()
    assert redact(hostile).startswith("GET /x?%C2%9C")
    assert time.monotonic() - started < 0.5
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, "", 0, '%s - "%s %s"', ("ip", "GET", "/x?Token=abc"), None
    )
    RedactSecrets().filter(record)
    assert record.getMessage() == 'ip - "GET /x?Token=[redacted]"'
    assert "abc" not in json.dumps(record.args)
