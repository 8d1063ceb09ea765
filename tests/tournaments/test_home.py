from __future__ import annotations

import pytest
from django.test import Client

from tournaments import services


@pytest.mark.django_db
def test_the_front_page_lists_public_tournaments_only(client: Client) -> None:
    stages = [{"format": "swiss", "table_size": 4, "rounds": 1}]
    public = services.tournament_create(name="Открытый кубок", stages=stages)
    services.tournament_open_registration(tournament=public)
    hidden = services.tournament_create(name="Закрытый клуб", stages=stages, is_public=False)
    services.tournament_open_registration(tournament=hidden)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Открытый кубок" in page and f"/tournaments/{public.slug}/" in page
    assert "Закрытый клуб" not in page
    assert "Открыта регистрация" in page
