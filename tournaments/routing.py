"""WebSocket routes of the tournaments app (served by ``durak_site.asgi``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from tournaments.consumers import TournamentFeedConsumer

websocket_urlpatterns: list[URLPattern] = [
    # django-stubs' path() takes HTTP views only, not the ASGI app Channels routes here
    path("ws/tournaments/<slug:slug>/", TournamentFeedConsumer.as_asgi(), name="ws-tournament"),  # type: ignore[arg-type]
]
