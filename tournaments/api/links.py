"""The API's links between its resources: one convention everywhere (``docs/api-links.md``).

An object the API can address carries a ``links`` object: each key names a relation (``self``
for the object's own address, ``tournament``, ``round``, ``table``, ``game``, ``player``...),
each value is the related resource's path from the server's root (``/api/v1/tables/12/``), or
null when there is none (yet). Paths, not absolute URLs: an answer is the same whatever host
served it, so its ETag and the cache of built answers hold across hosts and proxies.

The ids in the paths are the database's primary keys (a table's, a game's, a player's) and a
tournament's slug: stable for the life of the object, never reused for another one.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

ROOT = "/api/v1/"

S = serializers.Serializer[Any]


def tournament(slug: str) -> str:
    return f"{ROOT}tournaments/{slug}/"


def live(slug: str) -> str:
    return f"{ROOT}tournaments/{slug}/live/"


def final_standings(slug: str) -> str:
    return f"{ROOT}tournaments/{slug}/standings/"


def rounds(slug: str, stage: int) -> str:
    return f"{ROOT}tournaments/{slug}/stages/{stage}/rounds/"


def stage_standings(slug: str, stage: int) -> str:
    return f"{ROOT}tournaments/{slug}/stages/{stage}/standings/"


def bracket(slug: str, stage: int) -> str:
    return f"{ROOT}tournaments/{slug}/stages/{stage}/bracket/"


def round_(slug: str, stage: int, number: int) -> str:
    return f"{ROOT}tournaments/{slug}/stages/{stage}/rounds/{number}/"


def table(table_id: int) -> str:
    return f"{ROOT}tables/{table_id}/"


def game(game_id: int | None) -> str | None:
    return None if game_id is None else f"{ROOT}games/{game_id}/"


def player(player_id: int | None) -> str | None:
    return None if player_id is None else f"{ROOT}players/{player_id}/"


# --- the shapes ---------------------------------------------------------------------------------


@extend_schema_field({"type": "string", "format": "uri-reference", "example": "/api/v1/..."})
class HrefField(serializers.CharField):
    """A path from the server's root to a resource of the API."""


def href(help_text: str, *, null: bool = False) -> HrefField:
    return HrefField(help_text=help_text, allow_null=null)


class StageLinksSerializer(S):
    rounds = href("The stage's rounds.")
    standings = href("Its standings (swiss, round robin).", null=True)
    bracket = href("Its tree (knockout).", null=True)


def stage_links(slug: str, order: int, format_: str) -> dict[str, str | None]:
    knockout = format_ == "knockout"
    return {
        "rounds": rounds(slug, order),
        "standings": None if knockout else stage_standings(slug, order),
        "bracket": bracket(slug, order) if knockout else None,
    }


class RoundLinksSerializer(S):
    self = href("This round with its tables.")
    tournament = href("Its tournament.")
    stage_rounds = href("Every round of its stage.")


def round_links(slug: str, order: int, number: int) -> dict[str, str]:
    return {
        "self": round_(slug, order, number),
        "tournament": tournament(slug),
        "stage_rounds": rounds(slug, order),
    }


class TableRefLinksSerializer(S):
    self = href("The table: seats, series score, games, the spectator's state.")
    game = href("Its game in play, else the last one over; null before the first.", null=True)


def table_ref_links(table_id: int, game_id: int | None) -> dict[str, str | None]:
    return {"self": table(table_id), "game": game(game_id)}


class SeatLinksSerializer(S):
    player = href("The player sitting here.", null=True)


class GameRefLinksSerializer(S):
    self = href("The game: the spectator's view in play; the record once over.")
