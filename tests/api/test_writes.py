"""The API's writes (issue #11): each operation through the console's service, with its audit
row, its refusals in the error shape, and who may call it.

The ownership test runs every write for every persona on the console's events A (public, of
``organiser``, refereed by ``event_referee``) and B (made private here, of ``other_organiser``,
refereed by ``other_referee``): anonymous 401, no rights 403, B's objects 404 to A's referee,
A's organiser, A's referee (except registration: the organiser's) and a superuser succeed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from django.contrib.auth.models import User
from django.core.cache.backends.locmem import LocMemCache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Game
from tests.builders import ConsoleEvent
from tests.factories import PlayerFactory
from tournaments.api.common import ApiUserThrottle, ApiWriteThrottle
from tournaments.models import AuditEvent, Entry, Round, Table, TableResult, Tournament
from tournaments.services.corrections import table_result_enter

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse as Answer

pytestmark = pytest.mark.django_db

Events = tuple[ConsoleEvent, ConsoleEvent]


# --- helpers shared with test_writes_idempotency --------------------------------------------------


@pytest.fixture(autouse=True)
def own_throttle_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts its own writes: user ids repeat from test to test (rolled back on SQLite,
    and from run to run on a fresh PostgreSQL database) while the shared cache remembers them
    for a minute. The throttle test of the real cache says so itself."""
    cache = LocMemCache(f"writes-{uuid.uuid4()}", {})
    monkeypatch.setattr(ApiUserThrottle, "cache", cache)
    monkeypatch.setattr(ApiWriteThrottle, "cache", cache)


def client_for(user: User | None) -> APIClient:
    """An API client with ``user``'s token (none: anonymous)."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def post(
    user: User | None, url: str, body: dict[str, Any] | None = None, *, key: str | None = None
) -> Answer:
    headers = {"Idempotency-Key": key} if key is not None else None
    return client_for(user).post(url, body, format="json", headers=headers)


def playing_table(event: ConsoleEvent) -> Table:
    """Round 1's second table: seated, its game in play, no result yet."""
    return Table.objects.filter(round=event.round).order_by("number")[1]


def seated(table: Table) -> list[int]:
    return list(table.seats.order_by("position").values_list("entry_id", flat=True))


def result_body(table: Table, **extra: Any) -> dict[str, Any]:
    entries = seated(table)
    return {"places": entries, "fool": entries[-1], **extra}


def pending_result(event: ConsoleEvent, enterer: User) -> TableResult:
    """Under the two-person rule: ``enterer``'s result at the playing table, waiting."""
    Tournament.objects.filter(pk=event.tournament.pk).update(two_person_rule=True)
    table = playing_table(event)
    entries = seated(table)
    return table_result_enter(table=table, actor=enterer, places=entries, fool=entries[-1])


def pair_url(round_: Round) -> str:
    stage = round_.stage
    return (
        f"/api/v1/tournaments/{stage.tournament.slug}/stages/{stage.order}/rounds/"
        f"{round_.number}/pair/"
    )


def error_code(response: Answer) -> str:
    body = response.json()
    assert set(body) <= {"code", "message", "fields"} and body["message"]
    code: str = body["code"]
    return code


@pytest.fixture
def events(console_events: Events) -> Events:
    """The console's events, B private: invisible to A's people."""
    Tournament.objects.filter(pk=console_events[1].tournament.pk).update(is_public=False)
    return console_events


