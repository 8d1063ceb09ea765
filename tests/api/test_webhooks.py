"""Webhooks against a real local receiver (an HTTP server on 127.0.0.1 in a thread): signed by
the Standard Webhooks rules, retried with backoff under the same id, switched off by 410, never
sent to a private address unless allowed; the console's pages; a real worker delivering.

The delivery job is driven directly here (``outbox.webhook_deliver``), one call per attempt,
with the backoff's wait skipped by moving ``next_attempt_at`` into the past.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from durak_site.errors import Forbidden
from tests.builders import TWO_SEATS, make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.errors import ConfigurationError
from tournaments.models import (
    AuditEvent,
    FeedEvent,
    Round,
    Table,
    Tournament,
    Webhook,
    WebhookDelivery,
)
from tournaments.services.webhooks import delivery as outbox
from tournaments.services.webhooks import management, signing, transport
from tournaments.services.webhooks.delivery import event_id

pytestmark = pytest.mark.django_db

if os.environ.get("REDIS_URL"):
    # The real worker (started once per session, ``tests/conftest.py``) reads its settings from
    # the environment when it starts: let it deliver to this module's receiver on 127.0.0.1.
    os.environ.setdefault("DURAK_WEBHOOKS_ALLOW_PRIVATE", "1")


# --- the receiver ------------------------------------------------------------------------------


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    """What the local server got, and how it answers: ``fail`` more requests with 500, then
    ``status``."""

    url: str = ""
    status: int = 200
    fail: int = 0
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, received: Received) -> int:
        with self.lock:
            self.requests.append(received)
            if self.fail > 0:
                self.fail -= 1
                return 500
            return self.status


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            status = state.answer(Received(dict(self.headers.items()), body, time.time()))
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/durak?from=test"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def private_allowed(settings: Settings) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = True


@pytest.fixture
def owner(organiser: User) -> User:
    return organiser


@pytest.fixture
def tournament(owner: User) -> Tournament:
    return make_tournament(PlayerFactory.create_batch(2), name="Кубок вебхуков", created_by=owner)


@pytest.fixture
def hook(tournament: Tournament, owner: User, receiver: Receiver, private_allowed: None) -> Webhook:
    return management.webhook_create(tournament=tournament, url=receiver.url, actor=owner)


def an_event(tournament: Tournament) -> WebhookDelivery:
    """A change the webhook hears of (an entry registered): its delivery, waiting."""
    services.entry_register(tournament=tournament, player=PlayerFactory.create())
    return WebhookDelivery.objects.latest("id")


def due_now(delivery: WebhookDelivery) -> None:
    """Skip the backoff's wait."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


# --- signing and delivering --------------------------------------------------------------------


def test_a_delivery_is_signed_with_the_secret_and_carries_the_event(
    hook: Webhook, tournament: Tournament, receiver: Receiver
) -> None:
    # given an event the webhook wants
    delivery = an_event(tournament)
    tournament.refresh_from_db()
    assert (delivery.event, delivery.status, delivery.attempts) == ("entries_changed", "pending", 0)
    # when the job delivers it
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "delivered"
    # then the receiver got one signed POST of the event, with a recent timestamp
    (got,) = receiver.requests
    headers = {name.lower(): value for name, value in got.headers.items()}
    assert headers["webhook-id"] == event_id(hook.pk, tournament.pk, tournament.version)
    assert headers["webhook-id"] == delivery.event_id
    # an opaque id: no internal id or version shows in it
    assert re.fullmatch(r"msg_[0-9a-f]{32}", headers["webhook-id"])
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 30
    assert headers["webhook-signature"].startswith("v1,")
    assert headers["content-type"] == "application/json"
    assert signing.verify_signature(hook.secret, got.headers, got.body)
    body = json.loads(got.body)
    logged = FeedEvent.objects.get(tournament=tournament, version=tournament.version)
    assert body == {
        "event": "entries_changed",
        "tournament": tournament.slug,
        "version": tournament.version,
        "at": logged.at.isoformat().replace("+00:00", "Z"),
        "data": logged.data,
    }
    assert body["at"].endswith("Z")  # the REST answers' form of a time
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("delivered", 1, 200)
    assert delivery.delivered_at is not None and delivery.next_attempt_at is None
    # and a second run of the job sends nothing
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "not due"
    assert len(receiver.requests) == 1


