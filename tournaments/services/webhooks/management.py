"""An organiser's webhooks: added and changed by the tournament's organiser only, each change
with its audit row (``tournament.edit``, the webhook as its object; never the secret).

A webhook's URL must be http(s) and name a host; an address written in it must be public unless
``settings.WEBHOOKS_ALLOW_PRIVATE`` (names are resolved and checked again at each delivery:
``transport``). Its events are some of the feed's (``tournaments.services.feed.EVENTS``), or
none: all of them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from games.actors import Actor
from tournaments.errors import ConfigurationError
from tournaments.models import AuditEvent, Tournament, Webhook
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


@transaction.atomic
def webhook_create(
    *, tournament: Tournament, url: str, events: Sequence[str] = (), actor: Actor | None
) -> Webhook:
    """A webhook for ``tournament``'s events (empty ``events``: all of them) with a new secret
    (``signing.new_secret``), shown to the organiser on its console page. The organiser only
    (``actor`` None: the system); audited."""
    url, chosen = validate_webhook(tournament=tournament, url=url, events=events, actor=actor)
    webhook = Webhook.objects.create(
        tournament=tournament,
        url=url,
        events=chosen,
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
    locked = (
        Webhook.objects.select_for_update(of=("self",))
        .select_related("tournament")
        .get(pk=webhook.pk)
    )
    require_manager(actor, locked.tournament)
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
