"""Tournaments and their stage plans: created whole and validated before anything is stored."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils.functional import Promise
from django.utils.text import slugify
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _lazy

from durak_site.errors import Forbidden, status_name
from games.actors import Actor
from tournaments import adapters, plan_words
from tournaments.errors import ConfigurationError, StateError
from tournaments.models import (
    AuditEvent,
    Entry,
    League,
    Stage,
    Tournament,
)
from tournaments.pairing import stage_problems
from tournaments.permissions import (
    can_manage_league,
    is_organiser,
    is_referee,
    plays_in,
    require_manager,
)
from tournaments.plan_schema import (
    TournamentPlanSerializer,
    error_fields,
    error_message,
    stage_fields,
    stage_spec,
)
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.prizes import currency
from tournaments.services import automation
from tournaments.services.audit import audit_changes, audit_record
from tournaments.services.feed import tournament_changed

if TYPE_CHECKING:
    from django.contrib.auth.models import User

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


def validate_plan(
    tournament: Tournament,
    stages: Sequence[Stage],
    entries: int | None,
    *,
    found: Mapping[str, Any] | None = None,
) -> None:
    """Refuse a plan that could never run: rules, stages, scoring and payouts, all up front, all
    at once.

    The deep checks behind the schema (``plan_schema``): the pairing code on the whole plan, the
    engine on the rules at every table size, the scoring code on each stage's tables, the pool
    and the payouts. Every independent problem is found in one pass (:func:`plan_problems`) and
    raised as one ``ConfigurationError``: each message at its field in ``fields`` (the schema's
    shape: ``{"rules": {"hand_size": [...]}, "stages": {1: {"advance_per_table": [...]}}}``),
    and all of them, each after its field in words, in its message. ``found``: field errors
    already found (the schema's), kept, and reported with these.
    """
    fields = plan_problems(tournament, stages, entries, found=found)
    if fields:
        raise ConfigurationError(error_message(fields), fields=fields)


def plan_problems(
    tournament: Tournament,
    stages: Sequence[Stage],
    entries: int | None,
    *,
    found: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every problem :func:`validate_plan` refuses, as field errors in the active language
    (``plan_words``); a field ``found`` already blames is not checked again."""
    fields: dict[str, Any] = copy.deepcopy(dict(found or {}))
    blamed = set(fields)

    def add(path: tuple[Any, ...], message: str) -> None:
        if path[0] in blamed:
            return
        node = fields
        for key in path[:-1]:
            node = node.setdefault(key, {})
        messages = node.setdefault(path[-1], [])
        if message not in messages:
            messages.append(message)

    if "stages" not in blamed:
        _stage_problems(tournament, stages, entries, add)
        _rules_problems(tournament, stages, add)
    _pool_problems(tournament, entries, add)
    _absent_bots_problems(tournament, add)
    return fields


Add = Callable[[tuple[Any, ...], str], None]
NON_FIELD = "non_field_errors"
SEED_LENGTH = Tournament._meta.get_field("seed").max_length or 64


def _stage_problems(
    tournament: Tournament, stages: Sequence[Stage], entries: int | None, add: Add
) -> None:
    configs = [adapters.stage_config(s, team_size=tournament.team_size) for s in stages]
    for problem in stage_problems(configs, entries):
        message = plan_words.stage_problem(problem)
        if problem.stage == 0:
            add(("stages", NON_FIELD), message)
        elif problem.field == "advance":
            sub = {"advance_over_entries": "top", "advance_over_group": "per_table"}
            add(
                ("stages", problem.stage - 1, "advance", sub.get(problem.reason, NON_FIELD)),
                message,
            )
        else:
            add(("stages", problem.stage - 1, problem.field or NON_FIELD), message)
    for index, stage in enumerate(stages):
        try:
            adapters.scoring_config(stage)
        except ScoringError as exc:
            key = "tiebreaks" if exc.code.startswith("tie_break") else "scoring"
            add(("stages", index, key), plan_words.scoring_problem(exc))
        except (TypeError, ValueError) as exc:
            add(("stages", index, "scoring"), plan_words.scoring_problem(ScoringError(str(exc))))


def _rules_problems(tournament: Tournament, stages: Sequence[Stage], add: Add) -> None:
    # Every table size the plan can seat, the largest first: a rule is blamed once, at the
    # largest table it fails (uneven swiss fields of players use one seat fewer).
    seats: dict[int, int] = {}
    for index, stage in enumerate(stages):
        sizes = [stage.table_size]
        if stage.format == Stage.Format.SWISS and tournament.team_size == 1:
            sizes.append(max(2, stage.table_size - 1))
        for size in sizes:
            seats.setdefault(size, index)
    blamed: set[str] = set()
    for size in sorted(seats, reverse=True):
        for problem in adapters.table_rules_problems(
            tournament, size, teams=tournament.team_size > 1
        ):
            option = problem.option or NON_FIELD
            if option in blamed:
                continue
            blamed.add(option)
            message = plan_words.rules_problem(problem)
            if option in ("players", "teams"):
                add(("stages", seats[size], "table_size"), message)
            else:
                add(("rules", option), message)


def _pool_problems(tournament: Tournament, entries: int | None, add: Add) -> None:
    try:
        money = currency(tournament.currency)
    except ScoringError as exc:
        add(("currency",), plan_words.pool_problem(exc))
        return
    for name in ("entry_fee", "reentry_fee", "guarantee"):
        try:
            money.to_units(Decimal(getattr(tournament, name)), name)
        except (ScoringError, InvalidOperation) as exc:
            add((name,), plan_words.pool_problem(_scoring_error(exc)))
    try:
        adapters.pool_rules(tournament)
    except (ScoringError, InvalidOperation) as exc:
        error = _scoring_error(exc)
        # The guarantee's amount is blamed above; the rake is the pool's other setting.
        if error.code not in ("minor_units", "negative"):
            add(("rake_percent",), plan_words.pool_problem(error))
    if not tournament.payout_structure:
        return  # the default scale fits any field (and is not built for a field of millions)
    try:
        adapters.payout_structure(tournament, entries or 1)
    except (ScoringError, InvalidOperation) as exc:
        add(("payout_structure",), plan_words.pool_problem(_scoring_error(exc)))


def _absent_bots_problems(tournament: Tournament, add: Add) -> None:
    # A bot that would stand in only after the clock has moved for the player never does.
    clock = tournament.move_clock_seconds
    if (
        tournament.absent_bots == Tournament.AbsentBots.ABSENT
        and clock
        and tournament.absent_bots_seconds >= clock
    ):
        add(
            ("absent_bots_seconds",),
            gettext("must be shorter than the move clock (%(clock)s s): the clock moves first")
            % {"clock": clock},
        )


def _scoring_error(exc: Exception) -> ScoringError:
    return exc if isinstance(exc, ScoringError) else ScoringError(str(exc))


def _check_league(actor: Actor | None, league: League | None) -> None:
    """A person (``actor``; None: the system) puts a tournament only in a league it manages:
    the league's table is its organiser's."""
    if league is not None and actor is not None and not can_manage_league(actor, league):
        raise Forbidden(
            gettext("only the league's organiser can add a tournament to it"),
            fields={"league": [gettext("only the league's organiser can add a tournament to it")]},
        )


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
    two_person_rule: bool = False,
    dropout_rule: str = "clock",
    absent_bots: str = "off",
    absent_bots_seconds: int = 30,
    is_public: bool = True,
    seed: str = "",
    starts_at: Any = None,
    created_by: Actor | None = None,
) -> Tournament:
    """Create a tournament with its whole stage plan, validated before anything is stored.
    ``created_by``: the person who creates it (an organiser; anyone else is refused), its owner
    from now on, audited with the plan as stored; None: the system.

    The settings go through the plan's schema (``plan_schema.TournamentPlanSerializer``) and
    the deep checks (:func:`validate_plan`: the rules by the engine at every table size the plan
    can seat, the stages by the pairing code, the scoring tables and the pool by the scoring
    code), all in one pass (:func:`check_plan`): one refusal carries every problem, each at its
    field in ``ConfigurationError.fields`` and all of them in its message, each after its field
    in words (``Stage 3, series length: must be odd for a best-of series, not 2``), in the
    active language.
    A ``league`` is one its organiser (``created_by``) manages.
    """
    if created_by is not None and not is_organiser(created_by):
        raise Forbidden(gettext("only an organiser can create a tournament"))
    _check_league(created_by, league)
    data = {
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
        "two_person_rule": two_person_rule,
        "dropout_rule": dropout_rule,
        "absent_bots": absent_bots,
        "absent_bots_seconds": absent_bots_seconds,
        "is_public": is_public,
        "seed": seed,
        "starts_at": starts_at,
    }
    settings = check_plan(data)
    base = slugify(_transliterate(settings["name"]))[:140] or "tournament"
    slug, n = base, 1
    while Tournament.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    tournament, built = plan_rows(settings, slug=slug, league=league, created_by=created_by)
    tournament.save()
    for stage in built:
        stage.tournament = tournament
    Stage.objects.bulk_create(built)
    if created_by is not None:
        audit_record(
            actor=created_by,
            action=AuditEvent.Action.TOURNAMENT_CREATE,
            tournament=tournament,
            target=tournament,
            after={**TournamentPlanSerializer(tournament).data, "league": tournament.league_id},
        )
    return tournament


