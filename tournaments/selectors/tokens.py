"""Reads of a user's personal API tokens, as the account's tokens page lists them
(``services.tokens`` writes them; ``games.tokens`` checks a key)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.utils import timezone

from games.actors import Actor
from games.models import ApiToken
from tournaments.roles import signed_in

#: How many tokens a user may have working at once.
MAX_LIVE_TOKENS = 20

ACTIVE, EXPIRED, REVOKED = "active", "expired", "revoked"


@dataclass(frozen=True)
class TokenRow:
    """One token of the list: never its key (only its first characters, ``prefix``)."""

    id: int
    name: str
    prefix: str
    scope: str
    scope_label: str
    created_at: dt.datetime
    last_used_at: dt.datetime | None
    expires_at: dt.datetime | None
    revoked_at: dt.datetime | None
    status: str  # ACTIVE, EXPIRED or REVOKED


def tokens_of(user: Actor | None) -> QuerySet[ApiToken]:
    """Every token of ``user``, revoked and expired ones too (none for the anonymous)."""
    if not signed_in(user):
        return ApiToken.objects.none()
    return ApiToken.objects.filter(user=user)


def live_tokens_of(user: Actor | None, *, now: dt.datetime | None = None) -> QuerySet[ApiToken]:
    """The tokens of ``user`` that still work: neither revoked nor expired."""
    now = now or timezone.now()
    return tokens_of(user).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now), revoked_at__isnull=True
    )


def token_rows(user: Actor | None) -> list[TokenRow]:
    """The tokens of ``user``, the working ones first, newest first within each."""
    now = timezone.now()
    rows = []
    for token in tokens_of(user):
        if token.revoked_at is not None:
            status = REVOKED
        elif token.expires_at is not None and token.expires_at <= now:
            status = EXPIRED
        else:
            status = ACTIVE
        rows.append(
            TokenRow(
                id=token.pk,
                name=token.name,
                prefix=token.prefix,
                scope=token.scope,
                scope_label=str(token.get_scope_display()),
                created_at=token.created_at,
                last_used_at=token.last_used_at,
                expires_at=token.expires_at,
                revoked_at=token.revoked_at,
                status=status,
            )
        )
    rows.sort(key=lambda row: row.status != ACTIVE)  # stable: newest first within each
    return rows
