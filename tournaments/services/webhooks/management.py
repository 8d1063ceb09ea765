"""An organiser's webhooks: added, changed, deleted, their secret rotated and a test ``ping``
sent, by the tournament's organiser only (the console and the API call these same services),
each with its audit row (``tournament.edit``, the webhook as its object; never the secret).

A webhook's URL must be http(s) and name a host; an address written in it must be public unless
``settings.WEBHOOKS_ALLOW_PRIVATE`` (names are resolved and checked again at each delivery:
``transport``). Its events are some of the feed's (``tournaments.services.feed.EVENTS``), or
none: all of them.
"""

from __future__ import annotations

import ipaddress
import uuid
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.jobs import enqueue_on_commit
from games.actors import Actor
from tournaments import notifications
from tournaments.errors import ConfigurationError, StateError
from tournaments.models import AuditEvent, Tournament, Webhook, WebhookDelivery
from tournaments.permissions import require_manager
from tournaments.services.audit import audit_changes, audit_record
from tournaments.services.feed import EVENTS
from tournaments.services.webhooks.signing import new_secret
from tournaments.services.webhooks.transport import is_public

URL_MAX = 500  # Webhook.url's length
#: What a webhook's audit rows show of it (never its secret).
AUDITED = ("url", "events", "is_active")


def _check_events(events: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(events))
    unknown = [e for e in chosen if e not in EVENTS]
    if unknown:
        message = gettext("unknown events: %(events)s (known: %(known)s)") % {
            "events": ", ".join(unknown),
            "known": ", ".join(EVENTS),
        }
        raise ConfigurationError(message, fields={"events": [message]})
    return chosen


def _check_url(url: str) -> str:
    """A URL that can be delivered to: http(s), a host; an address written in the URL must be
    public (unless private ones are allowed). Names are resolved at each delivery."""
    url = url.strip()
    parts = urlsplit(url)
    message = ""
    if parts.scheme not in ("http", "https") or not parts.hostname:
        message = gettext("a webhook URL starts with https:// (or http://) and names a host")
    elif len(url) > URL_MAX:
        message = gettext("the URL is too long")
    else:
        try:
            ipaddress.ip_address(parts.hostname)
        except ValueError:
            written = False  # a name: checked when it is resolved
        else:
            written = True
        private = parts.hostname.lower() == "localhost" or (
            written and not is_public(parts.hostname)
        )
        if private and not settings.WEBHOOKS_ALLOW_PRIVATE:
            message = gettext("webhooks go to public addresses only")
    if message:
        raise ConfigurationError(message, fields={"url": [message]})
    return url


def _shown(webhook: Webhook, fields: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(webhook, name) for name in fields}


def validate_webhook(
    *, tournament: Tournament, url: str, events: Sequence[str], actor: Actor | None
) -> tuple[str, list[str]]:
    """The checks of :func:`webhook_create` and :func:`webhook_update` (for the console's form):
    the organiser, the URL and the events as they would be stored, or a refusal naming its
    field."""
    require_manager(actor, tournament)
    return _check_url(url), _check_events(events)


def _locked(webhook: Webhook, actor: Actor | None) -> Webhook:
    """``webhook`` locked, with its tournament; refused unless ``actor`` organises it."""
    locked = (
        Webhook.objects.select_for_update(of=("self",))
        .select_related("tournament")
        .get(pk=webhook.pk)
    )
    require_manager(actor, locked.tournament)
    return locked


@transaction.atomic
def webhook_create(
    *,
    tournament: Tournament,
    url: str,
    events: Sequence[str] = (),
    is_active: bool = True,
    actor: Actor | None,
) -> Webhook:
    """A webhook for ``tournament``'s events (empty ``events``: all of them) with a new secret
    (``signing.new_secret``), shown to the organiser on its console page. The organiser only
    (``actor`` None: the system); audited."""
    url, chosen = validate_webhook(tournament=tournament, url=url, events=events, actor=actor)
    webhook = Webhook.objects.create(
        tournament=tournament,
        url=url,
        events=chosen,
        is_active=is_active,
        secret=new_secret(),
        created_by=actor if actor is not None and actor.is_authenticated else None,
    )
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=tournament,
        target=webhook,
        after=_shown(webhook, AUDITED),
    )
    return webhook


