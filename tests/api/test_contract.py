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
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.response import Response

from durak_site.errors import ServiceError
from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle, ApiWriteThrottle
from tournaments.api.contract import (
    ERROR_CODES,
    RATE_LIMIT_HEADERS,
    ContractView,
    UndeclaredErrorCode,
    check_error_code,
    is_idempotent,
    operation_errors,
    refuses,
)
from tournaments.api.openapi_links import LINKS, operations_by_id
from tournaments.api.tickets import SocketTicketView
from tournaments.models import Table, Tournament

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


def test_every_read_has_an_etag_and_honours_the_conditional_headers(
    client: Client, public_event: Tournament
) -> None:
    """Every GET operation of the schema that this event fills (its lists, its tournament's
    reads): an ETag and 304 for it, and where Last-Modified is sent, 304 for it too."""
    entry = public_event.entries.select_related("player").first()
    assert entry is not None and entry.player is not None
    values = {"slug": public_event.slug, "order": "1", "number": "1"}
    values["player_id"] = str(entry.player.pk)
    table = Table.objects.filter(round__stage__tournament=public_event).first()
    values["id"] = values["table_id"] = str(table.pk if table else 0)  # 0: a 404, skipped
    dated = tagged = 0
    for method, path, _ in operations(generated_schema()):
        if method != "get" or {"game_id", "team_id"} & set(re.findall(r"\{(\w+)\}", path)):
            continue
        if path.endswith("/stream/") or path.startswith(API + "webhooks/"):
            continue  # an NDJSON stream, not a conditional read; a webhook: its organiser's
        url = path.format(**values)
        first = client.get(url)
        if first.status_code == 404:
            continue  # (a round not paired yet)
        assert first.status_code == 200, url
        etag = first["ETag"]
        tagged += 1
        assert client.get(url, headers={"if-none-match": etag}).status_code == 304, url
        if first.has_header("Last-Modified"):
            dated += 1
            since = {"if-modified-since": first["Last-Modified"]}
            assert client.get(url, headers=since).status_code == 304, url
            both = {**since, "if-none-match": 'W/"other"'}
            assert client.get(url, headers=both).status_code == 200, url
    assert tagged >= 12 and dated >= 6, (tagged, dated)


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
            "access-control-request-headers": (
                "if-none-match, if-modified-since, idempotency-key, authorization, accept-language"
            ),
        },
    )
    allowed = preflight["Access-Control-Allow-Headers"].lower()
    for header in (
        "if-none-match",
        "if-modified-since",
        "idempotency-key",
        "authorization",
        "accept-language",
    ):
        assert header in allowed
    exposed = client.get(API + "tournaments/", headers=origin)["Access-Control-Expose-Headers"]
    for header in (
        "ETag",
        "Last-Modified",
        "Retry-After",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Idempotent-Replayed",
    ):
        assert header in exposed


# --- the index ------------------------------------------------------------------------------------


def test_the_index_links_every_collection_the_schema_and_the_docs(client: Client) -> None:
    response = client.get(API)
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Durak tournaments API"
    assert body["version"] == "1"
    assert body["links"]["tournaments"] == "/api/v1/tournaments/"  # a path, as every link
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


def error_enum(schema: dict[str, Any], response: dict[str, Any]) -> list[str]:
    """The ``code`` enum of an error response: ``allOf`` [Error, {code: {enum}}]."""
    parts = response["content"]["application/json"]["schema"]["allOf"]
    assert component(schema, parts[0]["$ref"])["required"] == ["code", "message"]
    enum: list[str] = parts[1]["properties"]["code"]["enum"]
    return enum


def generated_schema() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    return schema


def test_every_operation_declares_its_error_codes_and_its_headers() -> None:
    schema = generated_schema()
    for method, path, operation in operations(schema):
        where = f"{method.upper()} {path}"
        view = operation_view(path, method)
        responses = operation["responses"]
        taken = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        throttled = bool(view.throttle_classes)
        assert {"400", "503"} <= set(responses), where
        assert ("429" in responses) == throttled, where
        for status, response in responses.items():
            headers = response.get("headers", {})
            if throttled:
                assert set(RATE_LIMIT_HEADERS) <= set(headers), (where, status)
            if int(status) < 400:
                continue
            codes = error_enum(schema, response)
            # each code of the operation's enum is one of the API's, for that status
            assert codes and set(codes) <= set(ERROR_CODES[int(status)]), (where, status, codes)
        assert "invalid_parameters" in error_enum(schema, responses["400"]), where
        assert error_enum(schema, responses["503"]) == ["unavailable"], where
        for status in ("429", "503"):
            if status in responses:
                assert responses[status]["headers"]["Retry-After"]["required"], where
        assert "Accept-Language" in taken, where
        if "{" in path:
            assert error_enum(schema, responses["404"]) == ["not_found"], where
        if "requestBody" in operation:
            assert "parse_error" in error_enum(schema, responses["400"]), where
            assert "invalid" in error_enum(schema, responses["422"]), where
        else:
            assert "parse_error" not in error_enum(schema, responses["400"]), where
        if method == "get":
            assert responses["200"]["headers"]["ETag"]["required"], where
            assert "ETag" in responses["304"]["headers"], where
            assert {"If-None-Match", "If-Modified-Since"} <= taken, where
            assert "Idempotency-Key" not in taken, where
        if is_idempotent(view, method):
            assert "Idempotency-Key" in taken, where
            success = next(s for s in responses if s.startswith("2"))
            assert "Idempotent-Replayed" in responses[success]["headers"], where
            assert "idempotency_key_reused" in error_enum(schema, responses["422"]), where


