"""Writes of the tournament domain. Keyword-only, typed ``<entity>_<verb>()`` functions.

Every service validates before it writes and raises a :mod:`tournaments.errors` refusal with a
clear message; nothing is half-changed (each runs in one transaction). Services that lock rows
say which. Jobs are triggered in ``transaction.on_commit`` so that a worker never sees a row
the caller has not committed yet.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify

from durak_site.jobs import enqueue_on_commit
from games.engine.errors import RulesError
from tournaments import adapters, selectors
from tournaments.errors import (
    ConfigurationError,
    RegistrationError,
    ResultError,
    StateError,
    TournamentError,
)
from tournaments.models import (
    Entry,
    League,
    Payout,
    Player,
    PrizePool,
    RankRecord,
    RatingChange,
    Round,
    Seat,
    Stage,
    StageEntry,
    Table,
    TableResult,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.pairing import (
    Entry as PairingEntry,
)
from tournaments.pairing import (
    History,
    Pairing,
    PairingError,
    StandingRow,
    TableRef,
    build_bracket,
    pair_swiss,
    round_robin,
    snake_groups,
    team_seating,
    top_overall,
    top_per_group,
    validate_stages,
)
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.prizes import Payment, compute_prizes
from tournaments.scoring.ranks import DEFAULT_LADDER, RankGame, compute_ranks
from tournaments.scoring.ratings import Rating, rate, rated_table
from tournaments.scoring.results import Pogony as ScoringPogony
from tournaments.scoring.results import TableResult as PureResult

GROUP_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

SERIES_FORMATS = {choice.value for choice in Stage.SeriesFormat}
STAGE_KEYS = {
    "name",
    "format",
    "table_size",
    "rounds",
    "groups",
    "advance_per_table",
    "advance",
    "series",
    "scoring",
    "tiebreaks",
}


# --- People -----------------------------------------------------------------------------------


def player_create(
    *, display_name: str, club: str = "", city: str = "", user: Any = None, bot_kind: str = ""
) -> Player:
    name = display_name.strip()
    if not name:
        raise RegistrationError("a player needs a display name")
    return Player.objects.create(
        display_name=name[:80],
        club=club.strip()[:80],
        city=city.strip()[:80],
        user=user,
        is_bot=bool(bot_kind),
        bot_kind=bot_kind,
    )


@transaction.atomic
def team_create(*, name: str, players: Sequence[Player]) -> Team:
    if len(players) not in (2, 3):
        raise RegistrationError(f"a team has 2 or 3 players, not {len(players)}")
    if len({p.pk for p in players}) != len(players):
        raise RegistrationError("a player cannot be twice in one team")
    team = Team.objects.create(name=name.strip()[:80] or " & ".join(str(p) for p in players))
    TeamMember.objects.bulk_create(
        TeamMember(team=team, player=p, order=i) for i, p in enumerate(players)
    )
    return team


# --- Tournaments ------------------------------------------------------------------------------


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


def _stage_from_spec(order: int, spec: dict[str, Any], team_size: int) -> Stage:
    if not isinstance(spec, dict):
        raise ConfigurationError(f"stage {order}: expected an object, got {type(spec).__name__}")
    unknown = set(spec) - STAGE_KEYS
    if unknown:
        raise ConfigurationError(f"stage {order}: unknown setting(s) {sorted(unknown)}")
    if spec.get("format") not in Stage.Format.values:
        raise ConfigurationError(
            f"stage {order}: format must be one of {Stage.Format.values}, "
            f"not {spec.get('format')!r}"
        )
    series = spec.get("series") or {"format": "single"}
    series_format = series.get("format", "single")
    if series_format not in SERIES_FORMATS:
        raise ConfigurationError(
            f"stage {order}: series format must be one of {sorted(SERIES_FORMATS)}"
        )
    target = series.get("target", 1)
    if not isinstance(target, int) or target < 1:
        raise ConfigurationError(f"stage {order}: the series target must be a positive integer")
    if series_format == "best_of" and target % 2 == 0:
        raise ConfigurationError(f"stage {order}: best of {target}: N must be odd")
    advance = spec.get("advance") or {}
    if (
        not isinstance(advance, dict)
        or not set(advance) <= {"top", "per_table"}
        or len(advance) > 1
    ):
        raise ConfigurationError(f"stage {order}: advance is {{'top': N}} or {{'per_table': K}}")
    mode, count = Stage.AdvanceMode.NONE, 0
    if "top" in advance:
        mode, count = Stage.AdvanceMode.TOP_N, advance["top"]
    elif "per_table" in advance:
        mode, count = Stage.AdvanceMode.TOP_K_PER_TABLE, advance["per_table"]
    table_size = spec.get("table_size", 2 * team_size if team_size > 1 else 4)
    for key, value in (("table_size", table_size), ("advance", count)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigurationError(f"stage {order}: {key} must be a whole number")
    return Stage(
        order=order,
        name=str(spec.get("name", ""))[:80],
        format=spec["format"],
        table_size=table_size,
        rounds_planned=spec.get("rounds"),
        groups=spec.get("groups"),
        knockout_advance=spec.get("advance_per_table"),
        series_format=series_format,
        series_target=target,
        scoring=spec.get("scoring") or {},
        tiebreaks=spec.get("tiebreaks") or [],
        advance_mode=mode,
        advance_count=count,
    )


def _validate_plan(tournament: Tournament, stages: Sequence[Stage], entries: int | None) -> None:
    """Refuse a plan that could never run: rules, stages, scoring and payouts, all up front."""
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
                raise ConfigurationError(f"stage {stage.order}: rules: {exc}") from None
        try:
            adapters.scoring_config(stage)
        except (ScoringError, TypeError, ValueError) as exc:
            raise ConfigurationError(f"stage {stage.order}: scoring: {exc}") from None
    try:
        adapters.pool_rules(tournament)
        adapters.payout_structure(tournament, entries or 1)
    except (ScoringError, InvalidOperation) as exc:
        raise ConfigurationError(f"prize pool: {exc}") from None


def _money(value: Any, what: str) -> Decimal:
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ConfigurationError(f"{what} must be a number, not {value!r}") from None
    if not amount.is_finite() or amount < 0:
        raise ConfigurationError(f"{what} must be a non-negative amount, not {value!r}")
    return amount


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

    The rules are validated by the engine for every table size the plan can seat, the stages by
    the pairing code, the scoring tables and payout percentages by the scoring code.
    """
    if rules is not None and not isinstance(rules, dict):
        raise ConfigurationError("rules must be an object of engine options")
    if rules and ("players" in rules or "teams" in rules):
        raise ConfigurationError("players and teams are set per table by the stages, not in rules")
    if team_size not in (1, 2, 3):
        raise ConfigurationError(f"team size must be 1, 2 or 3, not {team_size}")
    if max_entries is not None and max_entries < 2:
        raise ConfigurationError("max entries must be at least 2")
    base = slugify(_transliterate(name))[:140] or "tournament"
    slug, n = base, 1
    while Tournament.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    tournament = Tournament(
        name=name.strip()[:160],
        slug=slug,
        league=league,
        rules=dict(rules or {}),
        team_size=team_size,
        max_entries=max_entries,
        check_in_required=check_in_required,
        late_registration_rounds=late_registration_rounds,
        currency=currency.upper(),
        entry_fee=_money(entry_fee, "the entry fee"),
        rake_percent=_money(rake_percent, "the rake"),
        guarantee=_money(guarantee, "the guarantee"),
        reentry_fee=_money(reentry_fee, "the re-entry fee"),
        payout_structure=[str(p) for p in payout_structure],
        move_clock_seconds=move_clock_seconds,
        is_public=is_public,
        seed=seed or slug,
        created_by=created_by,
    )
    if tournament.rake_percent > 100:
        raise ConfigurationError("the rake is a percentage from 0 to 100")
    built = [_stage_from_spec(i, spec, team_size) for i, spec in enumerate(stages, start=1)]
    _validate_plan(tournament, built, max_entries)
    tournament.save()
    for stage in built:
        stage.tournament = tournament
    Stage.objects.bulk_create(built)
    return tournament