@transaction.atomic
def webhook_update(
    *,
    webhook: Webhook,
    actor: Actor | None,
    url: str | None = None,
    events: Sequence[str] | None = None,
    is_active: bool | None = None,
) -> Webhook:
    """Change a webhook's URL or events, switch it off or on again. The organiser only
    (``actor`` None: the system); an audit row of the values before and after (nothing is
    written when nothing changes).

    Switched off, its waiting deliveries are not sent (they fail when their job comes); new
    events make none. Locks the webhook row.
    """
    locked = _locked(webhook, actor)
    wanted: dict[str, Any] = {}
    if url is not None:
        wanted["url"] = _check_url(url)
    if events is not None:
        wanted["events"] = _check_events(events)
    if is_active is not None:
        wanted["is_active"] = is_active
    changed = {name: value for name, value in wanted.items() if getattr(locked, name) != value}
    if not changed:
        return locked
    audit_changes(
        row=locked,
        changes=changed,
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=locked.tournament,
    )
    return locked


@transaction.atomic
def webhook_delete(*, webhook: Webhook, actor: Actor | None) -> None:
    """Delete a webhook and its delivery log (its waiting deliveries are never sent). The
    organiser only; an audit row of what it was (never its secret)."""
    locked = _locked(webhook, actor)
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=locked.tournament,
        target=locked,
        before=_shown(locked, AUDITED),
        after=None,
    )
    locked.delete()


@transaction.atomic
def webhook_rotate_secret(*, webhook: Webhook, actor: Actor | None) -> Webhook:
    """Give a webhook a new secret (``signing.new_secret``): every delivery from now on,
    retries of earlier events included, is signed with it and no longer with the old one. The
    organiser only; audited (that it was rotated, never a secret)."""
    locked = _locked(webhook, actor)
    locked.secret = new_secret()
    locked.save(update_fields=["secret"])
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=locked.tournament,
        target=locked,
        before={"secret": "*"},
        after={"secret": "* (rotated)"},
    )
    return locked


#: The event of a test delivery (not a feed event: a webhook gets it whatever events it chose).
PING = "ping"


def ping_payload(webhook: Webhook, *, at: str) -> dict[str, Any]:
    """The body of a test delivery: the feed's message shape (``event``, ``tournament``,
    ``version``, ``at``, ``data``) with the webhook's id in its data."""
    return {
        "event": PING,
        "tournament": webhook.tournament.slug,
        "version": webhook.tournament.version,
        "at": at,
        "data": {"webhook": webhook.pk},
    }


@transaction.atomic
def webhook_ping(*, webhook: Webhook, actor: Actor | None) -> WebhookDelivery:
    """Send a webhook a signed test event, ``ping``: a pending delivery, due now, with a new
    opaque id, delivered by the delivery job on commit like any other (signed, retried, in the
    log). The organiser only (``StateError`` for a switched-off webhook); audited."""
    locked = _locked(webhook, actor)
    if not locked.is_active:
        raise StateError(
            gettext("The webhook is switched off: switch it on before sending it a ping.")
        )
    now = timezone.now()
    delivery = WebhookDelivery.objects.create(
        webhook=locked,
        event_id=f"msg_{uuid.uuid4().hex}",
        event=PING,
        payload=ping_payload(locked, at=notifications.time_text(now)),
        next_attempt_at=now,
    )
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=locked.tournament,
        target=locked,
        after={"ping": delivery.event_id},
    )
    enqueue_on_commit("tournaments.webhook_deliver", delivery.pk)
    return delivery