# --- every write, prepared on an event ------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """A write endpoint: ``prepare(event, enterer)`` gives its URL and body on ``event``
    (``enterer``: who entered the pending result a review needs); the status it answers."""

    name: str
    prepare: Callable[[ConsoleEvent, User], tuple[str, dict[str, Any] | None]]
    ok: int
    organisers_only: bool = False

    def __str__(self) -> str:
        return self.name


def _register(event: ConsoleEvent, enterer: User) -> tuple[str, dict[str, Any] | None]:
    # Late registration: open while fewer than 2 rounds of the first stage are paired.
    Tournament.objects.filter(pk=event.tournament.pk).update(late_registration_rounds=2)
    player = PlayerFactory.create()
    return f"/api/v1/tournaments/{event.tournament.slug}/entries/", {"player": player.pk}


def _withdraw(event: ConsoleEvent, enterer: User) -> tuple[str, dict[str, Any] | None]:
    return f"/api/v1/entries/{event.entries[0].pk}/withdraw/", {"reason": "left the venue"}


def _check_in(event: ConsoleEvent, enterer: User) -> tuple[str, dict[str, Any] | None]:
    return f"/api/v1/entries/{event.entries[1].pk}/check-in/", None


def _result(event: ConsoleEvent, enterer: User) -> tuple[str, dict[str, Any] | None]:
    table = playing_table(event)
    return f"/api/v1/tables/{table.pk}/result/", result_body(table)


def _confirm(event: ConsoleEvent, enterer: User) -> tuple[str, dict[str, Any] | None]:
    return f"/api/v1/results/{pending_result(event, enterer).pk}/confirm/", None


def _reject(event: ConsoleEvent, enterer: User) -> tuple[str, dict[str, Any] | None]:
    pending = pending_result(event, enterer)
    return f"/api/v1/results/{pending.pk}/reject/", {"note": "the fool was the other one"}


def _pair(event: ConsoleEvent, enterer: User) -> tuple[str, dict[str, Any] | None]:
    return pair_url(event.pending_round), None


WRITES = [
    Write("register", _register, 201, organisers_only=True),
    Write("withdraw", _withdraw, 200),
    Write("check-in", _check_in, 200),
    Write("result", _result, 201),
    Write("confirm", _confirm, 200),
    Write("reject", _reject, 200),
    Write("pair", _pair, 202),
]


@pytest.fixture
def persona(request: pytest.FixtureRequest) -> User:
    user: User = request.getfixturevalue(request.param)
    return user


@pytest.mark.parametrize("write", WRITES, ids=str)
def test_an_anonymous_caller_gets_401_with_the_token_scheme(
    write: Write, events: Events, superuser: User
) -> None:
    url, body = write.prepare(events[0], superuser)
    response = post(None, url, body)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
    assert error_code(response) == "not_authenticated"


@pytest.mark.parametrize("write", WRITES, ids=str)
@pytest.mark.parametrize("persona", ["outsider", "other_referee"], indirect=True)
def test_a_caller_without_rights_on_a_public_event_gets_403(
    write: Write, persona: User, events: Events, superuser: User
) -> None:
    url, body = write.prepare(events[0], superuser)
    audit_rows = AuditEvent.objects.count()
    response = post(persona, url, body)
    assert response.status_code == 403
    assert error_code(response) == "permission_denied"
    assert AuditEvent.objects.count() == audit_rows


def test_registering_is_the_organisers_not_a_referees(events: Events, event_referee: User) -> None:
    url, body = _register(events[0], event_referee)
    response = post(event_referee, url, body)
    assert response.status_code == 403
    assert body is not None
    assert not Entry.objects.filter(tournament=events[0].tournament, player=body["player"]).exists()


@pytest.mark.parametrize("write", WRITES, ids=str)
@pytest.mark.parametrize("persona", ["event_referee", "organiser"], indirect=True)
def test_the_objects_of_a_private_event_are_404_to_another_events_people(
    write: Write, persona: User, events: Events, superuser: User
) -> None:
    url, body = write.prepare(events[1], superuser)
    response = post(persona, url, body)
    assert response.status_code == 404
    assert error_code(response) == "not_found"


ALLOWED = [
    pytest.param(write, persona, id=f"{persona}-{write}")
    for write in WRITES
    for persona in ("organiser", "event_referee", "staff_user")
    if not (write.organisers_only and persona == "event_referee")
]


@pytest.mark.parametrize(("write", "persona"), ALLOWED, indirect=["persona"])
def test_the_events_organiser_its_referee_and_a_superuser_may(
    write: Write, persona: User, events: Events, superuser: User
) -> None:
    url, body = write.prepare(events[0], superuser)
    response = post(persona, url, body)
    assert response.status_code == write.ok, response.json()


def test_a_superuser_may_on_a_private_event(
    events: Events, staff_user: User, superuser: User
) -> None:
    url, body = _withdraw(events[1], superuser)
    assert post(staff_user, url, body).status_code == 200


# --- entries --------------------------------------------------------------------------------------


def test_registering_a_player_answers_the_entry_and_is_audited(
    events: Events, organiser: User
) -> None:
    # given
    event = events[0]
    url, body = _register(event, organiser)
    # when
    response = post(organiser, url, {**(body or {}), "paid": False})
    # then
    assert response.status_code == 201
    data = response.json()
    entry = Entry.objects.get(pk=data["id"])
    assert data == {
        "id": entry.pk,
        "tournament": event.tournament.slug,
        "name": entry.name,
        "player": entry.player_id,
        "team": None,
        "status": "registered",
        "status_reason": "",
        "paid": False,
    }
    # a late entry joins the first stage
    assert entry.stage_entries.count() == 1
    audit = AuditEvent.objects.get(action=AuditEvent.Action.ENTRY_REGISTER, target_id=entry.pk)
    assert audit.actor == organiser
    assert audit.after == {"status": "registered", "paid": False}


def test_registration_refusals_keep_the_error_shape(events: Events, organiser: User) -> None:
    event = events[0]
    url = f"/api/v1/tournaments/{event.tournament.slug}/entries/"
    player = PlayerFactory.create()
    # the event runs without late registration: a conflict with its state
    closed = post(organiser, url, {"player": player.pk})
    assert closed.status_code == 409
    assert error_code(closed) == "registration_refused"
    # a player and a team, or neither: readable, and invalid
    neither = post(organiser, url, {"paid": True})
    assert neither.status_code == 422 and error_code(neither) == "invalid"
    # no such player
    unknown = post(organiser, url, {"player": 10**9})
    assert unknown.status_code == 422
    assert "player" in unknown.json()["fields"]
    # not JSON
    garbage = client_for(organiser).post(url, "{oops", content_type="application/json")
    assert garbage.status_code == 400 and error_code(garbage) == "parse_error"
    assert not Entry.objects.filter(player=player).exists()


def test_an_unknown_tournament_is_404(organiser: User) -> None:
    response = post(organiser, "/api/v1/tournaments/no-such-event/entries/", {"player": 1})
    assert response.status_code == 404


def test_withdrawing_pauses_the_entrys_running_game_and_is_audited(
    events: Events, event_referee: User
) -> None:
    # given: the second table's game is in play; the event has no move clock, so the dropout
    # rule leaves the game for a referee
    event = events[0]
    table = playing_table(event)
    entry = Entry.objects.get(pk=seated(table)[0])
    game = Game.objects.get(table=table)
    assert game.status == Game.Status.ACTIVE
    # when
    response = post(
        event_referee, f"/api/v1/entries/{entry.pk}/withdraw/", {"reason": "  feels ill  "}
    )
    # then
    assert response.status_code == 200
    assert response.json()["status"] == "withdrawn"
    assert response.json()["status_reason"] == "feels ill"
    game.refresh_from_db()
    assert game.status == Game.Status.PAUSED
    audit = AuditEvent.objects.get(action=AuditEvent.Action.ENTRY_WITHDRAW, target_id=entry.pk)
    assert (audit.actor, audit.reason) == (event_referee, "feels ill")
    assert audit.before == {"status": "registered"} and audit.after == {"status": "withdrawn"}
    # again: the entry is withdrawn already
    again = post(event_referee, f"/api/v1/entries/{entry.pk}/withdraw/", {"reason": "twice"})
    assert again.status_code == 409 and error_code(again) == "wrong_status"


def test_withdrawing_needs_a_reason(events: Events, event_referee: User) -> None:
    entry = events[0].entries[0]
    response = post(event_referee, f"/api/v1/entries/{entry.pk}/withdraw/", {"reason": " "})
    assert response.status_code == 422
    assert "reason" in response.json()["fields"]
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_checking_in_once_then_409(events: Events, event_referee: User) -> None:
    entry = events[0].entries[1]
    url = f"/api/v1/entries/{entry.pk}/check-in/"
    first = post(event_referee, url)
    assert first.status_code == 200 and first.json()["status"] == "checked_in"
    assert AuditEvent.objects.filter(
        action=AuditEvent.Action.ENTRY_CHECK_IN, target_id=entry.pk, actor=event_referee
    ).exists()
    second = post(event_referee, url)
    assert second.status_code == 409 and error_code(second) == "wrong_status"


def test_an_unknown_entry_is_404(event_referee: User) -> None:
    assert post(event_referee, "/api/v1/entries/999999/check-in/").status_code == 404


# --- results --------------------------------------------------------------------------------------


def test_entering_a_tables_result_finishes_it(events: Events, event_referee: User) -> None:
    table = playing_table(events[0])
    body = result_body(
        table, pogony=[{"by": seated(table)[0], "on": [seated(table)[1]], "rank": "6"}]
    )
    response = post(event_referee, f"/api/v1/tables/{table.pk}/result/", body)
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["status"] == "confirmed" and data["source"] == "referee"
    assert data["places"] == body["places"] and data["fool"] == body["fool"]
    assert data["pogony"] == [{"by": body["places"][0], "on": [body["places"][1]], "rank": "6"}]
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESULT_ENTER).exists()


def test_a_correction_needs_a_reason_and_supersedes_the_result(
    events: Events, event_referee: User
) -> None:
    event = events[0]
    table = event.table  # finished by a referee's result
    entries = list(reversed(seated(table)))
    url = f"/api/v1/tables/{table.pk}/result/"
    refused = post(event_referee, url, {"places": entries, "fool": entries[-1]})
    assert refused.status_code == 422
    assert error_code(refused) == "invalid_result" and "reason" in refused.json()["fields"]
    response = post(
        event_referee, url, {"places": entries, "fool": entries[-1], "reason": "score sheet"}
    )
    assert response.status_code == 201
    assert response.json()["supersedes"] == event.result.pk
    assert response.json()["reason"] == "score sheet"
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESULT_CORRECT).exists()


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"places": [1, 2]}, "invalid_result"),  # not the table's entries
        ({"fool": None}, "invalid"),  # neither a fool nor a draw
        ({"drawn": [0]}, "invalid"),  # both
        ({"pogony": [{"by": 1, "on": [], "rank": "6"}]}, "invalid"),
        ({"pogony": [{"by": 1, "on": [2], "rank": "1"}]}, "invalid"),
    ],
)
def test_a_result_that_does_not_fit_is_422(
    events: Events, event_referee: User, change: dict[str, Any], code: str
) -> None:
    table = playing_table(events[0])
    response = post(
        event_referee, f"/api/v1/tables/{table.pk}/result/", result_body(table, **change)
    )
    assert response.status_code == 422
    assert error_code(response) == code
    assert not TableResult.objects.filter(table=table).exists()


def test_the_two_person_rule_over_the_api(
    events: Events, event_referee: User, organiser: User
) -> None:
    # given: the referee enters a result under the rule
    event = events[0]
    Tournament.objects.filter(pk=event.tournament.pk).update(two_person_rule=True)
    table = playing_table(event)
    entered = post(event_referee, f"/api/v1/tables/{table.pk}/result/", result_body(table))
    assert entered.status_code == 201 and entered.json()["status"] == "pending"
    pk = entered.json()["id"]
    # a second result waits for the first
    blocked = post(organiser, f"/api/v1/tables/{table.pk}/result/", result_body(table))
    assert blocked.status_code == 409 and error_code(blocked) == "wrong_status"
    # the enterer may not confirm its own result
    own = post(event_referee, f"/api/v1/results/{pk}/confirm/")
    assert own.status_code == 403 and error_code(own) == "forbidden"
    # the organiser confirms it
    confirmed = post(organiser, f"/api/v1/results/{pk}/confirm/")
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "confirmed"
    assert confirmed.json()["reviewed_at"]
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    # nothing left to review
    again = post(organiser, f"/api/v1/results/{pk}/reject/", {"note": "late"})
    assert again.status_code == 409 and error_code(again) == "wrong_status"


def test_rejecting_needs_a_note(events: Events, superuser: User, event_referee: User) -> None:
    pending = pending_result(events[0], superuser)
    url = f"/api/v1/results/{pending.pk}/reject/"
    missing = post(event_referee, url, {})
    assert missing.status_code == 422 and "note" in missing.json()["fields"]
    response = post(event_referee, url, {"note": "wrong fool"})
    assert response.status_code == 200
    assert response.json()["status"] == "rejected"
    assert response.json()["review_note"] == "wrong fool"
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESULT_REJECT).exists()


# --- pairing --------------------------------------------------------------------------------------


def test_requesting_pairing_answers_202_and_is_audited(
    events: Events, event_referee: User, django_capture_on_commit_callbacks: Any
) -> None:
    event = events[0]
    with django_capture_on_commit_callbacks() as callbacks:
        response = post(event_referee, pair_url(event.pending_round))
    assert response.status_code == 202
    assert response.json() == {
        "id": event.pending_round.pk,
        "stage": event.pending_round.stage_id,
        "number": 2,
        "status": "pending",
    }
    assert callbacks  # the pairing job is queued when the request commits
    assert AuditEvent.objects.filter(
        action=AuditEvent.Action.ROUND_PAIR, target_id=event.pending_round.pk, actor=event_referee
    ).exists()


def test_a_paired_round_or_an_unknown_one_is_refused(events: Events, event_referee: User) -> None:
    event = events[0]
    paired = post(event_referee, pair_url(event.round))
    assert paired.status_code == 409 and error_code(paired) == "wrong_status"
    slug = event.tournament.slug
    unknown = post(event_referee, f"/api/v1/tournaments/{slug}/stages/1/rounds/9/pair/")
    assert unknown.status_code == 404
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.ROUND_PAIR).exists()


def test_writes_need_a_post(events: Events, event_referee: User) -> None:
    response = client_for(event_referee).get(pair_url(events[0].pending_round))
    assert response.status_code == 405
