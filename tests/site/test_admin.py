"""The referee panel: staff only; every page renders; a game's secret seed is never shown."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from games.models import Game
from tests.builders import GAME_SEED


@pytest.mark.django_db
def test_an_outsider_is_sent_to_the_login(client: Client, outsider: User) -> None:
    client.force_login(outsider)
    response = client.get(reverse("admin:tournaments_tournament_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.django_db
def test_every_registered_page_renders_for_staff(client: Client, staff_user: User) -> None:
    client.force_login(staff_user)
    for model in admin.site._registry:
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_the_game_page_never_shows_the_seed(client: Client, staff_user: User, game: Game) -> None:
    client.force_login(staff_user)
    page = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert game.seed_commitment in page
    assert GAME_SEED not in page
