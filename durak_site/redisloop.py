"""An asyncio Redis client per event loop, for the code that talks to Redis from sockets and the
ASGI front (the socket cap, the API's published versions).

An asyncio client belongs to the event loop it was made on (its connections do), and a server
process may run more than one loop (the tests' servers, a thread's ``async_to_sync``): each loop
gets its own client, made on first use and dropped with the loop.
"""

from __future__ import annotations

import asyncio
import weakref

import redis.asyncio
from django.conf import settings


class LoopRedis:
    """``client()``: the running loop's client of ``url``, each call of its network waiting at
    most ``timeout`` seconds (the callers fall back when Redis is slow or down)."""

    def __init__(self, url: str, *, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
            weakref.WeakKeyDictionary()
        )

    def client(self) -> redis.asyncio.Redis:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = redis.asyncio.Redis.from_url(
                self.url,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                max_connections=settings.REDIS_MAX_CONNECTIONS,
            )
            self._clients[loop] = client
        return client
