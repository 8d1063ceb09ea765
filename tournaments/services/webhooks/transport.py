"""One ``POST`` to a receiver, sent only to a checked public address.

Nothing is sent to a private, loopback, link-local, multicast or otherwise non-public address
unless ``settings.WEBHOOKS_ALLOW_PRIVATE``: the URL's host is resolved once, every address
checked (:func:`target`), and the connection made to the first checked address, so that a
second lookup (a DNS rebinding) cannot swap in another. The request still names the URL's host:
in its ``Host`` header and, over TLS, in the handshake (SNI) and the certificate check, through
the public ``ssl.SSLContext.wrap_socket`` (:class:`NamedTLS`). Redirects are not followed (a
``3xx`` is a failed attempt), and every connect, send and read waits at most :data:`TIMEOUT`.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

TIMEOUT = 5.0  # seconds for each step of the request: connect, send, answer
ANSWER_MAX = 64 * 1024  # bytes of the answer read (and dropped) before the connection closes


class Refused(Exception):
    """The delivery may not be sent to this URL (not an HTTP failure: a private address)."""


@dataclass(frozen=True)
class Answer:
    status: int | None  # the receiver's HTTP status; None: no answer
    error: str  # empty when 2xx


@dataclass(frozen=True)
class Target:
    """Where a URL's request goes: the checked ``address`` it connects to, and the URL's host
    name (``host``: the ``Host`` header, the TLS server name), port and path."""

    https: bool
    host: str
    address: str
    port: int
    path: str

    @property
    def host_header(self) -> str:
        name = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.https else 80
        return name if self.port == default else f"{name}:{self.port}"


def is_public(address: str) -> bool:
    """Whether ``address`` (an IP address, an IPv6 zone allowed) is public: not private,
    loopback, link-local, reserved or multicast."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return ip.is_global and not ip.is_multicast


def public_addresses(host: str, port: int) -> list[str]:
    """``host``'s addresses, all of them public unless private ones are allowed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise OSError(f"cannot resolve {host}: {exc}") from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        for address in addresses:
            if not is_public(address):
                raise Refused(f"{host} resolves to a non-public address ({address})")
    return addresses


def target(url: str) -> Target:
    """Resolve and check ``url``'s host (``Refused``, or ``OSError`` when it does not resolve)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused(f"not an http(s) URL: {url}")
    host = parts.hostname
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise Refused(f"not a host name: {parts.hostname}") from exc
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    address = public_addresses(host, port)[0]
    return Target(https=https, host=host, address=address, port=port, path=path)


class NamedTLS(ssl.SSLContext):
    """A client TLS context bound to one server name: whatever address the socket is connected
    to (``http.client.HTTPSConnection`` asks for its own host, here the checked address), the
    handshake names ``server_name`` (SNI) and the certificate is checked against it."""

    server_name: str

    @classmethod
    def for_server(cls, server_name: str) -> NamedTLS:
        # As ssl.create_default_context(): certificates required, host names checked.
        context = cls(ssl.PROTOCOL_TLS_CLIENT)
        context.server_name = server_name
        context.load_default_certs(ssl.Purpose.SERVER_AUTH)
        return context

    def wrap_socket(  # noqa: PLR0917 (the signature of ssl.SSLContext.wrap_socket)
        self,
        sock: socket.socket,
        server_side: bool = False,
        do_handshake_on_connect: bool = True,
        suppress_ragged_eofs: bool = True,
        server_hostname: str | bytes | None = None,
        session: ssl.SSLSession | None = None,
    ) -> ssl.SSLSocket:
        return super().wrap_socket(
            sock,
            server_side=server_side,
            do_handshake_on_connect=do_handshake_on_connect,
            suppress_ragged_eofs=suppress_ragged_eofs,
            server_hostname=self.server_name,
            session=session,
        )


def connection(where: Target) -> http.client.HTTPConnection:
    """A connection to ``where``'s checked address (nothing resolves the name again)."""
    if where.https:
        return http.client.HTTPSConnection(
            where.address, where.port, timeout=TIMEOUT, context=NamedTLS.for_server(where.host)
        )
    return http.client.HTTPConnection(where.address, where.port, timeout=TIMEOUT)


def post(url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
    """POST ``body`` to ``url``: the receiver's answer, or the error that stopped it."""
    try:
        where = target(url)
    except Refused as exc:
        return Answer(None, f"refused: {exc}")
    except OSError as exc:
        return Answer(None, str(exc) or type(exc).__name__)
    conn = connection(where)
    try:
        # The URL's host, not the address connected to (http.client sends no Host of its own
        # when the request has one).
        conn.request("POST", where.path, body=body, headers={**headers, "Host": where.host_header})
        response = conn.getresponse()
        response.read(ANSWER_MAX)
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        return Answer(None, f"{type(exc).__name__}: {exc}".strip(": "))
    finally:
        conn.close()
    if 200 <= status < 300:
        return Answer(status, "")
    return Answer(status, f"HTTP {status}")
