"""The API's ASGI front (``tournaments.api.front``): a current anonymous conditional GET of a
public tournament is answered 304 without Django, from the version published after each commit
(``tournaments.versions``); anything else goes to Django as before.

Driven in-process on the real ASGI application, with a counter between the front and Django. On
the embedded default the board is in memory; with ``REDIS_URL`` the same tests run on Redis.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.db import transaction
from rest_framework.throttling import SimpleRateThrottle

from durak_site.asgi import django_asgi_app
from tests.api.test_events import finished_event
from tests.builders import make_tournament
from tests.factories import BotPlayerFactory, UserFactory
from tournaments import versions
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle
from tournaments.api.front import NotModifiedFront, tournament_slug
from tournaments.models import Tournament
from tournaments.services.feed import tournament_changed

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Counted:
    """Django behind the front, counting the requests that reach it."""

    calls: list[str] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls.append(scope["path"])
        await django_asgi_app(scope, receive, send)


@pytest.fixture(autouse=True)
def _fresh_board(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A board of this test's own (in memory, or a fresh Redis client) and no throttling."""
    for throttle in (ApiAnonThrottle, ApiUserThrottle):
        monkeypatch.setattr(throttle, "allow_request", lambda self, request, view: True)
    versions.board.cache_clear()
    yield
    versions.board.cache_clear()


