"""Public pages: events (the tournament page, the embeds of its standings and bracket)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tournaments.site.events import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("tournaments/<slug:slug>/", views.tournament_page, name="tournament"),
    path(
        "embed/tournaments/<slug:slug>/standings/",
        views.embed_standings,
        name="embed-standings",
    ),
    path("embed/tournaments/<slug:slug>/bracket/", views.embed_bracket, name="embed-bracket"),
]