def check_plan(data: Mapping[str, Any]) -> dict[str, Any]:
    """A plan (``tournament_create``'s settings, ``league`` aside) validated whole: the schema
    (``TournamentPlanSerializer``), then :func:`validate_plan` for the plan's max entries (none:
    any number); returns the validated settings.

    One ``ConfigurationError`` carries every problem: the schema's field errors and the deep
    checks of the fields the schema let through (with the defaults standing in for the
    refused ones; a refused list of stages leaves the stages and the rules unchecked).
    """
    plan = TournamentPlanSerializer(data=dict(data))
    if plan.is_valid():
        settings = dict(plan.validated_data)
        tournament, stages = plan_rows(settings)
        validate_plan(tournament, stages, tournament.max_entries)
        return settings
    found = error_fields(plan.errors)
    if not {"stages", "team_size"} & set(found):
        rest = {key: value for key, value in data.items() if key not in found}
        rest["name"] = rest.get("name") or "-"
        partial = TournamentPlanSerializer(data=rest)
        if partial.is_valid():
            tournament, stages = plan_rows(partial.validated_data)
            validate_plan(tournament, stages, tournament.max_entries, found=found)
    raise ConfigurationError(error_message(plan.errors), fields=found)


def plan_rows(
    settings: Mapping[str, Any], *, slug: str = "", **fields: Any
) -> tuple[Tournament, list[Stage]]:
    """The unsaved tournament and stage rows of a plan that ``TournamentPlanSerializer``
    validated (``fields``: the rows' other fields, e.g. ``league``, ``created_by``). The random
    draw's seed defaults to the slug, else the name (cut to the seed's 64 characters: a long
    name's slug is longer)."""
    tournament = Tournament(
        name=settings["name"],
        slug=slug,
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
        two_person_rule=settings["two_person_rule"],
        dropout_rule=settings["dropout_rule"],
        absent_bots=settings["absent_bots"],
        absent_bots_seconds=settings["absent_bots_seconds"],
        is_public=settings["is_public"],
        seed=(settings["seed"] or slug or settings["name"])[:SEED_LENGTH],
        starts_at=settings.get("starts_at"),
        **fields,
    )
    stages = [
        Stage(order=order, **stage_fields(spec))
        for order, spec in enumerate(settings["stages"], start=1)
    ]
    return tournament, stages


