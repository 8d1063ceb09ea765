"""Downloads of an event's standings and results, as CSV (for a spreadsheet) or JSON.

- ``tournaments/<slug>/stages/<order>/standings.csv|json``: a stage's standings;
- ``tournaments/<slug>/standings.csv|json``: the final standings;
- ``tournaments/<slug>/results.csv|json``: every confirmed result, oldest first.

The JSON is the rows of the matching endpoint, exactly; the CSV has one line per row, UTF-8
with a byte-order mark so that Excel reads Cyrillic names right, and no text cell that a
spreadsheet would run as a formula (``tournaments.spreadsheets``: a name beginning with ``=``
gets a quote in front; numbers stay numbers). Both come as an attachment
with a file name from the tournament's slug, and go through the same visibility and conditional
GET as the endpoints (``TournamentReadView.respond``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.common import TournamentReadView
from tournaments.api.contract import error_responses
from tournaments.api.events import serializers as out
from tournaments.api.events.rows import final_place_rows, standing_rows
from tournaments.api.events.views import StageReadView
from tournaments.api.renderers import FastJSONRenderer
from tournaments.models import Stage, Tournament
from tournaments.selectors import events, standings
from tournaments.selectors.places import final_places
from tournaments.spreadsheets import csv_bytes

SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH, description="Tournament")
ORDER = OpenApiParameter(
    "order", OpenApiTypes.INT, OpenApiParameter.PATH, description="Stage order"
)
CSV_RESPONSE = OpenApiResponse(OpenApiTypes.STR, description="UTF-8 CSV with a byte-order mark.")


class CsvRenderer(BaseRenderer):
    """A table (a list of rows, the first the header) as CSV; anything else (an error) as
    ``key,value`` lines. Written by ``tournaments.spreadsheets`` (no cell a spreadsheet would
    run as a formula, a byte-order mark for Excel)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        if isinstance(data, Mapping):
            return csv_bytes([key, value] for key, value in data.items())
        return csv_bytes(data)


class ExportNegotiation(BaseContentNegotiation):
    """The file's format is the URL's (``.csv``, ``.json``), whatever ``Accept`` says."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        return next(iter(parsers), None)

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, str(renderer.media_type)


class ExportView(TournamentReadView):
    """A download: ``fmt`` is ``csv`` or ``json``; a refusal is the API's JSON error."""

    fmt = "json"
    renderer_classes: Sequence[type[BaseRenderer]] = [FastJSONRenderer]
    content_negotiation_class = ExportNegotiation
    #: The file's name after the tournament's slug: ``<slug>-<name>.<fmt>``.
    name = "export"

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        if isinstance(response, Response) and response.status_code >= 400:
            response.accepted_renderer = FastJSONRenderer()
            response.accepted_media_type = "application/json"
        return response

    def export(
        self,
        tournament: Tournament,
        rows: Callable[[], Any],
        columns: Sequence[str],
        cells: Callable[[Any], list[Any]] | None = None,
    ) -> Response:
        """Answer with ``rows()`` as JSON, or as CSV lines of ``columns`` (``cells(row)`` the
        values of a row; by default the row's values of ``columns``)."""

        def line(row: Any) -> list[Any]:
            return cells(row) if cells is not None else [row[c] for c in columns]

        def build() -> Any:
            listed = rows()
            if self.fmt == "json":
                return listed
            return [list(columns), *(line(row) for row in listed)]

        response = self.respond(tournament, build)
        response["Content-Disposition"] = (
            f'attachment; filename="{tournament.slug}-{self.name}.{self.fmt}"'
        )
        return response


STAGE_COLUMNS = list(out.StageStandingRowSerializer().fields)
FINAL_COLUMNS = list(out.FinalStandingRowSerializer().fields)
RESULT_COLUMNS = [
    "id",
    "stage",
    "round",
    "table",
    "places",
    "fool",
    "drawn",
    "pogony",
    "source",
    "reason",
    "supersedes",
    "in_force",
    "created_at",
]


def final_cells(row: Mapping[str, Any]) -> list[Any]:
    """A final standings row as one CSV line: the payout (a string in the JSON, as DRF writes a
    decimal) as the number it is, so that a spreadsheet sums it."""
    payout = row["payout"]
    return [
        (Decimal(payout) if payout is not None else None) if column == "payout" else row[column]
        for column in FINAL_COLUMNS
    ]


