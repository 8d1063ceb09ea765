"""WebSocket routes of the games app (served by ``durak_site.asgi``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from games.consumers import TableConsumer

websocket_urlpatterns: list[URLPattern] = [
    # django-stubs' path() takes HTTP views only, not the ASGI app Channels routes here
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi(), name="ws-table"),  # type: ignore[arg-type]
]