# --- changing a tournament's settings --------------------------------------------------------

# What an organiser may change after creation, setting by setting: until which status, and why
# not after (shown at the locked field). Each window is the longest that keeps what was already
# announced, paid or played intact:
# - the rules while in draft: players register for a plan and its rules;
# - the entry limit and the check-in while registration is open: entries are taken under them;
# - the start time, the late registration, the league and the money (currency, fees, rake,
#   guarantee, payouts) before the start: the fees are collected and the prize split was
#   announced to those who paid (poker moves payouts only before the money is in play; we do
#   not move them at all once the cards are dealt);
# - the name, the visibility and the refereeing (the two-person rule, the dropout rule, the move
#   clock, which applies to games dealt afterwards) until the end: they change nothing played;
# - the team size, the stages and the draw's seed never: the plan and the draw depend on them.
_DRAFT = (Tournament.Status.DRAFT,)
_REGISTERING = (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
_BEFORE_START = _REGISTERING
_UNTIL_THE_END = (*_REGISTERING, Tournament.Status.RUNNING)

_RULES_FIXED = _lazy(
    "Cannot be changed once registration opens: players registered for these rules."
)
_REGISTRATION_FIXED = _lazy(
    "Cannot be changed once the tournament starts: the entries were taken under it."
)
_STARTED = _lazy("Cannot be changed once the tournament starts.")
_MONEY_FIXED = _lazy(
    "Cannot be changed once the tournament starts: the fees are collected and the prize split "
    "was announced to those who paid."
)
_OVER = _lazy("Cannot be changed once the tournament is over.")
_PLAN_FIXED = _lazy(
    "Set when the tournament is created: its stages are planned for it and cannot be changed."
)
_DRAW_FIXED = _lazy("Set when the tournament is created: the random draws depend on it.")

# setting: (the statuses it may change in, why not in the others)
SETTING_WINDOWS: dict[str, tuple[tuple[str, ...], Promise]] = {
    "name": (_UNTIL_THE_END, _OVER),
    "is_public": (_UNTIL_THE_END, _OVER),
    "league": (_BEFORE_START, _STARTED),
    "team_size": ((), _PLAN_FIXED),
    "max_entries": (_REGISTERING, _REGISTRATION_FIXED),
    "late_registration_rounds": (_BEFORE_START, _STARTED),
    "starts_at": (_BEFORE_START, _STARTED),
    "check_in_required": (_REGISTERING, _REGISTRATION_FIXED),
    "move_clock_seconds": (_UNTIL_THE_END, _OVER),
    "seed": ((), _DRAW_FIXED),
    "two_person_rule": (_UNTIL_THE_END, _OVER),
    "dropout_rule": (_UNTIL_THE_END, _OVER),
    "currency": (_BEFORE_START, _MONEY_FIXED),
    "entry_fee": (_BEFORE_START, _MONEY_FIXED),
    "reentry_fee": (_BEFORE_START, _MONEY_FIXED),
    "rake_percent": (_BEFORE_START, _MONEY_FIXED),
    "guarantee": (_BEFORE_START, _MONEY_FIXED),
    "payout_structure": (_BEFORE_START, _MONEY_FIXED),
    "rules": (_DRAFT, _RULES_FIXED),
    # the bots for absent players: the tables in play follow at once (``automation``)
    **dict.fromkeys(automation.SETTINGS, (_UNTIL_THE_END, _OVER)),
}
SETTINGS_EDITABLE = tuple(name for name, (statuses, _) in SETTING_WINDOWS.items() if statuses)
EDITABLE_BY_STATUS: dict[str, tuple[str, ...]] = {
    status: tuple(name for name, (statuses, _) in SETTING_WINDOWS.items() if status in statuses)
    for status in Tournament.Status.values
}


def tournament_editable_fields(tournament: Tournament) -> tuple[str, ...]:
    """The settings of ``tournament`` that :func:`tournament_update` may change now."""
    return EDITABLE_BY_STATUS.get(tournament.status, ())


def tournament_locked_fields(tournament: Tournament) -> dict[str, str]:
    """The settings of ``tournament`` that may not change now, each with why (in the active
    language): every setting of :data:`SETTING_WINDOWS` but the editable ones."""
    editable = set(tournament_editable_fields(tournament))
    return {
        name: str(reason) for name, (_, reason) in SETTING_WINDOWS.items() if name not in editable
    }


def _audit_value(value: Any) -> Any:
    """A setting as the audit log stores it (JSON: amounts as strings, a league by id and name)."""
    if isinstance(value, League):
        return {"id": value.pk, "name": str(value)}
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_audit_value(v) for v in value]
    return value