def _names(refs: Sequence[Mapping[str, Any] | None]) -> str:
    return "; ".join(ref["name"] for ref in refs if ref)


def result_cells(row: Mapping[str, Any]) -> list[Any]:
    """A result as one CSV line: names first out first, separated by semicolons."""
    pogony = "; ".join(
        f"{(h['by'] or {}).get('name', '')} → {_names(h['on'])} ({h['rank']})"
        for h in row["pogony"]
    )
    table = row["table"]
    return [
        row["id"],
        table["stage"],
        table["round"],
        table["number"],
        _names([p["entry"] for p in row["places"]]),
        (row["fool"] or {}).get("name", ""),
        _names(row["drawn"]),
        pogony,
        row["source"],
        row["reason"],
        row["supersedes"] or "",
        row["in_force"],
        row["created_at"],
    ]


def _schema(
    what: str, fmt: str, description: str, rows: Any, parameters: list[OpenApiParameter]
) -> Any:
    """The schema of one download: ``what`` (an operation id part) as ``fmt``."""
    errors = {(code, "application/json"): r for code, r in error_responses(404, 429).items()}
    body = (
        {(200, "text/csv"): CSV_RESPONSE}
        if fmt == "csv"
        else {(200, "application/json"): OpenApiResponse(rows, description="An attachment.")}
    )
    return extend_schema_view(
        get=extend_schema(
            tags=["exports"],
            operation_id=f"tournaments_{what}_{fmt}",
            summary=f"Download {description} as {fmt.upper()}",
            description=f"{description[0].upper()}{description[1:]} as {fmt.upper()}, as an "
            "attachment named after the tournament. The JSON is the rows of the matching endpoint; "
            "the CSV is UTF-8 with a byte-order mark (Excel reads the names right).",
            parameters=parameters,
            responses={**body, **errors},
        )
    )


class StageStandingsExportView(ExportView, StageReadView):
    def get(self, request: Request, slug: str, order: int) -> Response:
        tournament = self.get_tournament()
        self.name = f"stage-{order}-standings"

        def rows() -> Any:
            stage: Stage = self.get_stage(tournament)
            listed = standing_rows(standings.stage_standings(stage))
            return out.StageStandingRowSerializer(listed, many=True).data

        return self.export(tournament, rows, STAGE_COLUMNS)


class FinalStandingsExportView(ExportView):
    name = "standings"

    def get(self, request: Request, slug: str) -> Response:
        tournament = self.get_tournament()

        def rows() -> Any:
            code = tournament.currency
            listed = final_place_rows(final_places(tournament).lines, code)
            return out.FinalStandingRowSerializer(listed, many=True).data

        return self.export(tournament, rows, FINAL_COLUMNS, final_cells)


class ResultsExportView(ExportView):
    name = "results"

    def get(self, request: Request, slug: str) -> Response:
        tournament = self.get_tournament()

        def rows() -> Any:
            results = list(events.tournament_results(tournament).order_by("id"))
            return out.ResultListItemSerializer(events.result_rows(results), many=True).data

        return self.export(tournament, rows, RESULT_COLUMNS, result_cells)


STAGE_STANDINGS = "a stage's standings"
FINAL = "the final standings"
RESULTS = "every confirmed result, oldest first"


@_schema("stage_standings", "csv", STAGE_STANDINGS, None, [SLUG, ORDER])
class StageStandingsCsvView(StageStandingsExportView):
    fmt, renderer_classes = "csv", [CsvRenderer]


@_schema(
    "stage_standings",
    "json",
    STAGE_STANDINGS,
    out.StageStandingRowSerializer(many=True),
    [SLUG, ORDER],
)
class StageStandingsJsonView(StageStandingsExportView):
    fmt = "json"


@_schema("final_standings", "csv", FINAL, None, [SLUG])
class FinalStandingsCsvView(FinalStandingsExportView):
    fmt, renderer_classes = "csv", [CsvRenderer]


@_schema("final_standings", "json", FINAL, out.FinalStandingRowSerializer(many=True), [SLUG])
class FinalStandingsJsonView(FinalStandingsExportView):
    fmt = "json"


@_schema("results", "csv", RESULTS, None, [SLUG])
class ResultsCsvView(ResultsExportView):
    fmt, renderer_classes = "csv", [CsvRenderer]


@_schema("results", "json", RESULTS, out.ResultListItemSerializer(many=True), [SLUG])
class ResultsJsonView(ResultsExportView):
    fmt = "json"
