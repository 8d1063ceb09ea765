"""Personal API tokens (issue #22): made and revoked by their owner on ``accounts/tokens/``,
taken by the API as ``Authorization: Token|Bearer <key>``; a ``read`` token refused on writes
(403 ``token_scope``), a revoked or expired one a 401; only the key's digest stored."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import uuid

import pytest
from django.contrib.auth.models import User
from django.core.cache.backends.locmem import LocMemCache
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import ApiToken
from games.services.tickets import socket_ticket_redeem_scoped
from games.tokens import TOUCH_EVERY, token_credentials
from tests.factories import UserFactory
from tournaments.api.common import ApiUserThrottle, ApiWriteThrottle
from tournaments.models import AuditEvent
from tournaments.selectors.tokens import MAX_LIVE_TOKENS
from tournaments.services.tokens import api_token_create

pytestmark = pytest.mark.django_db

PAGE = "/accounts/tokens/"
READ_URL = "/api/v1/tournaments/"
WRITE_URL = "/api/v1/socket-tickets/"  # a write any signed-in user may make
PLAN_URL = "/api/v1/plans/"  # an organiser's write


@pytest.fixture(autouse=True)
def own_throttle_history(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = LocMemCache(f"tokens-{uuid.uuid4()}", {})
    monkeypatch.setattr(ApiUserThrottle, "cache", cache)
    monkeypatch.setattr(ApiWriteThrottle, "cache", cache)


@pytest.fixture
def owner() -> User:
    return UserFactory.create(username="dev")


def browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make_on_page(client: Client, *, name: str = "overlay", scope: str = "write") -> str:
    """A token made through the page's form: the key the answer shows (once)."""
    response = client.post(PAGE, {"name": name, "scope": scope, "expires": ""})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]  # the key is in no cache
    found = re.search(r'id="token-key"[^>]*>(durak_[^<]+)</textarea>', response.content.decode())
    assert found, "the new key is shown"
    return found.group(1)


def api(key: str, scheme: str = "Bearer") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}", HTTP_ACCEPT_LANGUAGE="en")
    return client


def test_a_token_made_on_the_page_reads_and_writes_as_its_owner(owner: User) -> None:
    # given a token made on the page
    key = make_on_page(browser(owner), scope="write")
    token = ApiToken.objects.get(user=owner)
    # then only its digest is kept: no column holds the key
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key.startswith(token.prefix) and len(token.prefix) < len(key) // 2
    values = ApiToken.objects.filter(pk=token.pk).values().get()
    assert all(key not in str(value) for value in values.values())
    assert AuditEvent.objects.filter(
        action=AuditEvent.Action.TOKEN_CREATE, actor=owner, target_id=token.pk
    ).exists()
    # when it reads and writes under either scheme
    assert api(key).get(READ_URL).status_code == 200
    answer = api(key, "Token").post(WRITE_URL)
    assert answer.status_code == 201, answer.content
    # then it acted as its owner, and its use is recorded
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_read_token_reads_and_is_refused_a_write_with_its_code(organiser: User) -> None:
    read = make_on_page(browser(organiser), name="overlay", scope="read")
    write = make_on_page(browser(organiser), name="console script", scope="write")
    assert api(read).get(READ_URL).status_code == 200
    # an organiser's write: the write token passes the gate (an empty plan: 422)
    assert api(write).post(PLAN_URL, {}, format="json").status_code == 422
    answer = api(read).post(PLAN_URL, {}, format="json")
    assert answer.status_code == 403
    assert answer.json()["code"] == "token_scope"
    assert "write scope" in answer.json()["message"]
    for method in ("put", "patch", "delete"):
        assert getattr(api(read), method)(PLAN_URL).json()["code"] == "token_scope"
    # in the request's language
    russian = APIClient()
    russian.credentials(HTTP_AUTHORIZATION=f"Bearer {read}", HTTP_ACCEPT_LANGUAGE="ru")
    assert russian.post(PLAN_URL, {}, format="json").json()["message"] != answer.json()["message"]


def test_a_read_tokens_socket_ticket_only_watches(owner: User) -> None:
    read = make_on_page(browser(owner), scope="read")
    answer = api(read).post(WRITE_URL)
    assert answer.status_code == 201
    assert socket_ticket_redeem_scoped(ticket=answer.json()["ticket"]) == (owner.pk, "read")
    write = make_on_page(browser(owner), scope="write")
    answer = api(write).post(WRITE_URL)
    assert socket_ticket_redeem_scoped(ticket=answer.json()["ticket"]) == (owner.pk, "write")


