"""The benchmark's lean spectator socket (``bench.spectator_socket``) against a real WebSocket
server (the ``websockets`` library's): every frame length, fragments, pings, the close, a
refused handshake."""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from typing import Any

import pytest
import uvloop
from websockets.asyncio.server import ServerConnection, serve

from bench.spectator_socket import HandshakeFailed, open_spectator


def state(game: int, version: int, pad: int = 0) -> str:
    return json.dumps({"type": "state", "game": game, "version": version, "pad": "x" * pad})


async def talk(connection: ServerConnection) -> None:
    assert connection.request is not None
    assert connection.request.headers["Origin"] == "http://127.0.0.1"
    await connection.send(state(7, 1))  # a short frame
    await connection.send(state(7, 2, pad=1_000))  # a 16-bit length
    await connection.send(state(7, 3, pad=70_000))  # a 64-bit length
    await connection.send(json.dumps({"type": "error", "code": "x"}))  # not a state
    await connection.send(iter(['{"type": "state", ', '"game": 8, "version": 0}']))  # fragments
    await asyncio.wait_for(await connection.ping(b"are you there"), 5)  # answered with a pong
    await connection.send(state(7, 2))  # a state seen before keeps its first arrival
    await connection.close(1000)


def run(handler: Any, **kwargs: Any) -> Any:
    """Serve ``handler``, open a spectator socket on it (on uvloop, as the benchmark does) and
    wait for its end."""

    async def main() -> Any:
        async with serve(handler, "127.0.0.1", 0, max_size=None, **kwargs) as server:
            port = server.sockets[0].getsockname()[1]
            sock = await open_spectator(
                f"ws://127.0.0.1:{port}/ws/tables/1/?x=1", "http://127.0.0.1", timeout=5
            )
            ended = await asyncio.wait_for(sock.closed, 10)
            return sock, ended

    return uvloop.run(main())


def test_it_reads_every_state_answers_pings_and_sees_the_close() -> None:
    sock, ended = run(talk)

    assert set(sock.seen) == {(7, 1), (7, 2), (7, 3), (8, 0)}
    assert sock.seen[(7, 1)] <= sock.seen[(7, 2)] <= sock.seen[(7, 3)] <= sock.seen[(8, 0)]
    assert ended == "closed 1000"


def test_a_refused_handshake_fails_to_open() -> None:
    def refuse(connection: ServerConnection, request: Any) -> Any:
        return connection.respond(HTTPStatus.FORBIDDEN, "no\n")

    async def never(connection: ServerConnection) -> None:
        raise AssertionError("not opened")

    with pytest.raises(HandshakeFailed, match="403"):
        run(never, process_request=refuse)
