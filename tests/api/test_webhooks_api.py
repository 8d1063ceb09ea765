"""Webhooks over the API, as an organiser's client uses them against a real local receiver (the
HTTP server of ``test_webhooks``): added (its secret shown once), pinged (a signed ``ping``
delivered by the delivery job, checked here by the Standard Webhooks rules written out, and in
the log), its secret rotated (the old one signs no more), changed and deleted, each change
audited; another organiser's webhook is missing, bad input refused with its code.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from typing import TYPE_CHECKING, Any

import pytest
from django.contrib.auth.models import User
from django.core.cache.backends.locmem import LocMemCache
from pytest_django import Settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.api.test_webhooks import Receiver, receiver  # noqa: F401 (the receiver fixture)
from tests.builders import make_tournament
from tests.factories import PlayerFactory, UserFactory, referee_user
from tournaments import services
from tournaments.api.common import ApiUserThrottle, ApiWriteThrottle
from tournaments.models import AuditEvent, Tournament, Webhook, WebhookDelivery
from tournaments.services.webhooks import management

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse as Answer

pytestmark = pytest.mark.django_db

HOOKS = "/api/v1/webhooks/"


@pytest.fixture(autouse=True)
def own_throttle_history(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = LocMemCache(f"hooks-{uuid.uuid4()}", {})
    monkeypatch.setattr(ApiUserThrottle, "cache", cache)
    monkeypatch.setattr(ApiWriteThrottle, "cache", cache)


@pytest.fixture
def tournament(organiser: User) -> Tournament:
    return make_tournament(PlayerFactory.create_batch(2), name="Кубок API", created_by=organiser)


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.key}")
    return client


def call(
    user: User | None,
    method: str,
    url: str,
    body: dict[str, Any] | None = None,
    *,
    key: str | None = None,
) -> Answer:
    headers = {"Idempotency-Key": key} if key is not None else None
    send = getattr(client_for(user), method)
    answer: Answer = send(url, body, format="json", headers=headers)
    return answer


def verified(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """The Standard Webhooks check as a receiver writes it (the README's), not our own code."""
    lower = {name.lower(): value for name, value in headers.items()}
    msg_id, stamp = lower["webhook-id"], lower["webhook-timestamp"]
    if abs(time.time() - int(stamp)) > 300:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    expected = "v1," + base64.b64encode(mac).decode()
    return any(hmac.compare_digest(expected, s) for s in lower["webhook-signature"].split())


@pytest.mark.usefixtures("eager_jobs")  # the delivery job in-process, whatever the configuration
def test_an_organiser_runs_a_webhook_through_its_whole_life(
    organiser: User,
    tournament: Tournament,
    receiver: Receiver,  # noqa: F811
    settings: Settings,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1
    # the client finds the collection at the API's index
    links = call(None, "get", "/api/v1/").json()["links"]
    assert links["webhooks"] == HOOKS  # a path from the root, as every link
    # the organiser adds a webhook: its secret is in this answer
    body = {"tournament": tournament.slug, "url": receiver.url, "events": ["entries_changed"]}
    created = call(organiser, "post", HOOKS, body, key="add-1")
    assert created.status_code == 201, created.json()
    hook = created.json()
    secret = hook.pop("secret")
    assert secret.startswith("whsec_")
    assert hook["tournament"] == tournament.slug and hook["url"] == receiver.url
    assert hook["events"] == ["entries_changed"] and hook["is_active"] is True
    url = f"{HOOKS}{hook['id']}/"
    assert hook["deliveries"] == f"{url}deliveries/"
    # the same request sent again changes nothing and gets the same answer
    again = call(organiser, "post", HOOKS, body, key="add-1")
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == hook["id"] and Webhook.objects.count() == 1
    # and reads never show the secret
    listed = call(organiser, "get", HOOKS)
    assert listed.status_code == 200 and listed.has_header("ETag")
    assert listed.json()["results"] == [hook]
    read = call(organiser, "get", url)
    assert read.status_code == 200 and read.json() == hook
    assert secret not in listed.content.decode() + read.content.decode()

    # a ping is delivered by the delivery job, signed with the secret
    with django_capture_on_commit_callbacks(execute=True):
        pinged = call(organiser, "post", f"{url}ping/", key="ping-1")
    assert pinged.status_code == 202, pinged.json()
    assert pinged.json()["event"] == "ping" and pinged.json()["status"] == "pending"
    (got,) = receiver.requests
    assert verified(secret, got.headers, got.body)
    message = json.loads(got.body)
    assert message["event"] == "ping" and message["tournament"] == tournament.slug
    assert message["data"] == {"webhook": hook["id"]}
    headers = {name.lower(): value for name, value in got.headers.items()}
    assert headers["webhook-id"] == pinged.json()["webhook_id"]
    # and the log shows it delivered, without the secret
    log = call(organiser, "get", f"{url}deliveries/")
    assert log.status_code == 200
    (row,) = log.json()["results"]
    assert row["id"] == pinged.json()["id"] and row["event"] == "ping"
    assert (row["status"], row["attempts"], row["response_code"]) == ("delivered", 1, 200)
    assert row["delivered_at"] and row["next_attempt_at"] is None and row["error"] == ""
    assert row["webhook_id"] == headers["webhook-id"]
    assert secret not in log.content.decode()

    # a new secret: the next delivery is signed with it, no longer with the old one
    rotated = call(organiser, "post", f"{url}rotate-secret/", key="rotate-1")
    assert rotated.status_code == 200
    new_secret = rotated.json()["secret"]
    assert new_secret.startswith("whsec_") and new_secret != secret
    assert "secret" not in call(organiser, "get", url).json()
    with django_capture_on_commit_callbacks(execute=True):
        assert call(organiser, "post", f"{url}ping/", key="ping-2").status_code == 202
    second = receiver.requests[1]
    assert verified(new_secret, second.headers, second.body)
    assert not verified(secret, second.headers, second.body)

    # the events it gets: an entry registered is delivered, then no longer once left out
    with django_capture_on_commit_callbacks(execute=True):
        services.entry_register(tournament=tournament, player=PlayerFactory.create())
    assert json.loads(receiver.requests[2].body)["event"] == "entries_changed"
    changed = call(organiser, "patch", url, {"events": ["tournament_finished"]}, key="patch-1")
    assert changed.status_code == 200 and changed.json()["events"] == ["tournament_finished"]
    with django_capture_on_commit_callbacks(execute=True):
        services.entry_register(tournament=tournament, player=PlayerFactory.create())
    assert len(receiver.requests) == 3
    assert [d["event"] for d in call(organiser, "get", f"{url}deliveries/").json()["results"]] == [
        "entries_changed",
        "ping",
        "ping",
    ]

    # deleted: gone, with its log
    deleted = call(organiser, "delete", url, key="delete-1")
    assert deleted.status_code == 204
    assert call(organiser, "get", url).status_code == 404
    assert not WebhookDelivery.objects.exists()

    # every change has its audit row, by the organiser, none with a secret
    rows = AuditEvent.objects.filter(target_type="webhook", target_id=hook["id"]).order_by("id")
    assert [(r.action, r.actor_id) for r in rows] == [
        (AuditEvent.Action.TOURNAMENT_EDIT, organiser.pk)
    ] * 6  # added, pinged, rotated, pinged, changed, deleted
    assert rows[0].after == {"url": receiver.url, "events": ["entries_changed"], "is_active": True}
    assert rows[4].before == {"events": ["entries_changed"]}
    assert rows[4].after == {"events": ["tournament_finished"]}
    gone = rows[5]
    assert gone.after is None and gone.before == rows[4].after | {
        "url": receiver.url,
        "is_active": True,
    }
    written = json.dumps([[r.before, r.after] for r in rows])
    assert secret not in written and new_secret not in written


def test_another_organisers_webhook_is_missing_and_a_referee_is_refused(
    organiser: User, other_organiser: User, superuser: User, tournament: Tournament
) -> None:
    hook = management.webhook_create(
        tournament=tournament, url="https://example.com/hook", actor=organiser
    )
    url = f"{HOOKS}{hook.pk}/"
    operations = [
        ("get", url),
        ("patch", url),
        ("delete", url),
        ("post", f"{url}rotate-secret/"),
        ("post", f"{url}ping/"),
        ("get", f"{url}deliveries/"),
    ]
    referee = referee_user("hook-referee")
    tournament.referees.add(referee)
    player = UserFactory.create(username="hook-player")
    for method, path in operations:
        assert call(other_organiser, method, path, {}).status_code == 404, (method, path)
        unknown = path.replace(f"/{hook.pk}/", "/999999/")
        assert call(other_organiser, method, unknown, {}).status_code == 404, unknown
        assert call(referee, method, path, {}).status_code == 403, (method, path)
        assert call(player, method, path, {}).status_code == 404, (method, path)
        answer = call(None, method, path, {})
        assert answer.status_code == 401 and answer.json()["code"] == "not_authenticated"
    # nothing changed, nothing sent
    hook.refresh_from_db()
    assert hook.is_active and not WebhookDelivery.objects.exists()
    # the list of one tournament's webhooks
    other = make_tournament(PlayerFactory.create_batch(2), name="Другой", created_by=organiser)
    mine = call(organiser, "get", f"{HOOKS}?tournament={tournament.slug}").json()["results"]
    assert [h["id"] for h in mine] == [hook.pk]
    assert call(organiser, "get", f"{HOOKS}?tournament={other.slug}").json()["results"] == []
    # another organiser lists none and cannot add one to this tournament
    assert call(other_organiser, "get", HOOKS).json()["results"] == []
    body = {"tournament": tournament.slug, "url": "https://example.com/other"}
    refused = call(other_organiser, "post", HOOKS, body)
    assert refused.status_code == 422 and "tournament" in refused.json()["fields"]
    # who organises nothing has no webhooks at all
    for user in (referee, player):
        assert call(user, "get", HOOKS).status_code == 403
        assert call(user, "post", HOOKS, body).status_code == 403
    assert Webhook.objects.count() == 1
    # a superuser sees and uses every webhook
    assert [h["id"] for h in call(superuser, "get", HOOKS).json()["results"]] == [hook.pk]
    assert call(superuser, "post", f"{url}rotate-secret/").status_code == 200


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"url": "ftp://example.com/hook"}, "url", "invalid_configuration"),
        ({"url": "https://"}, "url", "invalid_configuration"),
        ({"url": "http://127.0.0.1:8000/hook"}, "url", "invalid_configuration"),
        ({"url": "https://localhost/hook"}, "url", "invalid_configuration"),
        ({"url": "https://10.0.0.7/hook"}, "url", "invalid_configuration"),
        ({"url": "https://example.com/" + "x" * 500}, "url", "invalid"),
        ({"events": ["no_such_event"]}, "events", "invalid"),
        ({"events": "table_finished"}, "events", "invalid"),
        ({"url": None}, "url", "invalid"),
        ({"is_active": "perhaps"}, "is_active", "invalid"),
    ],
)
def test_bad_input_is_refused_on_its_field(
    organiser: User, tournament: Tournament, body: dict[str, Any], field: str, code: str
) -> None:
    create = {"tournament": tournament.slug, "url": "https://example.com/hook", **body}
    added = call(organiser, "post", HOOKS, create, key="bad")
    assert added.status_code == 422, added.json()
    assert added.json()["code"] == code and field in added.json()["fields"]
    assert not Webhook.objects.exists()
    # the same key may carry the corrected request (a 422 is not kept)
    good = {"tournament": tournament.slug, "url": "https://example.com/hook"}
    assert call(organiser, "post", HOOKS, good, key="bad").status_code == 201
    hook = Webhook.objects.get()
    changed = call(organiser, "patch", f"{HOOKS}{hook.pk}/", body)
    assert changed.status_code == 422 and field in changed.json()["fields"]
    assert Webhook.objects.get().url == "https://example.com/hook"


