"""``/api/v1/``: the schema, its docs pages (served from our own static files), and each part of
the API's ``urlpatterns``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import include, path, re_path
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny

from durak_site.errors import error_body
from tournaments.api.index import ApiIndexView
from tournaments.api.tickets import SocketTicketView


@csrf_exempt  # a POST to no endpoint is a 404 too, not a CSRF page
def no_such_endpoint(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Anything under ``/api/v1/`` that no endpoint takes (also an id that is not a number): the
    API's 404 shape, never an HTML page."""
    message = gettext("There is no such endpoint or object.")
    return JsonResponse(error_body("not_found", message), status=404)


app_name = "api"
# The docs pages are the same for everyone and render a template whatever they answer, errors
# included: GET and HEAD only (DRF's OPTIONS answer has no template: a 500), and no
# authentication (rendering an error re-reads request.user, and a bad token raised there: a 500).
DOCS_PAGE: dict[str, Any] = {
    "url_name": "api:schema",
    "http_method_names": ["get", "head"],
    "authentication_classes": [],
    "permission_classes": [AllowAny],
}

urlpatterns = [
    path("", ApiIndexView.as_view(), name="index"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(**DOCS_PAGE), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(**DOCS_PAGE), name="redoc"),
    path("", include("tournaments.api.events")),
    path("", include("tournaments.api.feed")),
    path("", include("tournaments.api.people")),
    path("", include("tournaments.api.games")),
    path("", include("tournaments.api.tables")),
    path("", include("tournaments.api.writes")),
    path("", include("tournaments.api.plans")),
    path("", include("tournaments.api.webhooks")),
    path("socket-tickets/", SocketTicketView.as_view(), name="socket-tickets"),
    re_path(r"^(?P<rest>[\s\S]*)$", no_such_endpoint),  # any character, newlines too
]
