"""Public pages: the live table."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tournaments.site.tables import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("tables/<int:table_id>/", views.table_page, name="table"),
]
