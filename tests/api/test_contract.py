"""The API's contract: its language, its statuses, strict query parameters, the headers it sends
and takes (ETag and If-Modified-Since on every read, RateLimit, CORS, Bearer tokens), its index,
and a schema that declares all of it for every operation."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from email.utils import formatdate
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache.backends.locmem import LocMemCache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token

from durak_site.errors import ServiceError
from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle, ApiWriteThrottle
from tournaments.api.contract import ERROR_CODES, ContractView
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

API = "/api/v1/"
CYRILLIC = re.compile("[а-яА-ЯёЁ]")
LATIN_WORD = re.compile("[a-zA-Z]{2,}")


@pytest.fixture(autouse=True)
def own_throttle_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts its own requests (the test client's address repeats)."""
    cache = LocMemCache(f"contract-{uuid.uuid4()}", {})
    for throttle in (ApiAnonThrottle, ApiUserThrottle, ApiWriteThrottle):
        monkeypatch.setattr(throttle, "cache", cache)


def anon_rate(monkeypatch: pytest.MonkeyPatch, rate: str) -> None:
    # DRF reads the rates once, at import: patched here
    rates = {**ApiAnonThrottle.THROTTLE_RATES, "anon": rate}
    monkeypatch.setattr(ApiAnonThrottle, "THROTTLE_RATES", rates)


@pytest.fixture
def public_event() -> Tournament:
    tournament = make_tournament(PlayerFactory.create_batch(4), name="Открытый кубок")
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.REGISTRATION)
    tournament.refresh_from_db()
    return tournament


# --- language -------------------------------------------------------------------------------------


