"""The WebSocket edge that every socket of the site shares (the live table, the tournament feed).

**Refusals are told apart.** A handshake that is refused is accepted first, then sent one error
frame (``{"type": "error", "id": null, "code", "message"}``, the one error shape, in the
socket's language) and closed with a code: ``4401`` credentials that match nobody (a bad token
or ticket, a token put in the URL), ``4403`` a page of a foreign Origin, ``4404`` nothing to
see there (no such table or tournament, a private one its caller may not read, or a path no
socket serves), ``4429`` too many sockets open at once (``games.socket_cap``). Refused before
``accept``, every one of them would reach the client as the same HTTP 403 (uvicorn's answer to a
closed handshake), and a browser's ``onclose`` would see only ``1006``.

**The Origin** of a browser's page must be the site itself (scheme, host and port of the
socket's own address, its host in ``ALLOWED_HOSTS``; ``https`` behind a TLS proxy when
``SECURE_PROXY_SSL_HEADER`` says so) or one of ``DURAK_ALLOWED_ORIGINS`` (exact
``scheme://host[:port]``). A handshake without an Origin is not a browser's (browsers always
send one): it may connect, but its cookies are dropped, so that only credentials it shows
itself (an ``Authorization`` header or a ticket, ``games.auth``) count. Cookies are the ambient
credentials a foreign page could borrow; the Origin check exists for them.

**Messages** are parsed with a size and a nesting limit (:func:`parse_json`): the JSON parser
recurses, and a few kilobytes of brackets would otherwise raise ``RecursionError`` from inside
it and drop the socket without a close frame. They are written by :func:`frame_text`
(``orjson``: compact and UTF-8, some eight times faster than the standard library's encoder on
a table's state, which every action sends to every socket of the table).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

import orjson
from asgiref.typing import ASGIReceiveCallable, ASGISendCallable, WebSocketSendEvent
from django.conf import settings
from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.http.request import split_domain_port, validate_host
from django.utils import translation
from django.utils.translation import gettext

from durak_site.errors import DATABASE_DOWN, Unavailable

if TYPE_CHECKING:
    from channels.generic.websocket import AsyncWebsocketConsumer

log = logging.getLogger(__name__)

#: Credentials that match nobody.
CLOSE_NOT_AUTHENTICATED = 4401
#: A foreign Origin.
CLOSE_FORBIDDEN = 4403
#: No such table or tournament, one its caller may not read, or no socket at that path.
CLOSE_NOT_FOUND = 4404
#: Too many sockets open at once from one user or one address (``games.socket_cap``).
CLOSE_TOO_MANY = 4429
#: The database is out of reach for a moment: connect again in a few seconds (RFC 6455's
#: "Try Again Later").
CLOSE_TRY_AGAIN = 1013

#: Deepest nesting of arrays and objects a client message may have (a table's action is 3).
MAX_DEPTH = 16

DEFAULT_PORTS = {"http": 80, "https": 443}
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class TooDeep(ValueError):
    """A JSON text nests deeper than allowed."""


class BadText(ValueError):
    """A JSON text whose strings hold a NUL or half of a surrogate pair: valid JSON that no
    database stores (PostgreSQL refuses both), so it must not get as far as one."""


# Only a text with one of these escapes can decode to such a string (JSON has no raw NUL).
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])", re.ASCII)


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in the JSON ``text`` (brackets inside strings do not
    count). For text that is not JSON the figure is an upper bound, which is all a limit needs.

    >>> nesting_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _strings(value: Any) -> Any:
    """Every string in a parsed JSON value, keys included (its depth is bounded already)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def parse_json(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    r"""``json.loads`` that refuses nesting deeper than ``max_depth`` before parsing
    (``TooDeep``) and strings no database stores (``BadText``); both are ``ValueError``, as
    malformed JSON is.

    >>> parse_json('{"reason": "\\ud83d\\ude00"}')  # an escaped pair is one character
    {'reason': '😀'}
    """
    # Counting brackets is C speed; only a text with many of them is measured properly.
    if text.count("[") + text.count("{") > max_depth and nesting_depth(text) > max_depth:
        raise TooDeep(f"nested deeper than {max_depth}")
    value = json.loads(text)
    if _SUSPECT_ESCAPE.search(text):
        for string in _strings(value):
            if "\x00" in string:
                raise BadText("a string holds a NUL character")
            try:
                string.encode("utf-8")
            except UnicodeEncodeError:
                raise BadText("a string holds half of a surrogate pair") from None
    return value


def _headers(scope: Mapping[str, Any]) -> dict[str, str]:
    return {
        name.decode("latin-1").lower(): value.decode("latin-1")
        for name, value in scope.get("headers", [])
    }


def scope_language(scope: Mapping[str, Any]) -> str:
    """The language of a socket's refusals, chosen as ``LocaleMiddleware`` chooses a page's: the
    language cookie, else the browser's Accept-Language, else the site's default (Russian)."""
    headers = _headers(scope)
    handshake = HttpRequest()
    handshake.COOKIES = scope.get("cookies") or parse_cookie(headers.get("cookie", ""))
    handshake.META["HTTP_ACCEPT_LANGUAGE"] = headers.get("accept-language", "")
    return translation.get_language_from_request(handshake)


def frame_text(message: Any) -> str:
    """A message's JSON text for a socket: what ``json.dumps`` writes, compact and in UTF-8
    rather than ``\\u`` escapes (non-string keys as strings, as ``json.dumps`` does them).

    >>> frame_text({"type": "ack", "id": "к1", 2: None})
    '{"type":"ack","id":"к1","2":null}'
    """
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


class JsonFrames:
    """A JSON consumer's frames written by :func:`frame_text` (channels' ``send_json`` writes
    them with ``json.dumps``)."""

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return frame_text(content)


def error_frame(code: str, message: str) -> str:
    return frame_text({"type": "error", "id": None, "code": code, "message": message})


async def refuse(
    consumer: AsyncWebsocketConsumer, *, close_code: int, code: str, message: str
) -> None:
    """Refuse a consumer's handshake so that the client can tell why: accept, one error frame,
    then close with ``close_code``."""
    await consumer.accept()
    await consumer.send(text_data=error_frame(code, message))
    await consumer.close(code=close_code)


async def refuse_handshake(
    receive: ASGIReceiveCallable,
    send: ASGISendCallable,
    *,
    close_code: int,
    code: str,
    message: str,
) -> None:
    """:func:`refuse` for code that stands in front of any consumer (a middleware, a path with
    no socket): the same frames on the raw ASGI calls."""
    event = await receive()
    if event["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept", "subprotocol": None, "headers": []})
    # Only "text": a frame with both keys, even one of them None, is refused by some servers
    # and by Channels' test communicator (asgiref's TypedDict wants both).
    frame = {"type": "websocket.send", "text": error_frame(code, message)}
    await send(cast("WebSocketSendEvent", frame))
    await send({"type": "websocket.close", "code": close_code, "reason": ""})


