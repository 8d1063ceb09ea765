"""API tokens: what a key sent as ``Authorization: Token|Bearer <key>`` is worth, for the REST
API (``tournaments.api.auth``) and the live table's sockets (``games.auth``) alike.

Two kinds of key:

- a personal token (``ApiToken``), made by its owner on the account's tokens page: the key
  starts with :data:`KEY_PREFIX`; only its SHA-256 is stored, and the key is found by that
  digest (an indexed equality on a value the sender cannot aim at: nothing is compared
  character by character with a secret). Its scope is ``read`` or ``write``; a revoked or
  expired one is refused.
- a DRF token (``rest_framework.authtoken``, 40 hex digits, made in the console): still taken,
  with the ``write`` scope, as before personal tokens existed.

A refusal (:class:`TokenRefused`) says why, in the active language: each face turns it into
its own (a 401, a socket closed with 4401).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.authtoken.models import Token

from games.models import ApiToken

if TYPE_CHECKING:
    from django.contrib.auth.models import User

#: How every personal token's key starts (a DRF token never does: 40 hex digits).
KEY_PREFIX = "durak_"
#: The characters of a key shown on the page to tell tokens apart (the prefix and six more).
SHOWN = len(KEY_PREFIX) + 6
#: ``last_used_at`` is written at most this often per token (not on every request).
TOUCH_EVERY = dt.timedelta(minutes=1)

READ, WRITE = ApiToken.Scope.READ.value, ApiToken.Scope.WRITE.value


def token_digest(key: str) -> str:
    """The stored digest of ``key``."""
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def new_key() -> str:
    """A fresh personal key: :data:`KEY_PREFIX` and 240 random bits (46 characters)."""
    return KEY_PREFIX + secrets.token_urlsafe(30)


@dataclass(frozen=True)
class Credentials:
    """Who a key stands for, and what it may do: ``scope`` is ``read`` or ``write``;
    ``token`` the personal token (None for a DRF token)."""

    user: User
    scope: str
    token: ApiToken | None = None

    @property
    def writes(self) -> bool:
        return self.scope == WRITE


class TokenRefused(Exception):
    """A key that stands for nobody: unknown, revoked, expired, or its user deactivated."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    @property
    def message(self) -> str:
        if self.reason == "revoked":
            return gettext("this token has been revoked")
        if self.reason == "expired":
            return gettext("this token has expired")
        return gettext("the token matches no active user")


def token_credentials(key: str, *, now: dt.datetime | None = None) -> Credentials:
    """The credentials of ``key`` (refused: :class:`TokenRefused`). A personal token's
    ``last_used_at`` is brought up to date when it is older than :data:`TOUCH_EVERY` (a
    conditional update: two requests at once write it once)."""
    now = now or timezone.now()
    if not key.startswith(KEY_PREFIX):
        legacy = Token.objects.select_related("user").filter(key=key).first()
        if legacy is None or not legacy.user.is_active:
            raise TokenRefused("unknown")
        return Credentials(user=legacy.user, scope=WRITE)
    token = ApiToken.objects.select_related("user").filter(key_hash=token_digest(key)).first()
    if token is None or not token.user.is_active:
        raise TokenRefused("unknown")
    if token.revoked_at is not None:
        raise TokenRefused("revoked")
    if token.expires_at is not None and token.expires_at <= now:
        raise TokenRefused("expired")
    if token.last_used_at is None or token.last_used_at <= now - TOUCH_EVERY:
        stale = Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - TOUCH_EVERY)
        ApiToken.objects.filter(stale, pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return Credentials(user=token.user, scope=token.scope, token=token)
