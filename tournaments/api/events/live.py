"""``tournaments/<slug>/live/``: one call for an overlay (``selectors.overlay``).

The current stage and round, the stage's standings (with each entry's ``player_id``), the tables
in play with their games and series scores, the prize pool and, once the tournament has
finished, the final places with the payouts: one answer under the tournament's ETag, so an
overlay polling it with ``If-None-Match`` gets ``304`` from the API's front while nothing has
changed. The rows are the ones the standings, final standings and table endpoints give
(``rows.standing_row``, ``rows.final_place_row``, ``tables.seat_rows``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api import links
from tournaments.api.common import TournamentReadView
from tournaments.api.contract import error_responses
from tournaments.api.events import serializers as out
from tournaments.api.events.rows import final_place_row, standing_rows
from tournaments.api.events.views import SLUG, TAG, _describe
from tournaments.api.tables import TableDetailSeatSerializer, seat_rows
from tournaments.models import Round, Stage, Table, Tournament
from tournaments.selectors.events import prize_pool_row
from tournaments.selectors.overlay import overlay
from tournaments.selectors.tables import TableFacts

S = serializers.Serializer[Any]


class LiveTournamentLinksSerializer(S):
    self = links.href("The tournament.")
    live = links.href("This answer.")
    standings = links.href("The final standings.")


class LiveTournamentSerializer(S):
    slug = serializers.SlugField()
    name = serializers.CharField()
    status = out.EnumField(Tournament.Status, "EventTournamentStatus")
    version = serializers.IntegerField(help_text="The tournament's version (the feed's too).")
    changed_at = serializers.DateTimeField(allow_null=True)
    links = LiveTournamentLinksSerializer()


class LiveStageSerializer(S):
    order = serializers.IntegerField()
    name = serializers.CharField()
    format = out.EnumField(Stage.Format, "EventStageFormat")
    status = out.EnumField(Stage.Status, "EventStageStatus")
    links = links.StageLinksSerializer()


class LiveRoundSerializer(S):
    number = serializers.IntegerField()
    status = out.EnumField(Round.Status, "EventRoundStatus")
    paired_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    links = links.RoundLinksSerializer()


class LiveTableSerializer(S):
    id = serializers.IntegerField(help_text="The table's id (`/tables/{id}/`).")
    number = serializers.IntegerField()
    status = out.EnumField(Table.Status, "EventTableStatus")
    seats = TableDetailSeatSerializer(many=True)
    series = out.SeriesScoreSerializer(allow_null=True)
    current_game = serializers.IntegerField(allow_null=True, help_text="The game in play.")
    game = serializers.IntegerField(
        allow_null=True, help_text="`current_game`, else the last game over."
    )
    links = links.TableRefLinksSerializer()


class LiveSerializer(S):
    tournament = LiveTournamentSerializer()
    stage = LiveStageSerializer(
        allow_null=True, help_text="The stage in play, else the last one begun, else the first."
    )
    round = LiveRoundSerializer(
        allow_null=True, help_text="The stage's round in play, else its last paired one."
    )
    standings = out.StageStandingRowSerializer(
        many=True, help_text="The stage's standings; empty for a knockout (see its bracket)."
    )
    tables = LiveTableSerializer(many=True, help_text="The round's tables in play, by number.")
    currency = serializers.CharField(help_text="ISO 4217.")
    prize_pool = out.PrizePoolPublicSerializer(allow_null=True, help_text="As last computed.")
    finished = serializers.BooleanField()
    final_standings = out.FinalStandingRowSerializer(
        many=True,
        help_text="Once the tournament has finished: the final places with their payouts.",
    )


def _table(facts: TableFacts) -> dict[str, Any]:
    return {
        "id": facts.id,
        "number": facts.number,
        "status": facts.status,
        "seats": seat_rows(facts),
        "series": facts.series,
        "current_game": facts.current_game,
        "game": facts.game,
        "links": links.table_ref_links(facts.id, facts.game),
    }


def live_body(tournament: Tournament) -> dict[str, Any]:
    now = overlay(tournament)
    slug = tournament.slug
    stage, round_, pool = now.stage, now.round, now.pool
    return {
        "tournament": {
            "slug": slug,
            "name": tournament.name,
            "status": tournament.status,
            "version": tournament.version,
            "changed_at": tournament.changed_at,
            "links": {
                "self": links.tournament(slug),
                "live": links.live(slug),
                "standings": links.final_standings(slug),
            },
        },
        "stage": None
        if stage is None
        else {
            "order": stage.order,
            "name": now.stage_name,
            "format": stage.format,
            "status": stage.status,
            "links": links.stage_links(slug, stage.order, stage.format),
        },
        "round": None
        if stage is None or round_ is None
        else {
            "number": round_.number,
            "status": round_.status,
            "paired_at": round_.paired_at,
            "finished_at": round_.finished_at,
            "links": links.round_links(slug, stage.order, round_.number),
        },
        "standings": standing_rows(now.standings),
        "tables": [_table(facts) for facts in now.tables],
        "currency": tournament.currency,
        "prize_pool": None if pool is None else prize_pool_row(pool),
        "finished": now.final is not None,
        "final_standings": [
            final_place_row(x, tournament.currency) for x in (now.final.lines if now.final else [])
        ],
    }


@extend_schema(
    tags=TAG,
    summary="A tournament now, in one call",
    description=_describe(
        "What an overlay shows, in one answer: the current stage (in play, else the last "
        "begun) and round, the stage's standings (with `player_id`), the round's tables in "
        "play with their game ids and series scores, the prize pool as last computed and, once "
        "the tournament has finished, the final standings with their payouts. Poll it with "
        "`If-None-Match`: `304` until anything here changes (game moves do not: follow a "
        "table's game for those). A bounded number of queries whatever the event's size."
    ),
    parameters=[SLUG],
    responses={200: LiveSerializer, **error_responses(404, 429)},
)
class LiveView(TournamentReadView):
    def get(self, request: Request, slug: str) -> Response:
        tournament = self.get_tournament()
        return self.respond(tournament, lambda: LiveSerializer(live_body(tournament)).data)