def validate_tournament_changes(tournament: Tournament, changes: dict[str, Any]) -> dict[str, Any]:
    """The ``changes`` to ``tournament``'s settings, validated as creation validates a plan;
    returns them as they would be stored.

    Refused (``StateError``) if a setting is locked by the status (:data:`SETTING_WINDOWS`; each
    with its reason at its field), else (``ConfigurationError``) with every problem at once:
    the plan's schema (``TournamentPlanSerializer``, partially: only the changed settings,
    against the stored team size and stages), the entry limit against the entries registered,
    and :func:`validate_plan` on the tournament as it would be (with the refused settings left
    as they are). Each refusal names its fields in ``fields``.
    """
    unknown = sorted(set(changes) - set(SETTINGS_EDITABLE))
    if unknown:
        fields = {key: [gettext("not a setting that can be changed")] for key in unknown}
        raise ConfigurationError(error_message(fields), fields=fields)
    locked = tournament_locked_fields(tournament)
    frozen = sorted(set(changes) & set(locked))
    if frozen:
        fields = {key: [locked[key]] for key in frozen}
        raise StateError(error_message(fields), fields=fields)
    found: dict[str, Any] = {}
    league = changes.get("league")
    if league is not None and not isinstance(league, League):
        found["league"] = [gettext("not a league")]
    stages = list(tournament.stages.all())
    fixed = {
        # The serializer checks the stages against the team size: the stored ones.
        "team_size": tournament.team_size,
        "stages": [stage_spec(stage) for stage in stages],
    }
    schema = {key: value for key, value in changes.items() if key != "league"}
    plan = TournamentPlanSerializer(data={**schema, **fixed}, partial=True)
    if not plan.is_valid():
        found.update(error_fields(plan.errors))
        # The settings the schema let through, checked on with the stored ones for the rest.
        schema = {key: value for key, value in schema.items() if key not in found}
        plan = TournamentPlanSerializer(data={**schema, **fixed}, partial=True)
        plan.is_valid()
    checked = {key: plan.validated_data[key] for key in schema if key in plan.validated_data}
    if "payout_structure" in checked:
        checked["payout_structure"] = [str(p) for p in checked["payout_structure"]]
    if "league" in changes and "league" not in found:
        checked["league"] = league
    max_entries = checked.get("max_entries", tournament.max_entries)
    if "max_entries" in checked and max_entries is not None:
        active = tournament.entries.filter(status__in=Entry.ACTIVE).count()
        if max_entries < active:
            found["max_entries"] = [
                ngettext(
                    "must be at least the %(count)s entry already registered",
                    "must be at least the %(count)s entries already registered",
                    active,
                )
                % {"count": active}
            ]
    would_be = copy.copy(tournament)
    for key, value in checked.items():
        setattr(would_be, key, value)
    validate_plan(would_be, stages, max_entries, found=found)  # raises if anything was found
    return checked


