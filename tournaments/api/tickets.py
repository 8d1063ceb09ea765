"""``POST /api/v1/socket-tickets/``: a single-use ticket that opens one WebSocket as the caller
(``games.services.tickets``), for a client that cannot set an ``Authorization`` header on its
handshake (a browser's ``WebSocket``). Any other client sends its token in that header on the
handshake itself and needs no ticket.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from games.services.tickets import TICKET_SECONDS, socket_ticket_issue
from games.tokens import WRITE, Credentials
from tournaments.api.auth import BearerTokenAuthentication
from tournaments.api.common import ApiUserThrottle, ApiWriteThrottle
from tournaments.api.contract import ContractView, error_responses


class ApiSocketTicketSerializer(serializers.Serializer[Any]):
    """A ticket and how long it lasts."""

    ticket = serializers.CharField(
        help_text="Connect to `/ws/tables/<id>/?ticket=<ticket>` (or a tournament's feed) with it."
    )
    expires_in = serializers.IntegerField(help_text="Seconds the ticket stays valid (unused).")


class SocketTicketView(ContractView):
    authentication_classes = [BearerTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [ApiUserThrottle, ApiWriteThrottle]
    # A read token gets a ticket too: the socket it opens only watches (the ticket keeps the
    # token's scope), so an overlay in a browser needs no write token.
    read_tokens_write = True

    @extend_schema(
        operation_id="socket_tickets_create",
        summary="Get a WebSocket ticket",
        description=(
            "A ticket that opens one WebSocket (a live table, a tournament's feed) as the caller: "
            f"pass it as `?ticket=` within {TICKET_SECONDS} seconds; the first handshake that "
            "shows it uses it up. For clients that cannot set a header on the handshake: any "
            "other client sends `Authorization: Token <key>` on the handshake itself. An API "
            "token in the socket's URL (`?token=`) is refused (4401). A `read` token's ticket "
            "opens a socket that watches only (its moves are refused: `token_scope`). No body."
        ),
        tags=["sockets"],
        request=None,
        responses={
            201: OpenApiResponse(ApiSocketTicketSerializer, description="The ticket."),
            **error_responses(401, 429),
        },
    )
    def post(self, request: Request) -> Response:
        scope = request.auth.scope if isinstance(request.auth, Credentials) else WRITE
        ticket = socket_ticket_issue(user=request.user, scope=scope)
        body = ApiSocketTicketSerializer({"ticket": ticket, "expires_in": TICKET_SECONDS}).data
        return Response(body, status=status.HTTP_201_CREATED)
