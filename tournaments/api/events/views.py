"""The read endpoints of an event: tournaments, stages, rounds and tables, results, standings,
the knockout tree, leagues. Public, no login; a private tournament only for its people.

Each view is thin: find the tournament among those its caller may read
(``TournamentReadView.get_tournament``), then let ``respond()`` answer 304 from the ETag or
build the body from the selectors (:mod:`tournaments.selectors`). Each body takes a fixed number of
queries, however many entries, tables or rounds the event has.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Count, Q, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api import links
from tournaments.api.common import (
    ApiAnonThrottle,
    ApiCursorPagination,
    ApiUserThrottle,
    TournamentReadView,
)
from tournaments.api.contract import ContractView, error_responses
from tournaments.api.events import serializers as out
from tournaments.api.events.rows import (
    final_place_rows,
    final_standing_json,
    league_table_row,
    linked_table,
    standing_rows,
)
from tournaments.models import Entry, League, Round, Stage, Tournament
from tournaments.selectors import events, standings, visibility
from tournaments.selectors.brackets import bracket
from tournaments.selectors.leagues import league_standings
from tournaments.selectors.places import final_places
from tournaments.selectors.play import with_current_games

TAG = ["events"]
ORDER = OpenApiParameter(
    "order", OpenApiTypes.INT, OpenApiParameter.PATH, description="Stage order"
)
SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH, description="Tournament")
CACHED = (
    "Answers carry a weak `ETag` and `Last-Modified`; send `If-None-Match` to get `304 Not "
    "Modified` without the body. `Cache-Control`: `public, no-cache` while the event moves, "
    "`max-age=300` once it has finished, `private` for a private event."
)


def _describe(text: str) -> str:
    return f"{text}\n\n{CACHED}"


# --- tournaments --------------------------------------------------------------------------------


class TournamentFilter(django_filters.FilterSet):  # type: ignore[misc]  # django-filter is untyped
    status = django_filters.MultipleChoiceFilter(
        choices=Tournament.Status.choices, help_text="One or more statuses (repeat the name)."
    )
    league = django_filters.CharFilter(
        field_name="league__slug", help_text="The league's slug (every season)."
    )
    season = django_filters.CharFilter(field_name="league__season", help_text="e.g. 2026")
    created_from = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__gte", help_text="Created on or after."
    )
    created_to = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__lte", help_text="Created on or before."
    )
    started_from = django_filters.DateFilter(
        field_name="started_at", lookup_expr="date__gte", help_text="Started on or after."
    )
    started_to = django_filters.DateFilter(
        field_name="started_at", lookup_expr="date__lte", help_text="Started on or before."
    )

    class Meta:
        model = Tournament
        fields: list[str] = []


@extend_schema(
    tags=TAG,
    summary="List tournaments",
    description="The tournaments its caller may read, newest first: the public ones out of "
    "draft, and the private ones of their players, referees and organiser. Cursor-paginated; "
    "filter by status, league and season, and by the dates they were created or started.",
    responses={200: out.TournamentListItemSerializer(many=True), **error_responses(400, 429)},
)
class TournamentListView(ContractView, generics.ListAPIView[Tournament]):
    serializer_class = out.TournamentListItemSerializer
    pagination_class = ApiCursorPagination
    filterset_class = TournamentFilter
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]

    def get_queryset(self) -> QuerySet[Tournament]:
        return (
            visibility.tournaments_visible_to(self.request.user)
            .select_related("league")
            .annotate(
                entry_count=Count("entries", filter=~Q(entries__status=Entry.Status.WITHDRAWN))
            )
        )


@extend_schema(
    tags=TAG,
    summary="A tournament",
    description=_describe(
        "Its status and dates, its rules, its money (fees, rake, guarantee, the payout "
        "structure the pool is paid by, the prize pool as last computed, the payouts once "
        "final) and its stages in order: format, table size, rounds, series, who advances, "
        "scoring and tie-breaks. Amounts are strings with the currency's minor-unit digits "
        '("1440.00" in RUB, "7200" in JPY), the currency\'s code beside them.'
    ),
    parameters=[SLUG],
    responses={200: out.TournamentDetailSerializer, **error_responses(404, 429)},
)
class TournamentDetailView(TournamentReadView):
    def get(self, request: Request, slug: str) -> Response:
        tournament = self.get_tournament()
        return self.respond(
            tournament,
            lambda: out.TournamentDetailSerializer(events.tournament_detail(tournament)).data,
        )


# --- stages: rounds, standings, bracket ---------------------------------------------------------


class StageReadView(TournamentReadView):
    """A read of one stage of a tournament (``order`` in the URL)."""

    def get_stage(self, tournament: Tournament) -> Stage:
        # Through the tournament's manager, so the stage knows its tournament without a query.
        stage = tournament.stages.filter(order=self.kwargs.get("order")).first()
        if stage is None:
            raise NotFound
        return stage


@extend_schema(
    tags=TAG,
    summary="A stage's rounds",
    description=_describe(
        "Every round of the stage: its status, when it was paired and finished, the pairing's "
        "explanation, and how many of its tables have finished, play or wait."
    ),
    parameters=[SLUG, ORDER],
    responses={200: out.RoundSummarySerializer(many=True), **error_responses(404, 429)},
)
class RoundListView(StageReadView):
    def get(self, request: Request, slug: str, order: int) -> Response:
        tournament = self.get_tournament()

        def build() -> Any:
            stage = self.get_stage(tournament)
            rows = [
                {**row, "links": links.round_links(tournament.slug, stage.order, row["number"])}
                for row in events.round_summaries(stage)
            ]
            return out.RoundSummarySerializer(rows, many=True).data

        return self.respond(tournament, build)


@extend_schema(
    tags=TAG,
    summary="A round with its tables",
    description=_describe(
        "The round and every table of it: the seats (players and entries by position), the "
        "series score so far (points, fools, pogony, ranks; never a card), and the result in "
        "force. Only confirmed results: one waiting for a second referee is not shown."
    ),
    parameters=[
        SLUG,
        ORDER,
        OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH, description="Round"),
    ],
    responses={200: out.RoundDetailSerializer, **error_responses(404, 429)},
)
class RoundDetailView(StageReadView):
    def get(self, request: Request, slug: str, order: int, number: int) -> Response:
        tournament = self.get_tournament()

        def build() -> Any:
            stage = self.get_stage(tournament)
            round_ = Round.objects.filter(stage=stage, number=number).first()
            if round_ is None:
                raise NotFound
            body = events.round_detail(round_)
            body["tables"] = [linked_table(row) for row in body["tables"]]
            body["links"] = links.round_links(tournament.slug, stage.order, round_.number)
            return out.RoundDetailSerializer(body).data

        return self.respond(tournament, build)


def stage_standings_body(tournament: Tournament, stage: Stage) -> dict[str, Any]:
    return {
        "stage": stage.order,
        "format": stage.format,
        "status": stage.status,
        "tie_breaks": standings.stage_tie_breaks(stage),
        "rows": standing_rows(standings.stage_standings(stage)),
    }


@extend_schema(
    tags=TAG,
    summary="A stage's standings",
    description=_describe(
        "The whole standings of a swiss or round-robin stage (not paginated: they reorder), "
        "from its confirmed results: place, points, every tie-break value, games played, "
        "first places, fools, pogony given and received. `tie_breaks` lists the criteria in "
        "the order they apply. A knockout stage has none: read its bracket."
    ),
    parameters=[SLUG, ORDER],
    responses={200: out.StageStandingsSerializer, **error_responses(404, 429)},
)
class StageStandingsView(StageReadView):
    def get(self, request: Request, slug: str, order: int) -> Response:
        tournament = self.get_tournament()

        def build() -> Any:
            stage = self.get_stage(tournament)
            body = stage_standings_body(tournament, stage)
            # The rows are in the row serializer's shape already (``standing_row``): only the
            # envelope goes through the serializer, not 10,000 rows field by field.
            data = out.StageStandingsSerializer({**body, "rows": []}).data
            data["rows"] = body["rows"]
            return data

        return self.respond(tournament, build)


def final_standings_body(tournament: Tournament) -> dict[str, Any]:
    rows = final_place_rows(final_places(tournament).lines, tournament.currency)
    return {
        "finished": tournament.status == Tournament.Status.FINISHED,
        "currency": tournament.currency,
        "rows": rows,
    }


@extend_schema(
    tags=TAG,
    summary="The final standings",
    description=_describe(
        "The final places once the tournament has finished (empty before): the entry, its "
        "player (or team), how it ended (`finished`, `eliminated`, `withdrawn`, "
        "`disqualified`), the stage it left and its points there, pogony given and received, "
        "the rank (звание) earned, and the payout (a string to the currency's minor unit)."
    ),
    parameters=[SLUG],
    responses={200: out.FinalStandingsSerializer, **error_responses(404, 429)},
)
class FinalStandingsView(TournamentReadView):
    def get(self, request: Request, slug: str) -> Response:
        tournament = self.get_tournament()

        def build() -> Any:
            body = final_standings_body(tournament)
            # Only the envelope goes through the serializer; the rows are written in its shape
            # (``final_standing_json``), not 10,000 of them field by field.
            data = out.FinalStandingsSerializer({**body, "rows": []}).data
            data["rows"] = [final_standing_json(row) for row in body["rows"]]
            return data

        return self.respond(tournament, build)


@extend_schema(
    tags=TAG,
    summary="A knockout stage's tree",
    description=_describe(
        "The bracket of a knockout stage: its tables as nodes (round, number, status, who sits "
        "there, the result, who advances) and an edge from each place of a table to the table "
        "it feeds; entries with a bye are listed at the table they go to. A stage of another "
        "format is a 404."
    ),
    parameters=[SLUG, ORDER],
    responses={200: out.BracketSerializer, **error_responses(404, 429)},
)
class BracketView(StageReadView):
    def get(self, request: Request, slug: str, order: int) -> Response:
        tournament = self.get_tournament()

        def build() -> Any:
            stage = self.get_stage(tournament)
            if stage.format != Stage.Format.KNOCKOUT:
                raise NotFound
            tree = bracket(stage)
            nodes = with_current_games(list(tree["nodes"]))  # type: ignore[arg-type]
            body = {
                "stage": stage.order,
                "status": stage.status,
                **tree,
                "nodes": [linked_table(node) for node in nodes],
            }
            return out.BracketSerializer(body).data

        return self.respond(tournament, build)


# --- results ------------------------------------------------------------------------------------


@extend_schema(
    tags=TAG,
    summary="A tournament's results",
    description=_describe(
        "Every confirmed table result, newest first (cursor-paginated): places, fool, draws, "
        "pogony, where it came from (`source`), and for a correction the reason and the result "
        "it replaces (`supersedes`); `in_force` is false once a correction replaced it. "
        "Results waiting for a second referee, or rejected by one, are not public."
    ),
    parameters=[SLUG],
    responses={200: out.ResultListItemSerializer(many=True), **error_responses(400, 404, 429)},
)
class ResultListView(TournamentReadView):
    pagination_class = ApiCursorPagination

    def get(self, request: Request, slug: str) -> Response:
        tournament = self.get_tournament()

        def build() -> Any:
            paginator = ApiCursorPagination()
            page = paginator.paginate_queryset(events.tournament_results(tournament), request, self)
            rows = out.ResultListItemSerializer(events.result_rows(page or []), many=True).data
            return paginator.get_paginated_response(rows).data

        return self.respond(tournament, build)


# --- leagues ------------------------------------------------------------------------------------


def league_row(league: League) -> dict[str, Any]:
    return {
        "slug": league.slug,
        "name": league.name,
        "season": league.season,
        "points_scale": [str(p) for p in league.points_scale or []],
    }


@extend_schema(
    tags=TAG,
    summary="List leagues",
    description="The leagues with a tournament its caller may read, newest first "
    "(cursor-paginated). A league's slug is unique within its season.",
    responses={200: out.LeagueListItemSerializer(many=True), **error_responses(400, 429)},
)
class LeagueListView(ContractView, generics.ListAPIView[League]):
    serializer_class = out.LeagueListItemSerializer
    pagination_class = ApiCursorPagination
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[League]:
        return visibility.leagues_visible_to(self.request.user)


@extend_schema(
    tags=TAG,
    summary="A league's table",
    description="The league table over the league's finished tournaments that the caller may "
    "read (a private one counts only for its organiser, referees and players): league points "
    "from their final places by the league's scale, places, first places, each player's rank "
    "(звание) in the league and current rating (OpenSkill: `mu`, `sigma`, `ordinal` = "
    "mu - 3 sigma, and the displayed `rating` = round(1500 + 40 × ordinal)). `season` picks "
    "the season (default: the latest).",
    parameters=[
        OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH, description="League"),
        OpenApiParameter("season", OpenApiTypes.STR, description="Default: the latest season"),
    ],
    responses={200: out.LeagueTableSerializer, **error_responses(404, 429)},
)
class LeagueTableView(ContractView):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]

    def get(self, request: Request, slug: str) -> Response:
        leagues = visibility.leagues_visible_to(request.user).filter(slug=slug)
        season = request.query_params.get("season")
        if season:
            leagues = leagues.filter(season=season)
        league = leagues.order_by("-season", "-pk").first()
        if league is None:
            raise NotFound
        table = league_standings(league, among=visibility.tournaments_visible_to(request.user))
        body = {
            "league": league_row(league),
            "tournaments_counted": table.counted,
            "error": table.error,
            "rows": [league_table_row(line) for line in table.lines],
        }
        return Response(out.LeagueTableSerializer(body).data)
