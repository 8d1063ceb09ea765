"""The API's JSON renderer (``tournaments.api.renderers``): DRF's bytes, through orjson."""

from __future__ import annotations

import datetime as dt
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from tests.api.test_events import finished_event
from tournaments.api.renderers import FastJSONRenderer


@dataclass
class Point:
    x: int


BODIES: list[Any] = [
    {},
    [],
    {"a": 1, "b": [1, 2.5, None, True, False], "c": {"d": "e"}},
    {"name": "Игрок «Дурак» ♠", "emoji": "🃏", "quote": 'a "b" \\ c', "ctl": "\n\t\x01"},
    {"js": "line\u2028and\u2029paragraph"},
    {"at": dt.datetime(2026, 12, 5, 1, 2, 3, 456789, tzinfo=dt.UTC)},
    {"at": dt.datetime(2026, 12, 5, 1, 2, 3, tzinfo=dt.timezone(dt.timedelta(hours=3)))},
    {"naive": dt.datetime(2026, 12, 5, 1, 2, 3), "date": dt.date(2026, 12, 5)},
    {"time": dt.time(13, 5, 7, 120000), "span": dt.timedelta(minutes=3, seconds=5)},
    {"money": Decimal("1234.50"), "id": uuid.UUID("12345678-1234-5678-1234-567812345678")},
    {"lazy": gettext_lazy("Standings"), "tuple": (1, 2), "set_like": frozenset()},
    {1: "one", 2.5: "two and a half", False: "no", None: "none"},
    OrderedDict([("z", 1), ("a", 2)]),
    {"point": Point(3)},
    {"floats": [0.1, 1.5, 100.0, -0.0, 123456.789]},
    {"big": 2**70},
    {"rows": [{"place": i, "name": f"Бот {i}", "points": "1.5"} for i in range(300)]},
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_the_same_bytes_as_drf(body: Any) -> None:
    try:
        expected = JSONRenderer().render(body)
    except (TypeError, ValueError) as drf_error:
        # what DRF cannot write, neither can we: the same error
        with pytest.raises(type(drf_error)):
            FastJSONRenderer().render(body)
        return
    assert FastJSONRenderer().render(body) == expected


def test_indented_on_request_as_drf() -> None:
    body = {"a": [1, {"b": "в"}]}
    for media in ("application/json; indent=4", "application/json; indent=2"):
        assert FastJSONRenderer().render(body, media) == JSONRenderer().render(body, media)
    assert b"\n" in FastJSONRenderer().render(body, "application/json; indent=4")
    context = {"indent": 4}
    assert FastJSONRenderer().render(body, None, context) == JSONRenderer().render(
        body, None, context
    )


def test_nothing_is_nothing() -> None:
    assert FastJSONRenderer().render(None) == b""


@pytest.mark.django_db
def test_the_api_answers_with_it(client: Client) -> None:
    # a finished event's answers, each as DRF would have written its data
    slug = finished_event(8).slug
    for url in (
        "/api/v1/",
        "/api/v1/tournaments/",
        f"/api/v1/tournaments/{slug}/",
        f"/api/v1/tournaments/{slug}/stages/1/standings/",
        f"/api/v1/tournaments/{slug}/events/",
    ):
        response: Any = client.get(url, headers={"accept": "application/json"})  # DRF's answer
        assert response.status_code == 200, url
        assert isinstance(response.accepted_renderer, FastJSONRenderer)
        assert response.content == JSONRenderer().render(response.data)
