"""The referee panel: staff only; every page renders; a game's secret seed is never shown."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from games import services as game_services
from tests.factories import PlayerFactory


@pytest.mark.django_db
def test_an_outsider_is_sent_to_the_login(client: Client, outsider: Any) -> None:
    client.force_login(outsider)
    response = client.get(reverse("admin:tournaments_tournament_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.django_db
def test_every_registered_page_renders_for_a_referee(client: Client, referee: Any) -> None:
    client.force_login(referee)
    for model in admin.site._registry:
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_the_game_page_never_shows_the_seed(client: Client, referee: Any) -> None:
    players = PlayerFactory.create_batch(2)
    game = game_services.game_create(
        rules={}, players=[p.pk for p in players], seed="tajna-sekretnaya-7"
    )
    client.force_login(referee)
    page = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert game.seed_commitment in page
    assert "tajna-sekretnaya-7" not in page
