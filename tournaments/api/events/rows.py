"""The selectors' typed rows in the API's JSON shapes (:mod:`.serializers`): points as JSON
numbers (``selectors.events.number``), nothing computed here."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tournaments.selectors.events import number
from tournaments.selectors.standings import StandingLine


def standing_row(line: StandingLine) -> dict[str, Any]:
    """A stage's standings line (``selectors.standings.stage_standings``)."""
    return {
        **asdict(line),
        "points": number(line.points),
        "buchholz": number(line.buchholz),
        "head_to_head": None if line.head_to_head is None else number(line.head_to_head),
    }
