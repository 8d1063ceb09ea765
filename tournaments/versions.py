"""The published version of each public tournament, and the API's answers already given at it.

This is what lets the API's ASGI front (:mod:`tournaments.api.front`) answer a conditional GET
without Django: an anonymous request whose ``If-None-Match`` is the ETag of the answer recorded
for the same request (path, query, ``Accept``, ``Accept-Language``, ``Origin``), recorded at the
version the tournament is still at, is ``304 Not Modified``.

**The version** of a tournament (``tournament_changed`` bumps it in the transaction of every
change a reader can see) is *published* here after that transaction commits, under the
tournament's slug, as ``"<pk>:<version>"``. Publishing only ever raises a tournament's version
(two commits whose hooks run out of order leave the higher one), and the key lives
:data:`VERSION_SECONDS`: if a publication is ever lost (Redis down at that moment), answers stay
stale for at most that long, then the next request goes through Django, which records the
version it read, but only where none is published (``NX``: a publication after a newer commit is
never overwritten by an older read).

**An answer** is recorded by the front when Django gave it (200 or 304, with the
``X-Durak-Stamp`` header that only the reads of a *public* tournament carry): its ETag, the stamp
it was built at, and the headers a 304 repeats. Private tournaments are never recorded, so the
front never answers for them: Django checks who is asking every time.

On the real stack both live in Redis (shared by every process); on the embedded default (one
process, no Redis) in this process's memory, bounded.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from typing import Protocol

import redis
import redis.asyncio
from django.conf import settings

from durak_site.redisloop import LoopRedis

#: How long a published version is trusted without a new publication (see the module's text).
VERSION_SECONDS = 60
#: How long a recorded answer is kept (the same as the API's cache of built answers).
ANSWER_SECONDS = 600
#: The embedded default keeps at most this many recorded answers (least recently used first out).
MEMORY_ANSWERS = 10_000

log = logging.getLogger(__name__)

# Raise the published version of KEYS[1] to ARGV[1]:ARGV[2] unless it is already there or past
# it; a different tournament under the same slug (a slug given up and taken again) replaces it.
_PUBLISH = """
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, ':', 1, true)
  if sep and string.sub(current, 1, sep - 1) == ARGV[1]
     and tonumber(string.sub(current, sep + 1)) >= tonumber(ARGV[2]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2], 'EX', ARGV[3])
return 1
"""


def stamp(pk: int, version: int) -> str:
    """A tournament at a version, as published and as recorded with an answer."""
    return f"{pk}:{version}"


def _newer(published: str | None, pk: int, version: int) -> bool:
    if published is None:
        return True
    published_pk, _, published_version = published.partition(":")
    return published_pk != str(pk) or int(published_version) < version


class Board(Protocol):
    """Where versions are published and answers recorded."""

    def publish(self, slug: str, pk: int, version: int) -> None:
        """After the commit that made ``version``: raise the slug's published version."""

    async def lookup(self, signature: str, slug: str) -> tuple[bytes | None, str | None]:
        """The answer recorded for the request ``signature`` and the slug's published stamp."""

    async def remember(self, signature: str, slug: str, answer: bytes, at: str) -> None:
        """Record ``answer`` (built at stamp ``at``); publish ``at`` if nothing is published."""


def _bytes(value: bytes | str | None) -> bytes:
    """A value read from Redis (bytes: no client here decodes; the stubs allow both)."""
    return value.encode() if isinstance(value, str) else (value or b"")


def _version_key(slug: str) -> str:
    return f"durak:api:version:{slug}"


def _answer_key(signature: str) -> str:
    return f"durak:api:answer:{signature}"


class RedisBoard:
    """Versions and answers in Redis, shared by every process. Short timeouts: the front falls
    back to Django when Redis is slow or down, and a commit's publication gives up quickly."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sync = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self._publish = self.sync.register_script(_PUBLISH)
        self._redis = LoopRedis(url, timeout=0.25)

    def _client(self) -> redis.asyncio.Redis:
        return self._redis.client()

    def publish(self, slug: str, pk: int, version: int) -> None:
        self._publish(keys=[_version_key(slug)], args=[pk, version, VERSION_SECONDS])

    async def lookup(self, signature: str, slug: str) -> tuple[bytes | None, str | None]:
        answer, published = await self._client().mget(_answer_key(signature), _version_key(slug))
        # Bytes: the clients are made without decode_responses.
        return _bytes(answer) or None, None if published is None else _bytes(published).decode()

    async def remember(self, signature: str, slug: str, answer: bytes, at: str) -> None:
        async with self._client().pipeline(transaction=False) as pipe:
            pipe.set(_answer_key(signature), answer, ex=ANSWER_SECONDS)
            pipe.set(_version_key(slug), at, ex=VERSION_SECONDS, nx=True)
            await pipe.execute()


class MemoryBoard:
    """Versions and answers in this process (the embedded default: one process, no Redis)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._versions: dict[str, str] = {}
        self._answers: OrderedDict[str, bytes] = OrderedDict()

    def publish(self, slug: str, pk: int, version: int) -> None:
        with self._lock:
            if _newer(self._versions.get(slug), pk, version):
                self._versions[slug] = stamp(pk, version)

    async def lookup(self, signature: str, slug: str) -> tuple[bytes | None, str | None]:
        with self._lock:
            answer = self._answers.get(signature)
            if answer is not None:
                self._answers.move_to_end(signature)
            return answer, self._versions.get(slug)

    async def remember(self, signature: str, slug: str, answer: bytes, at: str) -> None:
        with self._lock:
            self._answers[signature] = answer
            self._answers.move_to_end(signature)
            while len(self._answers) > MEMORY_ANSWERS:
                self._answers.popitem(last=False)
            self._versions.setdefault(slug, at)


@functools.cache
def board() -> Board:
    """This process's board: Redis when ``REDIS_URL`` is set, else memory."""
    return RedisBoard(settings.REDIS_URL) if settings.REDIS_URL else MemoryBoard()


def publish(*, slug: str, pk: int, version: int) -> None:
    """Publish a committed version (after the commit of ``tournament_changed``: the
    ``tournaments.notifications.versions`` listener). A board that cannot be written is logged:
    answers then stay stale for at most :data:`VERSION_SECONDS` (see the module's text)."""
    try:
        board().publish(slug, pk, version)
    except Exception:
        log.warning("tournament %s: version %s not published", slug, version, exc_info=True)
