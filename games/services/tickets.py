"""Socket tickets: short-lived, single-use passes that let a client which cannot set a header on
its WebSocket handshake (a browser's ``WebSocket``) open a socket as a user without putting
the user's long-lived API token in a URL.

A client with a token (or a session) asks for one (``POST /api/v1/socket-tickets/``), then
connects to ``/ws/...?ticket=<ticket>`` within :data:`TICKET_SECONDS`. A ticket opens one
socket: the first handshake that shows it uses it up. Tickets live in the shared cache (Redis on
the real stack, so any server process redeems them), under a hash of the ticket: the cache never
holds one that works.
"""

from __future__ import annotations

import hashlib
import secrets

from django.core.cache import cache

from games.actors import Actor

TICKET_SECONDS = 30
_PREFIX = "socket-ticket:"


def _key(ticket: str) -> str:
    return _PREFIX + hashlib.sha256(ticket.encode("utf-8", "replace")).hexdigest()


def socket_ticket_issue(*, user: Actor, scope: str = "write") -> str:
    """A new ticket for ``user`` (an authenticated user), valid :data:`TICKET_SECONDS`. A
    ticket asked for with a ``read`` personal token opens a socket that only watches
    (``scope``: ``games.tokens``)."""
    ticket = secrets.token_urlsafe(32)
    cache.set(_key(ticket), user.pk if scope == "write" else f"{user.pk}:{scope}", TICKET_SECONDS)
    return ticket


def socket_ticket_redeem_scoped(*, ticket: str) -> tuple[int, str] | None:
    """The id of the user ``ticket`` was issued to and its scope (``read``/``write``), once:
    None for a ticket that is unknown, expired or already used. Two handshakes racing with one
    ticket: the cache's delete answers True to one of them only."""
    key = _key(ticket)
    value = cache.get(key)
    if value is None or not cache.delete(key):
        return None
    user_id, _, scope = str(value).partition(":")
    return int(user_id), scope or "write"


def socket_ticket_redeem(*, ticket: str) -> int | None:
    """The id of the user ``ticket`` was issued to, once (:func:`socket_ticket_redeem_scoped`)."""
    redeemed = socket_ticket_redeem_scoped(ticket=ticket)
    return None if redeemed is None else redeemed[0]
