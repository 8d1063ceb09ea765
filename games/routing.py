"""WebSocket routes of the games app (served by ``durak_site.asgi``)."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
