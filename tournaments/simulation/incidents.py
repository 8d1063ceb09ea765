"""What organisers and referees do in real events, injected into a simulated one at random moments
drawn from a seed: withdrawals and disqualifications (also mid-game, where the dropout rule
pauses the game for a referee), late registrations and re-entries where the plan allows them,
corrections of a finished table's result (with and without pairing the next round again),
results played over the board (confirmed by a second referee under the two-person rule), seat
swaps, adjudicated draws.

Each incident goes through the service the console (or the live table's referee panel) calls,
as a real organiser or referee user, never a superuser; a refusal (``ServiceError``: the console
would show it) is logged as such, anything else propagates. A game the dropout rule paused is
adjudicated at the next step by a referee, as the live tables page asks one to.

:class:`Injector` is driven by :meth:`Injector.step`: after each job when jobs run in-process
(``durak_site.jobs.after_each_eager_job``), or at each poll of the simulator when a worker runs
them. Its :attr:`Injector.log` says what was done, refused, or never found its moment.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from durak_site.errors import ServiceError
from games import services as game_services
from games.models import Game
from tournaments import services
from tournaments.models import Entry, Round, Seat, Table, TableResult, Tournament
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.services.corrections import table_result_reject
from tournaments.services.registration import registration_check_open

#: Every kind of incident, in the order the log lists them.
KINDS = (
    "withdraw_before_start",
    "withdraw",
    "withdraw_mid_game",
    "disqualify",
    "late_entry",
    "reentry",
    "correct",
    "correct_repair",
    "otb_result",
    "seat_swap",
    "draw",
)

#: The counts of ``--incidents`` when only a seed is given: a bit of everything.
DEFAULT_COUNTS = {
    "withdraw_before_start": 1,
    "withdraw": 1,
    "withdraw_mid_game": 1,
    "disqualify": 1,
    "late_entry": 1,
    "reentry": 1,
    "correct": 1,
    "correct_repair": 1,
    "otb_result": 1,
    "seat_swap": 1,
    "draw": 1,
}


def parse_counts(text: str) -> dict[str, int]:
    """``"withdraw=2,draw=1"`` (or ``"all=N"``: N of each kind) as counts; ValueError names
    the part it cannot read."""
    counts: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, number = part.partition("=")
        if not number.isdigit() or (kind not in KINDS and kind != "all"):
            raise ValueError(f"{part!r} is not KIND=COUNT with KIND one of all, {', '.join(KINDS)}")
        if kind == "all":
            counts.update(dict.fromkeys(KINDS, int(number)))
        else:
            counts[kind] = int(number)
    return counts


@dataclass(frozen=True)
class Incident:
    """One line of the log: the step it happened at, its kind, what was done and the outcome
    (``done``, or ``refused <code>: <message>`` as the console would show it)."""

    step: int
    kind: str
    what: str
    outcome: str

    @property
    def done(self) -> bool:
        return self.outcome == "done"

    def __str__(self) -> str:
        return f"step {self.step:>5}  {self.kind:<17} {self.what}: {self.outcome}"


@dataclass
class Cast:
    """The people who act: the event's organiser and two referees (the second confirms
    results under the two-person rule)."""

    organiser: Any
    referee: Any
    second_referee: Any

    @classmethod
    def for_event(cls, tournament: Tournament, prefix: str = "sim") -> Cast:
        """The event's organiser (its creator, made an organiser if it is not one yet; a new
        ``<prefix>-organiser`` if it has none) and two referees assigned to it."""
        users = get_user_model().objects
        organiser = tournament.created_by
        if organiser is None:
            organiser, _ = users.get_or_create(
                username=f"{prefix}-organiser", defaults={"is_staff": True}
            )
            Tournament.objects.filter(pk=tournament.pk).update(created_by=organiser)
            tournament.created_by = organiser
        organiser.groups.add(Group.objects.get_or_create(name=ORGANISER)[0])
        referee_group = Group.objects.get_or_create(name=REFEREE)[0]
        referees = []
        for n in (1, 2):
            user, _ = users.get_or_create(
                username=f"{prefix}-referee-{n}", defaults={"is_staff": True}
            )
            user.groups.add(referee_group)
            referees.append(user)
        current = list(tournament.referees.all())
        services.tournament_set_referees(
            tournament=tournament,
            actor=organiser,
            referees=[*current, *(r for r in referees if r not in current)],
        )
        return cls(organiser, referees[0], referees[1])


@dataclass
class Injector:
    """Injects incidents into ``tournament``: at each :meth:`step`, with probability ``rate``,
    one incident of a kind that still has a count left and fits the moment."""

    tournament: Tournament
    cast: Cast
    counts: dict[str, int]
    rng: random.Random
    rate: float = 0.15
    after_each: Callable[[], Any] | None = None
    log: list[Incident] = field(default_factory=list)
    steps: int = 0
    _left: dict[str, int] = field(default_factory=dict)
    _late: int = 0
    _ruled: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._left = {k: n for k, n in self.counts.items() if n > 0}

    # --- driving ------------------------------------------------------------------------------

    def step(self) -> None:
        """One moment of the run: rule on the games the dropout rule paused, then perhaps
        inject an incident."""
        self.steps += 1
        status = Tournament.objects.values_list("status", flat=True).get(pk=self.tournament.pk)
        if status != Tournament.Status.RUNNING:
            return
        self._rule_on_paused_games()
        if not self._left or self.rng.random() >= self.rate:
            return
        kinds = sorted(self._left)
        self.rng.shuffle(kinds)
        for kind in kinds:
            incident = self._inject(kind)
            if incident is None:
                continue  # nothing of that kind fits this moment
            self.log.append(incident)
            self._left[kind] -= 1
            if not self._left[kind]:
                del self._left[kind]
            if self.after_each is not None:
                self.after_each()
            return

    def before_start(self) -> None:
        """The registration's incidents: entries withdrawn before the start (not below the
        plan's minimum: the organiser would not start then)."""
        for _ in range(self._left.pop("withdraw_before_start", 0)):
            incident = self._inject("withdraw_before_start")
            if incident is not None:
                self.log.append(incident)

    def _inject(self, kind: str) -> Incident | None:
        handler: Callable[[], tuple[str, Callable[[], Any]] | None] = getattr(self, f"_{kind}")
        found = handler()
        if found is None:
            return None
        what, act = found
        try:
            act()
        except ServiceError as exc:
            return Incident(self.steps, kind, what, f"refused {exc.code}: {exc.message}")
        return Incident(self.steps, kind, what, "done")

    def summary(self) -> dict[str, Counter[str]]:
        """Per kind: how many were done, refused, and never found their moment."""
        out: dict[str, Counter[str]] = {}
        for incident in self.log:
            out.setdefault(incident.kind, Counter())["done" if incident.done else "refused"] += 1
        for kind, left in self._left.items():
            out.setdefault(kind, Counter())["no moment"] += left
        return out

    def report_lines(self) -> list[str]:
        lines = [str(incident) for incident in self.log]
        summary = self.summary()
        for kind in (*KINDS, "dropout_ruling"):
            if kind in summary:
                counts = summary[kind]
                lines.append(
                    f"{kind}: " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
                )
        return lines

    # --- what is there ------------------------------------------------------------------------

    def _active_entries(self) -> list[Entry]:
        return list(
            Entry.objects.filter(tournament=self.tournament, status__in=Entry.ACTIVE)
            .select_related("player", "team")
            .order_by("pk")
        )

    def _playing_tables(self) -> list[Table]:
        return list(
            Table.objects.filter(
                round__stage__tournament=self.tournament,
                status=Table.Status.PLAYING,
                is_bye=False,
            )
            .select_related("round__stage")
            .order_by("pk")
        )

    def _entries_at(self, table: Table) -> list[int]:
        return list(
            dict.fromkeys(table.seats.order_by("position").values_list("entry_id", flat=True))
        )

    def _invented_result(self, entries: Sequence[int]) -> dict[str, Any]:
        """A result a referee might enter: some order, the last the fool (now and then a draw
        of the last two, in an individual event)."""
        places = list(entries)
        self.rng.shuffle(places)
        if len(places) > 2 and not self.tournament.is_team_event and self.rng.random() < 0.2:
            return {"places": places, "fool": None, "drawn": places[-2:]}
        return {"places": places, "fool": places[-1]}

    # --- the incidents ------------------------------------------------------------------------

    def _withdraw_before_start(self) -> tuple[str, Callable[[], Any]] | None:
        entries = self._active_entries()
        if len(entries) <= 4:
            return None
        entry = self.rng.choice(entries)
        return f"{entry.name} withdraws before the start", lambda: services.entry_withdraw(
            entry=entry, reason="cannot come", actor=self.cast.organiser
        )

    def _withdraw(self) -> tuple[str, Callable[[], Any]] | None:
        entries = self._active_entries()
        if len(entries) <= 2:
            return None  # the event needs someone to play
        entry = self.rng.choice(entries)
        return f"{entry.name} withdraws", lambda: services.entry_withdraw(
            entry=entry, reason="left the venue", actor=self.cast.referee
        )

    def _withdraw_mid_game(self) -> tuple[str, Callable[[], Any]] | None:
        if len(self._active_entries()) <= 2:
            return None
        playing = Game.objects.filter(
            table__round__stage__tournament=self.tournament,
            table__status=Table.Status.PLAYING,
            status=Game.Status.ACTIVE,
        ).values_list("table_id", flat=True)
        seats = list(
            Seat.objects.filter(table_id__in=playing, entry__status__in=Entry.ACTIVE)
            .select_related("entry__player", "entry__team", "table")
            .order_by("pk")
        )
        if not seats:
            return None
        seat = self.rng.choice(seats)
        entry = seat.entry
        return (
            f"{entry.name} withdraws while playing at {seat.table}",
            lambda: services.entry_withdraw(
                entry=entry, reason="taken ill mid-game", actor=self.cast.referee
            ),
        )

    def _disqualify(self) -> tuple[str, Callable[[], Any]] | None:
        entries = self._active_entries()
        if len(entries) <= 2:
            return None
        entry = self.rng.choice(entries)
        reason = "marked cards"

        def act() -> None:
            # What the console's action does (``console.admin_actions.disqualify``): the service,
            # which writes its audit row in the referee's name.
            services.entry_disqualify(entry=entry, reason=reason, actor=self.cast.referee)

        return f"{entry.name} is disqualified", act

    def _open_for_entries(self) -> bool:
        try:
            registration_check_open(Tournament.objects.get(pk=self.tournament.pk))
        except ServiceError:
            return False
        return True

    def _late_entry(self) -> tuple[str, Callable[[], Any]] | None:
        if self.tournament.is_team_event or not self._open_for_entries():
            return None
        self._late += 1
        name = f"Late {self.tournament.pk}-{self._late}"

        def act() -> None:
            player = services.player_create(display_name=name, club="Поздние", bot_kind="heuristic")
            services.entry_register(
                tournament=self.tournament,
                player=player,
                actor=self.cast.organiser,
                reason="arrived after the start",
            )

        return f"{name} registers late", act

    def _reentry(self) -> tuple[str, Callable[[], Any]] | None:
        if not self.tournament.reentry_fee or not self._open_for_entries():
            return None
        entries = self._active_entries()
        if not entries:
            return None
        entry = self.rng.choice(entries)

        def act() -> None:
            # The console's ``reenter`` action: the service, which writes its audit row.
            services.entry_reenter(entry=entry, actor=self.cast.organiser)

        return f"{entry.name} re-enters", act

    def _finished_tables(self, *, next_round_seated: bool) -> list[Table]:
        """Finished tables of the running stage whose next round (or, in a knockout, a table
        they feed) has been seated — or not yet."""
        found = []
        tables = Table.objects.filter(
            round__stage__tournament=self.tournament,
            round__stage__status="running",
            status=Table.Status.FINISHED,
            is_bye=False,
        ).select_related("round__stage")
        for table in tables.order_by("pk"):
            if table.results.filter(status=TableResult.Status.PENDING).exists():
                continue
            if table.round.stage.format == "knockout":
                later = Table.objects.filter(
                    round__stage=table.round.stage, round__number__gt=table.round.number
                )
                fed = [t for t in later if any(f.get("table") == table.pk for f in t.feeds_from)]
                if not fed:
                    continue  # the final: correcting it does not exercise a re-pair
                seated = any(t.status != Table.Status.WAITING for t in fed)
            else:
                later_round = Round.objects.filter(
                    stage=table.round.stage, number=table.round.number + 1
                ).first()
                seated = later_round is not None and later_round.status != Round.Status.PENDING
            if seated == next_round_seated:
                found.append(table)
        return found

    def _enter(self, table: Table, result: dict[str, Any], reason: str, repair: bool) -> None:
        """A referee enters ``result``; under the two-person rule the second referee reviews it
        (now and then rejects it first, and the first referee enters it again)."""
        entered = services.table_result_enter(
            table=table, actor=self.cast.referee, reason=reason, repair=repair, **result
        )
        if entered.status != TableResult.Status.PENDING:
            return
        if self.rng.random() < 0.25:
            table_result_reject(
                result=entered, actor=self.cast.second_referee, note="the score sheet disagrees"
            )
            entered = services.table_result_enter(
                table=table, actor=self.cast.referee, reason=reason, repair=repair, **result
            )
        services.table_result_confirm(result=entered, actor=self.cast.second_referee)

    def _correct(self) -> tuple[str, Callable[[], Any]] | None:
        tables = self._finished_tables(next_round_seated=False)
        if not tables:
            return None
        table = self.rng.choice(tables)
        result = self._invented_result(self._entries_at(table))
        return f"{table}: result corrected to {result}", lambda: self._enter(
            table, result, "the score sheet was misread", repair=False
        )

    def _correct_repair(self) -> tuple[str, Callable[[], Any]] | None:
        tables = self._finished_tables(next_round_seated=True)
        if not tables:
            return None
        table = self.rng.choice(tables)
        result = self._invented_result(self._entries_at(table))
        return (
            f"{table}: result corrected to {result}, next round paired again",
            lambda: self._enter(
                table, result, "the wrong player was recorded as the fool", repair=True
            ),
        )

    def _otb_result(self) -> tuple[str, Callable[[], Any]] | None:
        tables = [t for t in self._playing_tables() if not t.results.exists()]
        if not tables:
            return None
        table = self.rng.choice(tables)
        result = self._invented_result(self._entries_at(table))
        return f"{table}: played over the board, {result}", lambda: self._enter(
            table, result, "", repair=False
        )

    def _seat_swap(self) -> tuple[str, Callable[[], Any]] | None:
        if self.tournament.is_team_event:
            return None
        untouched = [
            t
            for t in self._playing_tables()
            if not t.results.exists() and not t.games.filter(version__gt=0).exists()
        ]
        by_round: dict[int, list[Table]] = {}
        for table in untouched:
            by_round.setdefault(table.round_id, []).append(table)
        choices = [tables for tables in by_round.values() if len(tables) > 1]
        if not choices:
            return None
        first_table, second_table = self.rng.sample(self.rng.choice(choices), 2)
        first = self.rng.choice(list(first_table.seats.select_related("player")))
        second = self.rng.choice(list(second_table.seats.select_related("player")))
        return (
            f"{first.player} ({first_table}) swaps seats with {second.player} ({second_table})",
            lambda: services.seats_swap(
                first=first, second=second, actor=self.cast.referee, reason="a family pairing"
            ),
        )

    def _draw(self) -> tuple[str, Callable[[], Any]] | None:
        games = list(
            Game.objects.filter(
                table__round__stage__tournament=self.tournament,
                table__status=Table.Status.PLAYING,
                status=Game.Status.ACTIVE,
            ).order_by("pk")
        )
        if not games:
            return None
        game = self.rng.choice(games)
        seats = list(range(len(game.players)))
        self.rng.shuffle(seats)
        assert game.table_id is not None
        table_id = game.table_id
        return (
            f"game {game.pk} at table {table_id} adjudicated a draw",
            lambda: game_services.table_referee(
                table_id=table_id,
                referee=self.cast.referee,
                command="adjudicate",
                reason="the time ran out: a draw",
                places=seats,
                fool=None,
            ),
        )

    def _rule_on_paused_games(self) -> None:
        """A game the dropout rule paused: the referee adjudicates it, the leaving entry's seats
        last (its player the fool), as the live tables page asks."""
        paused = Game.objects.filter(
            table__round__stage__tournament=self.tournament, status=Game.Status.PAUSED
        ).order_by("pk")
        for game in paused.exclude(pk__in=self._ruled):
            assert game.table_id is not None
            self._ruled.add(game.pk)
            gone = set(
                Seat.objects.filter(table_id=game.table_id)
                .exclude(entry__status__in=Entry.ACTIVE)
                .values_list("player_id", flat=True)
            )
            seats = list(range(len(game.players)))
            self.rng.shuffle(seats)
            seats.sort(key=lambda s: game.players[s] in gone)
            what = f"game {game.pk} at table {game.table_id}: the dropout adjudicated"
            try:
                game_services.table_referee(
                    table_id=game.table_id,
                    referee=self.cast.referee,
                    command="adjudicate",
                    reason="the player left: adjudicated",
                    places=seats,
                    fool=seats[-1],
                )
            except ServiceError as exc:
                self.log.append(
                    Incident(
                        self.steps, "dropout_ruling", what, f"refused {exc.code}: {exc.message}"
                    )
                )
            else:
                self.log.append(Incident(self.steps, "dropout_ruling", what, "done"))
