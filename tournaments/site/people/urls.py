from __future__ import annotations

from django.urls import URLPattern, URLResolver, path, re_path

from tournaments.site.people import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("players/<int:player_id>/", views.player_profile, name="player"),
    path("leagues/", views.league_list, name="leagues"),
    path("leagues/<slug:slug>/", views.league_latest, name="league-latest"),
    # A season is free text ("2026", "2026/27", "весна 2026"): everything after the slug.
    re_path(
        r"^leagues/(?P<slug>[-a-zA-Z0-9_]+)/(?P<season>.+)/$", views.league_season, name="league"
    ),
]