@transaction.atomic
def tournament_update(*, tournament: Tournament, actor: Actor | None, **changes: Any) -> Tournament:
    """Change a tournament's settings (name, fees, rake, payouts, ...; which, by its status:
    :data:`SETTING_WINDOWS`), validated as creation validates them
    (:func:`validate_tournament_changes`), with an audit row of the values before and after.

    Settings given with their current value are no change; with no change nothing is written.
    Locks the tournament row (its status decides what may change); a change is announced on
    the feed last.
    """
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    require_manager(actor, locked)
    checked = validate_tournament_changes(locked, changes)
    changed = {key: value for key, value in checked.items() if getattr(locked, key) != value}
    if not changed:
        return locked
    if "league" in changed:
        _check_league(actor, changed["league"])
    audit_changes(
        row=locked,
        changes=changed,
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=locked,
        shown=_audit_value,
    )
    if set(automation.SETTINGS) & set(changed):
        automation.tournament_bots_changed(locked)
    locked.version = tournament_changed(
        tournament_id=locked.pk, event="tournament_updated", data={"fields": sorted(changed)}
    )
    return locked


@transaction.atomic
def tournament_set_referees(
    *, tournament: Tournament, actor: Actor | None, referees: Iterable[User]
) -> Tournament:
    """Make ``referees`` (users of the ``referee`` group) the tournament's referees, with an
    audit row of the usernames before and after. Refused once the tournament is over, and for
    a user who plays in it (``referee_plays``: a referee sees every hand at its tables).

    Locks the tournament row.
    """
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    require_manager(actor, locked)
    if locked.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise StateError(
            gettext("the tournament is %(status)s: its referees are fixed")
            % {"status": status_name(Tournament.Status, locked.status)}
        )
    chosen = list({user.pk: user for user in referees}.values())
    not_referees = sorted(user.get_username() for user in chosen if not is_referee(user))
    if not_referees:
        message = gettext("not in the referee group: %(users)s") % {
            "users": ", ".join(not_referees)
        }
        raise ConfigurationError(f"referees: {message}", fields={"referees": [message]})
    playing = sorted(user.get_username() for user in chosen if plays_in(user, locked))
    if playing:
        message = gettext("%(users)s play in this tournament: a player cannot referee it") % {
            "users": ", ".join(playing)
        }
        raise ConfigurationError(
            f"referees: {message}", fields={"referees": [message]}, code="referee_plays"
        )
    current = list(locked.referees.all())
    if {user.pk for user in current} == {user.pk for user in chosen}:
        return locked
    locked.referees.set(chosen)
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_REFEREES,
        tournament=locked,
        target=locked,
        before={"referees": sorted(user.get_username() for user in current)},
        after={"referees": sorted(user.get_username() for user in chosen)},
    )
    return locked