def test_a_signature_fails_for_another_body_secret_or_an_old_timestamp(
    hook: Webhook, tournament: Tournament, receiver: Receiver
) -> None:
    outbox.webhook_deliver(delivery_id=an_event(tournament).pk)
    (got,) = receiver.requests
    assert signing.verify_signature(hook.secret, got.headers, got.body)
    assert not signing.verify_signature(hook.secret, got.headers, got.body + b" ")
    assert not signing.verify_signature(signing.new_secret(), got.headers, got.body)
    stamp = int(got.headers["webhook-timestamp"])
    assert not signing.verify_signature(hook.secret, got.headers, got.body, now=stamp + 301)
    assert signing.verify_signature(hook.secret, got.headers, got.body, now=stamp + 299)
    # a rotated secret: one of the listed signatures matches
    rotated = {name.title(): value for name, value in got.headers.items()}  # any case
    rotated["Webhook-Signature"] = "v1,bm90IGl0 " + got.headers["webhook-signature"]
    assert signing.verify_signature(hook.secret, rotated, got.body)
    assert not signing.verify_signature(hook.secret, {}, got.body)


def test_a_receiver_failing_twice_gets_the_event_on_the_third_attempt(
    hook: Webhook, tournament: Tournament, receiver: Receiver
) -> None:
    # given a receiver that fails twice, then recovers
    receiver.fail = 2
    delivery = an_event(tournament)
    # when the first attempt fails, it is tried again after about 10 s, not before
    started = timezone.now()
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "retry"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("pending", 1, 500)
    assert delivery.last_error == "HTTP 500"
    assert delivery.next_attempt_at is not None
    wait = (delivery.next_attempt_at - started).total_seconds()
    assert 10 * 0.8 - 1 <= wait <= 10 * 1.2 + 1
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "not due"
    assert len(receiver.requests) == 1
    # the second fails too, and waits longer
    due_now(delivery)
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "retry"
    delivery.refresh_from_db()
    assert delivery.attempts == 2 and delivery.next_attempt_at is not None
    assert (delivery.next_attempt_at - timezone.now()).total_seconds() > 20
    # then the third gets through
    due_now(delivery)
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "delivered"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("delivered", 3, "")
    # with the same id every time, each attempt signed afresh
    ids = {r.headers["webhook-id"] for r in receiver.requests}
    assert ids == {delivery.event_id} and len(receiver.requests) == 3
    assert all(signing.verify_signature(hook.secret, r.headers, r.body) for r in receiver.requests)


def test_a_delivery_fails_for_good_after_its_last_attempt(
    hook: Webhook, tournament: Tournament, receiver: Receiver
) -> None:
    receiver.fail = 100
    delivery = an_event(tournament)
    for _ in range(outbox.MAX_ATTEMPTS - 1):
        assert outbox.webhook_deliver(delivery_id=delivery.pk) == "retry"
        due_now(delivery)
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("failed", outbox.MAX_ATTEMPTS)
    assert delivery.next_attempt_at is None
    assert len(receiver.requests) == outbox.MAX_ATTEMPTS


def test_the_backoff_grows_with_jitter_and_stays_under_the_brokers_redelivery() -> None:
    pauses = [outbox.backoff(n) for n in range(1, outbox.MAX_ATTEMPTS)]
    assert pauses == sorted(pauses)
    assert 8 <= pauses[0] <= 12 and max(pauses) < 3600


def test_410_switches_the_webhook_off(
    hook: Webhook, tournament: Tournament, receiver: Receiver
) -> None:
    receiver.status = 410
    delivery = an_event(tournament)
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "gone"
    hook.refresh_from_db()
    delivery.refresh_from_db()
    assert not hook.is_active
    assert (delivery.status, delivery.last_status_code) == ("failed", 410)
    # and a later event makes no delivery for it
    before = WebhookDelivery.objects.count()
    services.entry_register(tournament=tournament, player=PlayerFactory.create())
    assert WebhookDelivery.objects.count() == before


def test_a_private_address_is_refused_unless_allowed(
    hook: Webhook, tournament: Tournament, receiver: Receiver, settings: Settings, owner: User
) -> None:
    # given private addresses not allowed (the default)
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    # then a webhook to one cannot be added
    for url in (
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "http://[::1]/",
        "http://10.0.0.7/",
    ):
        with pytest.raises(ConfigurationError, match="public addresses only"):
            management.webhook_create(tournament=tournament, url=url, actor=owner)
    # and a delivery to a name that resolves to one is not sent
    Webhook.objects.filter(pk=hook.pk).update(url=receiver.url.replace("127.0.0.1", "localhost"))
    delivery = an_event(tournament)
    assert outbox.webhook_deliver(delivery_id=delivery.pk) == "retry"
    delivery.refresh_from_db()
    assert delivery.last_status_code is None
    assert "non-public address" in delivery.last_error
    assert receiver.requests == []


