"""The account's API tokens page (``accounts/tokens/``): its form's expiry, the revoke page's
question, every control labelled, and the profile's link to it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import ApiToken
from tests.factories import UserFactory
from tournaments.services.tokens import api_token_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in() -> tuple[User, Client]:
    user = UserFactory.create(username="tokens-page")
    client = Client()
    client.force_login(user)
    return user, client


def test_an_expiry_chosen_in_the_form_is_kept(signed_in: tuple[User, Client]) -> None:
    user, client = signed_in
    before = timezone.now()
    client.post(reverse("api-tokens"), {"name": "month", "scope": "read", "expires": "30"})
    token = ApiToken.objects.get(user=user)
    assert token.scope == "read"
    assert token.expires_at is not None
    assert dt.timedelta(days=30) <= token.expires_at - before < dt.timedelta(days=30, minutes=1)


def test_an_unknown_expiry_is_refused(signed_in: tuple[User, Client]) -> None:
    _, client = signed_in
    answer = client.post(reverse("api-tokens"), {"name": "x", "scope": "read", "expires": "9"})
    assert answer.status_code == 200 and not ApiToken.objects.exists()


def test_the_revoke_page_asks_in_russian_and_keeps_a_way_back(
    signed_in: tuple[User, Client],
) -> None:
    user, client = signed_in
    token = api_token_create(actor=user, name="оверлей", scope="read").token
    html = client.get(
        reverse("api-token-revoke", args=[token.pk]), headers={"Accept-Language": "ru"}
    ).content.decode()
    assert "Отозвать токен «оверлей»?" in html
    assert 'method="post"' in html and "csrfmiddlewaretoken" in html
    assert reverse("api-tokens") in html
    token.refresh_from_db()
    assert token.revoked_at is None  # asking revokes nothing


def test_every_control_of_the_form_has_a_label(signed_in: tuple[User, Client]) -> None:
    _, client = signed_in
    html = client.get(reverse("api-tokens")).content.decode()
    for control in ("id_name", "id_scope_0", "id_scope_1", "id_expires"):
        assert f'for="{control}"' in html, control
    assert 'name="viewport"' in html


def test_the_profile_links_to_the_tokens(signed_in: tuple[User, Client]) -> None:
    _, client = signed_in
    assert reverse("api-tokens") in client.get(reverse("profile")).content.decode()
