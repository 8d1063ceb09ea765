"""WebSocket authentication by API token: ``/ws/...?token=<DRF token>`` for bots and scoreboards.

Sits inside ``AuthMiddlewareStack`` (the session cookie): a ``token`` in the query string wins
over the session. A token that matches nobody is not silently treated as anonymous: the scope
says so (``auth_error``) and the consumer refuses the handshake, so a misconfigured bot learns
at once instead of watching as a spectator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs

from asgiref.typing import ASGIReceiveCallable, ASGISendCallable
from channels.middleware import BaseMiddleware
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from rest_framework.authtoken.models import Token

from durak_site.dbthreads import db_async

if TYPE_CHECKING:
    from channels.consumer import _ChannelScope


@db_async
def user_for_token(key: str) -> AbstractBaseUser | None:
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    user: AbstractBaseUser = token.user
    return user


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(
        self, scope: _ChannelScope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        keys = query.get("token")
        if keys:
            user = await user_for_token(keys[0][:64])
            # A copy with the token's user: the scope is an open dict (middleware adds keys),
            # which types-channels' closed TypedDict cannot say (no plain user, no auth_error).
            found: dict[str, Any] = (
                {"user": AnonymousUser(), "auth_error": "bad_token"}
                if user is None
                else {"user": user}
            )
            scope = cast("_ChannelScope", {**scope, **found})
        return await super().__call__(scope, receive, send)
