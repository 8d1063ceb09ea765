"""How many sockets one client may hold open at once: a cap per user and per address.

Every socket (the live table, the tournament feed, a path no socket serves) counts from its
handshake until it closes, under its user (a logged-in or token user: at most
``DURAK_SOCKETS_PER_USER``) and under its address (at most ``DURAK_SOCKETS_PER_ADDRESS``; an
IPv6 address counts with its whole ``/64``, what one client is usually given). ``0`` switches a
cap off. Over a cap, the handshake is refused the way the edge refuses (``games.sockets``):
accepted, one error frame ``too_many_sockets``, closed with ``4429``.

The address is the ASGI scope's ``client``: the peer, or the client a trusted proxy names when
the server is told to believe its headers (uvicorn's ``--forwarded-allow-ips``). Behind a proxy
that the server does not trust, every socket has the proxy's address: raise or switch off the
address cap there.

**Across processes.** With ``REDIS_URL`` the count is shared by every server process: a sorted
set per user and per address in Redis, one member per open socket, scored with the time it
expires (Redis's own clock, so that processes' clocks never matter). A socket's member is
renewed every :data:`RENEW_SECONDS` by one call per process for all its sockets, and expires
:data:`EXPIRE_SECONDS` after its last renewal: a process that is killed without closing its
sockets holds their places for at most that long. Admitting is one script (drop the expired
members, compare, add), so two handshakes at once never both take the last place. Without
Redis (one process) the count is this process's own.

**Failing open.** The cap protects the server; it is not a reason to refuse everyone: when
Redis cannot be reached the socket is admitted (logged) and not counted.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import threading
import uuid
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

import redis.asyncio
from asgiref.typing import ASGIReceiveCallable, ASGISendCallable
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from durak_site.redisloop import LoopRedis
from games.sockets import CLOSE_TOO_MANY, refuse_handshake, scope_language

log = logging.getLogger(__name__)

#: How often a process renews the Redis members of its open sockets.
RENEW_SECONDS: Final = 30
#: How long a member lives without a renewal (a killed process's sockets, at most).
EXPIRE_SECONDS: Final = 90
_PREFIX: Final = "durak:sockets:"

# KEYS: the counts (a user's, an address's); ARGV[1]: the socket's token, ARGV[2]: seconds to
# live, ARGV[2 + i]: the cap of KEYS[i]. 0: admitted and added everywhere; i: KEYS[i] is full.
_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[2 + i]) then
    return i
  end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + tonumber(ARGV[2]), ARGV[1])
  redis.call('EXPIRE', key, ARGV[2])
end
return 0
"""

# KEYS[i] holds the token ARGV[1 + i]; ARGV[1]: seconds to live. Only members still there are
# renewed: one whose socket closed meanwhile is not brought back.
_RENEW = """
local t = redis.call('TIME')
local until_ = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', until_, ARGV[1 + i])
  redis.call('EXPIRE', key, ARGV[1])
end
return 0
"""


def address_key(host: str) -> str:
    """What a peer's address counts under: an IPv4 address as it is, an IPv6 one by its /64
    (an IPv4-mapped one as the IPv4 address), anything else (a Unix socket) as it is.

    >>> address_key("203.0.113.7"), address_key("2001:db8:1:2:aa::1")
    ('203.0.113.7', '2001:db8:1:2::/64')
    >>> address_key("::ffff:10.0.0.1")
    '10.0.0.1'
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def limits_of(scope: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The counts a socket of ``scope`` takes a place in, with their caps: its user's (a user who
    is logged in or showed a token) and its address's; none that is switched off."""
    limits = []
    user = scope.get("user")
    per_user = settings.DURAK_SOCKETS_PER_USER
    if per_user and user is not None and getattr(user, "is_authenticated", False):
        limits.append((f"{_PREFIX}user:{user.pk}", per_user))
    client = scope.get("client")
    per_address = settings.DURAK_SOCKETS_PER_ADDRESS
    if per_address and client and client[0]:
        limits.append((f"{_PREFIX}address:{address_key(str(client[0]))}", per_address))
    return limits


class Counter(Protocol):
    """Where the open sockets are counted."""

    async def admit(self, token: str, limits: Sequence[tuple[str, int]]) -> str | None:
        """Take a place for ``token`` in every count of ``limits``, or none: None when it was
        admitted, else the count that is full."""

    async def leave(self, token: str) -> None:
        """Give back the places of ``token`` (one that was never admitted: nothing)."""


