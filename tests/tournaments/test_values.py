"""``tournaments.values.frozen`` makes what the class's own ``__init__`` makes, for each class the
standings write so, and refuses a class whose ``__init__`` does more."""

from __future__ import annotations

import dataclasses
import doctest
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

import tournaments.values
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.points import StandingRow
from tournaments.scoring.results import Pogony, TableResult
from tournaments.selectors.places import FinalPlace, FinalStatus
from tournaments.selectors.standings import StandingLine
from tournaments.values import frozen

ROW = {
    "position": 2,
    "rank": 1,
    "entry": "7",
    "points": Fraction(5, 2),
    "played": 3,
    "byes": 0,
    "first_places": 1,
    "fools": 1,
    "buchholz": Fraction(9),
    "head_to_head": None,
    "decided_by": "draw",
}
LINE = {
    "position": 2,
    "place": 1,
    "entry_id": 7,
    "name": "Игрок",
    "points": Fraction(5, 2),
    "played": 3,
    "byes": 0,
    "first_places": 1,
    "fools": 1,
    "buchholz": Fraction(9),
    "head_to_head": Fraction(1, 2),
    "decided_by": "head_to_head",
    "pogony_given": 1,
    "pogony_received": 0,
    "player_id": 3,
}
PLACE = {
    "place": 1,
    "entry_id": 7,
    "player_id": 3,
    "team_id": None,
    "name": "Игрок",
    "status": FinalStatus.FINISHED,
    "points": Fraction(5, 2),
    "stage": 1,
    "pogony_given": 1,
    "pogony_received": 0,
    "rank": "",
    "payout": Decimal("10.13"),
}
RESULT = {
    "id": "5",
    "places": ("1", "2", "3"),
    "fool": "3",
    "drawn": (),
    "pogony": Pogony(by="1", on=("3",), rank="6"),
    "team_lost": (),
    "supersedes": None,
    "reason": "",
}


@pytest.mark.parametrize(
    ("cls", "values"),
    [(StandingRow, ROW), (StandingLine, LINE), (FinalPlace, PLACE), (TableResult, RESULT)],
)
def test_a_value_made_at_once_is_the_one_its_init_makes(cls: type, values: dict[str, Any]) -> None:
    made: Any = frozen(cls, dict(values))
    expected = cls(**values)
    assert made == expected and hash(made) == hash(expected)
    assert repr(made) == repr(expected) and vars(made) == vars(expected)
    assert list(vars(made)) == [f.name for f in dataclasses.fields(cls)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.position = 1


def test_a_result_made_at_once_is_validated_and_its_lists_frozen() -> None:
    with pytest.raises(ScoringError, match="the fool '2' must be the last place"):
        frozen(TableResult, {**RESULT, "fool": "2", "pogony": None})
    listed = frozen(TableResult, {**RESULT, "places": ["1", "2", "3"]})
    assert listed.places == ("1", "2", "3")


def test_a_class_whose_init_does_more_is_refused() -> None:
    @dataclasses.dataclass
    class Loose:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Slotted:
        x: int

    @dataclasses.dataclass(frozen=True)
    class Derived:
        x: int
        y: int = dataclasses.field(init=False, default=0)

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int

    for cls in (Loose, Slotted, Derived):
        with pytest.raises(TypeError):
            frozen(cls, {"x": 1})
    # (its fields are checked at the first call: the callers write them literally)
    with pytest.raises(TypeError, match="has the fields"):
        frozen(Point, {"y": 2, "x": 1})


def test_the_doctests_pass() -> None:
    assert doctest.testmod(tournaments.values).failed == 0