def _set_status(tournament: Tournament, allowed: Sequence[str], new: str) -> Tournament:
    """Move ``tournament`` to ``new`` if its status is in ``allowed`` (a conditional UPDATE)."""
    changed = Tournament.objects.filter(pk=tournament.pk, status__in=allowed).update(status=new)
    if not changed:
        tournament.refresh_from_db(fields=["status"])
        raise StateError(f"the tournament is {tournament.status}; cannot move it to {new}")
    tournament.status = new
    return tournament


def tournament_open_registration(*, tournament: Tournament) -> Tournament:
    return _set_status(tournament, [Tournament.Status.DRAFT], Tournament.Status.REGISTRATION)


def tournament_cancel(*, tournament: Tournament) -> Tournament:
    return _set_status(
        tournament,
        [Tournament.Status.DRAFT, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING],
        Tournament.Status.CANCELLED,
    )


# --- Registration -------------------------------------------------------------------------------


def _registration_open(tournament: Tournament) -> None:
    if tournament.status == Tournament.Status.REGISTRATION:
        return
    if tournament.status == Tournament.Status.RUNNING and tournament.late_registration_rounds:
        # Open until the given round of the first (swiss) stage has been paired.
        paired = Round.objects.filter(
            stage__tournament=tournament, stage__order=1, stage__format=Stage.Format.SWISS
        ).exclude(status=Round.Status.PENDING)
        if (
            paired.count() < tournament.late_registration_rounds
            and not tournament.stages.filter(order=1).exclude(format=Stage.Format.SWISS).exists()
        ):
            return
    raise RegistrationError(f"registration is closed (the tournament is {tournament.status})")


@transaction.atomic
def entry_register(
    *,
    tournament: Tournament,
    player: Player | None = None,
    team: Team | None = None,
    paid: bool = True,
) -> Entry:
    """Register a player (individual event) or a team (team event).

    Locks the tournament row so that concurrent registrations respect ``max_entries``.
    """
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    _registration_open(tournament)
    if tournament.is_team_event:
        if team is None or player is not None:
            raise RegistrationError("this is a team event: register a team")
        if team.memberships.count() != tournament.team_size:
            raise RegistrationError(f"teams of this event have {tournament.team_size} players")
        members = list(team.members.values_list("pk", flat=True))
        clash = Entry.objects.filter(
            tournament=tournament, team__members__in=members, status__in=Entry.ACTIVE
        ).exists()
        if clash:
            raise RegistrationError("a member of this team is already registered in another team")
    elif player is None or team is not None:
        raise RegistrationError("this is an individual event: register a player")
    if tournament.max_entries is not None:
        active = Entry.objects.filter(tournament=tournament, status__in=Entry.ACTIVE).count()
        if active >= tournament.max_entries:
            raise RegistrationError(f"the tournament is full ({tournament.max_entries} entries)")
    try:
        with transaction.atomic():
            entry = Entry.objects.create(tournament=tournament, player=player, team=team, paid=paid)
    except IntegrityError:
        raise RegistrationError(f"{player or team} is already registered") from None
    if tournament.status == Tournament.Status.RUNNING:
        # Late registration: the entry joins the first stage and is seated from the next round.
        first = tournament.stages.order_by("order").first()
        assert first is not None
        last_seed = first.stage_entries.order_by("-seed").values_list("seed", flat=True).first()
        StageEntry.objects.create(stage=first, entry=entry, seed=(last_seed or 0) + 1)
    return entry


