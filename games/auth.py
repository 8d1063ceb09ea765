"""WebSocket authentication by API token: ``/ws/...?token=<DRF token>`` for bots and scoreboards.

Sits inside ``AuthMiddlewareStack`` (the session cookie): a ``token`` in the query string wins
over the session. A token that matches nobody is not silently treated as anonymous: the scope
says so (``auth_error``) and the consumer refuses the handshake, so a misconfigured bot learns
at once instead of watching as a spectator.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.middleware import BaseMiddleware
from django.contrib.auth.models import AnonymousUser

from durak_site.dbthreads import db_async


@db_async
def user_for_token(key: str) -> Any:
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    return token.user


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        keys = query.get("token")
        if keys:
            user = await user_for_token(keys[0][:64])
            scope = dict(scope)
            if user is None:
                scope["user"] = AnonymousUser()
                scope["auth_error"] = "bad_token"
            else:
                scope["user"] = user
        return await super().__call__(scope, receive, send)
