"""The organiser's "add tournament" page: the settings, the rules and the whole stage plan in one
form, a preview of the tables and the payouts, and the creation through the service.

``TournamentAdmin.add_view`` returns :func:`tournament_add_view`, so the page sits at the admin's
own "Add tournament" address, inside the admin's look. Saving runs ``tournament_create`` (the
plan's schema, then ``validate_plan``: the pairing code, the engine at every table size, the
scoring and the pool) and the audit row in one transaction; a refusal carries every problem of
the plan at once, each is put back on the field it names, and nothing is stored. The preview
runs the same checks on unsaved rows, for the expected number of entries too, and stores
nothing; without an expected number it shows the plan at the fewest entries it can run with
and a few usual field sizes (``selectors.previews.preview_fields``). Amounts are written to the
currency's minor unit (``tournaments.money``).
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from tournaments.console.forms import PlanForms
from tournaments.console.stage_forms import StageForm
from tournaments.errors import ConfigurationError
from tournaments.models import Stage, Tournament
from tournaments.money import money
from tournaments.permissions import is_organiser
from tournaments.selectors import previews
from tournaments.services.idempotency import form_submit_once
from tournaments.services.plans import check_plan, plan_rows, tournament_create, validate_plan

__all__ = ["PlanPreview", "plan_preview", "plan_previews", "tournament_add_view"]

TEMPLATE = "admin/tournaments/tournament/plan_form.html"
PREVIEW, SAVE = "_preview", "_save"
#: The form's one-time token (a hidden field): the same form sent twice creates one tournament.
ONCE = "_once"
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")


def tournament_add_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest
) -> HttpResponse:
    """Create a tournament with its whole stage plan (organisers and superusers only).

    POST with ``_preview``: validate and show the tables per round and the payouts for the
    expected entries; otherwise validate and create (once per form: its one-time token ``_once``),
    then go to the tournament's dashboard.
    """
    if not is_organiser(request.user):
        raise PermissionDenied
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponseNotAllowed(["GET", "POST"])
    shown: list[PlanPreview] = []
    if request.method != "POST":
        forms = PlanForms(None, user=request.user)
        return _render(model_admin, request, forms, shown)
    previewing = PREVIEW in request.POST
    forms = PlanForms(request.POST, user=request.user, previewing=previewing)
    if not forms.is_valid():
        return _render(model_admin, request, forms, shown)
    plan = forms.plan()
    if previewing:
        try:
            shown = plan_previews(plan, forms.expected_entries)
        except ConfigurationError as exc:
            # (an entry fee the pool cannot pay, 10.005 roubles, is refused on its field)
            forms.refuse(exc)
        return _render(model_admin, request, forms, shown)
    try:
        tournament, pk = _create(request, plan)
    except ConfigurationError as exc:
        forms.refuse(exc)
        return _render(model_admin, request, forms, shown)
    if tournament is None:
        model_admin.message_user(
            request,
            gettext("This form was already sent: the tournament it created is shown."),
            messages.INFO,
        )
    else:
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
    # to the new event's dashboard, its console home
    opts = Tournament._meta
    return HttpResponseRedirect(
        reverse(
            f"admin:{opts.app_label}_{opts.model_name}_dashboard",
            args=[pk],
            current_app=model_admin.admin_site.name,
        )
    )


def _token(request: HttpRequest) -> str:
    """The form's one-time token as posted ("" for none, or one that is not a token)."""
    token = request.POST.get(ONCE, "")
    return token if TOKEN.fullmatch(token) else ""


def _create(request: HttpRequest, plan: dict[str, Any]) -> tuple[Tournament | None, int]:
    """The tournament (the service checks who creates it and writes its audit row) and its pk;
    (None, the pk of the one created) when the form's one-time token was sent before."""

    def create() -> Tournament:
        return tournament_create(**plan, created_by=request.user)

    token = _token(request)
    if not token:
        tournament = create()
        return tournament, tournament.pk
    row, pk = form_submit_once(user=request.user, token=token, path=request.path, submit=create)
    return (row if isinstance(row, Tournament) else None), pk


# --- the page ------------------------------------------------------------------------------------


def _render(
    model_admin: admin.ModelAdmin[Tournament],
    request: HttpRequest,
    forms: PlanForms,
    shown: list[PlanPreview],
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
        # The first preview is the one the page scrolls to; "previews": every field size.
        "preview": shown[0] if shown else None,
        "previews": shown,
        "PREVIEW": PREVIEW,
        "SAVE": SAVE,
        # kept across previews and refusals: the form is one until it creates its tournament
        "ONCE": ONCE,
        "once": _token(request) or secrets.token_urlsafe(24),
    }
    return TemplateResponse(request, TEMPLATE, context)


