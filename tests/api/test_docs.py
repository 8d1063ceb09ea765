"""The API's schema and its docs pages: served by us, with no CDN."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_schema_is_openapi_3(client: Client) -> None:
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Durak tournaments API"


@pytest.mark.parametrize("page", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_docs_pages_load_their_scripts_from_our_own_static_files(
    client: Client, page: str
) -> None:
    response = client.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    assert "drf_spectacular_sidecar" in html
    for cdn in ("cdn.jsdelivr.net", "unpkg.com", "cdnjs"):
        assert cdn not in html