def entry_reenter(*, entry: Entry) -> Entry:
    """A re-entry: the entry pays the re-entry fee again (the prize pool counts it)."""
    tournament = entry.tournament
    if not tournament.reentry_fee:
        raise RegistrationError("this tournament has no re-entries")
    _registration_open(tournament)
    Entry.objects.filter(pk=entry.pk).update(reentries=F("reentries") + 1)
    entry.refresh_from_db()
    return entry


def _entry_set_status(entry: Entry, allowed: Sequence[str], new: str, reason: str = "") -> Entry:
    changed = Entry.objects.filter(pk=entry.pk, status__in=allowed).update(
        status=new, status_reason=reason[:300]
    )
    if not changed:
        entry.refresh_from_db()
        raise StateError(f"the entry is {entry.status}; it cannot become {new}")
    entry.refresh_from_db()
    return entry


def entry_check_in(*, entry: Entry) -> Entry:
    if entry.tournament.status not in (Tournament.Status.REGISTRATION, Tournament.Status.RUNNING):
        raise StateError("check-in is open only during registration")
    return _entry_set_status(entry, [Entry.Status.REGISTERED], Entry.Status.CHECKED_IN)


def entry_withdraw(*, entry: Entry, reason: str = "") -> Entry:
    """Withdraw an entry: it keeps its played results and is not seated again."""
    return _entry_set_status(entry, Entry.ACTIVE, Entry.Status.WITHDRAWN, reason)


def entry_disqualify(*, entry: Entry, reason: str) -> Entry:
    if not reason.strip():
        raise RegistrationError("a disqualification needs a reason")
    return _entry_set_status(
        entry, [*Entry.ACTIVE, Entry.Status.ELIMINATED], Entry.Status.DISQUALIFIED, reason
    )


def tournament_close_registration(*, tournament: Tournament) -> Tournament:
    """Close registration: without check-in … entries that did not check in are withdrawn."""
    with transaction.atomic():
        tournament = _set_status(
            tournament, [Tournament.Status.REGISTRATION], Tournament.Status.RUNNING
        )
        if tournament.check_in_required:
            Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).update(
                status=Entry.Status.WITHDRAWN, status_reason="did not check in"
            )
        entries = Entry.objects.filter(tournament=tournament, status__in=Entry.ACTIVE).count()
        _validate_plan(tournament, list(tournament.stages.all()), entries)
        Tournament.objects.filter(pk=tournament.pk).update(started_at=timezone.now())
    return tournament


# --- Stages and rounds --------------------------------------------------------------------------


def _seed_order(entries: Sequence[Entry]) -> list[Entry]:
    """Seeding for the first stage: rating (conservative ordinal) best first, then id."""

    def strength(entry: Entry) -> float:
        if entry.player is not None:
            return entry.player.rating_ordinal
        members = list(entry.team.members.all()) if entry.team else []
        return sum(p.rating_ordinal for p in members) / max(1, len(members))

    return sorted(entries, key=lambda e: (-strength(e), e.pk))


@transaction.atomic
def tournament_start(*, tournament: Tournament) -> Tournament:
    """Close registration (withdrawing entries that did not check in, if check-in is required),
    fix the rules, seed the field by rating and request the first round's pairing.

    Locks the tournament row.
    """
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status != Tournament.Status.REGISTRATION:
        raise StateError(f"only a tournament in registration can start; it is {tournament.status}")
    if tournament.check_in_required:
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).update(
            status=Entry.Status.WITHDRAWN, status_reason="did not check in"
        )
    entries = list(
        Entry.objects.filter(tournament=tournament, status__in=Entry.ACTIVE).select_related(
            "player", "team"
        )
    )
    if len(entries) < 2:
        raise StateError(f"a tournament needs at least 2 entries to start, it has {len(entries)}")
    _validate_plan(tournament, list(tournament.stages.all()), len(entries))
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["status", "started_at"])
    first = tournament.stages.order_by("order").first()
    assert first is not None  # _validate_plan refuses a plan without stages
    _stage_begin(first, [e.pk for e in _seed_order(entries)])
    return tournament


def _stage_begin(stage: Stage, seeded_entry_ids: Sequence[int]) -> Round:
    from tournaments import tasks

    StageEntry.objects.bulk_create(
        StageEntry(stage=stage, entry_id=e, seed=i) for i, e in enumerate(seeded_entry_ids, 1)
    )
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.RUNNING)
    round_ = Round.objects.create(stage=stage, number=1)
    enqueue_on_commit(tasks.pair_round, round_.pk)
    return round_


def _stage_rng(stage: Stage, round_number: int) -> random.Random:
    return random.Random(f"{stage.tournament.seed}:{stage.order}:{round_number}")


def _pairing_entries(stage: Stage, entry_ids: Sequence[int]) -> list[PairingEntry]:
    rows = {row.entry: row for row in selectors.stage_standings(stage)}
    entries = selectors.entries_by_id(entry_ids)
    seeds = dict(StageEntry.objects.filter(stage=stage).values_list("entry_id", "seed"))
    out = []
    for entry_id in entry_ids:
        entry = entries[entry_id]
        row = rows.get(str(entry_id))
        player = entry.player
        out.append(
            PairingEntry(
                id=entry_id,
                points=float(row.points) if row else 0.0,
                first_places=row.first_places if row else 0,
                rating=player.rating_ordinal if player else 0.0,
                seed=seeds.get(entry_id, 0),
                club=(player.club or None) if player else None,
            )
        )
    return out