class MemoryCounter:
    """The counts in this process (the embedded default: one process, no Redis)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, set[str]] = {}
        self._places: dict[str, tuple[str, ...]] = {}

    async def admit(self, token: str, limits: Sequence[tuple[str, int]]) -> str | None:
        with self._lock:
            for key, cap in limits:
                if len(self._held.get(key, ())) >= cap:
                    return key
            for key, _cap in limits:
                self._held.setdefault(key, set()).add(token)
            self._places[token] = tuple(key for key, _cap in limits)
        return None

    async def leave(self, token: str) -> None:
        # No await in here: it runs whole even in a task being cancelled.
        with self._lock:
            for key in self._places.pop(token, ()):
                held = self._held.get(key)
                if held is not None:
                    held.discard(token)
                    if not held:
                        del self._held[key]

    def count(self, key: str) -> int:
        with self._lock:
            return len(self._held.get(key, ()))


class RedisCounter:
    """The counts in Redis, shared by every server process (see the module's text)."""

    def __init__(self, url: str) -> None:
        self.url = url
        # A handshake waits for Redis at most 1 s; then it is admitted uncounted.
        self._redis = LoopRedis(url, timeout=1)
        # A renewal task belongs to the event loop it was made on, as a client does.
        self._renewals: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
            weakref.WeakKeyDictionary()
        )
        #: This process's open sockets: token -> the counts it has a place in.
        self._places: dict[str, tuple[str, ...]] = {}

    def _client(self) -> redis.asyncio.Redis:
        return self._redis.client()

    async def admit(self, token: str, limits: Sequence[tuple[str, int]]) -> str | None:
        keys = [key for key, _cap in limits]
        caps = [cap for _key, cap in limits]
        full = int(
            await self._client().eval(_ADMIT, len(keys), *keys, token, EXPIRE_SECONDS, *caps)
        )
        if full:
            return keys[full - 1]
        self._places[token] = tuple(keys)
        self._keep_renewing()
        return None

    async def leave(self, token: str) -> None:
        keys = self._places.pop(token, ())
        if not keys:
            return
        if not self._places:  # the last one: nothing to renew until the next admission
            task = self._renewals.pop(asyncio.get_running_loop(), None)
            if task is not None:
                task.cancel()
        async with self._client().pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.zrem(key, token)
            await pipe.execute()

    def _keep_renewing(self) -> None:
        loop = asyncio.get_running_loop()
        task = self._renewals.get(loop)
        if task is None or task.done():
            self._renewals[loop] = loop.create_task(self._renew_while_open())

    async def _renew_while_open(self) -> None:
        """Renew every open socket's places each :data:`RENEW_SECONDS`, until none is open."""
        while self._places:
            await asyncio.sleep(RENEW_SECONDS)
            await self.renew()

    async def renew(self) -> None:
        """One renewal of every open socket's places (a failure is logged: the members live
        :data:`EXPIRE_SECONDS`, and the next renewal may reach Redis again)."""
        pairs = [(key, token) for token, keys in list(self._places.items()) for key in keys]
        if not pairs:
            return
        try:
            await self._client().eval(
                _RENEW,
                len(pairs),
                *(key for key, _token in pairs),
                EXPIRE_SECONDS,
                *(token for _key, token in pairs),
            )
        except Exception:
            log.warning("the sockets' places were not renewed", exc_info=True)


@functools.cache
def counter() -> Counter:
    """This process's counter: Redis when ``REDIS_URL`` is set, else memory."""
    return RedisCounter(settings.REDIS_URL) if settings.REDIS_URL else MemoryCounter()


class SocketCap:
    """ASGI middleware in front of the sockets' routes, behind the credentials (it needs the
    user): a handshake over a cap is refused with ``4429``; an admitted socket's places are given
    back when it ends, however it ends."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(
        self, scope: dict[str, Any], receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Any:
        limits = limits_of(scope)
        if not limits:
            return await self.app(scope, receive, send)
        token = uuid.uuid4().hex
        places = counter()
        try:
            full = await places.admit(token, limits)
        except Exception:
            log.warning("socket %s admitted uncounted: no count", scope.get("path"), exc_info=True)
            return await self.app(scope, receive, send)
        if full is not None:
            log.info("socket %s refused: %s is full", scope.get("path"), full)
            with translation.override(scope_language(scope)):
                message = gettext(
                    "too many sockets open at once from this account or address: close some "
                    "(other tabs or devices) and connect again"
                )
            return await refuse_handshake(
                receive, send, close_code=CLOSE_TOO_MANY, code="too_many_sockets", message=message
            )
        try:
            return await self.app(scope, receive, send)
        finally:
            try:
                await places.leave(token)
            except Exception:  # the places expire by themselves (EXPIRE_SECONDS)
                log.warning("socket %s: its places were not given back", scope.get("path"))