def test_the_api_answers_in_english_whatever_the_sites_cookie_says(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"
    response = client.get(API + "no/such/thing/")
    assert response.status_code == 404
    assert response.json()["message"] == "There is no such endpoint or object."
    assert response["Content-Language"] == "en"


@pytest.mark.parametrize("header", ["ru", "ru-RU,ru;q=0.9,en;q=0.8", "de, ru;q=0.5"])
def test_accept_language_asks_for_russian(client: Client, header: str) -> None:
    response = client.get(API + "no/such/thing/", headers={"accept-language": header})
    assert response.json()["message"] == "Такого метода API или объекта нет."
    assert response["Content-Language"] == "ru"


def test_the_sites_pages_keep_russian_by_default(client: Client) -> None:
    assert client.get("/")["Content-Language"] == "ru"


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_throttled_answer_is_in_one_language_with_its_rate_headers(
    client: Client, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    anon_rate(monkeypatch, "1/min")
    headers = {"accept-language": language}
    assert client.get(API + "leagues/", headers=headers).status_code == 200
    response = client.get(API + "leagues/", headers=headers)
    assert response.status_code == 429
    body = response.json()
    assert body["code"] == "throttled"
    wait = int(response["Retry-After"])
    assert str(wait) in body["message"]
    if language == "en":
        assert body["message"].startswith("Too many requests") and not CYRILLIC.search(
            body["message"]
        )
    else:
        assert not LATIN_WORD.search(body["message"]), body["message"]
    assert response["RateLimit-Limit"] == "1"
    assert response["RateLimit-Remaining"] == "0"
    assert 0 < int(response["RateLimit-Reset"]) <= 60


def test_every_answer_of_a_throttled_view_says_what_is_left(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    anon_rate(monkeypatch, "5/min")
    first, second = client.get(API + "tournaments/"), client.get(API + "tournaments/")
    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) == ("5", "4")
    assert second["RateLimit-Remaining"] == "3"
    assert 0 < int(second["RateLimit-Reset"]) <= 60


# --- query parameters -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "name", "words"),
    [
        ("foo=bar", "foo", "unknown parameter"),
        ("ordering=-name", "ordering", "unknown parameter"),
        ("page_size=-1", "page_size", "at least 1"),
        ("page_size=0", "page_size", "at least 1"),
        ("page_size=abc", "page_size", "whole number"),
        ("page_size=1000000", "page_size", "at most 200"),
        ("status=nonsense", "status", "nonsense"),
        ("created_from=yesterday", "created_from", "date"),
        ("cursor=junk", "cursor", "cursor"),
    ],
)
def test_a_parameter_not_taken_or_a_bad_value_is_a_400_naming_it(
    client: Client, query: str, name: str, words: str
) -> None:
    response = client.get(f"{API}tournaments/?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_parameters"
    assert name in body["message"]
    assert list(body["fields"]) == [name]
    assert words.lower() in " ".join(body["fields"][name]).lower()


def test_a_known_value_is_taken(client: Client) -> None:
    assert client.get(f"{API}tournaments/?page_size=200&status=registration").status_code == 200


@pytest.mark.parametrize(
    "path",
    ["", "leagues/", "players/?page_size=0", "teams/", "tournaments/{slug}/", "games/1/"],
)
def test_every_operation_refuses_what_it_does_not_take(
    client: Client, public_event: Tournament, path: str
) -> None:
    url = API + path.format(slug=public_event.slug)
    response = client.get(url + ("&" if "?" in url else "?") + "foo=1")
    assert response.status_code == 400
    assert "foo" in response.json()["fields"]


def test_a_write_refuses_a_query_parameter(client: Client, organiser: User) -> None:
    client.force_login(organiser)
    response = client.post(API + "socket-tickets/?as=admin")
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["as"]


# --- statuses -------------------------------------------------------------------------------------


def test_a_second_registration_is_a_conflict_and_a_bad_body_unprocessable(
    client: Client, public_event: Tournament, superuser: User
) -> None:
    client.force_login(superuser)
    url = f"{API}tournaments/{public_event.slug}/entries/"
    entry = public_event.entries.select_related("player").first()
    assert entry is not None and entry.player is not None
    again = client.post(url, {"player": entry.player.pk}, content_type="application/json")
    assert (again.status_code, again.json()["code"]) == (409, "registration_refused")
    invalid = client.post(url, {"player": "one"}, content_type="application/json")
    assert (invalid.status_code, invalid.json()["code"]) == (422, "invalid")
    malformed = client.post(url, "{", content_type="application/json")
    assert (malformed.status_code, malformed.json()["code"]) == (400, "parse_error")


# --- conditional requests -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["tournaments/", "leagues/", "players/", "teams/", ""])
def test_every_list_has_an_etag_and_answers_304(
    client: Client, public_event: Tournament, path: str
) -> None:
    first = client.get(API + path)
    etag = first["ETag"]
    assert etag.startswith('W/"')
    again = client.get(API + path, headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag


def test_a_list_that_changed_is_sent_again(client: Client, public_event: Tournament) -> None:
    etag = client.get(API + "players/")["ETag"]
    PlayerFactory.create(display_name="Новенький")
    changed = client.get(API + "players/", headers={"if-none-match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_if_modified_since_is_answered(client: Client, public_event: Tournament) -> None:
    url = f"{API}tournaments/{public_event.slug}/"
    last_modified = client.get(url)["Last-Modified"]
    assert client.get(url, headers={"if-modified-since": last_modified}).status_code == 304
    earlier = formatdate(public_event.created_at.timestamp() - 3600, usegmt=True)
    assert client.get(url, headers={"if-modified-since": earlier}).status_code == 200
    # a matching date does not beat an ETag that does not match (RFC 9110)
    both = {"if-modified-since": last_modified, "if-none-match": 'W/"other"'}
    assert client.get(url, headers=both).status_code == 200
    assert client.get(url, headers={"if-modified-since": "yesterday"}).status_code == 200


# --- credentials and CORS -------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["Token", "Bearer", "bearer"])
def test_a_token_is_taken_as_token_or_bearer(client: Client, organiser: User, scheme: str) -> None:
    token = Token.objects.create(user=organiser)
    headers = {"authorization": f"{scheme} {token.key}"}
    assert client.post(API + "socket-tickets/", headers=headers).status_code == 201
    wrong = client.post(API + "socket-tickets/", headers={"authorization": f"{scheme} nope"})
    assert wrong.status_code == 401


def test_cors_lets_another_origin_revalidate_and_read_the_headers(client: Client) -> None:
    origin = {"origin": "https://overlay.example"}
    preflight = client.options(
        API + "tournaments/",
        headers={
            **origin,
            "access-control-request-method": "GET",
            "access-control-request-headers": "if-none-match, if-modified-since, idempotency-key",
        },
    )
    allowed = preflight["Access-Control-Allow-Headers"].lower()
    for header in ("if-none-match", "if-modified-since", "idempotency-key", "authorization"):
        assert header in allowed
    exposed = client.get(API + "tournaments/", headers=origin)["Access-Control-Expose-Headers"]
    for header in ("ETag", "Last-Modified", "Retry-After", "RateLimit-Remaining"):
        assert header in exposed


# --- the index ------------------------------------------------------------------------------------


def test_the_index_links_every_collection_the_schema_and_the_docs(client: Client) -> None:
    response = client.get(API)
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Durak tournaments API"
    assert body["version"] == "1"
    assert body["links"]["tournaments"] == "http://testserver/api/v1/tournaments/"
    for name in ("leagues", "players", "teams", "schema", "docs", "redoc"):
        assert client.get(body["links"][name]).status_code == 200, name


# --- the schema -----------------------------------------------------------------------------------


def operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield method, path, operation


def component(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    found: dict[str, Any] = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return found


def test_every_operation_declares_its_error_codes_and_its_headers() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    for method, path, operation in operations(schema):
        where = f"{method.upper()} {path}"
        responses = operation["responses"]
        assert {"400", "429", "503"} <= set(responses), where
        for status, response in responses.items():
            assert set(response["headers"]) >= {
                "RateLimit-Limit",
                "RateLimit-Remaining",
                "RateLimit-Reset",
            }, (where, status)
            if int(status) < 400:
                continue
            error = component(schema, response["content"]["application/json"]["schema"]["$ref"])
            code = error["properties"]["code"]
            codes = component(schema, code["allOf"][0]["$ref"]) if "allOf" in code else code
            assert codes["enum"] == list(ERROR_CODES[int(status)]), where
        for status in ("429", "503"):
            assert responses[status]["headers"]["Retry-After"]["required"], where
        taken = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        assert "Accept-Language" in taken, where
        if method == "get":
            assert responses["200"]["headers"]["ETag"]["required"], where
            assert "ETag" in responses["304"]["headers"], where
            assert {"If-None-Match", "If-Modified-Since"} <= taken, where
        elif operation["operationId"] != "socket_tickets_create":
            assert "Idempotency-Key" in taken, where
            success = next(s for s in responses if s.startswith("2"))
            assert "Idempotent-Replayed" in responses[success]["headers"], where


def _service_errors(cls: type[ServiceError]) -> Iterator[type[ServiceError]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _service_errors(sub)


def test_the_schemas_codes_list_every_refusal_of_the_services_the_api_calls() -> None:
    assert get_resolver().url_patterns  # every view, and so every service, imported
    for error in _service_errors(ServiceError):
        if error.__module__.startswith(("tournaments.", "durak_site.")) and error.api:
            assert error.code in ERROR_CODES[error.http_status], error


def _api_views(patterns: list[Any]) -> Iterator[type[Any]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _api_views(pattern.url_patterns)
        elif isinstance(pattern, URLPattern) and hasattr(pattern.callback, "cls"):
            yield pattern.callback.cls


def test_every_view_of_the_api_keeps_the_contract() -> None:
    api = next(
        p for p in get_resolver().url_patterns if isinstance(p, URLResolver) and "api" in str(p)
    )
    views = set(_api_views(api.url_patterns))
    mine = {view for view in views if view.__module__.startswith("tournaments.api")}
    assert len(mine) > 20
    assert all(issubclass(view, ContractView) for view in mine), mine