def resolving(monkeypatch: pytest.MonkeyPatch, name: str, *answers: str) -> list[tuple[str, ...]]:
    """Resolve ``name`` to ``answers[0]``, then to ``answers[1]`` (a DNS rebinding); other names
    as usual. Returns the lookups of ``name`` made."""
    real = socket.getaddrinfo
    lookups: list[tuple[str, ...]] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != name:
            return real(host, port, *args, **kwargs)
        address = answers[min(len(lookups), len(answers) - 1)]
        lookups.append((host, address))
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


def test_a_delivery_goes_to_the_checked_address_even_if_the_name_resolves_again_elsewhere(
    hook: Webhook, tournament: Tournament, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a name that resolves to the receiver once, then to another address (nothing there)
    port = receiver.url.split(":")[2].split("/")[0]
    Webhook.objects.filter(pk=hook.pk).update(url=receiver.url.replace("127.0.0.1", "hook.test"))
    lookups = resolving(monkeypatch, "hook.test", "127.0.0.1", "127.0.0.2")
    # when the delivery is made
    assert outbox.webhook_deliver(delivery_id=an_event(tournament).pk) == "delivered"
    # then the name was resolved once, the checked address got the request, and the request
    # still names the URL's host
    assert lookups == [("hook.test", "127.0.0.1")]
    (got,) = receiver.requests
    assert got.headers["Host"] == f"hook.test:{port}"
    assert signing.verify_signature(hook.secret, got.headers, got.body)


def test_a_tls_delivery_names_the_host_while_connecting_to_the_checked_address(
    monkeypatch: pytest.MonkeyPatch, private_allowed: None
) -> None:
    # given a name resolved to a local listener that records the TLS handshake's first bytes
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)
    port = listener.getsockname()[1]
    hello: list[bytes] = []

    def accept() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.settimeout(5)
            hello.append(conn.recv(4096))

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    lookups = resolving(monkeypatch, "hook.test", "127.0.0.1", "127.0.0.2")
    try:
        # when a delivery is posted over https to that name
        answer = transport.post(f"https://hook.test:{port}/hook", b"{}", {})
    finally:
        thread.join(timeout=5)
        listener.close()
    # then the checked address got the handshake, which names the URL's host (SNI), and the
    # attempt failed (no TLS server there) rather than going anywhere else
    assert lookups == [("hook.test", "127.0.0.1")]
    assert hello and b"hook.test" in hello[0]
    assert answer.status is None and answer.error


def test_a_name_resolving_to_a_non_public_address_is_refused(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    for address in ("10.1.2.3", "169.254.169.254", "127.0.0.1", "::1", "fe80::1", "224.0.0.1"):
        assert not transport.is_public(address)
    resolving(monkeypatch, "hook.test", "169.254.169.254")
    answer = transport.post("http://hook.test/hook", b"{}", {})
    assert answer.status is None and "non-public address" in answer.error


def test_a_webhook_gets_only_the_events_it_chose(
    tournament: Tournament, owner: User, receiver: Receiver, private_allowed: None
) -> None:
    management.webhook_create(
        tournament=tournament, url=receiver.url, events=["round_paired"], actor=owner
    )
    services.entry_register(tournament=tournament, player=PlayerFactory.create())
    assert not WebhookDelivery.objects.exists()
    with pytest.raises(ConfigurationError, match="unknown events"):
        management.webhook_create(
            tournament=tournament, url=receiver.url, events=["x"], actor=owner
        )


def test_a_result_and_the_last_event_reach_a_webhook_with_their_facts(
    owner: User, receiver: Receiver, private_allowed: None
) -> None:
    # given a webhook that wants the results and the last event of a two-player event
    tournament = make_tournament(
        PlayerFactory.create_batch(2), TWO_SEATS, name="Кубок фактов", created_by=owner
    )
    management.webhook_create(
        tournament=tournament,
        url=receiver.url,
        events=["table_finished", "tournament_completed"],
        actor=owner,
    )
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament)
    services.round_pair(round_id=round_.pk)
    table = Table.objects.get(round=round_)
    seated = list(table.seats.order_by("position").values_list("entry_id", flat=True))
    # when its only table finishes, the round completes and the awards are computed
    services.table_record_result(table=table, places=seated, fool=seated[-1])
    services.round_complete(round_id=round_.pk)
    services.prize_pool_compute(tournament_id=tournament.pk)
    services.tournament_ranks_compute(tournament_id=tournament.pk)
    services.ratings_update(tournament_id=tournament.pk)
    # then the receiver gets the result with its places and the moved standings, and the last
    # event with the final standings and their payouts and ranks
    deliveries = list(WebhookDelivery.objects.order_by("id"))
    assert [d.event for d in deliveries] == ["table_finished", "tournament_completed"]
    for delivery in deliveries:
        assert outbox.webhook_deliver(delivery_id=delivery.pk) == "delivered"
    result, completed = (json.loads(got.body)["data"] for got in receiver.requests)
    places = [p["entry"]["id"] for p in result["table_detail"]["result"]["places"]]
    assert places == seated
    assert {row["entry_id"] for row in result["standings"]["rows"]} == set(seated)
    rows = completed["final_standings"]["rows"]
    assert [row["entry_id"] for row in rows] == seated
    assert {"payout", "rank", "player_id", "points", "status"} <= set(rows[0])
    assert "cards" not in json.dumps(completed) and "hand" not in json.dumps(result)