def _active_stage_entries(stage: Stage) -> list[int]:
    active = set(
        Entry.objects.filter(tournament=stage.tournament, status__in=Entry.ACTIVE).values_list(
            "pk", flat=True
        )
    )
    return [e for e in selectors.stage_entry_ids(stage) if e in active]


@dataclass(frozen=True)
class PlannedTable:
    """A table to create: entries in seat order, its group label and its compromises."""

    entries: tuple[int, ...]
    group: str = ""
    compromises: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlannedRound:
    tables: tuple[PlannedTable, ...]
    byes: tuple[int, ...] = ()
    explanation: dict[str, Any] = field(default_factory=dict)


def _planned(pairing: Pairing, group: str = "") -> list[PlannedTable]:
    return [
        PlannedTable(
            entries=t.entries,
            group=group or f"{t.score_group:g}",
            compromises=tuple(c.describe() for c in t.compromises),
        )
        for t in pairing.tables
    ]


def _entries_per_table(stage: Stage) -> int:
    """Entries seated at one table: players, or two teams at a team table."""
    return 2 if stage.tournament.is_team_event else stage.table_size


def _plan_swiss(round_: Round) -> PlannedRound:
    stage = round_.stage
    history = History.from_tables(selectors.tournament_history(stage, before=round_))
    entries = _pairing_entries(stage, _active_stage_entries(stage))
    pairing = pair_swiss(
        entries,
        history,
        table_size=_entries_per_table(stage),
        rng=_stage_rng(stage, round_.number),
    )
    return PlannedRound(
        tables=tuple(_planned(pairing)),
        byes=pairing.byes,
        explanation={
            "algorithm": "swiss",
            "score_groups": sorted({f"{t.score_group:g}" for t in pairing.tables}, reverse=True),
            "byes": [c.describe() for c in pairing.bye_compromises],
            "compromises": [c.describe() for c in pairing.compromises()],
        },
    )


def _round_robin_schedule(stage: Stage) -> list[PlannedRound]:
    """The stage's whole round-robin schedule: snake-seeded groups, merged round by round.

    Deterministic from the stage's seeding and the tournament seed, so every round's job
    computes the same schedule.
    """
    groups = snake_groups(selectors.stage_entry_ids(stage), stage.groups or 1)
    schedules = [
        round_robin(g, table_size=_entries_per_table(stage), rng=_stage_rng(stage, 0))
        for g in groups
    ]
    merged = []
    for number in range(max(s.round_count for s in schedules)):
        tables: list[PlannedTable] = []
        byes: list[int] = []
        for label, schedule in zip(GROUP_LABELS, schedules, strict=False):
            if number < schedule.round_count:
                tables.extend(_planned(schedule.rounds[number], group=f"group {label}"))
                byes.extend(schedule.rounds[number].byes)
        merged.append(
            PlannedRound(
                tuple(tables),
                tuple(byes),
                {
                    "algorithm": "round_robin",
                    "rounds": [s.round_count for s in schedules],
                    "lower_bounds": [s.lower_bound for s in schedules],
                },
            )
        )
    return merged


def _plan_round_robin(round_: Round) -> PlannedRound:
    schedule = _round_robin_schedule(round_.stage)
    planned = schedule[round_.number - 1]
    active = set(_active_stage_entries(round_.stage))
    # A withdrawn entry leaves its seat empty: the table plays without it (never below 2).
    tables = []
    byes = [e for e in planned.byes if e in active]
    for table in planned.tables:
        left = tuple(e for e in table.entries if e in active)
        if len(left) >= 2:
            tables.append(PlannedTable(left, table.group, table.compromises))
        else:
            byes.extend(left)
    return PlannedRound(tuple(tables), tuple(byes), planned.explanation)


def _plan_knockout_bracket(round_: Round) -> None:
    """Round 1 of a knockout builds the whole bracket: every round and table, later tables
    waiting for their feeders. Tables are seated as soon as all their feeders have finished."""
    stage = round_.stage
    seeded = _active_stage_entries(stage)
    bracket = build_bracket(
        seeded, table_size=_entries_per_table(stage), advance=stage.knockout_advance or 1
    )
    rounds = {1: round_}
    for number in range(2, len(bracket.rounds) + 1):
        rounds[number] = Round.objects.create(stage=stage, number=number)
    tables: dict[TableRef, Table] = {}
    for level in bracket.rounds:
        for planned in level:
            feeds = []
            for feed in planned.feeds_from:
                if feed.is_bye:
                    feeds.append({"entry": feed.entry})
                else:
                    assert feed.table is not None
                    feeds.append({"table": tables[feed.table].pk, "place": feed.place})
            table = Table.objects.create(
                round=rounds[planned.ref.round],
                number=planned.ref.number,
                status=Table.Status.WAITING if planned.feeds_from else Table.Status.PLAYING,
                score_group="final" if planned.is_final else f"round {planned.ref.round}",
                feeds_from=feeds,
            )
            tables[planned.ref] = table
            if planned.entries:
                _seat_and_start(table, planned.entries)
    for number, later in rounds.items():
        if number > 1:
            later.explanation = {"algorithm": "knockout", "waiting_for_feeders": True}
            later.save(update_fields=["explanation"])
    round_.explanation = {
        "algorithm": "knockout",
        "advance_per_table": stage.knockout_advance,
        "rounds": [len(level) for level in bracket.rounds],
        "byes": [f"entry {e} goes straight to round 2 (top seed)" for e in bracket.byes],
    }


