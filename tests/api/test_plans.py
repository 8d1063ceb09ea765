"""``POST /api/v1/plans/``: a tournament created from its plan over the API, through
``services.tournament_create``; a refused plan comes back with every problem at once, each at its
field (the request's keys, for programs), the messages in the request's ``Accept-Language``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.contrib.auth.models import User

from tests.api.test_writes import client_for, own_throttle_history  # noqa: F401 (a fixture)
from tests.tournaments.test_plan_messages import THREE_PROBLEMS
from tournaments.models import AuditEvent, Stage, Tournament

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse as Answer

pytestmark = pytest.mark.django_db

URL = "/api/v1/plans/"
SWISS = {"format": "swiss", "table_size": 4, "rounds": 3}
PLAN: dict[str, Any] = {
    "name": "Кубок Тулы",
    "stages": [
        {**SWISS, "advance": {"top": 8}},
        {"format": "knockout", "table_size": 4, "advance_per_table": 2},
    ],
    "rules": {"variant": "transfer"},
    "max_entries": 64,
    "entry_fee": "500",
    "payout_structure": ["50", "30", "20"],
}
THREE_ERRORS: dict[str, Any] = {
    **PLAN,
    "rules": {"deck_size": 36, "hand_size": 40, "pogony_min_cards": 9},
    "payout_structure": ["50", "30", "30"],
}


def send(user: User | None, body: Any, language: str = "en") -> Answer:
    return client_for(user).post(URL, body, format="json", headers={"Accept-Language": language})


def test_an_organiser_creates_a_tournament_from_its_plan(organiser: User) -> None:
    response = send(organiser, PLAN)
    assert response.status_code == 201, response.json()
    assert response.json() == {
        "slug": "kubok-tuly",
        "name": "Кубок Тулы",
        "status": "draft",
        "stages": 2,
    }
    tournament = Tournament.objects.get()
    assert tournament.created_by == organiser
    assert list(tournament.stages.values_list("format", flat=True)) == ["swiss", "knockout"]
    assert AuditEvent.objects.filter(action=AuditEvent.Action.TOURNAMENT_CREATE).count() == 1


def test_only_an_organiser_may(outsider: User, event_referee: User) -> None:
    assert send(None, PLAN).status_code == 401
    for user in (outsider, event_referee):
        response = send(user, PLAN)
        assert response.status_code == 403
        assert response.json()["code"] == "forbidden"  # the service's refusal
    assert not Tournament.objects.exists()


@THREE_PROBLEMS
def test_three_problems_come_back_at_once_in_the_requests_language(
    organiser: User, language: str, hand: str, pogony: str, payouts: str
) -> None:
    # when a plan with three independent problems is sent once
    response = send(organiser, THREE_ERRORS, language)
    # then all three come back, each at its field by the request's keys, the code unchanged
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_configuration"
    assert body["fields"] == {
        "rules": {"hand_size": [hand], "pogony_min_cards": [pogony]},
        "payout_structure": [payouts],
    }
    for message in (hand, pogony, payouts):
        assert message in body["message"]
    assert not Tournament.objects.exists() and not Stage.objects.exists()


def test_a_stage_is_named_by_its_index_and_an_unknown_key_at_its_place(organiser: User) -> None:
    body = {
        **PLAN,
        "colour": "red",
        "stages": [SWISS, {"format": "knockout", "table_size": 4, "advance_per_table": 2}],
    }
    response = send(organiser, body, "ru")
    assert response.status_code == 422
    fields = response.json()["fields"]
    assert set(fields) == {"colour", "stages"}
    assert fields["colour"][0].startswith("неизвестная настройка")
    assert fields["stages"] == {
        "0": {"advance": {"non_field_errors": ["укажите, кто проходит в этап 2"]}}
    }


@pytest.mark.parametrize("body", [[PLAN], "plan", {"stages": [SWISS]}])
def test_a_body_that_is_no_plan_is_422(organiser: User, body: Any) -> None:
    response = send(organiser, body)
    assert response.status_code == 422
    assert response.json()["code"] in ("invalid", "invalid_configuration")


def test_the_same_key_creates_once(organiser: User) -> None:
    client = client_for(organiser)
    headers = {"Idempotency-Key": "8c1d2c4e-2b0a-4a4f-9d7e-3e5b6a7c8d9e"}
    first = client.post(URL, PLAN, format="json", headers=headers)
    again = client.post(URL, PLAN, format="json", headers=headers)
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert Tournament.objects.count() == 1
