"""An organiser's webhooks over the API: the console's webhook pages for an organiser's own tools.

- ``/webhooks/``: the caller's webhooks (those of the tournaments it organises; all of them for a
  superuser), and a new one for a tournament of its own;
- ``/webhooks/{id}/``: one webhook, changed (URL, events, switched off or on) or deleted;
- ``/webhooks/{id}/rotate-secret/``: a new secret; ``/webhooks/{id}/ping/``: a signed test event,
  ``ping``, delivered like any other (the delivery job, its retries, the log);
- ``/webhooks/{id}/deliveries/``: the delivery log, newest first.

The same services as the console (``tournaments.services.webhooks.management``) check the actor
and write the audit rows. The secret is in the answers of the create and the rotation only,
never in a read (an answer replayed for the same ``Idempotency-Key`` carries it again, as the
first did). Deny by default: a webhook of a tournament the caller does not organise is a 404
(an unknown id looks the same), except to the event's referees, who see it in the console: a
403. Only organisers (and superusers) list and add webhooks; anyone else signed in gets a 403.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.urls import path, reverse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from tournaments.api.common import ApiCursorPagination, ApiUserThrottle
from tournaments.api.idempotency import idempotent
from tournaments.api.writes import IDEMPOTENCY_KEY, WriteView
from tournaments.models import Webhook, WebhookDelivery
from tournaments.permissions import is_organiser, is_superuser, managed_tournaments
from tournaments.selectors import webhooks as reads
from tournaments.services.feed import EVENTS
from tournaments.services.webhooks.management import (
    URL_MAX,
    webhook_create,
    webhook_delete,
    webhook_ping,
    webhook_rotate_secret,
    webhook_update,
)

F = TypeVar("F", bound=Callable[..., Any])
TAGS = ["webhooks"]
EVENT_CHOICES = list(EVENTS)

# --- output --------------------------------------------------------------------------------------


class ApiWebhookSerializer(serializers.ModelSerializer[Webhook]):
    """A webhook as it is read: never its secret."""

    tournament: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text="The tournament whose events it gets."
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_CHOICES),
        read_only=True,
        help_text="The events it gets; empty: all of them.",
    )
    deliveries = serializers.SerializerMethodField(help_text="Its delivery log.")

    class Meta:
        model = Webhook
        fields = ["id", "tournament", "url", "events", "is_active", "created_at", "deliveries"]
        read_only_fields = fields

    def get_deliveries(self, webhook: Webhook) -> str:
        return reverse("api:webhook-deliveries", args=[webhook.pk])


class ApiWebhookWithSecretSerializer(ApiWebhookSerializer):
    """A webhook with its secret: the answer of its creation and of a rotation, the only times
    the secret is shown. Keep it: it signs every delivery (Standard Webhooks)."""

    secret = serializers.CharField(
        read_only=True,
        help_text="`whsec_` and 32 random bytes in base64: the Standard Webhooks key. Shown "
        "only now.",
    )

    class Meta(ApiWebhookSerializer.Meta):
        fields = [*ApiWebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class ApiWebhookDeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    """One event for one webhook, and how delivering it went."""

    webhook_id = serializers.CharField(
        source="event_id",
        read_only=True,
        help_text="The `webhook-id` header the receiver got (the same on every attempt).",
    )
    response_code = serializers.IntegerField(
        source="last_status_code",
        read_only=True,
        allow_null=True,
        help_text="The receiver's HTTP status at the last attempt (null: no answer).",
    )
    error = serializers.CharField(
        source="last_error", read_only=True, help_text="Why the last attempt failed, if it did."
    )
    next_attempt_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="When it is tried again (null once delivered or failed for good).",
    )

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "webhook_id",
            "event",
            "status",
            "attempts",
            "response_code",
            "error",
            "created_at",
            "delivered_at",
            "next_attempt_at",
            "payload",
        ]
        read_only_fields = fields


# --- input ---------------------------------------------------------------------------------------


class ApiWebhookCreateSerializer(serializers.Serializer[Any]):
    tournament = serializers.SlugField(help_text="The slug of a tournament you organise.")
    url = serializers.CharField(
        max_length=URL_MAX,
        help_text="Where the events are posted: https:// (or http://) and a public host.",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_CHOICES),
        required=False,
        default=list,
        help_text="The events to send; empty or left out: all of them.",
    )
    is_active = serializers.BooleanField(default=True, help_text="Deliver from now on.")


class ApiWebhookUpdateSerializer(serializers.Serializer[Any]):
    url = serializers.CharField(max_length=URL_MAX, required=False)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_CHOICES),
        required=False,
        help_text="The events to send; empty: all of them.",
    )
    is_active = serializers.BooleanField(
        required=False, help_text="Off: nothing is delivered (waiting deliveries fail)."
    )


# --- the views -----------------------------------------------------------------------------------


class WebhookView(WriteView):
    """What the webhook operations share: a write's authentication, the write throttle on
    writes only, and the services' refusals (``services.webhooks.management``)."""

    error_codes = {
        409: ("wrong_status",),
        422: ("invalid", "invalid_configuration"),
    }

    def get_throttles(self) -> list[BaseThrottle]:
        if self.request.method in ("GET", "HEAD"):
            return [ApiUserThrottle()]
        return super().get_throttles()

    def may_add(self) -> None:
        user = self.request.user
        if not (is_organiser(user) or is_superuser(user)):
            raise PermissionDenied(gettext("Only organisers have webhooks."))

    def webhook(self, pk: int) -> Webhook:
        found, reach = reads.webhook_reached(self.request.user, pk)
        if reach == reads.NOT_YOURS:
            raise PermissionDenied(
                gettext("Only the organiser of this tournament can use its webhooks.")
            )
        if found is None:
            raise NotFound
        return found


