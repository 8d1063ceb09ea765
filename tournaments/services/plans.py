"""Tournaments and their stage plans: created whole and validated before anything is stored."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import InvalidOperation
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from games.engine.errors import RulesError
from tournaments import adapters
from tournaments.errors import ConfigurationError
from tournaments.models import (
    League,
    Stage,
    Tournament,
)
from tournaments.pairing import (
    PairingError,
    validate_stages,
)
from tournaments.plan_schema import (
    TournamentPlanSerializer,
    error_fields,
    error_message,
    stage_fields,
)
from tournaments.scoring.errors import ScoringError

_CYRILLIC = dict(
    zip(
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
        "a b v g d e e zh z i y k l m n o p r s t u f kh ts ch sh shch - y - e yu ya".split(),  # noqa: SIM905
        strict=True,
    )
)


def _transliterate(text: str) -> str:
    """Russian letters to Latin for URLs ("Кубок Тулы" -> "Kubok Tuly")."""
    out = []
    for char in text:
        latin = _CYRILLIC.get(char.lower())
        if latin is None:
            out.append(char)
        elif latin != "-":
            out.append(latin.capitalize() if char.isupper() else latin)
    return "".join(out)


def validate_plan(tournament: Tournament, stages: Sequence[Stage], entries: int | None) -> None:
    """Refuse a plan that could never run: rules, stages, scoring and payouts, all up front.

    The deep checks behind the schema (``plan_schema``): the pairing code on the whole plan, the
    engine on the rules at every table size, the scoring code on each stage's tables, the pool.
    A refusal names the field it is about in ``fields`` when there is one.
    """
    try:
        validate_stages(
            [adapters.stage_config(s, team_size=tournament.team_size) for s in stages], entries
        )
    except PairingError as exc:
        raise ConfigurationError(str(exc)) from None
    for stage in stages:
        sizes = {stage.table_size}
        if stage.format == Stage.Format.SWISS and tournament.team_size == 1:
            sizes.add(max(2, stage.table_size - 1))  # uneven fields use one seat fewer
        for seats in sizes:
            try:
                adapters.table_rules(tournament, seats, teams=tournament.team_size > 1)
            except RulesError as exc:
                raise ConfigurationError(
                    f"stage {stage.order}: rules: {exc}", fields={"rules": [str(exc)]}
                ) from None
        try:
            adapters.scoring_config(stage)
        except (ScoringError, TypeError, ValueError) as exc:
            # Stages are numbered from 1, the plan's list (and its field errors) from 0.
            raise ConfigurationError(
                f"stage {stage.order}: scoring: {exc}",
                fields={"stages": {stage.order - 1: {"scoring": [str(exc)]}}},
            ) from None
    try:
        adapters.pool_rules(tournament)
    except (ScoringError, InvalidOperation) as exc:
        raise ConfigurationError(f"prize pool: {exc}") from None
    try:
        adapters.payout_structure(tournament, entries or 1)
    except (ScoringError, InvalidOperation) as exc:
        raise ConfigurationError(
            f"prize pool: {exc}", fields={"payout_structure": [str(exc)]}
        ) from None


@transaction.atomic
def tournament_create(
    *,
    name: str,
    stages: Sequence[dict[str, Any]],
    rules: dict[str, Any] | None = None,
    league: League | None = None,
    team_size: int = 1,
    max_entries: int | None = None,
    check_in_required: bool = False,
    late_registration_rounds: int = 0,
    currency: str = "RUB",
    entry_fee: Any = 0,
    rake_percent: Any = 0,
    guarantee: Any = 0,
    reentry_fee: Any = 0,
    payout_structure: Sequence[Any] = (),
    move_clock_seconds: int = 60,
    is_public: bool = True,
    seed: str = "",
    created_by: Any = None,
) -> Tournament:
    """Create a tournament with its whole stage plan, validated before anything is stored.

    The settings go through the plan's schema (``plan_schema.TournamentPlanSerializer``): a
    refusal names each field's path (``stages[2].series.target: must be odd for best_of, not
    2``) and carries the field errors in ``ConfigurationError.fields``. Then the rules are
    validated by the engine for every table size the plan can seat, the stages by the pairing
    code, the scoring tables and payout percentages by the scoring code (:func:`validate_plan`).
    """
    plan = TournamentPlanSerializer(
        data={
            "name": name,
            "stages": list(stages) if isinstance(stages, (list, tuple)) else stages,
            "rules": rules,
            "team_size": team_size,
            "max_entries": max_entries,
            "check_in_required": check_in_required,
            "late_registration_rounds": late_registration_rounds,
            "currency": currency,
            "entry_fee": entry_fee,
            "rake_percent": rake_percent,
            "guarantee": guarantee,
            "reentry_fee": reentry_fee,
            "payout_structure": payout_structure,
            "move_clock_seconds": move_clock_seconds,
            "is_public": is_public,
            "seed": seed,
        }
    )
    if not plan.is_valid():
        raise ConfigurationError(error_message(plan.errors), fields=error_fields(plan.errors))
    settings = plan.validated_data
    base = slugify(_transliterate(settings["name"]))[:140] or "tournament"
    slug, n = base, 1
    while Tournament.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    tournament = Tournament(
        name=settings["name"],
        slug=slug,
        league=league,
        rules=settings["rules"],
        team_size=settings["team_size"],
        max_entries=settings["max_entries"],
        check_in_required=settings["check_in_required"],
        late_registration_rounds=settings["late_registration_rounds"],
        currency=settings["currency"],
        entry_fee=settings["entry_fee"],
        rake_percent=settings["rake_percent"],
        guarantee=settings["guarantee"],
        reentry_fee=settings["reentry_fee"],
        payout_structure=[str(p) for p in settings["payout_structure"]],
        move_clock_seconds=settings["move_clock_seconds"],
        is_public=settings["is_public"],
        seed=settings["seed"] or slug,
        created_by=created_by,
    )
    built = [
        Stage(order=order, **stage_fields(spec))
        for order, spec in enumerate(settings["stages"], start=1)
    ]
    validate_plan(tournament, built, settings["max_entries"])
    tournament.save()
    for stage in built:
        stage.tournament = tournament
    Stage.objects.bulk_create(built)
    return tournament