def test_only_the_organiser_adds_a_webhook(
    tournament: Tournament, event_referee: User, receiver: Receiver, private_allowed: None
) -> None:
    tournament.referees.set([event_referee])
    with pytest.raises(Forbidden):
        management.webhook_create(tournament=tournament, url=receiver.url, actor=event_referee)


def test_adding_and_changing_a_webhook_is_audited_without_its_secret(
    tournament: Tournament,
    owner: User,
    event_referee: User,
    receiver: Receiver,
    private_allowed: None,
) -> None:
    hook = management.webhook_create(tournament=tournament, url=receiver.url, actor=owner)
    # a referee may not change it
    tournament.referees.set([event_referee])
    with pytest.raises(Forbidden):
        management.webhook_update(webhook=hook, actor=event_referee, is_active=False)
    # the organiser switches it off, then sends the same values again (nothing changes)
    management.webhook_update(webhook=hook, actor=owner, url=hook.url, is_active=False)
    management.webhook_update(webhook=hook, actor=owner, url=hook.url, is_active=False)
    rows = AuditEvent.objects.filter(target_type="webhook", target_id=hook.pk).order_by("pk")
    assert [(r.action, r.actor, r.tournament_id) for r in rows] == [
        (AuditEvent.Action.TOURNAMENT_EDIT, owner, tournament.pk)
    ] * 2
    added, changed = rows
    assert added.after == {"url": receiver.url, "events": [], "is_active": True}
    assert (changed.before, changed.after) == ({"is_active": True}, {"is_active": False})
    assert all(hook.secret not in str((r.before, r.after)) for r in rows)
    hook.refresh_from_db()
    assert not hook.is_active


def test_a_claimed_delivery_is_not_claimed_again(hook: Webhook, tournament: Tournament) -> None:
    delivery = an_event(tournament)
    now = timezone.now()
    assert outbox._claim(delivery.pk, now) == 1
    assert outbox._claim(delivery.pk, now) is None  # another run finds it in flight
    delivery.refresh_from_db()
    assert delivery.next_attempt_at is not None and delivery.next_attempt_at > now


def test_the_sweep_asks_again_for_overdue_deliveries(
    hook: Webhook,
    tournament: Tournament,
    django_capture_on_commit_callbacks: Any,
) -> None:
    overdue, fresh = an_event(tournament), an_event(tournament)
    WebhookDelivery.objects.filter(pk=overdue.pk).update(
        next_attempt_at=timezone.now() - timedelta(minutes=5)
    )
    with django_capture_on_commit_callbacks() as callbacks:
        assert outbox.webhooks_sweep() == 1
    assert len(callbacks) == 1
    assert WebhookDelivery.objects.get(pk=fresh.pk).status == "pending"


# --- the console ---------------------------------------------------------------------------------


