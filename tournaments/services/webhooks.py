"""Organisers' webhooks, delivered by the Standard Webhooks rules.

Every delivery is a ``POST`` of the feed's message (``tournaments.services.feed``) as JSON with
three headers:

- ``webhook-id``: the event's id (``msg_<tournament>_<version>``), the same on every attempt;
- ``webhook-timestamp``: the attempt's time, in whole seconds since the epoch;
- ``webhook-signature``: ``v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>``; a
  space-separated list, so that a secret can be rotated.

The key is the secret's bytes: after its ``whsec_`` prefix, base64-decoded (the secrets made
here, as the Standard Webhooks libraries expect them); a secret without that prefix is used as
its UTF-8 bytes. A receiver checks a delivery with :func:`verify_signature` (or any Standard
Webhooks library): the signature compared in constant time, the timestamp at most five minutes
off its own clock (a replayed old request is refused), and it drops an id it has seen.

Any answer but 2xx, a timeout (:data:`TIMEOUT`) or a network error is a failure: the delivery is
tried again after :data:`BACKOFF` (with jitter), at most :data:`MAX_ATTEMPTS` times in all, then
marked failed. ``410 Gone`` switches the webhook off. Nothing is sent to a private, loopback,
link-local or otherwise non-public address unless ``settings.WEBHOOKS_ALLOW_PRIVATE``: the host
is resolved, every address checked, and the connection made to a checked address (a second
lookup cannot swap in another). Redirects are not followed.

The job (``tournaments.webhook_deliver``) claims a delivery with a conditional ``UPDATE`` (due,
pending; it bumps ``attempts`` and moves ``next_attempt_at`` past the attempt's lease), so two
runs of it never send the same delivery at the same time; :func:`webhooks_sweep` (beat) asks
again for deliveries whose job was lost.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import http.client
import ipaddress
import json
import random
import secrets
import socket
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.errors import Forbidden
from durak_site.jobs import enqueue_on_commit
from games.actors import Actor
from tournaments.errors import ConfigurationError
from tournaments.models import AuditEvent, Tournament, Webhook, WebhookDelivery
from tournaments.permissions import can_manage
from tournaments.services.audit import audit_record
from tournaments.services.feed import EVENTS

TIMEOUT = 5.0  # seconds for the whole request: connect, send, answer
TOLERANCE = 300  # seconds a receiver accepts a timestamp off its clock
# The pauses before the 2nd, 3rd, ... attempt. The longest stays under the broker's visibility
# timeout (settings: 3600 s), or Redis would hand the waiting job out twice.
BACKOFF: tuple[float, ...] = (10, 30, 120, 600, 2700)
MAX_ATTEMPTS = len(BACKOFF) + 1
JITTER = 0.2  # each pause is drawn from [1 - JITTER, 1 + JITTER] of its nominal length
LEASE = timedelta(seconds=120)  # an attempt's claim: past it, the sweep may try again
SWEEP_GRACE = timedelta(seconds=60)  # the sweep leaves a due delivery this long to its own job
SWEEP_LIMIT = 500
USER_AGENT = "durak-tournaments-webhooks/1"
MAX_ERROR = 300  # WebhookDelivery.last_error's length
URL_MAX = 500  # Webhook.url's length


# --- signing (both ends) ---------------------------------------------------------------------


def new_secret() -> str:
    """A new webhook secret, as Standard Webhooks writes them: ``whsec_`` and 32 random bytes in
    base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def _key(secret: str) -> bytes:
    if secret.startswith("whsec_"):
        try:
            return base64.b64decode(secret[len("whsec_") :], validate=True)
        except (binascii.Error, ValueError):
            pass
    return secret.encode("utf-8")


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of ``body`` sent as ``msg_id`` at ``timestamp``.

    >>> sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1_2", 1700000000, b"{}")[:3]
    'v1,'
    """
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify_signature(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    tolerance: int = TOLERANCE,
    now: float | None = None,
) -> bool:
    """For receivers: whether ``body`` with ``headers`` was signed with ``secret`` within
    ``tolerance`` seconds (five minutes) of ``now``.

    ``headers`` are the request's (any case of the names). Every ``v1`` signature in the
    header is compared in constant time (a rotated secret may sign twice); a missing header, a
    timestamp out of the window, or no matching signature is ``False``. Check the timestamp
    *and* keep the ids you processed: together they refuse a replay.
    """
    lower = {name.lower(): value for name, value in headers.items()}
    msg_id = lower.get("webhook-id", "")
    stamp = lower.get("webhook-timestamp", "")
    given = lower.get("webhook-signature", "")
    if not msg_id or not stamp.isdigit() or not given:
        return False
    current = time.time() if now is None else now
    if abs(current - int(stamp)) > tolerance:
        return False
    expected = sign(secret, msg_id, int(stamp), body).encode()
    found = False
    for part in given.split():
        version, _, _signature = part.partition(",")
        if version == "v1" and hmac.compare_digest(part.encode(), expected):
            found = True  # no early return: the same work whichever signature matches
    return found


# --- organisers' webhooks --------------------------------------------------------------------


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
            address = ipaddress.ip_address(parts.hostname)
        except ValueError:
            address = None
        private = parts.hostname.lower() == "localhost" or (
            address is not None and not address.is_global
        )
        if private and not settings.WEBHOOKS_ALLOW_PRIVATE:
            message = gettext("webhooks go to public addresses only")
    if message:
        raise ConfigurationError(message, fields={"url": [message]})
    return url


def _check_manager(actor: Actor | None, tournament: Tournament) -> None:
    if not can_manage(actor, tournament):
        raise Forbidden(gettext("only the tournament's organiser can change its webhooks"))


def validate_webhook(
    *, tournament: Tournament, url: str, events: Sequence[str], actor: Actor | None
) -> tuple[str, list[str]]:
    """The checks of :func:`webhook_create` and :func:`webhook_update` (for the console's form):
    the organiser, the URL and the events as they would be stored, or a refusal naming its
    field."""
    _check_manager(actor, tournament)
    return _check_url(url), _check_events(events)


@transaction.atomic
def webhook_create(
    *, tournament: Tournament, url: str, events: Sequence[str] = (), actor: Actor | None
) -> Webhook:
    """A webhook for ``tournament``'s events (empty ``events``: all of them) with a new secret
    (:func:`new_secret`), shown to the organiser on its console page. The organiser only;
    audited (a change of the tournament's settings, the webhook its target; not its secret)."""
    url, events = validate_webhook(tournament=tournament, url=url, events=events, actor=actor)
    webhook = Webhook.objects.create(
        tournament=tournament,
        url=url,
        events=events,
        secret=new_secret(),
        created_by=None if isinstance(actor, AnonymousUser) else actor,
    )
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=tournament,
        target=webhook,
        after={"url": webhook.url, "events": webhook.events, "is_active": webhook.is_active},
    )
    return webhook


@transaction.atomic
def webhook_update(
    *,
    webhook: Webhook,
    actor: Actor,
    url: str | None = None,
    events: Sequence[str] | None = None,
    is_active: bool | None = None,
) -> Webhook:
    """Change a webhook's URL or events, switch it off or on again. The organiser only;
    audited with the fields that changed (none changed: no row).

    Switched off, its waiting deliveries are not sent (they fail when their job comes); new
    events make none."""
    _check_manager(actor, webhook.tournament)
    given = {
        "url": None if url is None else _check_url(url),
        "events": None if events is None else _check_events(events),
        "is_active": is_active,
    }
    changed = {
        key: value
        for key, value in given.items()
        if value is not None and getattr(webhook, key) != value
    }
    if changed:
        before = {key: getattr(webhook, key) for key in changed}
        for key, value in changed.items():
            setattr(webhook, key, value)
        webhook.save(update_fields=list(changed))
        audit_record(
            actor=actor,
            action=AuditEvent.Action.TOURNAMENT_EDIT,
            tournament=webhook.tournament,
            target=webhook,
            before=before,
            after=changed,
        )
    return webhook


# --- delivering --------------------------------------------------------------------------------


class Refused(Exception):
    """The delivery may not be sent to this URL (not an HTTP failure: a private address)."""


@dataclass(frozen=True)
class Answer:
    status: int | None  # the receiver's HTTP status; None: no answer
    error: str  # empty when 2xx


def _public_addresses(host: str, port: int) -> list[str]:
    """``host``'s addresses, all of them public unless private ones are allowed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise OSError(f"cannot resolve {host}: {exc}") from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        for address in addresses:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
            if not ip.is_global or ip.is_multicast:
                raise Refused(f"{host} resolves to a non-public address ({address})")
    return addresses


def _connection(url: str) -> tuple[http.client.HTTPConnection, str]:
    """A connection for ``url`` pinned to a checked address, and the request's path."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused(f"not an http(s) URL: {url}")
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    address = _public_addresses(parts.hostname, port)[0]
    conn: http.client.HTTPConnection
    if https:
        # The certificate is checked against the URL's host name (SNI too), not the address.
        conn = http.client.HTTPSConnection(parts.hostname, port, timeout=TIMEOUT)
    else:
        conn = http.client.HTTPConnection(parts.hostname, port, timeout=TIMEOUT)

    def connect_to_checked(
        _address: tuple[str, int], timeout: float | None = TIMEOUT, source: Any = None
    ) -> socket.socket:
        return socket.create_connection((address, port), timeout, source)

    conn._create_connection = connect_to_checked  # type: ignore[attr-defined]
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return conn, path


def post(url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
    """POST ``body`` to ``url``: the receiver's answer, or the error that stopped it."""
    try:
        conn, path = _connection(url)
    except Refused as exc:
        return Answer(None, f"refused: {exc}")
    except OSError as exc:
        return Answer(None, str(exc) or type(exc).__name__)
    try:
        conn.request("POST", path, body=body, headers=dict(headers))
        response = conn.getresponse()
        response.read(64 * 1024)
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        return Answer(None, f"{type(exc).__name__}: {exc}".strip(": "))
    finally:
        conn.close()
    if 200 <= status < 300:
        return Answer(status, "")
    return Answer(status, f"HTTP {status}")


def backoff(attempts: int, rng: random.Random | None = None) -> float:
    """Seconds to wait after ``attempts`` failed attempts before the next one (jittered)."""
    nominal = BACKOFF[min(attempts, len(BACKOFF)) - 1]
    return nominal * (rng or random).uniform(1 - JITTER, 1 + JITTER)


def _claim(delivery_id: int, now: datetime) -> int | None:
    """Claim a due pending delivery for one attempt: its attempt number, or None if it is not
    due (delivered, failed, not yet due, or another run has it)."""
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id,
        status=WebhookDelivery.Status.PENDING,
        next_attempt_at__lte=now,
    ).update(attempts=F("attempts") + 1, next_attempt_at=now + LEASE)
    if not claimed:
        return None
    attempts: int = (
        WebhookDelivery.objects.filter(pk=delivery_id).values_list("attempts", flat=True).get()
    )
    return attempts


def webhook_deliver(*, delivery_id: int) -> str:
    """One attempt at a delivery (the delivery job's body); returns what happened.

    Safe to run twice: the claim (:func:`_claim`) lets one run at a time make one attempt, and a
    delivery that is not due is left alone. The request is made outside any transaction; its
    outcome is written with a conditional ``UPDATE`` on the attempt it claimed.
    """
    now = timezone.now()
    attempt = _claim(delivery_id, now)
    if attempt is None:
        return "not due"
    delivery = WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)
    hook = delivery.webhook
    mine = WebhookDelivery.objects.filter(pk=delivery_id, attempts=attempt)
    if not hook.is_active:
        mine.update(
            status=WebhookDelivery.Status.FAILED,
            next_attempt_at=None,
            last_error=gettext("the webhook is switched off"),
        )
        return "webhook off"
    body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()
    stamp = int(time.time())
    answer = post(
        hook.url,
        body,
        {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "webhook-id": delivery.event_id,
            "webhook-timestamp": str(stamp),
            "webhook-signature": sign(hook.secret, delivery.event_id, stamp, body),
        },
    )
    done = timezone.now()
    if answer.status is not None and 200 <= answer.status < 300:
        mine.update(
            status=WebhookDelivery.Status.DELIVERED,
            delivered_at=done,
            next_attempt_at=None,
            last_status_code=answer.status,
            last_error="",
        )
        return "delivered"
    if answer.status == 410:
        with transaction.atomic():
            Webhook.objects.filter(pk=hook.pk).update(is_active=False)
            mine.update(
                status=WebhookDelivery.Status.FAILED,
                next_attempt_at=None,
                last_status_code=410,
                last_error=gettext("410 Gone: the webhook is switched off"),
            )
        return "gone"
    if attempt >= MAX_ATTEMPTS:
        mine.update(
            status=WebhookDelivery.Status.FAILED,
            next_attempt_at=None,
            last_status_code=answer.status,
            last_error=answer.error[:MAX_ERROR],
        )
        return "failed"
    pause = backoff(attempt)
    with transaction.atomic():
        mine.update(
            next_attempt_at=done + timedelta(seconds=pause),
            last_status_code=answer.status,
            last_error=answer.error[:MAX_ERROR],
        )
        enqueue_on_commit("tournaments.webhook_deliver", delivery_id, countdown=pause)
    return "retry"


def webhooks_sweep(*, now: datetime | None = None) -> int:
    """Ask again for the pending deliveries that are overdue (their job was lost, or a worker
    died during an attempt); returns how many. The jobs' claim keeps a delivery from being sent
    twice."""
    cutoff = (now or timezone.now()) - SWEEP_GRACE
    due = list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=cutoff
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:SWEEP_LIMIT]
    )
    with transaction.atomic():
        for delivery_id in due:
            enqueue_on_commit("tournaments.webhook_deliver", delivery_id)
    return len(due)