def _seat_and_start(table: Table, entry_ids: Sequence[int]) -> None:
    """Seat ``entry_ids`` (seat order) at ``table`` and deal the first game of its series."""
    from games.services import table_series_start

    entries = selectors.entries_by_id(entry_ids)
    if table.round.stage.tournament.is_team_event:
        teams = [
            [m.player for m in entries[e].team.memberships.order_by("order")] for e in entry_ids
        ]
        players, _partition = team_seating([[p.pk for p in t] for t in teams])
        owner = {p.pk: e for e, t in zip(entry_ids, teams, strict=True) for p in t}
        seats = [
            Seat(table=table, position=i, entry_id=owner[p], player_id=p)
            for i, p in enumerate(players)
        ]
    else:
        seats = [
            Seat(table=table, position=i, entry_id=e, player_id=entries[e].player_id)
            for i, e in enumerate(entry_ids)
        ]
    Seat.objects.bulk_create(seats)
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    table_series_start(table=table)


def _create_tables(round_: Round, planned: PlannedRound) -> None:
    number = 0
    for number, table_plan in enumerate(planned.tables, start=1):
        table = Table.objects.create(
            round=round_,
            number=number,
            score_group=table_plan.group,
            compromises=list(table_plan.compromises),
        )
        _seat_and_start(table, table_plan.entries)
    for bye_entry in planned.byes:
        number += 1
        table = Table.objects.create(
            round=round_,
            number=number,
            is_bye=True,
            status=Table.Status.FINISHED,
            score_group="bye",
            finished_at=timezone.now(),
        )
        entry = Entry.objects.select_related("player", "team").get(pk=bye_entry)
        player_id = entry.player_id or entry.team.memberships.order_by("order")[0].player_id
        Seat.objects.create(table=table, position=0, entry=entry, player_id=player_id)
        TableResult.objects.create(table=table, places=[bye_entry], source=TableResult.Source.BYE)


def round_pair(*, round_id: int) -> Round:
    """Seat a round (the pairing job's body). Safe to run twice: it pairs a round once.

    Locks the round row for the whole pairing, so a concurrent run waits and then finds the
    round already paired; a run killed half-way rolls back and leaves the round pending.
    """
    from tournaments import tasks

    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update().select_related("stage__tournament").get(pk=round_id)
        )
        if round_.status != Round.Status.PENDING:
            return round_
        stage = round_.stage
        if stage.tournament.status != Tournament.Status.RUNNING:
            raise StateError(f"the tournament is {stage.tournament.status}; nothing is paired")
        try:
            if stage.format == Stage.Format.KNOCKOUT:
                if round_.number != 1:
                    return round_  # later knockout rounds are seated by their feeders
                _plan_knockout_bracket(round_)
            else:
                planned = (
                    _plan_swiss(round_)
                    if stage.format == Stage.Format.SWISS
                    else _plan_round_robin(round_)
                )
                _create_tables(round_, planned)
                round_.explanation = planned.explanation
        except PairingError as exc:
            raise TournamentError(f"round {round_.number} cannot be paired: {exc}") from None
        round_.status = Round.Status.PLAYING
        round_.paired_at = timezone.now()
        round_.save(update_fields=["status", "paired_at", "explanation"])
        enqueue_on_commit(tasks.complete_round, round_id)
        return round_


# --- Results --------------------------------------------------------------------------------------


def _check_result(
    table: Table,
    *,
    places: Sequence[int],
    fool: int | None,
    drawn: Sequence[int],
    pogony: Sequence[dict[str, Any]],
    team_lost: Sequence[int],
) -> None:
    seated = set(table.seats.values_list("entry_id", flat=True))
    if not seated:
        raise ResultError(f"table {table.number} has nobody seated yet")
    if len(places) != len(set(places)) or set(places) != seated:
        raise ResultError(
            f"the places must list each entry of table {table.number} once: {sorted(seated)}"
        )
    for hung in pogony:
        if not isinstance(hung, dict) or not {"by", "on"} <= set(hung):
            raise ResultError("each pogony is {'by': entry, 'on': [entries], 'rank': '6'}")
    try:  # the scoring code's own checks: the fool last, drawn entries last, pogony on the fool
        PureResult(
            id="new",
            places=tuple(map(str, places)),
            fool=None if fool is None else str(fool),
            drawn=tuple(map(str, drawn)),
            team_lost=tuple(map(str, team_lost)),
        )
    except ScoringError as exc:
        raise ResultError(str(exc)) from None


