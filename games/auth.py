"""WebSocket credentials for bots, scoreboards and apps, none of them in a URL that a log keeps.

Sits inside ``AuthMiddlewareStack`` (the session cookie of a browser) and wins over it:

- ``Authorization: Token <key>`` (or ``Bearer <key>``) on the handshake: the user's API token,
  as the REST API takes it (``games.tokens``: a personal token or a DRF one). Any client that
  can set a header (every WebSocket library but the browser's) uses this. A ``read`` personal
  token watches: the scope says ``token_scope: "read"``, and the table refuses its moves and
  referee commands (``token_scope``) and does not count its player as present at the table.
- ``?ticket=<ticket>``: a single-use ticket of a few seconds (``games.services.tickets``,
  ``POST /api/v1/socket-tickets/``), for a client that cannot set a header.
- ``?token=`` is refused: a long-lived secret in a URL ends up in access logs, proxies and
  histories (the server's own logs redact it anyway, ``durak_site.logs``).

Credentials that match nobody are not silently treated as anonymous: the scope says so
(``auth_error``) and the consumer refuses the handshake with ``4401``, so a misconfigured bot
learns at once instead of watching as a spectator.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs

from asgiref.typing import ASGIReceiveCallable, ASGISendCallable
from channels.middleware import BaseMiddleware
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext

from durak_site.dbthreads import db_async
from durak_site.errors import DATABASE_DOWN
from games.services.tickets import socket_ticket_redeem_scoped
from games.sockets import CLOSE_NOT_AUTHENTICATED, refuse, refuse_unavailable
from games.tokens import Credentials, TokenRefused, token_credentials

if TYPE_CHECKING:
    from channels.consumer import _ChannelScope

log = logging.getLogger(__name__)

#: ``auth_error`` values a consumer refuses with 4401 (messages: :func:`auth_error_message`).
BAD_TOKEN, BAD_TICKET, TOKEN_IN_URL = "bad_token", "bad_ticket", "token_in_url"
REVOKED_TOKEN, EXPIRED_TOKEN = "revoked_token", "expired_token"
SCHEMES = ("token", "bearer")
MAX_KEY = 64  # longer than any DRF token (40), personal token (46) or ticket (43)


def auth_error_message(error: str) -> str:
    """The refusal of a socket whose credentials failed, in the active language."""
    if error == BAD_TICKET:
        return gettext("the ticket is unknown, expired or already used: get a new one")
    if error == TOKEN_IN_URL:
        return gettext(
            "an API token is not accepted in the URL: send it in the Authorization header "
            "('Token <key>') or get a ticket (POST /api/v1/socket-tickets/)"
        )
    if error == REVOKED_TOKEN:
        return TokenRefused("revoked").message
    if error == EXPIRED_TOKEN:
        return TokenRefused("expired").message
    return TokenRefused("unknown").message


@db_async
def credentials_for_token(key: str) -> Credentials | str:
    """The key's credentials, or the ``auth_error`` that refuses it."""
    try:
        return token_credentials(key)
    except TokenRefused as exc:
        return {"revoked": REVOKED_TOKEN, "expired": EXPIRED_TOKEN}.get(exc.reason, BAD_TOKEN)


@db_async
def credentials_for_ticket(ticket: str) -> Credentials | None:
    """The credentials a ticket was issued with (its user and scope), once; None: refused."""
    redeemed = socket_ticket_redeem_scoped(ticket=ticket)
    if redeemed is None:
        return None
    user = get_user_model().objects.filter(pk=redeemed[0]).first()
    if user is None or not user.is_active:
        return None
    return Credentials(user=user, scope=redeemed[1])


def header_token(scope: Any) -> str | None:
    """The key of an ``Authorization: Token|Bearer <key>`` header; ``""`` for an Authorization
    header of another form (refused as a bad token); None without one."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            text: str = value.decode("latin-1")
            scheme, _, key = text.strip().partition(" ")
            key = key.strip()
            if scheme.lower() not in SCHEMES or not key or len(key) > MAX_KEY:
                return ""
            return key
    return None


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(
        self, scope: _ChannelScope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        key, tickets = header_token(scope), query.get("ticket")
        found: dict[str, Any] | None = None
        if "token" in query:
            found = {"auth_error": TOKEN_IN_URL}
        elif key is not None or tickets:
            try:
                if key is not None:
                    credentials = await credentials_for_token(key) if key else BAD_TOKEN
                    found = (
                        {"user": credentials.user, "token_scope": credentials.scope}
                        if isinstance(credentials, Credentials)
                        else {"auth_error": credentials}
                    )
                elif tickets:
                    held = await credentials_for_ticket(tickets[0][:MAX_KEY])
                    found = (
                        {"user": held.user, "token_scope": held.scope}
                        if held is not None
                        else {"auth_error": BAD_TICKET}
                    )
            except DATABASE_DOWN as exc:
                # Refused with a code to try again, not dropped with an HTTP 500.
                log.warning("socket credentials not checked: the database is unavailable (%s)", exc)
                await refuse_unavailable(scope, receive, send)
                return None
        if found is not None:
            if "auth_error" in found:
                found["user"] = AnonymousUser()
            # A copy with the credentials' user: the scope is an open dict (middleware adds keys),
            # which types-channels' closed TypedDict cannot say (no plain user, no auth_error).
            scope = cast("_ChannelScope", {**scope, **found})
        return await super().__call__(scope, receive, send)


async def refused_credentials(consumer: Any) -> bool:
    """Refuse (4401, ``authentication_failed``) a socket whose handshake showed credentials
    this middleware rejected; whether it did. Every consumer calls it first."""
    auth_error = consumer.scope.get("auth_error")
    if not auth_error:
        return False
    await refuse(
        consumer,
        close_code=CLOSE_NOT_AUTHENTICATED,
        code="authentication_failed",
        message=auth_error_message(str(auth_error)),
    )
    return True
