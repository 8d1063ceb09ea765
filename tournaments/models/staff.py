"""Staff: an organiser's invitations to referee its events."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.models.events import Tournament


class RefereeInvitation(models.Model):
    """An invitation, sent by e-mail, to referee ``tournaments``: its link carries a secret
    token of which only the SHA-256 is kept (a leaked table opens nothing). Used once: accepting
    it, revoking it or its expiry closes it (``services.staff``); closed rows stay as a record."""

    email = models.EmailField(_("email"))
    tournaments = models.ManyToManyField(
        Tournament, related_name="referee_invitations", verbose_name=_("tournaments")
    )
    # An invitation dies with the account that sent it: its authority was that organiser's.
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("invited by"),
    )
    token_hash = models.CharField(_("token digest"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("sent"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    accepted_at = models.DateTimeField(_("accepted"), null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("accepted by"),
    )
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("referee invitation")
        verbose_name_plural = _("referee invitations")

    def __str__(self) -> str:
        return self.email

    @property
    def is_open(self) -> bool:
        """Neither accepted, revoked nor expired: its link still works."""
        return (
            self.accepted_at is None
            and self.revoked_at is None
            and self.expires_at > timezone.now()
        )