def table_record_result(
    *,
    table: Table,
    places: Sequence[int],
    fool: int | None,
    drawn: Sequence[int] = (),
    pogony: Sequence[dict[str, Any]] = (),
    team_lost: Sequence[int] = (),
    games: Sequence[dict[str, Any]] = (),
    source: str = TableResult.Source.LIVE,
    reason: str = "",
    entered_by: Any = None,
) -> TableResult:
    """Record a table's result; a second result is a correction that supersedes the first.

    ``places`` are entry ids from first out to last. A correction needs a reason and keeps the
    history. Recording the same first result twice (a job run again) stores it once. Locks the
    table row, then asks the round-completion job to look at the round.
    """
    from tournaments import tasks

    with transaction.atomic():
        table = Table.objects.select_for_update().select_related("round__stage").get(pk=table.pk)
        if table.is_bye:
            raise ResultError("a bye has no result to record")
        _check_result(
            table, places=places, fool=fool, drawn=drawn, pogony=pogony, team_lost=team_lost
        )
        current = selectors.effective_result(table)
        if current is not None:
            if source != TableResult.Source.REFEREE or not reason.strip():
                if list(current.places) == list(places) and source != TableResult.Source.REFEREE:
                    return current  # the same result delivered twice
                raise ResultError(
                    "the table has a result: a correction is a referee's, with a reason"
                )
            if any(t.status != Table.Status.WAITING for t in _tables_fed_by(table)):
                raise ResultError(
                    "the next knockout table has already been seated from this result"
                )
        result = TableResult.objects.create(
            table=table,
            places=list(places),
            fool_entry_id=fool,
            drawn=list(drawn),
            pogony=list(pogony),
            team_lost=list(team_lost),
            games=list(games),
            source=source,
            reason=reason.strip()[:300],
            supersedes=current,
            entered_by=entered_by,
        )
        if table.status != Table.Status.FINISHED:
            table.status = Table.Status.FINISHED
            table.finished_at = timezone.now()
            table.save(update_fields=["status", "finished_at"])
        if table.round.stage.format == Stage.Format.KNOCKOUT:
            _feed_knockout(table)
        enqueue_on_commit(tasks.complete_round, table.round_id)
        return result


def _tables_fed_by(table: Table) -> list[Table]:
    later = Table.objects.filter(
        round__stage_id=table.round.stage_id, round__number__gt=table.round.number
    )
    return [t for t in later if any(f.get("table") == table.pk for f in t.feeds_from)]


def _finishing_order(table: Table) -> list[int] | None:
    result = selectors.effective_result(table)
    return None if result is None else list(result.places)


def _feed_knockout(table: Table) -> None:
    """Seat every waiting table whose feeders have all finished (locks those tables)."""
    for candidate in _tables_fed_by(table):
        waiting = Table.objects.select_for_update().get(pk=candidate.pk)
        if waiting.status != Table.Status.WAITING:
            continue
        seats: list[int] = []
        for feed in waiting.feeds_from:
            if "entry" in feed:
                seats.append(feed["entry"])
                continue
            order = _finishing_order(Table.objects.get(pk=feed["table"]))
            if order is None:
                break
            seats.append(order[feed["place"] - 1])
        else:
            Round.objects.filter(pk=waiting.round_id, status=Round.Status.PENDING).update(
                status=Round.Status.PLAYING, paired_at=timezone.now()
            )
            _seat_and_start(waiting, seats)


def round_complete(*, round_id: int) -> Round:
    """Finish a round whose tables have all finished, then pair the next round or move the
    tournament on (the round-completion job's body). Safe to run twice, and a no-op while any
    table still plays. Locks the round row."""
    from tournaments import tasks

    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update().select_related("stage__tournament").get(pk=round_id)
        )
        if round_.status != Round.Status.PLAYING:
            return round_
        if round_.tables.exclude(status=Table.Status.FINISHED).exists():
            return round_
        round_.status = Round.Status.FINISHED
        round_.finished_at = timezone.now()
        round_.save(update_fields=["status", "finished_at"])
        stage = round_.stage
        later = stage.rounds.filter(number__gt=round_.number)
        if stage.format == Stage.Format.KNOCKOUT:
            if later.exists():
                return round_  # the bracket's later tables are seated by their feeders
        else:
            planned = (
                stage.rounds_planned
                if stage.format == Stage.Format.SWISS
                else len(_round_robin_schedule(stage))
            )
            if round_.number < (planned or 0):
                nxt, _created = Round.objects.get_or_create(stage=stage, number=round_.number + 1)
                enqueue_on_commit(tasks.pair_round, nxt.pk)
                return round_
        _stage_finish(stage)
        return round_


def _stage_final_order(stage: Stage) -> list[list[int]]:
    """The stage's final order as groups of tied entries, best first."""
    if stage.format != Stage.Format.KNOCKOUT:
        return [[int(row.entry)] for row in selectors.stage_standings(stage)]
    groups: list[list[int]] = []
    seen: set[int] = set()
    for round_ in stage.rounds.order_by("-number"):
        by_place: dict[int, list[int]] = {}
        for table in round_.tables.filter(is_bye=False):
            result = selectors.effective_result(table)
            if result is None:
                continue
            drawn = set(result.drawn)
            shared = len(result.places) - len(drawn) + 1  # drawn entries share their first place
            for place, entry in enumerate(result.places, start=1):
                if entry not in seen:
                    by_place.setdefault(shared if entry in drawn else place, []).append(entry)
        for place in sorted(by_place):
            fresh = [e for e in by_place[place] if e not in seen]
            if fresh:
                groups.append(fresh)
                seen.update(fresh)
    return groups


def _stage_finish(stage: Stage) -> None:
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.FINISHED)
    nxt = stage.tournament.stages.filter(order__gt=stage.order).order_by("order").first()
    if nxt is None:
        _tournament_finish(stage.tournament)
        return
    advancing = _advancing(stage)
    Entry.objects.filter(tournament=stage.tournament, status__in=Entry.ACTIVE).exclude(
        pk__in=advancing
    ).update(status=Entry.Status.ELIMINATED, status_reason=f"did not advance from {stage}")
    _stage_begin(nxt, advancing)


