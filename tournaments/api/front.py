"""The API's ASGI front: a conditional GET answered ``304`` without Django.

A scoreboard polls: most of its requests ask "has this changed?" and the answer is no. Through
Django and DRF that answer costs a few milliseconds of Python (a 304 needs only the tournament's
row, yet every middleware, the resolver, the view and the throttle run); this front answers it
from the published version of the tournament (:mod:`tournaments.versions`) for a fraction of
that, in the ASGI server's event loop.

It answers only when all of this holds, else the request goes to Django as before:

- a ``GET`` or ``HEAD`` of ``/api/v1/tournaments/<slug>/...``, anonymous (no ``Authorization``,
  no ``Cookie``: who is asking never matters to it);
- Django gave an answer to the same request (path and query, ``Accept``, ``Accept-Language``,
  ``Origin``) and marked it as a public tournament's (``X-Durak-Stamp``, which never leaves the
  server), and that answer was built at the version the tournament is still published at;
- the request's ``If-None-Match`` matches that answer's ``ETag``.

The 304 repeats the headers of the recorded answer (``ETag``, ``Cache-Control``, ``Vary``,
``Last-Modified``, CORS, the security headers), as Django's own 304 would. Like GitHub's API, a
conditional request answered 304 here does not count against the caller's rate limit.

Whatever fails here (Redis down or slow: 250 ms timeouts) falls back to Django.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from tournaments.api.common import STAMP_HEADER, etag_matches
from tournaments.versions import board

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
# Django's handler types scope and messages more narrowly than the ASGI spec's dicts.
App = Callable[..., Awaitable[None]]

PREFIX = "/api/v1/tournaments/"
_STAMP = STAMP_HEADER.lower().encode()
#: What makes two requests the same request for Django's answer (besides path and query): the
#: format (``Accept``), the language (``Accept-Language``; no cookie), CORS (``Origin``).
_VARY = (b"accept", b"accept-language", b"origin")
#: A 304 has no body: its headers are the answer's but these.
_NOT_REPEATED = {
    b"content-type",
    b"content-length",
    b"content-encoding",
    b"content-disposition",
    b"transfer-encoding",
    b"date",
    b"server",
    _STAMP,
    # the caller's own count, not the recorded answer's
    b"ratelimit-limit",
    b"ratelimit-remaining",
    b"ratelimit-reset",
}

log = logging.getLogger(__name__)


def tournament_slug(path: str) -> str | None:
    """``kubok`` of ``/api/v1/tournaments/kubok/standings/``; None for other paths."""
    if not path.startswith(PREFIX):
        return None
    slug = path[len(PREFIX) :].partition("/")[0]
    return slug or None


def signature(scope: Scope) -> str:
    """What a request's answer depends on, besides the data: the same signature, the same
    answer at the same version."""
    headers = dict(scope["headers"])
    parts = [scope["path"].encode(), scope.get("query_string", b"")]
    parts += [headers.get(name, b"") for name in _VARY]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()


def _anonymous(scope: Scope) -> bool:
    return not any(name in (b"authorization", b"cookie") for name, _ in scope["headers"])


class NotModifiedFront:
    """ASGI middleware around Django's HTTP application (``durak_site.asgi``)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        slug = tournament_slug(scope["path"]) if scope["type"] == "http" else None
        if slug is None:
            await self.app(scope, receive, send)
            return
        readable = scope["method"] in ("GET", "HEAD") and _anonymous(scope)
        key = signature(scope) if readable else ""
        if readable and await self._not_modified(scope, key, slug, send):
            return
        await self.app(scope, receive, self._recording(send, key if readable else "", slug))

    async def _not_modified(self, scope: Scope, key: str, slug: str, send: Send) -> bool:
        wanted = dict(scope["headers"]).get(b"if-none-match")
        if not wanted:
            return False
        try:
            answer, published = await board().lookup(key, slug)
        except Exception:
            log.warning("the API front cannot read its board", exc_info=True)
            return False
        if answer is None or published is None:
            return False
        recorded = json.loads(answer)
        if recorded["at"] != published or not etag_matches(
            wanted.decode("latin-1"), recorded["etag"]
        ):
            return False
        headers = [
            (name.encode("latin-1"), value.encode("latin-1")) for name, value in recorded["headers"]
        ]
        await send({"type": "http.response.start", "status": 304, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return True

    def _recording(self, send: Send, key: str, slug: str) -> Send:
        """``send``, taking the stamp out of Django's answer (always) and recording the answer
        of a public tournament's read (when ``key``)."""

        async def recording_send(message: Message) -> None:
            if message["type"] != "http.response.start":
                await send(message)
                return
            headers = list(message.get("headers", []))
            stamps = [value for name, value in headers if name.lower() == _STAMP]
            if stamps:
                headers = [(name, value) for name, value in headers if name.lower() != _STAMP]
                message = {**message, "headers": headers}
            await send(message)
            if key and stamps and message["status"] in (200, 304):
                await self._remember(key, slug, stamps[0].decode(), headers)

        return recording_send

    async def _remember(
        self, key: str, slug: str, at: str, headers: list[tuple[bytes, bytes]]
    ) -> None:
        names = {name.lower() for name, _ in headers}
        if b"set-cookie" in names or b"etag" not in names:
            return  # an answer that hands out state is not the same for the next caller
        kept = [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in headers
            if name.lower() not in _NOT_REPEATED
        ]
        etag = next(value for name, value in kept if name.lower() == "etag")
        answer = json.dumps({"etag": etag, "at": at, "headers": kept}).encode()
        try:
            await board().remember(key, slug, answer, at)
        except Exception:
            log.warning("the API front cannot write its board", exc_info=True)