def _schema(
    operation_id: str,
    summary: str,
    description: str,
    responses: dict[int, Any],
    *,
    request: Any = None,
    write: bool = True,
    parameters: list[OpenApiParameter] | None = None,
    example: dict[str, Any] | None = None,
) -> Callable[[F], F]:
    """``extend_schema`` for a webhook operation: its answers, and on a write the
    ``Idempotency-Key`` header (its refusals' codes: derived, and :class:`WebhookView`'s
    ``error_codes``, ``tournaments.api.contract``)."""
    decorate: Callable[[F], F] = extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        tags=TAGS,
        request=request,
        parameters=[IDEMPOTENCY_KEY] if write else (parameters or []),
        responses=responses,
        examples=[OpenApiExample(summary, value=example, request_only=True)] if example else [],
    )
    return decorate


class WebhookListView(WebhookView, generics.GenericAPIView[Webhook]):
    pagination_class = ApiCursorPagination
    serializer_class = ApiWebhookSerializer

    def get_queryset(self) -> Any:
        return reads.webhooks_managed_by(self.request.user)

    @_schema(
        "webhooks_list",
        "Your webhooks",
        "The webhooks of the tournaments you organise (every one for a superuser), newest "
        "first, with cursor pagination; never their secrets. `tournament`: only that "
        "tournament's. Organisers only.",
        {200: ApiWebhookSerializer(many=True)},
        write=False,
        parameters=[
            OpenApiParameter(
                "tournament",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                description="A tournament's slug: only its webhooks.",
            )
        ],
    )
    def get(self, request: Request) -> Response:
        self.may_add()
        slug = request.query_params.get("tournament")
        page = self.paginate_queryset(reads.webhooks_managed_by(request.user, slug=slug))
        assert page is not None  # the view always paginates
        return self.get_paginated_response(ApiWebhookSerializer(page, many=True).data)

    @_schema(
        "webhooks_create",
        "Add a webhook",
        "A webhook for the events of a tournament you organise, as the console adds one. Its "
        "secret is made for it and is in this answer only: keep it (every delivery is signed "
        "with it, Standard Webhooks). Refusals (422, on their field): a URL that is not "
        "http(s), names no host or a non-public address (`invalid_configuration`), an unknown "
        "event, a tournament you do not organise (`invalid`). Send a `ping` to check the "
        "receiver.",
        {201: OpenApiResponse(ApiWebhookWithSecretSerializer, description="The new webhook.")},
        request=ApiWebhookCreateSerializer,
        example={
            "tournament": "kubok-kluba",
            "url": "https://scores.example.com/hooks/durak",
            "events": ["table_finished", "round_paired", "tournament_finished"],
            "is_active": True,
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        self.may_add()
        data = ApiWebhookCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        tournament = managed_tournaments(request.user).filter(slug=given["tournament"]).first()
        if tournament is None:
            message = gettext("You organise no tournament with this slug.")
            raise serializers.ValidationError({"tournament": [message]})
        webhook = webhook_create(
            tournament=tournament,
            url=given["url"],
            events=given["events"],
            is_active=given["is_active"],
            actor=request.user,
        )
        return Response(
            ApiWebhookWithSecretSerializer(webhook).data, status=status.HTTP_201_CREATED
        )


class WebhookDetailView(WebhookView):
    @_schema(
        "webhooks_retrieve",
        "A webhook",
        "One of your webhooks, without its secret.",
        {200: ApiWebhookSerializer},
        write=False,
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(ApiWebhookSerializer(self.webhook(pk)).data)

    @_schema(
        "webhooks_update",
        "Change a webhook",
        "Change its URL or events, switch it off or on again (the fields sent; the others "
        "stay). Switched off, its waiting deliveries are not sent. The same checks as its "
        "creation (422 on their field).",
        {200: ApiWebhookSerializer},
        request=ApiWebhookUpdateSerializer,
        example={"events": ["tournament_finished"], "is_active": True},
    )
    @idempotent
    def patch(self, request: Request, pk: int) -> Response:
        webhook = self.webhook(pk)
        data = ApiWebhookUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        webhook = webhook_update(
            webhook=webhook,
            actor=request.user,
            url=given.get("url"),
            events=given.get("events"),
            is_active=given.get("is_active"),
        )
        return Response(ApiWebhookSerializer(webhook).data)

    @_schema(
        "webhooks_destroy",
        "Delete a webhook",
        "The webhook and its delivery log are gone; nothing more is sent to it.",
        {204: OpenApiResponse(description="Deleted.")},
    )
    @idempotent
    def delete(self, request: Request, pk: int) -> Response:
        webhook_delete(webhook=self.webhook(pk), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateSecretView(WebhookView):
    @_schema(
        "webhooks_rotate_secret",
        "Rotate a webhook's secret",
        "A new secret, in this answer only: every delivery from now on (retries of earlier "
        "events too) is signed with it, and no longer with the old one. No body.",
        {200: OpenApiResponse(ApiWebhookWithSecretSerializer, description="The new secret.")},
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        webhook = webhook_rotate_secret(webhook=self.webhook(pk), actor=request.user)
        return Response(ApiWebhookWithSecretSerializer(webhook).data)


class WebhookPingView(WebhookView):
    @_schema(
        "webhooks_ping",
        "Send a test event",
        "Queues a `ping` event for the webhook (`data.webhook` is its id), signed and "
        "delivered like any other event (retried on failure) and shown in its delivery log: "
        "202 with the waiting delivery. Whatever events the webhook chose. Refusals: "
        "`wrong_status` (409: the webhook is switched off). No body.",
        {
            202: OpenApiResponse(
                ApiWebhookDeliverySerializer, description="The delivery, waiting to be sent."
            )
        },
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        delivery = webhook_ping(webhook=self.webhook(pk), actor=request.user)
        return Response(
            ApiWebhookDeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED
        )


class WebhookDeliveriesView(WebhookView, generics.GenericAPIView[WebhookDelivery]):
    pagination_class = ApiCursorPagination
    queryset = WebhookDelivery.objects.none()  # (the schema's model; the webhook's are read)
    serializer_class = ApiWebhookDeliverySerializer

    @_schema(
        "webhooks_deliveries_list",
        "A webhook's delivery log",
        "Every event sent (or to be sent) to the webhook, newest first, with cursor "
        "pagination: its status, attempts, the receiver's last answer and error, when it was "
        "made and delivered, the next attempt, the body sent.",
        {200: ApiWebhookDeliverySerializer(many=True)},
        write=False,
    )
    def get(self, request: Request, pk: int) -> Response:
        webhook = self.webhook(pk)
        page = self.paginate_queryset(reads.deliveries_of(webhook))
        assert page is not None  # the view always paginates
        return self.get_paginated_response(ApiWebhookDeliverySerializer(page, many=True).data)


urlpatterns = [
    path("webhooks/", WebhookListView.as_view(), name="webhooks"),
    path("webhooks/<int:pk>/", WebhookDetailView.as_view(), name="webhook"),
    path(
        "webhooks/<int:pk>/rotate-secret/",
        WebhookRotateSecretView.as_view(),
        name="webhook-rotate-secret",
    ),
    path("webhooks/<int:pk>/ping/", WebhookPingView.as_view(), name="webhook-ping"),
    path(
        "webhooks/<int:pk>/deliveries/", WebhookDeliveriesView.as_view(), name="webhook-deliveries"
    ),
]