def test_what_cannot_be_read_or_done_now_is_refused(
    organiser: User, tournament: Tournament
) -> None:
    hook = management.webhook_create(
        tournament=tournament, url="https://example.com/hook", actor=organiser
    )
    url = f"{HOOKS}{hook.pk}/"
    # a body that is not JSON, an unknown query parameter, a missing field
    broken = client_for(organiser).post(HOOKS, "{", content_type="application/json")
    assert broken.status_code == 400 and broken.json()["code"] == "parse_error"
    assert call(organiser, "get", f"{HOOKS}?foo=1").status_code == 400
    assert call(organiser, "get", f"{url}deliveries/?page_size=0").status_code == 400
    missing = call(organiser, "post", HOOKS, {"tournament": tournament.slug})
    assert missing.status_code == 422 and "url" in missing.json()["fields"]
    # a switched-off webhook is not pinged
    assert call(organiser, "patch", url, {"is_active": False}).json()["is_active"] is False
    pinged = call(organiser, "post", f"{url}ping/")
    assert pinged.status_code == 409 and pinged.json()["code"] == "wrong_status"
    assert not WebhookDelivery.objects.exists()
    # a key used for another request
    assert call(organiser, "post", f"{url}rotate-secret/", key="k").status_code == 200
    reused = call(organiser, "post", f"{url}ping/", key="k")
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    # created switched off
    off = call(
        organiser,
        "post",
        HOOKS,
        {"tournament": tournament.slug, "url": "https://example.com/2", "is_active": False},
    )
    assert off.status_code == 201 and off.json()["is_active"] is False