def test_the_organiser_adds_a_webhook_and_copies_its_secret(
    client: Client, tournament: Tournament, owner: User, receiver: Receiver, private_allowed: None
) -> None:
    client.force_login(owner)
    response = client.post(
        reverse("admin:tournaments_webhook_add"),
        {"tournament": tournament.pk, "url": receiver.url, "events": ["table_finished"]},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    hook = Webhook.objects.get()
    assert (hook.events, hook.created_by, hook.is_active) == (["table_finished"], owner, True)
    assert hook.secret.startswith("whsec_")
    page = client.get(response["Location"])
    assert page.status_code == 200 and hook.secret in page.content.decode()


def test_the_console_refuses_a_bad_url_on_its_field(
    client: Client, tournament: Tournament, owner: User, settings: Settings
) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    client.force_login(owner)
    response = client.post(
        reverse("admin:tournaments_webhook_add"),
        {"tournament": tournament.pk, "url": "http://127.0.0.1/hook"},
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["url"]
    assert not Webhook.objects.exists()


def test_the_organiser_switches_a_webhook_off(
    client: Client, hook: Webhook, owner: User, receiver: Receiver
) -> None:
    client.force_login(owner)
    response = client.post(
        reverse("admin:tournaments_webhook_change", args=[hook.pk]),
        {"url": receiver.url, "events": [], "is_active": ""},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    hook.refresh_from_db()
    assert not hook.is_active


def test_a_referee_sees_the_delivery_log_but_not_the_secret(
    client: Client, hook: Webhook, event_referee: User, other_referee: User, receiver: Receiver
) -> None:
    tournament = hook.tournament
    tournament.referees.set([event_referee])
    receiver.fail = 1
    delivery = an_event(tournament)
    outbox.webhook_deliver(delivery_id=delivery.pk)
    client.force_login(event_referee)
    page = client.get(reverse("admin:tournaments_webhook_change", args=[hook.pk]))
    assert page.status_code == 200 and hook.secret not in page.content.decode()
    log = client.get(reverse("admin:tournaments_webhookdelivery_changelist"))
    assert log.status_code == 200
    text = log.content.decode()
    assert "entries_changed" in text and "HTTP 500" in text
    assert client.get(reverse("admin:tournaments_webhook_add")).status_code == 403
    # another event's referee sees none of it
    client.force_login(other_referee)
    log = client.get(reverse("admin:tournaments_webhookdelivery_changelist"))
    assert "entries_changed" not in log.content.decode()
    change = reverse("admin:tournaments_webhookdelivery_change", args=[delivery.pk])
    assert client.get(change).status_code == 404


# --- the real stack ------------------------------------------------------------------------------


@pytest.mark.real_stack
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_delivers_after_commit(
    celery_worker: None, receiver: Receiver, settings: Settings
) -> None:
    # given a webhook on the real stack (jobs go through Redis to a worker process)
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    owner = User.objects.create(username="owner-real", is_superuser=True)
    tournament = make_tournament(
        PlayerFactory.create_batch(2), name="Кубок воркера", created_by=owner
    )
    hook = management.webhook_create(tournament=tournament, url=receiver.url, actor=owner)
    # when an entry is registered (committed)
    services.entry_register(tournament=tournament, player=PlayerFactory.create())
    # then the worker delivers the event by itself
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not receiver.requests:
        time.sleep(0.2)
    assert receiver.requests, "the worker delivered nothing"
    got = receiver.requests[0]
    assert signing.verify_signature(hook.secret, got.headers, got.body)
    assert json.loads(got.body)["event"] == "entries_changed"
    while time.monotonic() < deadline:
        delivery = WebhookDelivery.objects.get(webhook=hook)
        if delivery.status == WebhookDelivery.Status.DELIVERED:
            break
        time.sleep(0.2)
    assert delivery.status == WebhookDelivery.Status.DELIVERED and delivery.attempts == 1


def test_the_log_link_shows_one_webhooks_deliveries(
    client: Client, hook: Webhook, tournament: Tournament, owner: User, receiver: Receiver
) -> None:
    other = management.webhook_create(tournament=tournament, url=receiver.url + "&b", actor=owner)
    an_event(tournament)
    client.force_login(owner)
    page = client.get(reverse("admin:tournaments_webhook_change", args=[hook.pk]))
    link = f"{reverse('admin:tournaments_webhookdelivery_changelist')}?webhook__id__exact={hook.pk}"
    assert link in page.content.decode()
    log = client.get(link)
    assert log.status_code == 200
    assert log.context["cl"].result_count == 1
    assert {d.webhook_id for d in log.context["cl"].result_list} == {hook.pk}
    assert other.deliveries.count() == 1
