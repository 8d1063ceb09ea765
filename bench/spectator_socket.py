"""A lean WebSocket reader for the spectators of ``bench.live_tables``.

The benchmark's clients share the machine's cores with the servers they measure. With the
``websockets`` client each spectator socket cost about 0.1 ms of client CPU per frame (its
assembler, a future and a task wake-up per message): at 5,000 spectators, half a second of CPU
per state, taken from the same two cores as the servers' fan-out, so the figure measured the
clients as much as the servers. A spectator only reads: this is an :class:`asyncio.Protocol`
that does the opening handshake, parses the server's (unmasked) frames from its buffer, answers
pings, and hands each text message's ``(game, version)`` to a callback: no task per socket.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10
Key = tuple[int, int]  # one state of a table: (game id, version)


class HandshakeFailed(Exception):
    pass


class SpectatorSocket(asyncio.Protocol):
    """One spectator: when each state first reached it (``seen``), how it ended (``ended``)."""

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.fragments: list[bytes] = []
        self.seen: dict[Key, float] = {}
        self.on_message: Callable[[bytes], None] = self.note_state

    # -- asyncio.Protocol -------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not asyncio.Transport subclasses, but have its methods)
        self.transport = cast("asyncio.Transport", transport)
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.opened.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buffer[: self.buffer.find(b"\r\n")])
            del self.buffer[: end + 4]
            if b" 101 " not in status + b" ":
                self.opened.set_exception(HandshakeFailed(status.decode("latin-1")))
                self._abort("refused")
                return
            self.opened.set_result(None)
        self._frames()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(HandshakeFailed(str(exc or "connection lost")))
        self._end("closed by the server" if exc is None else f"lost: {exc}")

    # -- frames ------------------------------------------------------------------------------

    def _frames(self) -> None:
        buffer = self.buffer
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            length, start = second & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            if second & 0x80:  # a server never masks its frames
                self._abort("masked frame from the server")
                return
            if len(buffer) < start + length:
                return
            payload = bytes(buffer[start : start + length])
            del buffer[: start + length]
            self._frame(first & 0x80 != 0, first & 0x0F, payload)

    def _frame(self, fin: bool, opcode: int, payload: bytes) -> None:
        if opcode in (OP_TEXT, OP_BINARY, OP_CONTINUATION):
            self.fragments.append(payload)
            if fin:
                message = b"".join(self.fragments)
                self.fragments = []
                self.on_message(message)
        elif opcode == OP_PING:
            self._send(OP_PONG, payload)
        elif opcode == OP_CLOSE:
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            self._send(OP_CLOSE, payload[:2])
            self._end(f"closed {code}")
            if self.transport is not None:
                self.transport.close()

    def _send(self, opcode: int, payload: bytes) -> None:
        """A client frame (masked, as RFC 6455 wants of a client; control frames are short)."""
        if self.transport is None or self.transport.is_closing():
            return
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(bytes((0x80 | opcode, 0x80 | len(payload))) + mask + masked)

    def note_state(self, message: bytes) -> None:
        arrived = time.time()
        msg = json.loads(message)
        if msg.get("type") == "state" and msg.get("game") is not None:
            self.seen.setdefault((msg["game"], msg["version"]), arrived)

    def _end(self, why: str) -> None:
        if not self.closed.done():
            self.closed.set_result(why)

    def _abort(self, why: str) -> None:
        self._end(why)
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        """Close from this side (a close frame, then the connection)."""
        self._send(OP_CLOSE, (1000).to_bytes(2, "big"))
        self._end("closed by the client")
        if self.transport is not None:
            self.transport.close()


def handshake(url: str, origin: str) -> tuple[str, int, bytes]:
    """The host, port and opening request of ``url`` (``ws://`` only: the benchmark's servers
    are local)."""
    parts = urlsplit(url)
    if parts.scheme != "ws" or parts.hostname is None:
        raise ValueError(f"a ws:// URL, not {url!r}")
    port = parts.port or 80
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    key = base64.b64encode(os.urandom(16)).decode("ascii")
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {parts.hostname}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\n\r\n"
    ).encode("latin-1")
    return parts.hostname, port, request


async def open_spectator(url: str, origin: str, timeout: float = 60.0) -> SpectatorSocket:
    """A spectator socket on ``url``, its handshake done (``HandshakeFailed`` otherwise)."""
    host, port, request = handshake(url, origin)
    loop = asyncio.get_running_loop()
    _transport, protocol = await loop.create_connection(
        lambda: SpectatorSocket(request), host, port
    )
    async with asyncio.timeout(timeout):
        await protocol.opened
    return protocol
