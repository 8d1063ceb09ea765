"""The API's writes: the console's operations for organisers' and referees' own tools (a venue
tablet entering results, a club's registration form), with the same services and the same
permissions (``tournaments.permissions``).

- register an entry (``can_manage``); withdraw one (with a reason: the dropout rule applies to
  its running games) and check one in (``can_referee``);
- enter or correct a table's result, confirm or reject a pending one under the two-person rule
  (``tournaments.services.corrections``, which checks ``can_referee`` itself and writes its
  audit rows);
- request the pairing of a pending round (``can_referee``).

Creating a tournament from its plan is a write of its own subject (:mod:`tournaments.api.plans`).

Each service checks its actor itself. A view checks first only where its answer would
otherwise differ: before it reads a body (a refused caller gets a 403, not its body's 400), and
where the API is narrower than the service (a player may withdraw or check in its own entry on
its pages, not through the API). Where the service's refusal is the same 403
``permission_denied`` (confirming a result, requesting a pairing), the view leaves it to it.

Every write takes a token (``Authorization: Token <key>``; a browser session also works, with
its CSRF token): no credentials is a 401 with ``WWW-Authenticate: Token``. An object the caller
may not read is a 404 (``visibility.tournaments_visible_to``: a private event is invisible to
others); one it may read but not change is a 403. Every service here takes the caller as its
``actor`` and writes the audit row itself, the same row as the console's.
Each write honours ``Idempotency-Key`` (:mod:`tournaments.api.idempotency`) and is throttled per
user (``DURAK_API_RATE_WRITE``) on top of the user's rate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db.models import QuerySet
from django.urls import path
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from games.engine.cards import RANKS
from tournaments.api.auth import BearerTokenAuthentication
from tournaments.api.common import (
    ApiUserThrottle,
    ApiWriteThrottle,
)
from tournaments.api.contract import ContractView
from tournaments.api.idempotency import HEADER, MAX_KEY_LENGTH, REPLAYED_HEADER, idempotent
from tournaments.models import (
    Entry,
    Player,
    Round,
    Table,
    TableResult,
    Team,
    Tournament,
)
from tournaments.permissions import can_manage, can_referee
from tournaments.selectors import visibility
from tournaments.services.corrections import (
    table_result_confirm,
    table_result_enter,
    table_result_reject,
)
from tournaments.services.registration import entry_check_in, entry_register, entry_withdraw
from tournaments.services.rounds import round_request_pairing

F = TypeVar("F", bound=Callable[..., Any])

# --- output: the changed resource ----------------------------------------------------------------


class ApiEntryStateSerializer(serializers.ModelSerializer[Entry]):
    """An entry as a write leaves it."""

    tournament: serializers.SlugRelatedField[Tournament] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    name = serializers.CharField(read_only=True, help_text="The player's or the team's name.")

    class Meta:
        model = Entry
        fields = ["id", "tournament", "name", "player", "team", "status", "status_reason", "paid"]
        read_only_fields = fields


class ApiPogonyHangingSerializer(serializers.Serializer[Any]):
    """Pogony hung at a table: by an entry, on other entries of it, of a rank."""

    by = serializers.IntegerField(help_text="The entry that hung them.")
    on = serializers.ListField(
        child=serializers.IntegerField(), min_length=1, help_text="The entries they were hung on."
    )
    rank = serializers.ChoiceField(
        choices=list(RANKS), help_text="The rank of the cards (`T` is a ten)."
    )


class ApiResultStateSerializer(serializers.ModelSerializer[TableResult]):
    """A table's result as a write leaves it (``pending`` under the two-person rule until
    another referee confirms it)."""

    places = serializers.ListField(
        child=serializers.IntegerField(),
        read_only=True,
        help_text="Entry ids from the first out to the last.",
    )
    fool = serializers.IntegerField(
        source="fool_entry_id", read_only=True, allow_null=True, help_text="Null on a draw."
    )
    drawn = serializers.ListField(
        child=serializers.IntegerField(), read_only=True, help_text="The entries that drew."
    )
    pogony = ApiPogonyHangingSerializer(many=True, read_only=True)

    class Meta:
        model = TableResult
        fields = [
            "id",
            "table",
            "status",
            "source",
            "places",
            "fool",
            "drawn",
            "pogony",
            "reason",
            "supersedes",
            "repairs",
            "review_note",
            "created_at",
            "reviewed_at",
        ]
        read_only_fields = fields


class ApiRoundStateSerializer(serializers.ModelSerializer[Round]):
    """A round as a pairing request leaves it (still ``pending``: the pairing job seats it)."""

    class Meta:
        model = Round
        fields = ["id", "stage", "number", "status"]
        read_only_fields = fields


# --- input ---------------------------------------------------------------------------------------


class ApiEntryRegisterSerializer(serializers.Serializer[Any]):
    player = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(),
        required=False,
        allow_null=True,
        help_text="An individual event: the player's id.",
    )
    team = serializers.PrimaryKeyRelatedField(
        queryset=Team.objects.all(),
        required=False,
        allow_null=True,
        help_text="A team event: the team's id.",
    )
    paid = serializers.BooleanField(default=True, help_text="The entry fee is paid.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs.get("player") is None) == (attrs.get("team") is None):
            raise serializers.ValidationError(gettext("Name a player or a team (one of them)."))
        return attrs


class ApiEntryWithdrawSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(
        max_length=300, help_text="Kept in the audit log and shown where it concerns the player."
    )


class ApiTableResultEnterSerializer(serializers.Serializer[Any]):
    places = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=2,
        help_text="Every entry of the table once, from the first out to the last (the fool last; "
        "on a draw the drawn entries last).",
    )
    fool = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="The fool's entry (the last)."
    )
    drawn = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        default=list,
        help_text="On a draw (no fool): the entries that drew (the last places).",
    )
    pogony = ApiPogonyHangingSerializer(many=True, required=False)
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=300,
        help_text="Required for a correction (the table has a result in force).",
    )
    repair = serializers.BooleanField(
        default=False,
        help_text="If the next round (or a knockout table) was seated from the old result: pair "
        "it again (possible while none of its games has a move); otherwise such a correction is "
        "refused with `repair_needed`.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs.get("fool") is None) == (not attrs.get("drawn")):
            raise serializers.ValidationError(
                gettext("Name the fool, or on a draw the entries that drew (not both).")
            )
        return attrs


class ApiResultRejectSerializer(serializers.Serializer[Any]):
    note = serializers.CharField(max_length=300, help_text="Why it is rejected (audited).")


# --- the views -----------------------------------------------------------------------------------


class WriteView(ContractView):
    """What every write shares: token (or session) authentication, named first so that a
    missing token is a 401 with ``WWW-Authenticate: Token``; JSON bodies; the write throttle."""

    authentication_classes = [BearerTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [ApiUserThrottle, ApiWriteThrottle]
    parser_classes = [JSONParser]

    # Lookups raise DRF's ``NotFound``, not Django's ``Http404``: ``api_exception_handler``
    # reshapes only ``APIException``s, so an ``Http404`` would leave DRF's ``{"detail"}``.

    def visible_tournaments(self) -> QuerySet[Tournament]:
        return visibility.tournaments_visible_to(self.request.user)

    def tournament(self, slug: str) -> Tournament:
        found = self.visible_tournaments().filter(slug=slug).first()
        if found is None:
            raise NotFound
        return found

    def entry(self, pk: int) -> Entry:
        found = (
            Entry.objects.select_related("tournament", "player", "team")
            .filter(pk=pk, tournament__in=self.visible_tournaments())
            .first()
        )
        if found is None:
            raise NotFound
        return found

    def may_referee(self, tournament: Tournament) -> None:
        if not can_referee(self.request.user, tournament):
            raise PermissionDenied(gettext("Only a referee of this tournament can do this."))


IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        f"Up to {MAX_KEY_LENGTH} printable ASCII characters, new for each write (a UUID). The "
        "same key with the same method, path and body, sent again by the same caller, gets the "
        f"first answer again (with `{REPLAYED_HEADER}: true`) and changes nothing; the same key "
        "with another request is a 422 `idempotency_key_reused`. A 400, a 422 or a 5xx is not "
        "kept (correct the request and send it again with the key)."
    ),
)
#: What a correction of a result may refuse, entered or confirmed (``services.corrections``).
CORRECTION_CONFLICTS = ("repair_needed", "round_started", "result_final")


def write_schema(
    *,
    operation_id: str,
    summary: str,
    description: str,
    request: type[serializers.BaseSerializer[Any]] | None,
    success: tuple[int, type[serializers.BaseSerializer[Any]], str],
    example: dict[str, Any] | None = None,
) -> Callable[[F], F]:
    """``extend_schema`` for a write: its idempotency header and its answer (its refusals are
    the schema's: derived, and its view's ``error_codes``, ``tournaments.api.contract``)."""
    code, output, answer = success
    decorate: Callable[[F], F] = extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        tags=["writes"],
        request=request,
        parameters=[IDEMPOTENCY_KEY],
        responses={code: OpenApiResponse(output, description=answer)},
        examples=(
            [OpenApiExample(f"{summary}", value=example, request_only=True)] if example else []
        ),
    )
    return decorate


class EntryRegisterView(WriteView):
    error_codes = {
        403: ("forbidden",),
        409: ("registration_refused", "own_event"),
        422: ("registration_refused",),
    }

    @write_schema(
        operation_id="entries_register",
        summary="Register an entry",
        description=(
            "Registers a player (individual event) or a team (team event) for the tournament, "
            "as the console's organiser does: while registration is open, or during the first "
            "rounds of late registration. The tournament's organiser (or a superuser) only. "
            "Refusals: `registration_refused` (closed, full, already registered, wrong kind of "
            "entry)."
        ),
        request=ApiEntryRegisterSerializer,
        success=(201, ApiEntryStateSerializer, "The new entry."),
        example={"player": 42, "paid": True},
    )
    @idempotent
    def post(self, request: Request, slug: str) -> Response:
        tournament = self.tournament(slug)
        if not can_manage(request.user, tournament):
            raise PermissionDenied(
                gettext("Only the organiser of this tournament can register entries.")
            )
        data = ApiEntryRegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = entry_register(
            tournament=tournament,
            player=data.validated_data.get("player"),
            team=data.validated_data.get("team"),
            paid=data.validated_data["paid"],
            actor=request.user,
        )
        return Response(ApiEntryStateSerializer(entry).data, status=status.HTTP_201_CREATED)


class EntryWithdrawView(WriteView):
    error_codes = {403: ("forbidden",), 409: ("wrong_status",)}

    @write_schema(
        operation_id="entries_withdraw",
        summary="Withdraw an entry",
        description=(
            "The entry keeps its played results and is not seated again. If it drops out of a "
            "running event while it plays, its games follow the tournament's dropout rule (the "
            "move clock plays for it, or its games are paused for a referee). A referee of the "
            "tournament or its organiser. Refusals: `wrong_status` (already withdrawn, "
            "disqualified or eliminated)."
        ),
        request=ApiEntryWithdrawSerializer,
        success=(200, ApiEntryStateSerializer, "The entry, withdrawn."),
        example={"reason": "Left the venue: a family emergency"},
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        entry = self.entry(pk)
        self.may_referee(entry.tournament)
        data = ApiEntryWithdrawSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        reason = data.validated_data["reason"].strip()
        entry = entry_withdraw(entry=entry, reason=reason, actor=request.user)
        return Response(ApiEntryStateSerializer(entry).data)


class EntryCheckInView(WriteView):
    error_codes = {403: ("forbidden",), 409: ("wrong_status",)}

    @write_schema(
        operation_id="entries_check_in",
        summary="Check an entry in",
        description=(
            "A registered entry is present (during registration, or a late entry of a running "
            "event). A referee of the tournament or its organiser. Refusals: `wrong_status` "
            "(checked in already, withdrawn, or check-in is not open). No body."
        ),
        request=None,
        success=(200, ApiEntryStateSerializer, "The entry, checked in."),
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        entry = self.entry(pk)
        self.may_referee(entry.tournament)
        entry = entry_check_in(entry=entry, actor=request.user)
        return Response(ApiEntryStateSerializer(entry).data)


class TableResultEnterView(WriteView):
    error_codes = {
        403: ("forbidden",),
        409: ("invalid_result", "wrong_status", *CORRECTION_CONFLICTS),
        422: ("invalid_result",),
    }

    @write_schema(
        operation_id="tables_result_enter",
        summary="Enter or correct a table's result",
        description=(
            "A referee's result for a table: the first one (a table played over the board; its "
            "live game is voided) or a correction of the result in force, which needs a "
            "`reason`. Under the tournament's two-person rule the result is `pending` until "
            "another referee confirms it; otherwise it counts at once and the standings follow. "
            "A referee of the tournament or its organiser. Refusals: `invalid_result` (places, "
            "fool, draw or pogony that do not fit the table), `wrong_status` (a result waits "
            "for a second referee), `repair_needed` (the next round was seated from the old "
            "result: send `repair: true` to pair it again), `round_started` (it cannot be "
            "paired again), `result_final` (the stage or the tournament is over)."
        ),
        request=ApiTableResultEnterSerializer,
        success=(
            201,
            ApiResultStateSerializer,
            "The new result: `pending` under the two-person rule, else `confirmed`.",
        ),
        example={
            "places": [17, 12, 20],
            "fool": 20,
            "pogony": [{"by": 17, "on": [20], "rank": "6"}],
            "reason": "",
            "repair": False,
        },
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        table = (
            Table.objects.select_related("round__stage__tournament")
            .filter(pk=pk, round__stage__tournament__in=self.visible_tournaments())
            .first()
        )
        if table is None:
            raise NotFound
        self.may_referee(table.round.stage.tournament)
        data = ApiTableResultEnterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        result = table_result_enter(
            table=table,
            actor=request.user,
            places=given["places"],
            fool=given["fool"],
            drawn=given["drawn"],
            pogony=[dict(hung) for hung in given.get("pogony", [])],
            reason=given["reason"],
            repair=given["repair"],
        )
        return Response(ApiResultStateSerializer(result).data, status=status.HTTP_201_CREATED)


class ResultReviewView(WriteView):
    def visible_result(self, pk: int) -> TableResult:
        found = (
            TableResult.objects.select_related("table__round__stage__tournament")
            .filter(pk=pk, table__round__stage__tournament__in=self.visible_tournaments())
            .first()
        )
        if found is None:
            raise NotFound
        return found


class ResultConfirmView(ResultReviewView):
    error_codes = {
        403: ("forbidden",),
        409: ("invalid_result", "wrong_status", *CORRECTION_CONFLICTS),
        422: ("invalid_result",),
    }

    @write_schema(
        operation_id="results_confirm",
        summary="Confirm a pending result",
        description=(
            "The two-person rule: another referee of the tournament (not the one who entered "
            "it) confirms a pending result, which counts from now. Refusals: `forbidden` (your "
            "own result), `wrong_status` (not pending), and those of a correction "
            "(`repair_needed`, `round_started`, `result_final`), checked again now. No body."
        ),
        request=None,
        success=(200, ApiResultStateSerializer, "The result, confirmed: it counts."),
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        # The service refuses who does not referee the event (403 ``permission_denied``).
        result = table_result_confirm(result=self.visible_result(pk), actor=request.user)
        return Response(ApiResultStateSerializer(result).data)


class ResultRejectView(ResultReviewView):
    error_codes = {403: ("forbidden",), 409: ("wrong_status",), 422: ("invalid_result",)}

    @write_schema(
        operation_id="results_reject",
        summary="Reject a pending result",
        description=(
            "The two-person rule: another referee of the tournament rejects a pending result, "
            "with a note; it never counts and the table keeps the result it had. Refusals: "
            "`forbidden` (your own result), `wrong_status` (not pending)."
        ),
        request=ApiResultRejectSerializer,
        success=(200, ApiResultStateSerializer, "The result, rejected."),
        example={"note": "The fool was player 3, not player 4: see the score sheet"},
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        pending = self.visible_result(pk)
        self.may_referee(pending.table.round.stage.tournament)  # before the body's 400
        data = ApiResultRejectSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = table_result_reject(
            result=pending, actor=request.user, note=data.validated_data["note"]
        )
        return Response(ApiResultStateSerializer(result).data)


class RoundPairView(WriteView):
    error_codes = {403: ("forbidden",), 409: ("wrong_status",), 422: ("invalid_tournament",)}

    @write_schema(
        operation_id="rounds_request_pairing",
        summary="Request the pairing of a round",
        description=(
            "Asks for a pending round of the tournament (by its stage's order and its number, "
            "as in the round's own address) to be paired: the pairing job seats it "
            "(202: the round is still `pending` in the answer; watch the round or the feed). A "
            "referee of the tournament or its organiser. Refusals: `wrong_status` (the round "
            "is paired already, or is a later knockout round, seated by its feeding tables). "
            "No body."
        ),
        request=None,
        success=(202, ApiRoundStateSerializer, "The round, queued for pairing."),
    )
    @idempotent
    def post(self, request: Request, slug: str, order: int, number: int) -> Response:
        tournament = self.tournament(slug)
        round_ = (
            Round.objects.select_related("stage__tournament")
            .filter(stage__tournament=tournament, stage__order=order, number=number)
            .first()
        )
        if round_ is None:
            raise NotFound
        # The service refuses who does not referee the event (403 ``permission_denied``).
        round_request_pairing(round_=round_, actor=request.user)
        return Response(ApiRoundStateSerializer(round_).data, status=status.HTTP_202_ACCEPTED)


urlpatterns = [
    path("tournaments/<slug:slug>/entries/", EntryRegisterView.as_view(), name="entry-register"),
    path("entries/<int:pk>/withdraw/", EntryWithdrawView.as_view(), name="entry-withdraw"),
    path("entries/<int:pk>/check-in/", EntryCheckInView.as_view(), name="entry-check-in"),
    path("tables/<int:pk>/result/", TableResultEnterView.as_view(), name="table-result-enter"),
    path("results/<int:pk>/confirm/", ResultConfirmView.as_view(), name="result-confirm"),
    path("results/<int:pk>/reject/", ResultRejectView.as_view(), name="result-reject"),
    path(
        "tournaments/<slug:slug>/stages/<int:order>/rounds/<int:number>/pair/",
        RoundPairView.as_view(),
        name="round-request-pairing",
    ),
]
