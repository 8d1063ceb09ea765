"""The selectors' typed rows in the API's JSON shapes (:mod:`.serializers`): points as JSON
numbers (``selectors.events.number``), nothing computed here."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tournaments.selectors.events import number
from tournaments.selectors.leagues import LeagueLine
from tournaments.selectors.places import FinalPlace
from tournaments.selectors.standings import StandingLine


def standing_row(line: StandingLine) -> dict[str, Any]:
    """A stage's standings line (``selectors.standings.stage_standings``)."""
    return {
        **asdict(line),
        "points": number(line.points),
        "buchholz": number(line.buchholz),
        "head_to_head": None if line.head_to_head is None else number(line.head_to_head),
    }


def league_table_row(line: LeagueLine) -> dict[str, Any]:
    """A league table's line (``selectors.leagues.league_standings``)."""
    rating = line.rating
    return {
        "position": line.position,
        "place": line.place,
        "name": line.name,
        "player_id": line.player_id,
        "team_id": line.team_id,
        "points": number(line.points),
        "played": line.played,
        "first_places": line.first_places,
        "places": line.places,
        "decided_by": line.decided_by,
        "rank": line.rank,
        "rating": None
        if rating is None
        else {
            "ordinal": round(rating.ordinal, 3),
            "mu": round(rating.mu, 3),
            "sigma": round(rating.sigma, 3),
        },
    }


def final_place_row(line: FinalPlace) -> dict[str, Any]:
    """A final place (``selectors.places.final_places``)."""
    return {**asdict(line), "points": None if line.points is None else number(line.points)}