def test_a_revoked_token_is_a_401_and_another_user_cannot_revoke_mine(owner: User) -> None:
    page = browser(owner)
    key = make_on_page(page)
    token = ApiToken.objects.get(user=owner)
    revoke = reverse("api-token-revoke", args=[token.pk])
    # another user: my token does not exist for them
    stranger = browser(UserFactory.create(username="stranger"))
    assert stranger.get(revoke).status_code == 404
    assert stranger.post(revoke).status_code == 404
    assert api(key).post(WRITE_URL).status_code == 201
    # the owner asks first, then revokes
    asked = page.get(revoke)
    assert asked.status_code == 200 and token.prefix in asked.content.decode()
    assert page.post(revoke).status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    for client in (api(key), api(key, "Token")):
        answer = client.get(READ_URL)
        assert answer.status_code == 401
        assert answer.json()["code"] == "authentication_failed"
        assert "revoked" in answer.json()["message"]
    assert (
        AuditEvent.objects.filter(action=AuditEvent.Action.TOKEN_REVOKE, actor=owner).count() == 1
    )
    # a second revoke changes nothing
    assert page.post(revoke).status_code == 302
    assert AuditEvent.objects.filter(action=AuditEvent.Action.TOKEN_REVOKE).count() == 1


def test_the_key_is_never_shown_again(owner: User) -> None:
    page = browser(owner)
    key = make_on_page(page, name="my bot")
    listing = page.get(PAGE).content.decode()
    assert "my bot" in listing
    assert ApiToken.objects.get(user=owner).prefix in listing
    assert key not in listing
    assert key[len("durak_") + 6 :] not in listing


def test_an_expired_token_is_a_401(owner: User) -> None:
    created = _create(owner, expires_at=timezone.now() + dt.timedelta(days=1))
    assert api(created).get(READ_URL).status_code == 200
    ApiToken.objects.filter(user=owner).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    answer = api(created).get(READ_URL)
    assert answer.status_code == 401 and "expired" in answer.json()["message"]


def test_an_unknown_personal_key_is_a_401(owner: User) -> None:
    answer = api("durak_" + "x" * 40).get(READ_URL)
    assert answer.status_code == 401 and answer.json()["code"] == "authentication_failed"


def test_the_consoles_drf_tokens_still_work_with_the_write_scope(owner: User) -> None:
    legacy = Token.objects.create(user=owner)
    assert api(legacy.key).post(WRITE_URL).status_code == 201
    assert api(legacy.key, "Token").get(READ_URL).status_code == 200


def test_last_used_is_written_at_most_once_a_minute(owner: User) -> None:
    key = _create(owner)
    now = timezone.now()
    token_credentials(key, now=now)
    token_credentials(key, now=now + TOUCH_EVERY / 2)
    assert ApiToken.objects.get(user=owner).last_used_at == now
    later = now + TOUCH_EVERY + dt.timedelta(seconds=1)
    token_credentials(key, now=later)
    assert ApiToken.objects.get(user=owner).last_used_at == later


def test_the_number_of_working_tokens_is_limited_with_a_clear_error(owner: User) -> None:
    for number in range(MAX_LIVE_TOKENS):
        _create(owner, name=f"t{number}")
    answer = browser(owner).post(
        PAGE, {"name": "one more", "scope": "read"}, headers={"Accept-Language": "en"}
    )
    assert answer.status_code == 200
    refusal = f"you have {MAX_LIVE_TOKENS} working tokens, the most allowed"
    assert refusal in answer.content.decode()
    assert ApiToken.objects.filter(user=owner).count() == MAX_LIVE_TOKENS
    # a revoked one frees a place
    first = ApiToken.objects.filter(user=owner).first()
    assert first is not None
    browser(owner).post(reverse("api-token-revoke", args=[first.pk]))
    assert (
        "durak_"
        in browser(owner).post(PAGE, {"name": "one more", "scope": "read"}).content.decode()
    )


def test_the_form_refuses_a_token_without_a_name(owner: User) -> None:
    answer = browser(owner).post(PAGE, {"name": " ", "scope": "read"})
    assert answer.status_code == 200 and 'id="token-key"' not in answer.content.decode()
    assert not ApiToken.objects.exists()


def test_the_page_is_for_the_signed_in_only(client: Client) -> None:
    answer = client.get(PAGE)
    assert answer.status_code == 302 and answer["Location"].startswith(reverse("login"))
    answer = client.post(PAGE, {"name": "x", "scope": "write"})
    assert answer.status_code == 302 and not ApiToken.objects.exists()


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_page_speaks_the_readers_language(owner: User, language: str) -> None:
    page = browser(owner)
    _create(owner, name="overlay")
    html = page.get(PAGE, headers={"Accept-Language": language}).content.decode()
    title = {"en": "API tokens", "ru": "API-токены"}[language]
    assert f'<h1 id="tokens-title">{title}</h1>' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert reverse("api-token-revoke", args=[ApiToken.objects.get().pk]) in html


def _create(user: User, *, name: str = "t", expires_at: dt.datetime | None = None) -> str:
    return api_token_create(actor=user, name=name, scope="write", expires_at=expires_at).key