def _advancing(stage: Stage) -> list[int]:
    """Who goes on, best first (the next stage's seeding): top N overall, or the top K of each
    round-robin group, or the first K out at each table of a swiss stage's last round."""
    rows = selectors.stage_standings(stage)
    position = {int(r.entry): r.position for r in rows}
    active = set(_active_stage_entries(stage))
    if stage.advance_mode == Stage.AdvanceMode.TOP_N:
        ranked = [StandingRow(int(r.entry), r.position) for r in rows if int(r.entry) in active]
        return top_overall(ranked, min(stage.advance_count, len(ranked)))
    if stage.format == Stage.Format.ROUND_ROBIN:
        groups = snake_groups(selectors.stage_entry_ids(stage), stage.groups or 1)
        label = {e: GROUP_LABELS[i] for i, group in enumerate(groups) for e in group}
        seen: dict[str, int] = {}
        ranked = []
        for r in rows:
            entry = int(r.entry)
            seen[label[entry]] = seen.get(label[entry], 0) + 1
            ranked.append(StandingRow(entry, r.position, label[entry], seen[label[entry]]))
        return [e for e in top_per_group(ranked, stage.advance_count) if e in active]
    last = stage.rounds.order_by("-number").first()
    chosen: set[int] = set()
    for table in Table.objects.filter(round=last):
        result = selectors.effective_result(table)
        if result is not None:
            chosen.update(result.places[: stage.advance_count])
    return sorted(chosen & active, key=lambda e: position[e])


def _tournament_finish(tournament: Tournament) -> None:
    """Final places: the last stage's order, then those eliminated earlier, stage by stage."""
    from tournaments import tasks

    placed: list[list[int]] = []
    seen: set[int] = set()
    for stage in tournament.stages.order_by("-order"):
        for group in _stage_final_order(stage):
            fresh = [e for e in group if e not in seen]
            if fresh:
                placed.append(fresh)
                seen.update(fresh)
    place = 1
    for group in placed:
        Entry.objects.filter(pk__in=group).update(final_place=place)
        place += len(group)
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.FINISHED, finished_at=timezone.now()
    )
    enqueue_on_commit(tasks.compute_prize_pool, tournament.pk)
    enqueue_on_commit(tasks.compute_tournament_ranks, tournament.pk)
    enqueue_on_commit(tasks.update_ratings, tournament.pk)
    if tournament.league_id:
        enqueue_on_commit(tasks.compute_league_ranks, tournament.league_id)


# --- Prize pool, ranks, ratings (job bodies; each a pure function of stored rows) ---------------


