"""Public pages: the front page."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tournaments.site.home import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.home, name="home"),
]
