"""``GET /api/v1/``: where a client starts: the API's name and version, and a link to each
top-level collection, the schema and its docs pages (GitHub's root endpoint, a HAL-like
``links``). Like every ``links`` of the API, paths from the server's root
(``docs/api-links.md``): the answer is the same whatever host or proxy served it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle
from tournaments.api.contract import ContractView, error_responses

#: The index's links: its name in ``links`` and the URL's name (``api:<name>``).
LINKS = {
    "tournaments": "tournament-list",
    "leagues": "league-list",
    "players": "player-list",
    "teams": "team-list",
    "plans": "tournament-create",
    "socket_tickets": "socket-tickets",
    "webhooks": "webhooks",
    "schema": "schema",
    "docs": "docs",
    "redoc": "redoc",
}


class ApiIndexLinksSerializer(serializers.Serializer[Any]):
    """Paths from the server's root, one per collection and for the schema and its docs."""

    tournaments = serializers.CharField()
    leagues = serializers.CharField()
    players = serializers.CharField()
    teams = serializers.CharField()
    plans = serializers.CharField(help_text="POST a plan to create a tournament.")
    socket_tickets = serializers.CharField(help_text="POST for a live table socket's ticket.")
    webhooks = serializers.CharField(help_text="An organiser's webhooks (a token).")
    schema = serializers.CharField(help_text="The OpenAPI 3 schema.")
    docs = serializers.CharField(help_text="Swagger UI.")
    redoc = serializers.CharField(help_text="Redoc.")


class ApiIndexSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    version = serializers.CharField()
    links = ApiIndexLinksSerializer()


class ApiIndexView(ContractView):
    permission_classes = [AllowAny]
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]

    @extend_schema(
        operation_id="api_index",
        summary="The API's index",
        description="The API's name and version, and a link to each top-level collection, the "
        "schema and the docs. Open to everyone.",
        tags=["index"],
        responses={200: ApiIndexSerializer, **error_responses(429)},
    )
    def get(self, request: Request) -> Response:
        spectacular = settings.SPECTACULAR_SETTINGS
        links = {name: reverse(f"api:{url_name}") for name, url_name in LINKS.items()}
        body = {"name": spectacular["TITLE"], "version": spectacular["VERSION"], "links": links}
        return Response(ApiIndexSerializer(body).data)