def call(app: Any, path: str, headers: dict[str, str] | None = None, method: str = "GET") -> Answer:
    """One HTTP request through ``app``, as the ASGI server would make it."""
    base, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": base,
        "raw_path": base.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"testserver")]
        + [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    sent: list[dict[str, Any]] = []
    requests = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive() -> dict[str, Any]:
        if requests:
            return requests.pop()
        await asyncio.Event().wait()  # the client stays until the answer is sent
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    return Answer(
        status=start["status"],
        headers={k.decode().lower(): v.decode() for k, v in start["headers"]},
        body=b"".join(m.get("body", b"") for m in sent[1:]),
    )


@pytest.fixture
def django() -> Counted:
    return Counted()


@pytest.fixture
def front(django: Counted) -> NotModifiedFront:
    return NotModifiedFront(django)


@pytest.fixture
def event() -> Tournament:
    return finished_event(8, name="Кубок фронта")


HEADERS = {"Accept-Language": "en", "Accept": "application/json", "Origin": "https://club.example"}


def test_a_current_etag_is_answered_before_django_with_djangos_headers(
    front: NotModifiedFront, django: Counted, event: Tournament
) -> None:
    url = f"/api/v1/tournaments/{event.slug}/standings/"
    # given Django's answer
    first = call(front, url, HEADERS)
    assert first.status == 200 and first.body
    assert "x-durak-stamp" not in first.headers  # the stamp never leaves the server
    # when the same request asks whether it changed
    again = call(front, url, {**HEADERS, "If-None-Match": first.headers["etag"]})
    # then the front answers, Django never sees it, and the headers are Django's
    assert again.status == 304 and again.body == b""
    assert django.calls == [url]
    for name in ("etag", "cache-control", "vary", "last-modified", "access-control-allow-origin"):
        assert again.headers[name] == first.headers[name], name
    assert "content-type" not in again.headers and "x-durak-stamp" not in again.headers
    # a HEAD is the same request
    head = call(front, url, {**HEADERS, "If-None-Match": first.headers["etag"]}, method="HEAD")
    assert head.status == 304 and len(django.calls) == 1


def test_a_change_makes_the_old_etag_go_to_django(
    front: NotModifiedFront, django: Counted, event: Tournament
) -> None:
    url = f"/api/v1/tournaments/{event.slug}/"
    first = call(front, url, HEADERS)
    etag = first.headers["etag"]
    assert call(front, url, {**HEADERS, "If-None-Match": etag}).status == 304
    # when a change commits (and publishes the new version)
    with transaction.atomic():
        tournament_changed(tournament_id=event.pk, event="tournament_updated")
    # then the old copy is stale: Django answers with the new body and a new ETag
    fresh = call(front, url, {**HEADERS, "If-None-Match": etag})
    assert fresh.status == 200 and fresh.headers["etag"] != etag
    assert len(django.calls) == 2
    # and the new ETag is answered by the front again
    assert call(front, url, {**HEADERS, "If-None-Match": fresh.headers["etag"]}).status == 304
    assert len(django.calls) == 2


def test_a_change_that_rolls_back_publishes_nothing(
    front: NotModifiedFront, django: Counted, event: Tournament
) -> None:
    url = f"/api/v1/tournaments/{event.slug}/"
    etag = call(front, url, HEADERS).headers["etag"]
    with pytest.raises(RuntimeError), transaction.atomic():
        tournament_changed(tournament_id=event.pk, event="tournament_updated")
        raise RuntimeError
    assert call(front, url, {**HEADERS, "If-None-Match": etag}).status == 304
    assert len(django.calls) == 1


@pytest.mark.parametrize(
    "other",
    [
        {"Accept-Language": "ru"},  # another language is another answer
        {"Origin": "https://other.example"},  # another CORS answer
        {"Accept": "text/html"},  # another format
        {"Authorization": "Token nope"},  # a caller Django must check
        {"Cookie": "sessionid=nope"},
    ],
)
def test_another_request_is_not_answered_from_this_ones_record(
    front: NotModifiedFront, django: Counted, event: Tournament, other: dict[str, str]
) -> None:
    url = f"/api/v1/tournaments/{event.slug}/standings/"
    etag = call(front, url, HEADERS).headers["etag"]
    call(front, url, {**HEADERS, **other, "If-None-Match": etag})
    assert len(django.calls) == 2


def test_a_private_tournament_is_always_djangos(
    front: NotModifiedFront, django: Counted, client: Any
) -> None:
    hidden = make_tournament(BotPlayerFactory.create_batch(4), name="Свой", is_public=False)
    staff = UserFactory.create(is_superuser=True)
    client.force_login(staff)
    url = f"/api/v1/tournaments/{hidden.slug}/"
    # the private answer (Django's test client: the front is not in its path) carries no stamp
    answer = client.get(url)
    assert answer.status_code == 200 and "X-Durak-Stamp" not in answer
    # and an anonymous caller holding its ETag gets Django's 404, every time
    for _ in range(2):
        refused = call(front, url, {**HEADERS, "If-None-Match": answer["ETag"]})
        assert refused.status == 404
    assert len(django.calls) == 2


def test_without_if_none_match_or_for_a_write_django_answers(
    front: NotModifiedFront, django: Counted, event: Tournament
) -> None:
    url = f"/api/v1/tournaments/{event.slug}/"
    etag = call(front, url, HEADERS).headers["etag"]
    assert call(front, url, HEADERS).status == 200
    assert call(front, url, {**HEADERS, "If-None-Match": 'W/"other"'}).status == 200
    post = call(front, url, {**HEADERS, "If-None-Match": etag}, method="POST")
    assert post.status == 401  # Django refused it: an anonymous write (no credentials)
    assert len(django.calls) == 4


def test_a_board_that_cannot_be_read_falls_back_to_django(
    front: NotModifiedFront, django: Counted, event: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"/api/v1/tournaments/{event.slug}/"
    etag = call(front, url, HEADERS).headers["etag"]

    async def down(*args: Any) -> Any:
        raise ConnectionError("the board is down")

    monkeypatch.setattr(versions.board(), "lookup", down)
    monkeypatch.setattr(versions.board(), "remember", down)
    # Django's own conditional GET still answers 304 (and the answer is still sent)
    assert call(front, url, {**HEADERS, "If-None-Match": etag}).status == 304
    assert len(django.calls) == 2


def test_versions_only_grow_and_a_new_tournament_under_a_slug_replaces_the_old() -> None:
    async def published(slug: str) -> str | None:
        return (await board.lookup("none", slug))[1]

    board = versions.board()
    board.publish("kubok", 7, 5)
    board.publish("kubok", 7, 4)  # a late hook of an older commit
    assert asyncio.run(published("kubok")) == "7:5"
    board.publish("kubok", 9, 1)  # the slug given up and taken again
    assert asyncio.run(published("kubok")) == "9:1"


def test_only_tournament_reads_go_through_the_front() -> None:
    assert tournament_slug("/api/v1/tournaments/kubok/standings/") == "kubok"
    assert tournament_slug("/api/v1/tournaments/kubok/") == "kubok"
    assert tournament_slug("/api/v1/tournaments/") is None
    assert tournament_slug("/api/v1/players/3/") is None
    assert tournament_slug("/tournaments/kubok/") is None


def test_the_fronts_304_does_not_repeat_the_recorded_rate_limit(
    front: NotModifiedFront, django: Counted, event: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the anonymous throttle counting (in a cache of this test's own)
    monkeypatch.setattr(ApiAnonThrottle, "allow_request", SimpleRateThrottle.allow_request)
    monkeypatch.setattr(ApiAnonThrottle, "cache", LocMemCache(f"front-{uuid.uuid4()}", {}))
    url = f"/api/v1/tournaments/{event.slug}/"
    first = call(front, url, HEADERS)
    assert first.headers["ratelimit-remaining"].isdigit()
    # when the front answers the same request's revalidation
    again = call(front, url, {**HEADERS, "If-None-Match": first.headers["etag"]})
    # then it counts nothing, and says nothing of another answer's count
    assert again.status == 304 and django.calls == [url]
    assert not any(name.startswith("ratelimit-") for name in again.headers)


def test_the_overlays_live_call_is_answered_by_the_front_and_a_table_never_stamped(
    front: NotModifiedFront, django: Counted, event: Tournament
) -> None:
    # /live/ is a tournament read: its current ETag gets the front's 304
    url = f"/api/v1/tournaments/{event.slug}/live/"
    first = call(front, url, HEADERS)
    assert first.status == 200 and "x-durak-stamp" not in first.headers
    again = call(front, url, {**HEADERS, "If-None-Match": first.headers["etag"]})
    assert again.status == 304 and django.calls == [url]
    # a table is not under the tournament's path: Django answers it, and no stamp leaves
    table = event.stages.get(order=1).rounds.get(number=1).tables.first()
    assert table is not None
    answer = call(front, f"/api/v1/tables/{table.pk}/", HEADERS)
    assert answer.status == 200 and "x-durak-stamp" not in answer.headers
