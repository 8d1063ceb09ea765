"""Rows of the scoreboard API: organisers' webhooks and their deliveries, and the answers kept for
the ``Idempotency-Key`` of write requests."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from tournaments.models.events import Tournament


class Webhook(models.Model):
    """An organiser's endpoint for a tournament's events (Standard Webhooks: signed with the
    secret, HMAC-SHA256 over ``id.timestamp.body``)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="webhooks", verbose_name=_("tournament")
    )
    url = models.URLField(_("URL"), max_length=500, help_text=_("Where the events are posted."))
    secret = models.CharField(
        _("secret"),
        max_length=100,
        help_text=_("Signs every delivery; the receiver checks the signature with it."),
    )
    events = models.JSONField(
        _("events"),
        default=list,
        blank=True,
        help_text=_("The event types to send; empty: all of them."),
    )
    is_active = models.BooleanField(
        _("active"),
        default=True,
        help_text=_("A receiver that answers 410 Gone is switched off."),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["tournament", "id"]
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")

    def __str__(self) -> str:
        return self.url


class WebhookDelivery(models.Model):
    """One event for one webhook, and how delivering it went (the delivery job claims it with a
    conditional update, so two workers never send it at the same time)."""

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("delivery status", "Waiting")
        DELIVERED = "delivered", pgettext_lazy("delivery status", "Delivered")
        FAILED = "failed", pgettext_lazy("delivery status", "Failed (no more attempts)")

    webhook = models.ForeignKey(
        Webhook, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("webhook")
    )
    # The Standard Webhooks id: the same for every attempt, so a receiver can drop repeats.
    event_id = models.CharField(_("event id"), max_length=40)
    event = models.CharField(_("event"), max_length=40)
    payload = models.JSONField(_("payload"))
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt at"), null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(
        _("last answer"), null=True, blank=True, help_text=_("The receiver's HTTP status.")
    )
    last_error = models.CharField(_("last error"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        constraints = [
            models.UniqueConstraint(
                fields=["webhook", "event_id"], name="one_delivery_per_event_and_webhook"
            ),
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]

    def __str__(self) -> str:
        return gettext("%(event)s to %(url)s") % {"event": self.event, "url": self.webhook_id}


class IdempotentRequest(models.Model):
    """The answer to a write request with an ``Idempotency-Key``: the same key and body replayed
    by the same caller gets this answer again, and nothing changes twice."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("user"),
    )
    key = models.CharField(_("key"), max_length=100)
    method = models.CharField(_("method"), max_length=10)
    path = models.CharField(_("path"), max_length=300)
    body_sha256 = models.CharField(_("body hash"), max_length=64)
    status_code = models.PositiveSmallIntegerField(_("status"))
    response = models.JSONField(_("response"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("idempotent request")
        verbose_name_plural = _("idempotent requests")
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="one_answer_per_key"),
            models.CheckConstraint(condition=~Q(key=""), name="idempotency_key_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.key})"
