"""``Idempotency-Key`` on every write, the write throttle, and the writes' documentation.

The race test needs PostgreSQL (two connections that really wait for each other on the key's
unique index); SQLite serialises writers anyway.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache as default_cache
from django.db import connections
from django.urls import URLPattern
from django.utils import timezone

from tests.api.test_writes import (
    WRITES,
    Events,
    Write,
    client_for,
    error_code,
    own_throttle_history,
    post,
)
from tournaments.api import writes
from tournaments.api.common import ApiUserThrottle, ApiWriteThrottle
from tournaments.models import AuditEvent, Entry, IdempotentRequest
from tournaments.services.idempotency import idempotency_expire
from tournaments.services.registration import entry_check_in

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse as Answer

pytestmark = pytest.mark.django_db

__all__ = ["own_throttle_history"]  # the autouse fixture, imported to apply here too

KEY = "3f2b6c1e-0d7a-4c58-9b1e-5a0f1d2c3b4a"


def check_in_url(events: Events, n: int = 1) -> str:
    return f"/api/v1/entries/{events[0].entries[n].pk}/check-in/"


def withdraw_url(events: Events, n: int = 0) -> str:
    return f"/api/v1/entries/{events[0].entries[n].pk}/withdraw/"


def audits(action: str) -> int:
    return AuditEvent.objects.filter(action=action).count()


def test_every_write_is_listed() -> None:
    # the table of writes below covers every write route (a new one must join it)
    names = {p.name for p in writes.urlpatterns if isinstance(p, URLPattern)}
    assert len(names) == len(WRITES) == 7


@pytest.mark.parametrize("write", WRITES, ids=str)
def test_every_write_honours_the_key(
    write: Write, console_events: Events, superuser: User, organiser: User
) -> None:
    # given: a write done once with a key
    url, body = write.prepare(console_events[0], superuser)
    first = post(organiser, url, body, key=KEY)
    assert first.status_code == write.ok, first.json()
    assert "Idempotent-Replayed" not in first
    rows = AuditEvent.objects.count()
    # when: the same request again with the same key
    again = post(organiser, url, body, key=KEY)
    # then: the stored answer, replayed, and nothing written twice
    assert again.status_code == write.ok
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert AuditEvent.objects.count() == rows


def test_a_replay_gets_the_same_answer_and_changes_nothing(
    console_events: Events, event_referee: User
) -> None:
    # given: a withdrawal with a key
    url = withdraw_url(console_events)
    first = post(event_referee, url, {"reason": "ill"}, key=KEY)
    assert first.status_code == 200
    assert "Idempotent-Replayed" not in first
    # when: the same request again (the client never saw the answer)
    again = post(event_referee, url, {"reason": "ill"}, key=KEY)
    # then
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert audits(AuditEvent.Action.ENTRY_WITHDRAW) == 1
    stored = IdempotentRequest.objects.get(user=event_referee, key=KEY)
    assert (stored.method, stored.path, stored.status_code) == ("POST", url, 200)
    assert stored.response == first.json()


def test_the_body_is_compared_as_json_not_as_bytes(
    console_events: Events, event_referee: User
) -> None:
    url = withdraw_url(console_events)
    client = client_for(event_referee)
    headers = {"Idempotency-Key": KEY}
    body = '{"reason": "ill", "extra": [1, 2]}'
    same = '{ "extra":[1,2],\n  "reason":"ill" }'
    first = client.post(url, body, content_type="application/json", headers=headers)
    again = client.post(url, same, content_type="application/json", headers=headers)
    assert first.status_code == again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(lambda events: (withdraw_url(events), {"reason": "sick"}), id="body"),
        pytest.param(lambda events: (withdraw_url(events, 2), {"reason": "ill"}), id="path"),
    ],
)
def test_the_same_key_for_another_request_is_422(
    console_events: Events,
    event_referee: User,
    other: Callable[[Events], tuple[str, dict[str, Any]]],
) -> None:
    post(event_referee, withdraw_url(console_events), {"reason": "ill"}, key=KEY)
    url, body = other(console_events)
    response = post(event_referee, url, body, key=KEY)
    assert response.status_code == 422
    assert error_code(response) == "idempotency_key_reused"
    assert audits(AuditEvent.Action.ENTRY_WITHDRAW) == 1
    assert Entry.objects.filter(status=Entry.Status.WITHDRAWN).count() == 1


def test_keys_are_per_caller(console_events: Events, event_referee: User, organiser: User) -> None:
    first = post(event_referee, check_in_url(console_events, 1), key=KEY)
    second = post(organiser, check_in_url(console_events, 2), key=KEY)
    assert first.status_code == second.status_code == 200
    assert "Idempotent-Replayed" not in second
    assert audits(AuditEvent.Action.ENTRY_CHECK_IN) == 2


def test_without_the_header_nothing_is_kept(console_events: Events, event_referee: User) -> None:
    assert post(event_referee, check_in_url(console_events)).status_code == 200
    assert post(event_referee, check_in_url(console_events)).status_code == 409
    assert not IdempotentRequest.objects.exists()


def test_a_refusal_is_kept_and_replayed(console_events: Events, event_referee: User) -> None:
    url = check_in_url(console_events)
    assert post(event_referee, url).status_code == 200  # checked in, without a key
    refused = post(event_referee, url, key=KEY)
    assert refused.status_code == 409 and error_code(refused) == "wrong_status"
    again = post(event_referee, url, key=KEY)
    assert again.status_code == 409
    assert again.json() == refused.json()
    assert again["Idempotent-Replayed"] == "true"


def test_a_422_is_not_kept_so_the_corrected_request_may_reuse_the_key(
    console_events: Events, event_referee: User
) -> None:
    url = withdraw_url(console_events)
    invalid = post(event_referee, url, {}, key=KEY)
    assert invalid.status_code == 422
    assert not IdempotentRequest.objects.exists()
    fixed = post(event_referee, url, {"reason": "ill"}, key=KEY)
    assert fixed.status_code == 200
    assert "Idempotent-Replayed" not in fixed


@pytest.mark.parametrize("key", ["", "x" * 101, "ключ", "a\tb"])
def test_a_malformed_key_is_400(console_events: Events, event_referee: User, key: str) -> None:
    response = post(event_referee, check_in_url(console_events), key=key)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["fields"]
    assert audits(AuditEvent.Action.ENTRY_CHECK_IN) == 0


def test_anonymous_callers_are_401_before_the_key_is_looked_at(console_events: Events) -> None:
    response = post(None, check_in_url(console_events), key=KEY)
    assert response.status_code == 401
    assert not IdempotentRequest.objects.exists()


# --- the race: two requests with one key at the same time -----------------------------------------


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="two connections racing need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_requests_with_one_key_execute_once(
    console_events: Events, event_referee: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given: a check-in that takes a while, so that the second request arrives meanwhile
    calls: list[int] = []

    def slow_check_in(*, entry: Entry, actor: Any = None) -> Entry:
        calls.append(entry.pk)
        done = entry_check_in(entry=entry, actor=actor)
        time.sleep(0.5)
        return done

    monkeypatch.setattr(writes, "entry_check_in", slow_check_in)
    url = check_in_url(console_events)
    start = threading.Barrier(2)
    answers: list[Answer] = []

    def request() -> None:
        try:
            start.wait()
            answers.append(post(event_referee, url, key=KEY))
        finally:
            connections.close_all()

    # when
    threads = [threading.Thread(target=request) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    # then: one ran the service, the other waited for its commit and replayed its answer
    assert len(calls) == 1
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()
    assert sorted(a.get("Idempotent-Replayed", "") for a in answers) == ["", "true"]
    assert audits(AuditEvent.Action.ENTRY_CHECK_IN) == 1
    assert IdempotentRequest.objects.filter(key=KEY).count() == 1


# --- the write throttle ---------------------------------------------------------------------------


def test_writes_over_the_rate_get_429_with_retry_after(
    console_events: Events, event_referee: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given: the real shared cache (Redis on PostgreSQL runs), this caller's history forgotten,
    # and a write rate of 2 a minute (DRF reads the rates once, at import: patched here)
    for throttle in (ApiUserThrottle, ApiWriteThrottle):
        monkeypatch.setattr(throttle, "cache", default_cache)
    default_cache.delete_many(
        [f"throttle_{scope}_{event_referee.pk}" for scope in ("user", "write")]
    )
    monkeypatch.setattr(
        ApiWriteThrottle, "THROTTLE_RATES", {**ApiWriteThrottle.THROTTLE_RATES, "write": "2/min"}
    )
    # when
    answers = [post(event_referee, check_in_url(console_events, n)) for n in (1, 2, 3)]
    # then
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert error_code(answers[2]) == "throttled"
    assert 0 < int(answers[2]["Retry-After"]) <= 60
    assert audits(AuditEvent.Action.ENTRY_CHECK_IN) == 2
    default_cache.delete_many(
        [f"throttle_{scope}_{event_referee.pk}" for scope in ("user", "write")]
    )


# --- the documentation ----------------------------------------------------------------------------


def test_every_write_is_documented_with_its_refusals_and_the_key(client: Any) -> None:
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = response.json()
    operations = {
        op["operationId"]: op
        for item in schema["paths"].values()
        for method, op in item.items()
        if method == "post"
    }
    expected = {
        "entries_register": ("201", True),
        "entries_withdraw": ("200", True),
        "entries_check_in": ("200", False),
        "tables_result_enter": ("201", True),
        "results_confirm": ("200", False),
        "results_reject": ("200", True),
        "rounds_request_pairing": ("202", False),
    }
    for operation_id, (success, has_body) in expected.items():
        op = operations[operation_id]
        # (a body that is not JSON: 415, for the operations that take one)
        assert set(op["responses"]) == {
            success,
            "400",
            "401",
            "403",
            "404",
            "409",
            "422",
            "429",
            "503",
        } | ({"415"} if has_body else set())
        assert any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in op["parameters"])
        assert {"tokenAuth": []} in op["security"]
        assert {} not in op["security"]  # no anonymous writes
        if has_body:
            assert op["requestBody"]["content"]["application/json"]["examples"]


def test_the_daily_job_forgets_answers_older_than_a_day(referee: User) -> None:
    # given an answer of two days ago and one of now
    old = IdempotentRequest.objects.create(
        user=referee, key="old", method="POST", path="/x/", body_sha256="0" * 64, status_code=200
    )
    IdempotentRequest.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=2)
    )
    IdempotentRequest.objects.create(
        user=referee, key="new", method="POST", path="/x/", body_sha256="0" * 64, status_code=200
    )
    # when the job runs
    assert idempotency_expire() == 1
    # then only the recent one is kept
    assert list(IdempotentRequest.objects.values_list("key", flat=True)) == ["new"]
