"""An event's dashboard, the console's home of one tournament: where it stands, what is missing
or late, and the one step that moves it on.

:func:`dashboard_facts` reads the facts in a fixed number of queries (and one cache call for
who is connected, ``games.presence``); :func:`next_step` decides the next step from the facts
alone, so that each state's answer is a unit test. The console formats both
(``tournaments.console.dashboard``); the services that take the step check who takes it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from games import presence
from games.actors import Actor
from games.models import Game
from tournaments.models import AwardsFailure, Entry, Round, Stage, Table, TableResult, Tournament
from tournaments.selectors import current_of
from tournaments.selectors.live import STALL_WITHOUT_CLOCK, is_stalled, live_games
from tournaments.wording import round_name, stage_names


class Step(StrEnum):
    """The next step of an event, in the order an event takes them."""

    OPEN_REGISTRATION = "open_registration"
    CLOSE_REGISTRATION = "close_registration"
    START = "start"
    PAIR = "pair_next_round"  # a round waits for its pairing and none is in play
    PLAYING = "playing"  # a round is in play: nothing to do but watch it
    CONFIRM = "confirm_results"  # results wait for a second referee (the two-person rule)
    RECOMPUTE = "recompute"  # an end-of-event job failed
    FINISHED = "finished"
    CANCELLED = "cancelled"


#: Who may take a step (``tournaments.permissions``): "manage" (the organiser) or "referee"
#: (its referees too); a step missing here is no action (watch, or nothing left to do).
STEP_PERMISSION: dict[Step, str] = {
    Step.OPEN_REGISTRATION: "manage",
    Step.CLOSE_REGISTRATION: "manage",
    Step.START: "manage",
    Step.PAIR: "referee",
    Step.CONFIRM: "referee",
    Step.RECOMPUTE: "referee",
}


@dataclass(frozen=True)
class EntryCounts:
    registered: int = 0  # registered, not (yet) checked in
    checked_in: int = 0
    withdrawn: int = 0  # withdrawn or disqualified
    eliminated: int = 0

    @property
    def active(self) -> int:
        return self.registered + self.checked_in


@dataclass(frozen=True)
class TableCounts:
    """The tables of the current round (byes aside) by status."""

    finished: int = 0
    playing: int = 0
    waiting: int = 0  # a knockout table waiting for its feeders: not started

    @property
    def total(self) -> int:
        return self.finished + self.playing + self.waiting


@dataclass(frozen=True)
class TableRef:
    """A table named for the dashboard: its id (for links), round and number."""

    table_id: int
    number: int
    round: str  # "Round 2", "Final" (``wording.round_name``)


@dataclass(frozen=True)
class PendingResult:
    """A result that waits for a second referee's confirmation."""

    table: TableRef
    entered_by: str
    entered_at: dt.datetime


@dataclass(frozen=True)
class LateTable:
    """A table in play where nothing happens: its game has had no move for longer than its move
    clock (``selectors.live.is_stalled``), or no game is in play at it (``not_started``)."""

    table: TableRef
    since: dt.datetime | None  # the last move, or the round's pairing
    not_started: bool = False


@dataclass(frozen=True)
class PausedTable:
    """A table whose game a referee paused: it waits for a ruling (resume, adjudicate, void)."""

    table: TableRef


@dataclass(frozen=True)
class AbsentPlayer:
    """A person seated at a game in play with no live connection to its table."""

    table: TableRef
    name: str


@dataclass(frozen=True)
class DashboardFacts:
    """What the dashboard knows of one event."""

    status: str  # Tournament.Status's value
    registration_open: bool  # in registration, and not closed yet
    two_person_rule: bool
    entries: EntryCounts
    stage: str = ""  # the current stage's name ("" before the start)
    round: str = ""  # the current round's name
    round_status: str = ""  # Round.Status's value
    tables: TableCounts = field(default_factory=TableCounts)
    round_waiting: bool = False  # a round waits for its pairing
    round_playing: bool = False  # a round is in play
    pending_results: Sequence[PendingResult] = ()
    late: Sequence[LateTable] = ()
    paused: Sequence[PausedTable] = ()
    absent: Sequence[AbsentPlayer] = ()
    failures: Sequence[AwardsFailure] = ()  # the end-of-event jobs that failed

    @property
    def problems(self) -> int:
        return sum(
            len(part)
            for part in (self.pending_results, self.late, self.paused, self.absent, self.failures)
        )


def next_step(facts: DashboardFacts) -> Step:
    """The one step that moves the event on, from its facts alone.

    >>> entries = EntryCounts(registered=3)
    >>> next_step(DashboardFacts("draft", False, False, entries))
    <Step.OPEN_REGISTRATION: 'open_registration'>
    >>> next_step(DashboardFacts("registration", False, False, entries))
    <Step.START: 'start'>
    """
    status = Tournament.Status
    if facts.status == status.CANCELLED:
        return Step.CANCELLED
    if facts.status == status.DRAFT:
        return Step.OPEN_REGISTRATION
    if facts.status == status.REGISTRATION:
        return Step.CLOSE_REGISTRATION if facts.registration_open else Step.START
    if facts.status == status.FINISHED:
        if facts.failures:
            return Step.RECOMPUTE
        return Step.CONFIRM if facts.pending_results else Step.FINISHED
    # running: a result to confirm holds the round up; then a round to pair, or one to watch
    if facts.pending_results:
        return Step.CONFIRM
    if facts.round_waiting and not facts.round_playing:
        return Step.PAIR
    return Step.PLAYING


# --- reading the facts ----------------------------------------------------------------------------