# --- the preview ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundLine:
    """The tables of one round (or of every round, for a swiss stage), in words."""

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
class MoneyLine:
    label: str
    amount: str


@dataclass(frozen=True)
class PayoutLine:
    place: int
    percent: Decimal
    amount: str


@dataclass(frozen=True)
class PlanPreview:
    entries: int
    stages: list[StagePreview] = field(default_factory=list)
    payouts: previews.PayoutPreview | None = None
    # The pool and the payouts in words: amounts to the currency's minor unit.
    pool_lines: list[MoneyLine] = field(default_factory=list)
    payout_lines: list[PayoutLine] = field(default_factory=list)
    note: str = ""


def plan_previews(plan: dict[str, Any], expected: int | None) -> list[PlanPreview]:
    """The previews of a plan: for ``expected`` entries; without, at the fewest entries the plan
    can run with and a few usual sizes (none if no number of entries can run it: then the
    plan's problems are raised). Raises ``ConfigurationError`` as :func:`plan_preview` does."""
    if expected is not None:
        return [plan_preview(plan, expected)]
    tournament, stages = _unsaved(plan)
    sizes = previews.preview_fields(tournament, stages)
    if not sizes:
        validate_plan(tournament, stages, 2)  # a plan no field can run: its problems at 2
        return []
    shown = [plan_preview(plan, n) for n in sizes]
    fewest = replace(
        shown[0],
        note=gettext("The fewest entries this plan can run with."),
    )
    return [fewest, *shown[1:]]


def plan_preview(plan: dict[str, Any], entries: int) -> PlanPreview:
    """What the plan does with ``entries`` entries: the tables of each stage's rounds, how many
    go on, and the provisional payouts by place (``selectors.previews``), in words. Raises
    ``ConfigurationError`` as ``tournament_create`` would (for the max entries, then for
    ``entries``), and for an entry fee the pool cannot take; stores nothing.
    """
    tournament, stages = _unsaved(plan)
    validate_plan(tournament, stages, entries)
    teams = tournament.team_size > 1
    shown = [
        _stage_words(s, teams=teams) for s in previews.plan_seating(tournament, stages, entries)
    ]
    payouts = previews.payout_preview(tournament, entries)
    return PlanPreview(
        entries=entries,
        stages=shown,
        payouts=payouts,
        pool_lines=_pool_lines(payouts, tournament),
        payout_lines=[
            PayoutLine(p.place, p.percent, money(p.amount, payouts.currency))
            for p in payouts.places
        ],
    )


def _unsaved(plan: dict[str, Any]) -> tuple[Tournament, list[Stage]]:
    """The plan's rows, validated whole (its schema and its checks for the max entries, all
    problems at once) and not saved: the ones ``tournament_create`` would store."""
    data = {key: value for key, value in plan.items() if key != "league"}
    return plan_rows(check_plan(data))


def _pool_lines(pool: previews.PayoutPreview, tournament: Tournament) -> list[MoneyLine]:
    code = pool.currency
    fee = money(Decimal(tournament.entry_fee), code)
    lines = [
        MoneyLine(
            ngettext(
                "Fees of %(entries)d entry × %(fee)s",
                "Fees of %(entries)d entries × %(fee)s",
                pool.entries,
            )
            % {"entries": pool.entries, "fee": fee},
            money(pool.gross, code),
        ),
        MoneyLine(gettext("Rake"), "−" + money(pool.rake, code)),
    ]
    if pool.topup:
        lines.append(MoneyLine(gettext("Raised to the guarantee"), "+" + money(pool.topup, code)))
    lines.append(MoneyLine(gettext("Pool"), money(pool.total, code)))
    return lines


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


def _round_label(line: previews.RoundSeating) -> str:
    if line.kind == "final":
        return gettext("Final")
    if line.kind == "round":
        return gettext("Round %(number)d") % {"number": line.number}
    if line.groups:
        return ngettext(
            "Every round (%(groups)d group)", "Every round (%(groups)d groups)", line.groups
        ) % {"groups": line.groups}
    return gettext("Every round")


def _stage_words(stage: previews.StageSeating, *, teams: bool) -> StagePreview:
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
    if stage.problem:
        return StagePreview(stage.order, title, stage.entries, "", [], None, problem=stage.problem)
    if stage.rounds_exact:
        rounds = ngettext("%(n)d round", "%(n)d rounds", stage.rounds) % {"n": stage.rounds}
    else:
        rounds = ngettext("at least %(n)d round", "at least %(n)d rounds", stage.rounds) % {
            "n": stage.rounds
        }
    lines = [
        RoundLine(_round_label(line), line.tables, _sizes(line.sizes, teams=teams), line.byes)
        for line in stage.lines
    ]
    return StagePreview(stage.order, title, stage.entries, rounds, lines, stage.advancing)
