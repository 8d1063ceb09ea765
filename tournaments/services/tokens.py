"""Personal API tokens, made and revoked by their owner (the account's tokens page), so that a
developer needs nobody's console to call the API or watch a table.

- :func:`api_token_create`: a new token; its key is returned once, here, and never stored
  (only its SHA-256: ``games.tokens``). At most :data:`MAX_LIVE_TOKENS` work at once.
- :func:`api_token_revoke`: the token stops working at once; the row stays, as a record.

Both take the owner as ``actor`` and write an audit row (no tournament: the row is the
account's). A token is its owner's only: another user's is "not found", as if it did not exist.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from durak_site.errors import Conflict, Forbidden, NotFound, ServiceError
from games.actors import Actor
from games.models import ApiToken
from games.tokens import SHOWN, new_key, token_digest
from tournaments.models import AuditEvent
from tournaments.roles import active
from tournaments.selectors.tokens import MAX_LIVE_TOKENS, live_tokens_of, tokens_of
from tournaments.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User

NAME_MAX = 100


class TokenError(ServiceError):
    """A token refused for what was asked (no name, an unknown scope, an expiry past)."""

    code = "invalid_token"
    api = False  # the account page's: no API operation makes tokens


class TooManyTokens(Conflict):
    code = "too_many_tokens"
    api = False


@dataclass(frozen=True)
class CreatedToken:
    token: ApiToken
    key: str  # shown once to its owner, never again: only its digest is kept


def _owner(actor: Actor | None) -> User:
    """``actor``, a signed-in active user (anyone else: refused)."""
    if not active(actor):
        raise Forbidden(gettext("sign in to manage your API tokens"))
    return actor


@transaction.atomic
def api_token_create(
    *, actor: Actor | None, name: str, scope: str, expires_at: dt.datetime | None = None
) -> CreatedToken:
    """A new token of ``actor``'s, named ``name``, scoped ``read`` or ``write``, working until
    ``expires_at`` (None: until revoked). Refused: no name or a name too long, an unknown
    scope, an expiry already past, :data:`MAX_LIVE_TOKENS` working already. Locks the user's
    row, so that two requests at once cannot pass the limit together."""
    owner = _owner(actor)
    name = (name or "").strip()
    if not name:
        message = gettext("give the token a name, e.g. the app that uses it")
        raise TokenError(message, code="name_required", fields={"name": [message]})
    if len(name) > NAME_MAX:
        message = gettext("a name is at most %(max)s characters") % {"max": NAME_MAX}
        raise TokenError(message, code="name_too_long", fields={"name": [message]})
    if scope not in ApiToken.Scope.values:
        message = gettext("the scope is read or write")
        raise TokenError(message, code="invalid_scope", fields={"scope": [message]})
    now = timezone.now()
    if expires_at is not None and expires_at <= now:
        message = gettext("the expiry must be in the future")
        raise TokenError(message, code="invalid_expiry", fields={"expires": [message]})
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    if live_tokens_of(owner, now=now).count() >= MAX_LIVE_TOKENS:
        raise TooManyTokens(
            ngettext(
                "you have %(max)s working token, the most allowed: revoke one first",
                "you have %(max)s working tokens, the most allowed: revoke one first",
                MAX_LIVE_TOKENS,
            )
            % {"max": MAX_LIVE_TOKENS}
        )
    key = new_key()
    token = ApiToken.objects.create(
        user=owner,
        name=name,
        scope=scope,
        prefix=key[:SHOWN],
        key_hash=token_digest(key),
        expires_at=expires_at,
    )
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOKEN_CREATE,
        target=token,
        after={
            "name": name,
            "scope": scope,
            "prefix": token.prefix,
            "expires_at": expires_at.isoformat() if expires_at else None,
        },
    )
    return CreatedToken(token=token, key=key)


@transaction.atomic
def api_token_revoke(*, actor: Actor | None, token_id: int) -> ApiToken:
    """Revoke ``actor``'s token ``token_id``: it stops working at once. Another user's token,
    or none: :class:`NotFound`. Revoking a revoked token again changes nothing (no second audit
    row). Locks the token's row."""
    token = tokens_of(_owner(actor)).select_for_update().filter(pk=token_id).first()
    if token is None:
        raise NotFound(gettext("you have no such token"))
    if token.revoked_at is not None:
        return token
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOKEN_REVOKE,
        target=token,
        before={"revoked_at": None},
        after={"revoked_at": token.revoked_at.isoformat()},
    )
    return token
