"""A table: ``tables/<id>/``.

Its facts (``selectors.tables``: where it is played, its status, who sits where with their
series points and place, the series score, the game in play and the games that are over) and
the spectator's state of its game in play: what a spectator of the live table gets
(``tournaments.api.games.game_data``: ``engine.view`` with no seat, never a hand, for every
caller). Links to its tournament, round, games and players (``tournaments.api.links``).

**Who may read it**: whoever may read its tournament (``visibility.tournaments_visible_to``); to
anyone else it is a 404, as a table that does not exist.

**Caching**: the ``ETag`` is made from the tournament's version and the version and status of
the game in play (a move changes the spectator's state, not the tournament's version), so
``If-None-Match`` is answered ``304`` after two queries, before the body is built; built bodies
are kept in the shared cache under it (``common.built``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.http import Http404
from django.urls import path
from django.utils.http import quote_etag
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from games.models import Game
from tournaments.api import links
from tournaments.api.common import (
    STAMP_HEADER,
    ApiAnonThrottle,
    ApiUserThrottle,
    built,
    cache_headers,
    current,
    etag_for,
    etag_matches,
)
from tournaments.api.contract import ContractView, error_responses
from tournaments.api.events.serializers import (
    EnumField,
    EventEntryRefSerializer,
    SeriesScoreSerializer,
)
from tournaments.api.games import ApiGameSerializer, game_data
from tournaments.models import Table, Tournament
from tournaments.selectors import visibility
from tournaments.selectors.tables import TableFacts, table_facts

S = serializers.Serializer[Any]


class TableDetailSeatSerializer(S):
    position = serializers.IntegerField(help_text="0, 1, ...: clockwise.")
    entry = EventEntryRefSerializer()
    player_id = serializers.IntegerField(help_text="Who sits here (`/players/{id}/`).")
    name = serializers.CharField(help_text="The player's name.")
    bot = serializers.BooleanField(help_text="A bot plays this seat.")
    points = serializers.FloatField(allow_null=True, help_text="Series points so far.")
    place = serializers.IntegerField(
        allow_null=True, help_text="Once the table has finished: 1 is the first out."
    )
    links = links.SeatLinksSerializer()


class TableGameSerializer(S):
    id = serializers.IntegerField()
    number = serializers.IntegerField(help_text="In the table's series: 1, 2, ...")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    links = links.GameRefLinksSerializer()


class TableLinksSerializer(S):
    self = links.href("This table.")
    tournament = links.href("Its tournament.")
    round = links.href("Its round, with every table of it.")
    stage = links.StageLinksSerializer()
    live = links.href("The tournament's one-call overlay.")
    game = links.href("Its game in play, else the last one over; null before the first.", null=True)


class TableDetailSerializer(S):
    id = serializers.IntegerField(help_text="Stable: the table's id for its life.")
    tournament = serializers.SlugField(help_text="The tournament's slug.")
    stage = serializers.IntegerField(help_text="The stage's order.")
    round = serializers.IntegerField(help_text="The round's number in its stage.")
    number = serializers.IntegerField(help_text="The table's number in its round.")
    status = EnumField(Table.Status, "EventTableStatus")
    is_bye = serializers.BooleanField()
    seats = TableDetailSeatSerializer(many=True)
    series = SeriesScoreSerializer(allow_null=True, help_text="The series score so far.")
    current_game = serializers.IntegerField(
        allow_null=True, help_text="The game in play (or paused), if any."
    )
    finished_games = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The games that are over (finished, adjudicated, voided), in order.",
    )
    game = serializers.IntegerField(
        allow_null=True, help_text="`current_game`, else the last finished game; null before."
    )
    games = TableGameSerializer(many=True, help_text="Every game of the series, in order.")
    spectator = ApiGameSerializer(
        allow_null=True,
        help_text="The game in play as a spectator of the live table sees it (no hand, for "
        "every caller); null when none is in play.",
    )
    links = TableLinksSerializer()


def seat_rows(facts: TableFacts) -> list[dict[str, Any]]:
    """The table's seats as :class:`TableDetailSeatSerializer` data."""
    return [
        {
            "position": seat.position,
            "entry": {"id": seat.entry_id, "name": seat.entry_name},
            "player_id": seat.player_id,
            "name": seat.name,
            "bot": seat.bot,
            "points": seat.points,
            "place": seat.place,
            "links": {"player": links.player(seat.player_id)},
        }
        for seat in facts.seats
    ]


