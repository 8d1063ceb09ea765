"""The organiser's "add tournament" page: the settings, the rules and the whole stage plan in one
form, a preview of the tables and the payouts, and the creation through the service.

``TournamentAdmin.add_view`` returns :func:`tournament_add_view`, so the page sits at the admin's
own "Add tournament" address, inside the admin's look. Saving runs ``tournament_create`` (the
plan's schema, then ``validate_plan``: the pairing code, the engine at every table size, the
scoring and the pool) and the audit row in one transaction; a refusal is put back on the fields
it names and nothing is stored. The preview runs the same checks on unsaved rows, for the
expected number of entries too, and stores nothing.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from tournaments import adapters
from tournaments.console.forms import PlanForms
from tournaments.console.stage_forms import StageForm
from tournaments.errors import ConfigurationError
from tournaments.models import Stage, Tournament
from tournaments.pairing import (
    ConfigError,
    PairingError,
    balanced_table_sizes,
    build_bracket,
    round_robin,
    snake_groups,
)
from tournaments.permissions import is_organiser
from tournaments.plan_schema import (
    TournamentPlanSerializer,
    error_fields,
    error_message,
)
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.prizes import Payment, compute_prizes
from tournaments.services.plans import plan_rows, tournament_create, validate_plan

__all__ = ["PlanPreview", "plan_preview", "tournament_add_view"]

TEMPLATE = "admin/tournaments/tournament/plan_form.html"
PREVIEW, SAVE = "_preview", "_save"
# Round-robin groups up to this size get their schedule built for the preview (32: 0.1 s);
# larger ones show the fewest rounds any schedule needs.
SCHEDULED_GROUP = 32


def tournament_add_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest
) -> HttpResponse:
    """Create a tournament with its whole stage plan (organisers and superusers only).

    POST with ``_preview``: validate and show the tables per round and the payouts for the
    expected entries; otherwise validate and create, then go to the tournament's change page.
    """
    if not is_organiser(request.user):
        raise PermissionDenied
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponseNotAllowed(["GET", "POST"])
    preview: PlanPreview | None = None
    if request.method != "POST":
        forms = PlanForms(None, user=request.user)
        return _render(model_admin, request, forms, preview)
    previewing = PREVIEW in request.POST
    forms = PlanForms(request.POST, user=request.user, previewing=previewing)
    if not forms.is_valid():
        return _render(model_admin, request, forms, preview)
    plan = forms.plan()
    if previewing:
        expected = forms.expected_entries
        if expected is None:
            forms.refuse_field("expected_entries", gettext("Say how many entries you expect."))
            return _render(model_admin, request, forms, preview)
        try:
            preview = plan_preview(plan, expected)
        except ConfigurationError as exc:
            forms.refuse(exc)
        except ScoringError as exc:
            # The pool takes whole minor units: an entry fee of 10.005 roubles cannot be paid.
            forms.refuse_field("entry_fee", str(exc))
        return _render(model_admin, request, forms, preview)
    try:
        tournament = _create(request, plan)
    except ConfigurationError as exc:
        forms.refuse(exc)
        return _render(model_admin, request, forms, preview)
    stages = len(plan["stages"])
    model_admin.message_user(
        request,
        ngettext(
            "The tournament “%(name)s” was created with %(count)d stage.",
            "The tournament “%(name)s” was created with %(count)d stages.",
            stages,
        )
        % {"name": tournament.name, "count": stages},
        messages.SUCCESS,
    )
    opts = Tournament._meta
    return HttpResponseRedirect(
        reverse(
            f"admin:{opts.app_label}_{opts.model_name}_change",
            args=[tournament.pk],
            current_app=model_admin.admin_site.name,
        )
    )


def _create(request: HttpRequest, plan: dict[str, Any]) -> Tournament:
    """The tournament (the service checks who creates it and writes its audit row)."""
    return tournament_create(**plan, created_by=request.user)


# --- the page ------------------------------------------------------------------------------------


def _render(
    model_admin: admin.ModelAdmin[Tournament],
    request: HttpRequest,
    forms: PlanForms,
    preview: PlanPreview | None,
) -> HttpResponse:
    opts = Tournament._meta
    filled = set(map(id, forms.stages.filled_forms())) if forms.stages.is_bound else set()
    rows = [
        {
            "form": form,
            "number": index + 1,
            "lines": [[form[name] for name in line] for line in StageForm.LINES],
            "blank": id(form) not in filled,
        }
        for index, form in enumerate(forms.stages.forms)
    ]
    empty = forms.stages.empty_form
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Add tournament"),
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "has_view_permission": model_admin.has_view_permission(request),
        "forms": forms,
        "adminforms": forms.admin_forms(model_admin),
        "has_errors": forms.has_errors,
        "stage_rows": rows,
        "empty_row": {
            "form": empty,
            "lines": [[empty[name] for name in line] for line in StageForm.LINES],
        },
        "preview": preview,
        "PREVIEW": PREVIEW,
        "SAVE": SAVE,
    }
    return TemplateResponse(request, TEMPLATE, context)


# --- the preview ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundLine:
    """The tables of one round (or of every round, for a swiss stage)."""

    label: str
    tables: int
    sizes: str
    byes: int = 0


@dataclass(frozen=True)
class StagePreview:
    number: int
    title: str
    entries: int
    rounds: str
    lines: list[RoundLine]
    advancing: int | None
    problem: str = ""


@dataclass(frozen=True)
class PayoutLine:
    place: int
    percent: Decimal
    amount: Decimal


@dataclass(frozen=True)
class PayoutPreview:
    currency: str
    entries: int
    gross: Decimal
    rake: Decimal
    topup: Decimal
    total: Decimal
    places: list[PayoutLine]


@dataclass(frozen=True)
class PlanPreview:
    entries: int
    stages: list[StagePreview] = field(default_factory=list)
    payouts: PayoutPreview | None = None


def plan_preview(plan: dict[str, Any], entries: int) -> PlanPreview:
    """What the plan does with ``entries`` entries: the tables of each stage's rounds, how many
    go on, and the provisional payouts by place. Raises ``ConfigurationError`` as
    ``tournament_create`` would (for the max entries, then for ``entries``); stores nothing.
    """
    tournament, stages = _unsaved(plan)
    validate_plan(tournament, stages, tournament.max_entries)
    validate_plan(tournament, stages, entries)
    shown: list[StagePreview] = []
    count: int | None = entries
    for stage in stages:
        if count is None:
            break
        preview = _stage_preview(tournament, stage, count)
        shown.append(preview)
        count = preview.advancing
    return PlanPreview(entries=entries, stages=shown, payouts=_payouts(tournament, entries))


def _unsaved(plan: dict[str, Any]) -> tuple[Tournament, list[Stage]]:
    """The plan's rows, validated by the plan's schema and not saved (the ones
    ``tournament_create`` would store)."""
    data = {key: value for key, value in plan.items() if key != "league"}
    schema = TournamentPlanSerializer(data=data)
    if not schema.is_valid():
        raise ConfigurationError(error_message(schema.errors), fields=error_fields(schema.errors))
    return plan_rows(schema.validated_data)


def _sizes(sizes: Sequence[int], *, teams: bool) -> str:
    counts = sorted(Counter(sizes).items(), reverse=True)
    if teams:
        parts = [
            ngettext("%(n)d of %(k)d teams", "%(n)d of %(k)d teams", n) % {"n": n, "k": k}
            for k, n in counts
        ]
    else:
        parts = [
            ngettext("%(n)d of %(k)d seats", "%(n)d of %(k)d seats", n) % {"n": n, "k": k}
            for k, n in counts
        ]
    return ", ".join(parts)


def _seated(n: int, per_table: int) -> tuple[list[int], int]:
    """Table sizes and byes for ``n`` entries (a bye only when 2-seat tables meet an odd n)."""
    byes = 1 if n == 1 or (per_table == 2 and n % 2) else 0
    return balanced_table_sizes(n - byes, per_table), byes


def _stage_preview(tournament: Tournament, stage: Stage, n: int) -> StagePreview:
    teams = tournament.team_size > 1
    # Entries per table: players, or two teams at a team table.
    per_table = 2 if teams else stage.table_size
    fmt = {
        Stage.Format.SWISS: gettext("Swiss"),
        Stage.Format.ROUND_ROBIN: gettext("Round robin"),
        Stage.Format.KNOCKOUT: gettext("Knockout"),
    }.get(Stage.Format(stage.format), stage.format)
    title = gettext("Stage %(number)d: %(name)s") % {
        "number": stage.order,
        "name": stage.name
        or gettext("%(format)s, %(seats)d seats") % {"format": fmt, "seats": stage.table_size},
    }
    try:
        if stage.format == Stage.Format.SWISS:
            rounds, lines, advancing = _swiss(stage, n, per_table, teams=teams)
        elif stage.format == Stage.Format.ROUND_ROBIN:
            rounds, lines, advancing = _round_robin(tournament, stage, n, per_table, teams=teams)
        else:
            rounds, lines, advancing = _knockout(stage, n, per_table, teams=teams)
    except (PairingError, ConfigError) as exc:
        return StagePreview(stage.order, title, n, "", [], None, problem=str(exc))
    return StagePreview(stage.order, title, n, rounds, lines, advancing)


def _advancing(stage: Stage, per_table_sizes: Sequence[int], groups: int) -> int | None:
    if stage.advance_mode == Stage.AdvanceMode.TOP_N:
        return stage.advance_count
    if stage.advance_mode == Stage.AdvanceMode.TOP_K_PER_TABLE:
        if stage.format == Stage.Format.ROUND_ROBIN:
            return stage.advance_count * groups
        return sum(min(stage.advance_count, size) for size in per_table_sizes)
    return None


def _swiss(
    stage: Stage, n: int, per_table: int, *, teams: bool
) -> tuple[str, list[RoundLine], int | None]:
    sizes, byes = _seated(n, per_table)
    count = stage.rounds_planned or 0
    rounds = ngettext("%(n)d round", "%(n)d rounds", count) % {"n": count}
    line = RoundLine(gettext("Every round"), len(sizes), _sizes(sizes, teams=teams), byes)
    return rounds, [line], _advancing(stage, sizes, 1)


def _round_robin(
    tournament: Tournament, stage: Stage, n: int, per_table: int, *, teams: bool
) -> tuple[str, list[RoundLine], int | None]:
    groups = snake_groups(list(range(n)), stage.groups or 1)
    sizes: list[int] = []
    byes = 0
    exact, fewest = 0, 0
    schedules: dict[int, int] = {}
    for group in groups:
        seated, bye = _seated(len(group), per_table)
        sizes += seated
        byes += bye
        fewest = max(fewest, -(-(len(group) - 1) // (per_table - 1)))
        if per_table == 2:
            # The circle method: every pair once, a bye a round for an odd group.
            schedules[len(group)] = len(group) - 1 + len(group) % 2
        elif len(group) not in schedules and len(group) <= SCHEDULED_GROUP:
            rng = random.Random(f"{tournament.seed}:{stage.order}:0")
            schedules[len(group)] = round_robin(group, table_size=per_table, rng=rng).round_count
        exact = max(exact, schedules.get(len(group), 0))
    if len(schedules) == len({len(g) for g in groups}):
        rounds = ngettext("%(n)d round", "%(n)d rounds", exact) % {"n": exact}
    else:
        rounds = gettext("at least %(n)d rounds") % {"n": fewest}
    label = ngettext(
        "Every round (%(groups)d group)", "Every round (%(groups)d groups)", len(groups)
    ) % {"groups": len(groups)}
    line = RoundLine(label, len(sizes), _sizes(sizes, teams=teams), byes)
    return rounds, [line], _advancing(stage, sizes, len(groups))


def _knockout(
    stage: Stage, n: int, per_table: int, *, teams: bool
) -> tuple[str, list[RoundLine], int | None]:
    bracket = build_bracket(
        list(range(1, n + 1)), table_size=per_table, advance=stage.knockout_advance or 1
    )
    lines = []
    last = len(bracket.rounds)
    for number, tables in enumerate(bracket.rounds, start=1):
        label = (
            gettext("Final") if number == last else gettext("Round %(number)d") % {"number": number}
        )
        byes = len(bracket.byes) if number == 1 else 0
        lines.append(
            RoundLine(label, len(tables), _sizes([t.seats for t in tables], teams=teams), byes)
        )
    rounds = ngettext("%(n)d round", "%(n)d rounds", last) % {"n": last}
    return rounds, lines, None


def _payouts(tournament: Tournament, entries: int) -> PayoutPreview:
    report = compute_prizes(
        adapters.pool_rules(tournament),
        [Payment("entry", Decimal(tournament.entry_fee))] * entries,
        field_size=entries,
        structure=adapters.payout_structure(tournament, entries),
    )
    pool = report.pool
    shares = report.structure.percentages
    places = []
    for line in report.by_place:
        if pool.total:
            percent = (line.amount * 100 / pool.total).quantize(Decimal("0.01"))
        else:
            percent = shares[line.place - 1]
        places.append(PayoutLine(line.place, percent, line.amount))
    return PayoutPreview(
        currency=pool.currency.code,
        entries=entries,
        gross=pool.gross,
        rake=pool.rake,
        topup=pool.topup,
        total=pool.total,
        places=places,
    )
