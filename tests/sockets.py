"""What the socket tests share: how a refused handshake looks to a client (``games.sockets``)."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator


async def refusal(comm: WebsocketCommunicator) -> tuple[str, int]:
    """Open ``comm``, which must be refused the way the site refuses: the handshake accepted,
    then one error frame and a close. (the error's code, the close code)"""
    connected, _ = await comm.connect(timeout=10)
    assert connected, "a refusal accepts the handshake first"
    error = await comm.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["message"], error
    closed = await comm.receive_output(timeout=5)
    assert closed["type"] == "websocket.close", closed
    return str(error["code"]), int(closed["code"])