def _entry_counts(tournament: Tournament) -> EntryCounts:
    s = Entry.Status
    counts = Entry.objects.filter(tournament=tournament).aggregate(
        registered=Count("pk", filter=Q(status=s.REGISTERED)),
        checked_in=Count("pk", filter=Q(status=s.CHECKED_IN)),
        withdrawn=Count("pk", filter=Q(status__in=[s.WITHDRAWN, s.DISQUALIFIED])),
        eliminated=Count("pk", filter=Q(status=s.ELIMINATED)),
    )
    return EntryCounts(**counts)


def _round_title(round_: Round, last_of_stage: dict[int, int]) -> str:
    """The round's name: "Round 2", a knockout's "Final" (``last_of_stage``: each stage's
    last round's number)."""
    knockout = round_.stage.format == Stage.Format.KNOCKOUT
    return round_name(round_.number, knockout=knockout, rounds=last_of_stage.get(round_.stage_id))


def _current_round(rounds: Sequence[Round], stage: Stage | None) -> Round | None:
    """The stage's round in play, else its last one paired (the one just done, while the next
    waits for its pairing), else its first."""
    of_stage = [r for r in rounds if stage is not None and r.stage_id == stage.pk]
    playing = [r for r in of_stage if r.status == Round.Status.PLAYING]
    paired = [r for r in of_stage if r.status != Round.Status.PENDING]
    chosen = playing or paired[-1:] or of_stage[:1]
    return chosen[0] if chosen else None


def dashboard_facts(
    tournament: Tournament, *, user: Actor, now: dt.datetime | None = None
) -> DashboardFacts:
    """The facts of ``tournament``'s dashboard as ``user`` (one who referees it) sees them."""
    now = now or timezone.now()
    stages = list(tournament.stages.order_by("order"))
    rounds = list(
        Round.objects.filter(stage__tournament=tournament)
        .select_related("stage")
        .order_by("stage__order", "number")
    )
    last_of_stage = {r.stage_id: r.number for r in rounds}

    def ref(table: Table) -> TableRef:
        return TableRef(table.pk, table.number, _round_title(table.round, last_of_stage))

    stage = current_of(stages) if tournament.status != Tournament.Status.DRAFT else None
    started = tournament.started_at is not None
    current = _current_round(rounds, stage) if started else None
    tables = TableCounts()
    if current is not None:
        by_status = dict(
            Table.objects.filter(round=current, is_bye=False)
            .values_list("status")
            .annotate(n=Count("pk"))
            .order_by()
        )
        tables = TableCounts(
            finished=by_status.get(Table.Status.FINISHED, 0),
            playing=by_status.get(Table.Status.PLAYING, 0),
            waiting=by_status.get(Table.Status.WAITING, 0),
        )

    pending = [
        PendingResult(
            ref(result.table),
            result.entered_by.get_username() if result.entered_by else "",
            result.created_at,
        )
        for result in TableResult.objects.filter(
            table__round__stage__tournament=tournament, status=TableResult.Status.PENDING
        )
        .select_related("table__round__stage", "entered_by")
        .order_by("created_at", "pk")
    ]

    late: list[LateTable] = []
    paused: list[PausedTable] = []
    absent: list[AbsentPlayer] = []
    games = (
        list(live_games(user, tournament)) if tournament.status == Tournament.Status.RUNNING else []
    )
    present = presence.present_players(game.table_id for game in games if game.table_id)
    for game in sorted(
        games, key=lambda g: (g.table.round.stage.order, g.table.round.number, g.table.number)
    ):
        table = game.table
        if game.status == Game.Status.PAUSED:
            paused.append(PausedTable(ref(table)))
            continue
        if is_stalled(game, game.last_action_at, now):
            late.append(LateTable(ref(table), game.last_action_at or game.created_at))
        connected = present.get(table.pk, set())
        absent += [
            AbsentPlayer(ref(table), seat.player.display_name)
            for seat in table.seats.all()
            if not seat.player.is_bot and not seat.bot_kind and seat.player_id not in connected
        ]
    if tournament.status == Tournament.Status.RUNNING:
        # Tables in play without a game in play, long after their round was paired: the deal
        # (a job) did not happen, or the series stopped between two games.
        in_play = Game.objects.filter(
            table=OuterRef("pk"), status__in=[Game.Status.ACTIVE, Game.Status.PAUSED]
        )
        idle = (
            Table.objects.filter(
                round__stage__tournament=tournament,
                round__status=Round.Status.PLAYING,
                round__paired_at__lt=now - STALL_WITHOUT_CLOCK,
                status=Table.Status.PLAYING,
                is_bye=False,
            )
            .exclude(Exists(in_play))
            .exclude(results__status=TableResult.Status.PENDING)
            .select_related("round__stage")
            .order_by("round__stage__order", "round__number", "number")
        )
        late += [LateTable(ref(table), table.round.paired_at, not_started=True) for table in idle]

    failures: list[AwardsFailure] = []
    if tournament.status == Tournament.Status.FINISHED:
        failures = list(AwardsFailure.objects.filter(tournament=tournament).order_by("pk"))

    names = stage_names(stages)
    return DashboardFacts(
        status=tournament.status,
        registration_open=(
            tournament.status == Tournament.Status.REGISTRATION
            and tournament.registration_closed_at is None
        ),
        two_person_rule=tournament.two_person_rule,
        entries=_entry_counts(tournament),
        stage=names.get(stage.order, "") if stage is not None and started else "",
        round=_round_title(current, last_of_stage) if current is not None else "",
        round_status=current.status if current is not None else "",
        tables=tables,
        round_waiting=any(r.status == Round.Status.PENDING for r in rounds),
        round_playing=any(r.status == Round.Status.PLAYING for r in rounds),
        pending_results=pending,
        late=late,
        paused=paused,
        absent=absent,
        failures=failures,
    )
