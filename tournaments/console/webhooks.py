"""The console's webhook pages: an organiser's webhooks (added, changed and switched off through
``tournaments.services.webhooks.management``; the secret shown to the organiser to copy), and
the delivery log (status, attempts, the last answer and error, the next attempt), view-only for
the event's organiser and referees. ``tournaments.admin`` registers them.

The console groups' model permissions (``0003_console_groups``) predate these models, so these
pages ask the roles themselves (``tournaments.permissions``): every console user may open them,
scoped to the events it sees; only the event's organiser adds or changes a webhook.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django import forms
from django.contrib import admin
from django.db.models import ForeignKey, Model, QuerySet, URLField
from django.forms import ModelChoiceField
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from tournaments.console.admin_base import ConsoleAdmin, adopt, all_fields
from tournaments.console.filters import DistinctRelatedFilter
from tournaments.form_errors import form_error
from tournaments.models import Webhook, WebhookDelivery
from tournaments.permissions import (
    can_manage,
    is_organiser,
    managed_tournaments,
)
from tournaments.services.feed import EVENTS
from tournaments.services.webhooks.management import (
    validate_webhook,
    webhook_create,
    webhook_update,
)

_M = TypeVar("_M", bound=Model)


class WebhookForm(forms.ModelForm[Webhook]):
    events = forms.MultipleChoiceField(
        label=_("events"),
        choices=list(EVENTS.items()),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None chosen: all of them."),
    )

    class Meta:
        model = Webhook
        # The URL's field comes from the admin (``formfield_overrides``: https by default).
        fields = ["tournament", "events", "is_active"]


class WebhookAdmin(ConsoleAdmin[Webhook]):
    """An event's webhooks: the organiser adds one (a URL, the events; the secret is made for
    it), changes it or switches it off; its referees see them, never the secret."""

    form = WebhookForm
    formfield_overrides = {URLField: {"assume_scheme": "https"}}
    list_display = ["url", "tournament", "is_active", "event_list", "created_at", "log_link"]
    list_filter = ["is_active", ("tournament", DistinctRelatedFilter)]
    list_select_related = ["tournament"]

    def get_fields(self, request: HttpRequest, obj: Webhook | None = None) -> tuple[str, ...]:
        if obj is None:
            return ("tournament", "url", "events")
        # The secret only for whoever may change the webhook (its referees see the rest).
        secret = ("secret",) if can_manage(request.user, obj.tournament) else ()
        return (
            "tournament",
            "url",
            *secret,
            "events",
            "is_active",
            "created_by",
            "created_at",
            "log_link",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Webhook | None = None) -> list[str]:
        if obj is None:
            return []
        fixed = ["tournament", "secret", "created_by", "created_at", "log_link"]
        if self.has_change_permission(request, obj):
            return fixed
        return [*fixed, "url", "events", "is_active"]

    def formfield_for_foreignkey(
        self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        if db_field.name == "tournament":
            kwargs["queryset"] = managed_tournaments(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_organiser(request.user) and self.model_permission(request, "add")

    def has_change_permission(self, request: HttpRequest, obj: Webhook | None = None) -> bool:
        if not (is_organiser(request.user) and self.model_permission(request, "change")):
            return False
        return obj is None or can_manage(request.user, obj.tournament)

    def get_form(
        self, request: HttpRequest, obj: Webhook | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm[Webhook]]:
        form_class = super().get_form(request, obj, change, **kwargs)

        class Checked(form_class):  # type: ignore[misc,valid-type]
            """Validated by the service, each refusal on its field, before anything is saved."""

            def clean(self) -> dict[str, Any]:
                cleaned: dict[str, Any] = super().clean() or {}
                if self.errors:
                    return cleaned
                instance = self.instance
                tournament = instance.tournament if instance.pk else cleaned.get("tournament")
                if tournament is None:
                    return cleaned
                try:
                    validate_webhook(
                        tournament=tournament,
                        url=cleaned.get("url", instance.url),
                        events=cleaned.get("events", instance.events),
                        actor=request.user,
                    )
                except ServiceError as exc:
                    form_error(self, exc)
                return cleaned

        return Checked

    def write(
        self, request: HttpRequest, obj: Webhook, data: dict[str, Any], change: bool
    ) -> Webhook:
        if change:
            current = Webhook.objects.select_related("tournament").get(pk=obj.pk)
            return webhook_update(
                webhook=current,
                actor=request.user,
                url=data.get("url", current.url),
                events=data.get("events", current.events),
                is_active=data.get("is_active", current.is_active),
            )
        return webhook_create(
            tournament=data["tournament"],
            url=data.get("url", ""),
            events=data.get("events") or [],
            actor=request.user,
        )

    def save_model(self, request: HttpRequest, obj: Webhook, form: Any, change: Any) -> None:
        adopt(obj, self.write(request, obj, form.cleaned_data, change=bool(change)))

    def response_add(
        self, request: HttpRequest, obj: Webhook, post_url_continue: str | None = None
    ) -> HttpResponse:
        # Straight to the change page, where the organiser copies the new secret.
        self.message_user(request, gettext("Webhook added: copy its secret to the receiver."))
        return HttpResponseRedirect(reverse("admin:tournaments_webhook_change", args=[obj.pk]))

    @admin.display(description=_("events"))
    def event_list(self, obj: Webhook) -> str:
        return ", ".join(obj.events) if obj.events else gettext("all")

    @admin.display(description=_("Deliveries"))
    def log_link(self, obj: Webhook) -> str:
        url = reverse("admin:tournaments_webhookdelivery_changelist")
        return format_html('<a href="{}?webhook__id__exact={}">{}</a>', url, obj.pk, gettext("Log"))


class WebhookDeliveryAdmin(ConsoleAdmin[WebhookDelivery]):
    """The delivery log: each event for each webhook, and how delivering it went."""

    tournament_path = "webhook__tournament"
    list_display = [
        "created_at",
        "event",
        "webhook",
        "status",
        "attempts",
        "last_status_code",
        "last_error",
        "next_attempt_at",
        "delivered_at",
    ]
    list_filter = [
        "status",
        "event",
        ("webhook__tournament", DistinctRelatedFilter),
        ("webhook", admin.RelatedOnlyFieldListFilter),  # the webhook page's "Log" link
    ]
    list_select_related = ["webhook"]
    readonly_fields = all_fields(WebhookDelivery)

    def get_queryset(self, request: HttpRequest) -> QuerySet[WebhookDelivery]:
        return super().get_queryset(request).select_related("webhook__tournament")