def prize_pool_compute(*, tournament_id: int) -> PrizePool:
    """Compute the pool and payouts: provisional before the end, final after it. Recomputing
    gives the same answer; payouts are replaced in one transaction. Locks the tournament row."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        entries = list(
            Entry.objects.filter(tournament=tournament).exclude(status=Entry.Status.WITHDRAWN)
        )
        payments = [Payment("entry", tournament.entry_fee) for e in entries if e.paid]
        if tournament.reentry_fee:
            payments += [
                Payment("re_entry", tournament.reentry_fee)
                for e in entries
                for _ in range(e.reentries)
            ]
        final = tournament.status == Tournament.Status.FINISHED
        field_size = len(entries)
        places = (
            sorted(
                ((str(e.pk), e.final_place) for e in entries if e.final_place is not None),
                key=lambda pair: (pair[1], int(pair[0])),
            )
            if final
            else None
        )
        try:
            report = compute_prizes(
                adapters.pool_rules(tournament),
                payments,
                final_places=places or None,
                field_size=field_size if not places else None,
                structure=adapters.payout_structure(tournament, max(1, field_size)),
            )
        except ScoringError as exc:
            raise ConfigurationError(f"prize pool: {exc}") from None
        pool, _ = PrizePool.objects.update_or_create(
            tournament=tournament,
            defaults={
                "gross": report.pool.gross,
                "rake": report.pool.rake,
                "total": report.pool.total,
                "currency": report.pool.currency.code,
                "paid_entries": len(payments),
                "final": report.final,
            },
        )
        Payout.objects.filter(tournament=tournament).delete()
        Payout.objects.bulk_create(
            Payout(
                tournament=tournament,
                entry_id=int(award.entry),
                place=award.place,
                amount=award.amount,
                final=True,
            )
            for award in report.awards
            if award.amount
        )
        return pool


def _pogony_games(results: Sequence[TableResult]) -> list[RankGame]:
    """Every game with pogony, in the order played, with players (not entries) as names.

    A table result stores its series' hangings in order, each with the ``game`` it came from:
    the hangings of one game (seed 004's three-player double, then the pogony of the second out
    on the fool) make one :class:`RankGame`, so the ranks apply seed 004's rule. A hanging
    without ``game`` (rows stored before it existed, a referee's entry) is a game of its own.
    """
    games = []
    for result in results:
        grouped: dict[Any, tuple[int, list[ScoringPogony]]] = {}
        for i, hung in enumerate(result.pogony or []):
            hanging = ScoringPogony(
                by=str(hung["by_player"]),
                on=tuple(str(p) for p in hung["on_players"]),
                rank=str(hung.get("rank", "")),
            )
            game = hung.get("game")
            key = ("hanging", i) if game is None else ("game", game)
            grouped.setdefault(key, (i, []))[1].append(hanging)
        for first, hangings in grouped.values():
            games.append(
                RankGame(
                    id=f"{result.pk}:{first}",
                    hangings=tuple(hangings),
                    series=str(result.table_id),
                )
            )
    return games


def _store_ranks(results: Sequence[TableResult], ladder: Sequence[str], **scope: Any) -> int:
    table = compute_ranks(_pogony_games(results), ladder or DEFAULT_LADDER)
    players = list(table.players.values())
    with transaction.atomic():
        RankRecord.objects.filter(**scope).exclude(
            player_id__in=[int(p.player) for p in players]
        ).delete()
        for row in players:
            RankRecord.objects.update_or_create(
                player_id=int(row.player),
                **scope,
                defaults={
                    "rank": row.rank or "",
                    "pogony_received": row.received,
                    "pogony_given": row.given,
                    "history": [
                        {"game": h.game, "by": h.by, "before": h.before, "after": h.after}
                        for h in table.history
                        if h.player == row.player
                    ],
                },
            )
    return len(players)


def _effective_rows(results: Any) -> list[TableResult]:
    return list(results.filter(superseded_by__isnull=True).order_by("created_at", "id"))


def tournament_ranks_compute(*, tournament_id: int) -> int:
    """Ranks (звания) of a tournament from its stored pogony; idempotent."""
    tournament = Tournament.objects.select_related("league").get(pk=tournament_id)
    ladder = tournament.league.rank_ladder if tournament.league else []
    rows = _effective_rows(TableResult.objects.filter(table__round__stage__tournament=tournament))
    count = _store_ranks(rows, ladder, tournament=tournament)
    Tournament.objects.filter(pk=tournament.pk).update(ranks_computed_at=timezone.now())
    return count


def league_ranks_compute(*, league_id: int) -> int:
    """Ranks of a league season over all its tournaments' stored pogony; idempotent."""
    league = League.objects.get(pk=league_id)
    rows = _effective_rows(
        TableResult.objects.filter(table__round__stage__tournament__league=league)
    )
    return _store_ranks(rows, league.rank_ladder, league=league)


def ratings_update(*, tournament_id: int) -> int:
    """Apply a finished tournament's tables to its players' OpenSkill ratings, once.

    The ``(player, tournament)`` rating change is unique: a second run finds it and changes
    nothing. Locks the tournament's players' rows.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.status != Tournament.Status.FINISHED:
            raise StateError("ratings change when the tournament has finished")
        if tournament.ratings_applied_at is not None:
            return 0
        results = _effective_rows(
            TableResult.objects.filter(table__round__stage__tournament=tournament)
        )
        seats = Seat.objects.filter(table__round__stage__tournament=tournament)
        players_of: dict[int, list[str]] = {}
        for entry_id, player_id in seats.values_list("entry_id", "player_id").distinct():
            players_of.setdefault(entry_id, [])
            if str(player_id) not in players_of[entry_id]:
                players_of[entry_id].append(str(player_id))
        tables = []
        for row in results:
            pure = selectors.to_pure_result(row)
            teams = [players_of[int(e)] for e in pure.places]
            if any(len(t) > 1 for t in teams):
                rated = rated_table(_expand_teams(pure, teams), teams=teams)
            else:
                rated = rated_table(
                    _rename(pure, {e: t[0] for e, t in zip(pure.places, teams, strict=True)})
                )
            if rated is not None:
                tables.append(rated)
        ids = {int(p) for t in tables for side in t.sides for p in side}
        players = Player.objects.select_for_update().in_bulk(list(ids))
        before = {str(pk): Rating(p.rating_mu, p.rating_sigma) for pk, p in players.items()}
        after = rate(before, tables)
        for pk, player in players.items():
            new = after[str(pk)]
            RatingChange.objects.create(
                player=player,
                tournament=tournament,
                mu_before=player.rating_mu,
                sigma_before=player.rating_sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
            )
            player.rating_mu, player.rating_sigma = new.mu, new.sigma
        Player.objects.bulk_update(players.values(), ["rating_mu", "rating_sigma"])
        tournament.ratings_applied_at = timezone.now()
        tournament.save(update_fields=["ratings_applied_at"])
        return len(players)


def _rename(result: PureResult, names: dict[str, str]) -> PureResult:
    """The same result with entries renamed to their players."""
    return PureResult(
        id=result.id,
        places=tuple(names[e] for e in result.places),
        fool=None if result.fool is None else names[result.fool],
        drawn=tuple(names[e] for e in result.drawn),
    )


def _expand_teams(result: PureResult, teams: Sequence[Sequence[str]]) -> PureResult:
    """A team entries' result as its players': the losing team's players lost together, and
    on a draw the drawn teams' players share the last places."""
    members = dict(zip(result.places, teams, strict=True))
    places = tuple(p for e in result.places for p in members[e])
    if result.drawn:
        drawn = tuple(p for e in result.drawn for p in members[e])
        return PureResult(id=result.id, places=places, drawn=drawn)
    fool_team = members[result.fool] if result.fool is not None else ()
    return PureResult(
        id=result.id,
        places=places,
        fool=fool_team[-1] if fool_team else None,
        team_lost=tuple(fool_team),
    )


def rounds_sweep() -> int:
    """Complete every playing round with no unfinished table; returns how many were found."""
    stuck = (
        Round.objects.filter(status=Round.Status.PLAYING)
        .exclude(tables__status__in=[Table.Status.PLAYING, Table.Status.WAITING])
        .values_list("pk", flat=True)
    )
    count = 0
    for round_id in stuck:
        round_complete(round_id=round_id)
        count += 1
    return count


def round_request_pairing(*, round_: Round) -> None:
    """A referee asks for a round to be paired: refused with a clear error unless it is pending
    (the job itself is idempotent and quietly skips a paired round)."""
    from tournaments import tasks

    round_.refresh_from_db(fields=["status"])
    if round_.status != Round.Status.PENDING:
        raise StateError(f"round {round_.number} is already {round_.status}; it is paired once")
    if round_.stage.format == Stage.Format.KNOCKOUT and round_.number > 1:
        raise StateError("later knockout rounds are seated by their feeding tables")
    with transaction.atomic():
        enqueue_on_commit(tasks.pair_round, round_.pk)