def table_body(facts: TableFacts, game: Game | None) -> dict[str, Any]:
    slug, order = facts.tournament_slug, facts.stage_order
    return {
        "id": facts.id,
        "tournament": slug,
        "stage": order,
        "round": facts.round_number,
        "number": facts.number,
        "status": facts.status,
        "is_bye": facts.is_bye,
        "seats": seat_rows(facts),
        "series": facts.series,
        "current_game": facts.current_game,
        "finished_games": facts.finished_games,
        "game": facts.game,
        "games": [
            {"id": g.id, "number": g.number, "status": g.status}
            | {"links": {"self": links.game(g.id)}}
            for g in facts.games
        ],
        "spectator": None if game is None else game_data(game),
        "links": {
            "self": links.table(facts.id),
            "tournament": links.tournament(slug),
            "round": links.round_(slug, order, facts.round_number),
            "stage": links.stage_links(slug, order, facts.stage_format),
            "live": links.live(slug),
            "game": links.game(facts.game),
        },
    }


class TableDetailView(ContractView):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]

    @extend_schema(
        operation_id="tables_retrieve",
        summary="A table",
        description=(
            "Where the table is played (tournament, stage, round, number), its status, its "
            "seats (player, series points, and the place once finished), the series score, the "
            "game in play and the games that are over, and the spectator's state of the game "
            "in play (as the live table shows it to a spectator: never a hand, for every "
            "caller). `links` leads to its tournament, round, stage, games and players. A "
            "table of a tournament the caller may not read is a 404. `ETag` from the "
            "tournament's version and the game in play's: `If-None-Match` gives 304."
        ),
        tags=["events"],
        parameters=[
            OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Table")
        ],
        responses={200: TableDetailSerializer, **error_responses(404, 429)},
    )
    def get(self, request: Request, pk: int) -> Response:
        tournament = (
            visibility.tournaments_visible_to(request.user)
            .filter(stages__rounds__tables=pk)
            .first()
        )
        if tournament is None:
            raise Http404
        game = (
            Game.objects.filter(table_id=pk, status__in=(Game.Status.ACTIVE, Game.Status.PAUSED))
            .select_related("table__round__stage__tournament")
            .order_by("-number", "-pk")
            .first()
        )
        etag = table_etag(request, tournament, game)
        if game is None:
            fresh = current(request, etag, tournament)
        else:  # ``Last-Modified`` is the tournament's: a move does not move it
            fresh = etag_matches(request.headers.get("If-None-Match", ""), etag)
        if fresh:
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:

            def build() -> Any:
                facts = table_facts(pk, among=[tournament.pk])
                if facts is None:  # pragma: no cover - deleted between the two reads
                    raise Http404
                return TableDetailSerializer(table_body(facts, game)).data

            response = Response(built(etag, build))
        response = cache_headers(response, tournament, etag)
        if response.has_header(STAMP_HEADER):
            del response[STAMP_HEADER]  # the API's front answers for tournaments' paths only
        return response


def table_etag(request: Request, tournament: Tournament, game: Game | None) -> str:
    """The tournament's ETag of the request, moved by every move of the game in play."""
    basis = etag_for(request, tournament)
    if game is not None:
        basis += f"|{game.pk}|{game.version}|{game.status}"
    return "W/" + quote_etag(hashlib.sha256(basis.encode()).hexdigest()[:24])


urlpatterns = [path("tables/<int:pk>/", TableDetailView.as_view(), name="table-detail")]