# --- Origins --------------------------------------------------------------------------------------


Origin = tuple[str, str, int]


def parse_origin(value: str) -> Origin | None:
    """``(scheme, host, port)`` of an ``http(s)://host[:port]`` origin, the port made explicit;
    None for anything else (``null``, a path, another scheme, a bad port).

    >>> parse_origin("HTTPS://Example.org")
    ('https', 'example.org', 443)
    >>> parse_origin("http://127.0.0.1:8000"), parse_origin("null")
    (('http', '127.0.0.1', 8000), None)
    """
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username or parts.password:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def _own_scheme(scope: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The scheme of the page that may open this socket: ``https`` on TLS, including TLS ended
    by a proxy that says so in the header ``SECURE_PROXY_SSL_HEADER`` names."""
    if scope.get("scheme") == "wss":
        return "https"
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        meta_name, secure_value = proxy
        name = meta_name.removeprefix("HTTP_").replace("_", "-").lower()
        if headers.get(name, "").split(",")[0].strip() == secure_value:
            return "https"
    return "http"


def own_origin(scope: Mapping[str, Any]) -> Origin | None:
    """The origin of the site as this socket was addressed (its ``Host`` header, which must be
    one of ``ALLOWED_HOSTS``), or None."""
    headers = _headers(scope)
    host = headers.get("host", "")
    domain, port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    scheme = _own_scheme(scope, headers)
    if port and not port.isdigit():
        return None
    return scheme, domain, int(port) if port else DEFAULT_PORTS[scheme]


def allowed_origins() -> frozenset[Origin]:
    """``DURAK_ALLOWED_ORIGINS``, parsed (settings refuses a malformed one at start)."""
    parsed = (parse_origin(o) for o in settings.DURAK_ALLOWED_ORIGINS)
    return frozenset(o for o in parsed if o is not None)


def origin_allowed(origin: str, scope: Mapping[str, Any]) -> bool:
    """Whether a page of ``origin`` may open the socket of ``scope``: scheme, host and port all
    equal the site's own (as addressed) or an origin of ``DURAK_ALLOWED_ORIGINS``."""
    parsed = parse_origin(origin)
    if parsed is None:
        return False
    return parsed == own_origin(scope) or parsed in allowed_origins()


class OriginCheck:
    """ASGI middleware in front of every socket: a browser page of a foreign Origin is refused
    (``4403``); a handshake without an Origin goes on without its cookies (the module's
    docstring says why)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(
        self, scope: dict[str, Any], receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Any:
        origins = [v for k, v in scope.get("headers", []) if k.lower() == b"origin"]
        if not origins:
            headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"cookie"]
            return await self.app({**scope, "headers": headers}, receive, send)
        if len(origins) == 1 and origin_allowed(origins[0].decode("latin-1"), scope):
            return await self.app(scope, receive, send)
        with translation.override(scope_language(scope)):
            message = gettext("a page of this origin may not open this socket")
        return await refuse_handshake(
            receive, send, close_code=CLOSE_FORBIDDEN, code="forbidden", message=message
        )


async def refuse_unavailable(
    scope: Mapping[str, Any], receive: ASGIReceiveCallable, send: ASGISendCallable
) -> None:
    """:func:`refuse_handshake` with ``1013`` and ``unavailable``: the database is out of reach
    for a moment, and the same handshake a few seconds later may well succeed."""
    with translation.override(scope_language(scope)):
        unavailable = Unavailable()
    await refuse_handshake(
        receive,
        send,
        close_code=CLOSE_TRY_AGAIN,
        code=unavailable.code,
        message=unavailable.message,
    )


class DatabaseDownGuard:
    """ASGI middleware around the session and credential middlewares: a handshake that needs the
    database (a browser's session cookie names its user) while the database is out of reach is
    refused with ``1013`` and ``unavailable``, as the consumers refuse theirs, instead of failing
    as a server error before any consumer runs."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(
        self, scope: dict[str, Any], receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Any:
        answered = False

        async def watched_send(event: Any) -> None:
            nonlocal answered
            answered = True
            await send(event)

        try:
            return await self.app(scope, receive, watched_send)
        except DATABASE_DOWN as exc:
            if answered:  # a consumer had the socket: its own handling is done
                raise
            log.warning("socket %s: the database is unavailable (%s)", scope.get("path"), exc)
            await refuse_unavailable(scope, receive, send)


async def no_such_socket(
    scope: dict[str, Any], receive: ASGIReceiveCallable, send: ASGISendCallable
) -> None:
    """The route after all others: a path no socket serves is closed with ``4404``, not
    answered with a server error."""
    with translation.override(scope_language(scope)):
        message = gettext("there is no socket at %(path)s") % {"path": scope.get("path", "")[:200]}
    await refuse_handshake(
        receive, send, close_code=CLOSE_NOT_FOUND, code="not_found", message=message
    )
