"""The selectors' typed rows in the API's JSON shapes (:mod:`.serializers`): points as JSON
numbers (``selectors.events.number``), nothing computed here."""

from __future__ import annotations

from typing import Any

from tournaments.api import links
from tournaments.money import amount_text
from tournaments.selectors.events import (
    final_place_row,
    final_place_rows,
    number,
    standing_row,
    standing_rows,
)
from tournaments.selectors.leagues import LeagueLine

#: The standings rows are built in the domain (``selectors.events``): the feed's events carry
#: the same rows (``selectors.facts``).
__all__ = [
    "final_place_row",
    "final_place_rows",
    "final_standing_json",
    "league_table_row",
    "standing_row",
    "standing_rows",
]


def final_standing_json(row: dict[str, Any]) -> dict[str, Any]:
    """A final place's row (``final_place_row``) as ``FinalStandingRowSerializer`` writes it:
    its fields in its order, the payout as its ``MoneyField`` words it (a string to the
    currency's minor unit). The final standings send 10,000 rows so, not through the
    serializer field by field (a test holds the two byte-equal)."""
    payout = row["payout"]
    return {
        "place": row["place"],
        "entry_id": row["entry_id"],
        "player_id": row["player_id"],
        "team_id": row["team_id"],
        "name": row["name"],
        "status": row["status"],
        "stage": row["stage"],
        "points": row["points"],
        "pogony_given": row["pogony_given"],
        "pogony_received": row["pogony_received"],
        "rank": row["rank"],
        "currency": row["currency"],
        "payout": None if payout is None else amount_text(payout, row["currency"]),
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
            "rating": rating.displayed,
            "ordinal": round(rating.ordinal, 3),
            "mu": round(rating.mu, 3),
            "sigma": round(rating.sigma, 3),
        },
    }


def linked_table(row: dict[str, Any]) -> dict[str, Any]:
    """A round's table (``events.round_detail``) or a bracket's node (``brackets.bracket``),
    with ``with_current_games``' ``game``: its links, and its seats' players' links."""
    for seat in row.get("seats", []):
        seat["links"] = {"player": links.player(seat["player"]["id"])}
    return {**row, "links": links.table_ref_links(row["id"], row.get("game"))}
