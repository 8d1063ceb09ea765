"""Pairing a round: planning its tables (swiss, round robin, knockout bracket) and seating them."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.errors import Forbidden, status_name
from durak_site.jobs import enqueue_on_commit
from games.actors import Actor
from games.models import Game
from tournaments import selectors
from tournaments.errors import (
    StateError,
    TournamentError,
)
from tournaments.models import (
    AuditEvent,
    Entry,
    Round,
    Seat,
    Stage,
    StageEntry,
    Table,
    TableResult,
    Tournament,
)
from tournaments.pairing import (
    Entry as PairingEntry,
)
from tournaments.pairing import (
    History,
    HistoryRound,
    Pairing,
    PairingError,
    TableRef,
    build_bracket,
    group_count,
    group_name,
    pair_swiss,
    round_robin,
    snake_groups,
    table_compromises,
)
from tournaments.permissions import can_referee, require_referee
from tournaments.selectors import facts
from tournaments.selectors.standings import standing_rows
from tournaments.services.audit import audit_record
from tournaments.services.feed import tournament_changed
from tournaments.services.results import knockout_table_seat
from tournaments.services.seating import (
    seat_alone,
    table_seat,
    table_series_start,
    table_started,
    tables_seat,
)


def _stage_rng(stage: Stage, round_number: int) -> random.Random:
    return random.Random(f"{stage.tournament.seed}:{stage.order}:{round_number}")


def _pairing_entries(
    stage: Stage, entry_ids: Sequence[int], entries: Mapping[int, Entry] | None = None
) -> list[PairingEntry]:
    """The pairing's view of ``entry_ids``: points, first places, rating, seed and club
    (``entries``: the entries by id, their players selected, if the caller has them)."""
    rows = {row.entry: row for row in standing_rows(stage)}
    if entries is None:
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


def active_stage_entries(stage: Stage) -> list[int]:
    active = set(
        Entry.objects.filter(tournament=stage.tournament, status__in=Entry.ACTIVE).values_list(
            "pk", flat=True
        )
    )
    return [e for e in selectors.stage_entry_ids(stage) if e in active]


@dataclass(frozen=True)
class PlannedTable:
    """A table to create: entries in seat order, its group label and its compromises (as data:
    ``Compromise.to_json``, worded where they are shown)."""

    entries: tuple[int, ...]
    group: str = ""
    compromises: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class PlannedRound:
    tables: tuple[PlannedTable, ...]
    byes: tuple[int, ...] = ()
    explanation: dict[str, Any] = field(default_factory=dict)
    # The entries the plan was made from (by id, their players and teams selected), when the
    # planner read them: the seating takes them instead of reading them again.
    entries: Mapping[int, Entry] | None = field(default=None, compare=False, repr=False)


def _planned(pairing: Pairing, names: Mapping[int, str], group: str = "") -> list[PlannedTable]:
    return [
        PlannedTable(
            entries=t.entries,
            group=group or f"{t.score_group:g}",
            compromises=tuple(c.to_json(names) for c in t.compromises),
        )
        for t in pairing.tables
    ]


def _entries_per_table(stage: Stage) -> int:
    """Entries seated at one table: players, or two teams at a team table."""
    return 2 if stage.tournament.is_team_event else stage.table_size


def _history_with_byes(stage: Stage, round_: Round) -> History:
    """The earlier rounds' tables and byes (the swiss pairing gives the bye to one who had
    fewer: FIDE C.04 gives no one a second bye while another has had none)."""
    tables = selectors.tournament_history(stage, before=round_)
    byes = selectors.tournament_byes(stage, before=round_)
    return History(
        tuple(
            HistoryRound(tuple(tuple(t) for t in round_tables), tuple(round_byes))
            for round_tables, round_byes in zip(tables, byes, strict=True)
        )
    )


def _plan_swiss(round_: Round) -> PlannedRound:
    stage = round_.stage
    history = _history_with_byes(stage, round_)
    active = active_stage_entries(stage)
    by_id = selectors.entries_by_id(active)  # once: ten thousand rows at the largest events
    names = {pk: entry.name for pk, entry in by_id.items()}
    pairing = pair_swiss(
        _pairing_entries(stage, active, by_id),
        history,
        table_size=_entries_per_table(stage),
        rng=_stage_rng(stage, round_.number),
    )
    return PlannedRound(
        tables=tuple(_planned(pairing, names)),
        byes=pairing.byes,
        explanation={
            "algorithm": "swiss",
            "score_groups": sorted({f"{t.score_group:g}" for t in pairing.tables}, reverse=True),
            "byes": [c.to_json(names) for c in pairing.bye_compromises],
            "compromises": [c.to_json(names) for c in pairing.compromises()],
        },
        entries=by_id,
    )


def stage_groups(stage: Stage) -> list[list[int]]:
    """A round-robin stage's groups: its seeded entries snake-dealt into its groups, fewer of
    them when entries left before the stage began (a group needs 2: ``docs/leaving.md``)."""
    seeded = selectors.stage_entry_ids(stage)
    return snake_groups(seeded, group_count(len(seeded), stage.groups))


def round_robin_schedule(stage: Stage) -> list[PlannedRound]:
    """The stage's whole round-robin schedule: snake-seeded groups, merged round by round.

    Deterministic from the stage's seeding and the tournament seed, so every round's job
    computes the same schedule.
    """
    seeded = selectors.stage_entry_ids(stage)
    names = selectors.entry_names(seeded)
    groups = stage_groups(stage)
    schedules = [
        round_robin(g, table_size=_entries_per_table(stage), rng=_stage_rng(stage, 0))
        for g in groups
    ]
    merged = []
    for number in range(max(s.round_count for s in schedules)):
        tables: list[PlannedTable] = []
        byes: list[int] = []
        for index, schedule in enumerate(schedules):
            if number < schedule.round_count:
                group = f"group {group_name(index)}"
                tables.extend(_planned(schedule.rounds[number], names, group=group))
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
    schedule = round_robin_schedule(round_.stage)
    planned = schedule[round_.number - 1]
    active = set(active_stage_entries(round_.stage))
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
    seeded = active_stage_entries(stage)
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
            byes = [f.entry for f in planned.feeds_from if f.entry is not None]
            if planned.entries:
                table_seat(table, planned.entries)
            elif byes and len(byes) == len(planned.feeds_from):
                # Fed by byes only: nothing to wait for (no feeder will finish to seat it).
                knockout_table_seat(table, byes)
    for number, later in rounds.items():
        if number > 1:
            later.explanation = {"algorithm": "knockout", "waiting_for_feeders": True}
            later.save(update_fields=["explanation"])
    round_.explanation = {
        "algorithm": "knockout",
        "advance_per_table": stage.knockout_advance,
        "rounds": [len(level) for level in bracket.rounds],
        # as data, worded where shown (``wording.compromise_text``)
        "byes": [
            {"kind": "knockout_bye", "names": [name]}
            for name in selectors.entry_names(bracket.byes).values()
        ],
    }


def _create_tables(round_: Round, planned: PlannedRound) -> None:
    """The round's tables, seated and dealt in a few statements (``seating.tables_seat``), then
    its byes."""
    tables_seat(
        [
            (
                Table(
                    round=round_,
                    number=number,
                    score_group=table_plan.group,
                    compromises=list(table_plan.compromises),
                ),
                table_plan.entries,
            )
            for number, table_plan in enumerate(planned.tables, start=1)
        ],
        entries=planned.entries,
    )
    number = len(planned.tables)
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
        seat_alone(table, bye_entry)
        TableResult.objects.create(table=table, places=[bye_entry], source=TableResult.Source.BYE)


def round_pair(*, round_id: int) -> Round:
    """Seat a round (the pairing job's body). Safe to run twice: it pairs a round once.

    Locks the round row for the whole pairing, so a concurrent run waits and then finds the
    round already paired; a run killed half-way rolls back and leaves the round pending. A round
    paired is announced on the feed, last (it updates the tournament row).
    """
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update(no_key=True)
            .select_related("stage__tournament")
            .get(pk=round_id)
        )
        if round_.status != Round.Status.PENDING:
            return round_
        stage = round_.stage
        if stage.tournament.status != Tournament.Status.RUNNING:
            raise StateError(
                gettext("the tournament is %(status)s; nothing is paired")
                % {"status": status_name(Tournament.Status, stage.tournament.status)}
            )
        try:
            if stage.format == Stage.Format.KNOCKOUT and round_.number != 1:
                return round_  # later knockout rounds are seated by their feeders
            if len(active_stage_entries(stage)) < 2:
                # Entries left since the round was asked for: too few to play it. It finishes
                # without a table, and so does its stage (``progression._round_finish``).
                round_.explanation = {"algorithm": stage.format, "skipped": "too_few_entries"}
            elif stage.format == Stage.Format.KNOCKOUT:
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
            raise TournamentError(
                gettext("round %(round)s cannot be paired: %(problem)s")
                % {"round": round_.number, "problem": exc}
            ) from None
        round_.status = Round.Status.PLAYING
        round_.paired_at = timezone.now()
        round_.save(update_fields=["status", "paired_at", "explanation"])
        enqueue_on_commit("tournaments.round_complete", round_id)
        tournament_changed(
            tournament_id=stage.tournament_id,
            event="round_paired",
            data=facts.paired_facts(round_),
        )
        return round_


def round_request_pairing(*, round_: Round, actor: Actor | None = None) -> None:
    """A referee asks for a round to be paired: refused with a clear error unless it is pending
    (the job itself is idempotent and quietly skips a paired round). ``actor``: a person (a
    referee of the event; anyone else is refused; audited), None: the system."""
    require_referee(actor, round_.stage.tournament)
    round_.refresh_from_db(fields=["status"])
    if round_.status != Round.Status.PENDING:
        raise StateError(
            gettext("round %(round)s is already %(status)s; it is paired once")
            % {"round": round_.number, "status": status_name(Round.Status, round_.status)}
        )
    if round_.stage.format == Stage.Format.KNOCKOUT and round_.number > 1:
        raise StateError(gettext("later knockout rounds are seated by their feeding tables"))
    with transaction.atomic():
        if actor is not None:
            audit_record(
                actor=actor,
                action=AuditEvent.Action.ROUND_PAIR,
                tournament=round_.stage.tournament,
                target=round_,
            )
        enqueue_on_commit("tournaments.round_pair", round_.pk)


def seats_swap(*, first: Seat, second: Seat, actor: Actor, reason: str) -> list[dict[str, Any]]:
    """Swap the entries of two seats of a round before play begins at their tables (a referee's
    or organiser's call, with a reason), re-validated: the tables' compromises (repeat meetings,
    shared clubs) are computed again, stored and returned (as data: ``Compromise.to_json``), and
    the tables' first games dealt again for their new players. Individual events only. Audited.

    Refused if a seat is a bye's, if the tables are not in the same round, or once a move has
    been made at either table. Locks both table rows (in id order), then their games, then
    (announcing the swap on the feed, last) the tournament's.
    """
    if not reason.strip():
        raise StateError(gettext("a seat swap needs a reason"), code="reason_required")
    if first.pk == second.pk:
        raise StateError(gettext("choose two different seats"))
    with transaction.atomic():
        ids = sorted({first.table_id, second.table_id})
        tables = {
            t.pk: t
            for t in Table.objects.select_for_update(no_key=True)
            .select_related("round__stage__tournament")
            .filter(pk__in=ids)
            .order_by("pk")
        }
        # And their games: a bot moving at one of them holds its game's row while it writes the
        # move, so that move either came first (play has begun: refused below) or, waiting
        # here, finds its game dealt again (its job has nothing to do). Unlocked, the move's row
        # could reference a game this swap deletes (a foreign key broken at commit).
        list(Game.objects.select_for_update().filter(table_id__in=ids).order_by("pk").values("pk"))
        a = Seat.objects.select_related("player", "entry").get(pk=first.pk)
        b = Seat.objects.select_related("player", "entry").get(pk=second.pk)
        table_a, table_b = tables[a.table_id], tables[b.table_id]
        round_ = table_a.round
        tournament = round_.stage.tournament
        if not can_referee(actor, tournament):
            raise Forbidden(gettext("only a referee of this tournament can swap its seats"))
        if table_b.round_id != round_.pk:
            raise StateError(gettext("the two seats are in different rounds"))
        if tournament.is_team_event:
            raise StateError(gettext("a team event's seats follow its teams: they are not swapped"))
        for table in tables.values():
            if table.is_bye or table.status != Table.Status.PLAYING:
                raise StateError(
                    gettext("%(table)s is not waiting to play: its seats stay") % {"table": table}
                )
            if table_started(table):
                raise StateError(
                    gettext("play has begun at %(table)s: its seats stay") % {"table": table}
                )
        before = _seating(tables.values())
        # Deleted and made again: within one table the (table, player) constraint would refuse
        # the first of two updates.
        Seat.objects.filter(pk__in=[a.pk, b.pk]).delete()
        Seat.objects.bulk_create(
            [
                Seat(table_id=a.table_id, position=a.position, entry=b.entry, player=b.player),
                Seat(table_id=b.table_id, position=b.position, entry=a.entry, player=a.player),
            ]
        )
        history = History.from_tables(selectors.tournament_history(round_.stage, before=round_))
        found: list[dict[str, Any]] = []
        for table in tables.values():
            entry_ids = list(table.seats.order_by("position").values_list("entry_id", flat=True))
            names = selectors.entry_names(entry_ids)
            compromises = [
                c.to_json(names)
                for c in table_compromises(_pairing_entries(round_.stage, entry_ids), history)
            ]
            table.compromises = compromises
            table.save(update_fields=["compromises"])
            found.extend(compromises)
            Game.objects.filter(table=table).delete()
            table_series_start(table=table)
        audit_record(
            actor=actor,
            action=AuditEvent.Action.SEAT_SWAP,
            tournament=tournament,
            target=round_,
            reason=reason,
            before=before,
            after={**_seating(tables.values()), "compromises": found},
        )
        tournament_changed(
            tournament_id=tournament.pk,
            event="seats_swapped",
            data=facts.paired_facts(round_),
        )
        return found


def _seating(tables: Iterable[Table]) -> dict[str, list[str]]:
    """The tables' players by seat, by table number (the audit log's before and after)."""
    return {
        str(table.number): [
            seat.player.display_name
            for seat in table.seats.select_related("player").order_by("position")
        ]
        for table in tables
    }
