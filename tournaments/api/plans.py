"""``/api/v1/plans/``: a tournament created from its whole plan, as the console's "Add
tournament" page creates it (``services.tournament_create``: the plan's schema, then every deep
check, the audit row), for an organiser's own tools.

A refused plan is a 400 ``invalid_configuration`` carrying every problem of the plan at once:
``fields`` names each by the request's keys (``stages`` by index from 0, ``rules`` by option),
for programs; the messages, and ``message`` joining them with each field in words, follow the
request's ``Accept-Language`` (``LocaleMiddleware`` activates it before the view runs). The
write shares the other writes' authentication, throttles and ``Idempotency-Key``
(:class:`tournaments.api.writes.WriteView`).
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from django.utils.translation import gettext
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.idempotency import idempotent
from tournaments.api.writes import WriteView, write_schema
from tournaments.models import Tournament
from tournaments.plan_schema import TournamentPlanSerializer
from tournaments.services.plans import check_plan, tournament_create


class ApiTournamentCreatedSerializer(serializers.ModelSerializer[Tournament]):
    """A tournament as its creation leaves it (in draft: registration is opened in the console)."""

    stages = serializers.SerializerMethodField(help_text="How many stages its plan has.")

    class Meta:
        model = Tournament
        fields = ["slug", "name", "status", "stages"]
        read_only_fields = fields

    def get_stages(self, tournament: Tournament) -> int:
        return tournament.stages.count()


class TournamentCreateView(WriteView):
    error_codes = {
        403: ("forbidden",),
        409: ("wrong_status",),
        422: ("invalid_configuration", "referee_plays"),
    }

    @write_schema(
        operation_id="tournaments_create",
        summary="Create a tournament from its plan",
        description=(
            'A tournament with its whole stage plan, as the console\'s "Add tournament" page '
            "creates it (in draft, owned by the caller, audited): its settings, its rules and "
            "its stages, validated before anything is stored. An organiser (or a superuser) "
            "only. Refusals: `invalid_configuration` with every problem of the plan at once, "
            "each in `fields` at its field (the request's keys: `stages` by index from 0, "
            "`rules` by option) and all of them, the fields named in words, in `message`; the "
            "messages follow the request's `Accept-Language` (`ru`, `en`)."
        ),
        request=TournamentPlanSerializer,
        success=(201, ApiTournamentCreatedSerializer, "The new tournament."),
        example={
            "name": "Кубок Тулы",
            "stages": [
                {"format": "swiss", "table_size": 4, "rounds": 3, "advance": {"top": 8}},
                {"format": "knockout", "table_size": 4, "advance_per_table": 2},
            ],
            "rules": {"variant": "transfer"},
            "max_entries": 64,
            "entry_fee": "500",
            "payout_structure": ["50", "30", "20"],
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("The plan must be a JSON object.")]}
            )
        # The service validates the plan (its schema, then every deep check) and who creates it.
        tournament = tournament_create(**_plan_arguments(request.data), created_by=request.user)
        return Response(
            ApiTournamentCreatedSerializer(tournament).data, status=status.HTTP_201_CREATED
        )


def _plan_arguments(data: dict[str, Any]) -> dict[str, Any]:
    """The body as ``tournament_create``'s keyword arguments. A key the plan does not have is
    refused by the plan's schema at its place (an unknown setting), with the plan's other
    problems (``check_plan``), never passed to the service as a keyword it does not take."""
    known = set(TournamentPlanSerializer().fields)
    if set(data) - known:
        check_plan(data)  # raises: the schema refuses the unknown keys
    plan = {key: value for key, value in data.items() if key in known}
    return {**plan, "name": data.get("name"), "stages": data.get("stages")}


urlpatterns = [
    path("plans/", TournamentCreateView.as_view(), name="tournament-create"),
]