def operation_view(path: str, method: str) -> type[Any]:
    # (the schema names a ``pk`` ``id``: the parameters' names are left out)
    def bare(where: str) -> str:
        return re.sub(r"\{[^}]+\}", "{}", where)

    for where, _, verb, callback in EndpointEnumerator().get_api_endpoints():  # type: ignore[no-untyped-call]
        if (bare(where), verb) == (bare(path), method.upper()):
            view: type[Any] = callback.cls
            return view
    raise LookupError(path)


def test_an_operation_shows_only_its_own_codes() -> None:
    schema = generated_schema()
    paths = schema["paths"]
    anonymous_read = paths["/api/v1/tournaments/"]["get"]["responses"]
    # a read: no body, no login needed; a wrong token is still refused
    assert error_enum(schema, anonymous_read["400"]) == ["invalid_parameters"]
    assert error_enum(schema, anonymous_read["401"]) == ["authentication_failed"]
    assert not {"403", "404", "409", "422"} & set(anonymous_read)
    register = paths["/api/v1/tournaments/{slug}/entries/"]["post"]["responses"]
    assert set(error_enum(schema, register["409"])) == {
        "registration_refused",
        "own_event",
        "idempotency_key_in_use",
    }
    withdraw = paths["/api/v1/entries/{id}/withdraw/"]["post"]["responses"]
    assert set(error_enum(schema, withdraw["409"])) == {"wrong_status", "idempotency_key_in_use"}
    check_in = paths["/api/v1/entries/{id}/check-in/"]["post"]["responses"]
    assert "parse_error" not in error_enum(schema, check_in["400"])  # it takes no body


class WithItsOwnCodes(ContractView):
    """A view written with nothing but a declaration: the schema derives the rest."""

    error_codes = {409: ("wrong_status",)}

    @refuses({422: ("invalid_result",)})
    def post(self, request: Any) -> Any:  # pragma: no cover - never called
        raise NotImplementedError


def test_a_new_view_gets_the_derived_codes_and_adds_its_own() -> None:
    errors = operation_errors(
        WithItsOwnCodes(), "post", path="/api/v1/things/{id}/", takes_body=True
    )
    assert errors[409] == ("wrong_status",)
    assert errors[422] == ("invalid", "invalid_result")
    assert errors[400] == ("invalid_parameters", "parse_error")
    assert errors[404] == ("not_found",)
    # a wrong token; the default permission refuses an anonymous write: 401 (the token's
    # authentication, first, sends its challenge)
    assert errors[401] == ("authentication_failed", "not_authenticated")
    # a read token on a write, the permission, the session's CSRF check
    assert errors[403] == ("token_scope", "permission_denied")
    assert errors[503] == ("unavailable",)


def test_a_refusal_an_operation_does_not_declare_fails_loudly(
    client: Client, organiser: User
) -> None:
    """The run-time half: what the tests provoke is checked against the schema (the write
    tests' refusals, the fuzzer's). A view raising a code it does not declare is an error
    naming what to add."""
    client.force_login(organiser)
    with pytest.raises(UndeclaredErrorCode, match=r"error_codes = \{409: \('conflict',\)\}"):
        check_error_code(
            SocketTicketView(),
            RequestFactory().post("/api/v1/socket-tickets/"),  # type: ignore[arg-type]
            Response({"code": "conflict", "message": "no"}, status=409),
        )


def test_every_declared_code_is_one_of_the_apis() -> None:
    for view in _api_views(get_resolver().url_patterns):
        declared = [getattr(view, "error_codes", {})] + [
            getattr(getattr(view, m, None), "error_codes", {})
            for m in ("get", "post", "put", "patch", "delete")
        ]
        for codes in declared:
            for status, names in codes.items():
                assert set(names) <= set(ERROR_CODES[status]), (view, status, names)


def test_the_schemas_links_name_operations_and_parameters_that_exist() -> None:
    schema = generated_schema()
    by_id = operations_by_id(schema)
    components = schema["components"]["schemas"]
    for source, status, name, target, parameters in LINKS:
        where = (source, name)
        assert source in by_id and target in by_id, where
        link = by_id[source]["responses"][status]["links"][name]
        assert link["operationId"] == target, where
        taken = {p["name"] for p in by_id[target].get("parameters", []) if p["in"] == "path"}
        assert set(parameters) == taken, where  # every path parameter, and only those
        for expression in parameters.values():
            if expression.startswith("$request.path."):
                wanted = expression.removeprefix("$request.path.")
                mine = {p["name"] for p in by_id[source].get("parameters", []) if p["in"] == "path"}
                assert wanted in mine, where
            else:
                # the pointer follows the answer's schema, down to a property it has
                node = by_id[source]["responses"][status]["content"]["application/json"]["schema"]
                for step in expression.removeprefix("$response.body#/").split("/"):
                    while "$ref" in node or "allOf" in node:
                        node = components[
                            (node.get("$ref") or node["allOf"][0]["$ref"]).rsplit("/", 1)[1]
                        ]
                    node = node["items"] if step.isdigit() else node["properties"][step]
                assert node.get("type") in ("integer", "string") or "$ref" not in node, where


def test_links_are_followed_as_a_client_would(client: Client, public_event: Tournament) -> None:
    """The tournament's list leads to its detail, which leads to its rounds and standings."""
    listing = client.get(API + "tournaments/")
    slug = listing.json()["results"][0]["slug"]
    detail = client.get(f"{API}tournaments/{slug}/")
    assert detail.status_code == 200
    order = detail.json()["stages"][0]["order"]
    assert client.get(f"{API}tournaments/{slug}/stages/{order}/rounds/").status_code == 200
    assert client.get(f"{API}tournaments/{slug}/standings/").status_code == 200


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
