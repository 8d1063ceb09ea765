"""ASGI entry point: Django for HTTP, Channels for WebSockets (live tables, tournament feeds).

Served by uvicorn through ``durak_site.server`` (the command line is in
``durak_site.processes``); any number of such processes can run side by side on the Redis
channel layer.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
# Django must be set up before the routing imports models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402

from games.auth import TokenAuthMiddleware  # noqa: E402
from games.routing import websocket_urlpatterns as table_routes  # noqa: E402
from games.socket_cap import SocketCap  # noqa: E402
from games.sockets import DatabaseDownGuard, OriginCheck, no_such_socket  # noqa: E402
from tournaments.api.front import NotModifiedFront  # noqa: E402
from tournaments.routing import websocket_urlpatterns as feed_routes  # noqa: E402

# The WebSocket edge (games.sockets): the Origin, then the session cookie (a database out of
# reach: 1013), then the header or ticket credentials (games.auth), then the cap on sockets per
# user and per address (games.socket_cap: 4429); a path no socket serves is closed with 4404.
# (Any: Channels' stubs want their own URLPattern subclass, which path() never returns.)
socket_routes: list[Any] = [
    *table_routes,
    *feed_routes,
    re_path(r"", no_such_socket),  # type: ignore[arg-type]  # an ASGI app, not a view
]

application = ProtocolTypeRouter(
    {
        # The API's conditional GETs of public tournaments are answered 304 before Django.
        "http": NotModifiedFront(django_asgi_app),
        "websocket": OriginCheck(
            DatabaseDownGuard(
                AuthMiddlewareStack(TokenAuthMiddleware(SocketCap(URLRouter(socket_routes))))
            )
        ),
    }
)
