"""What must hold of a tournament while it runs and once it has finished, whatever happened to it:
the checker the simulator runs after each of its steps and at the end (``simulate_tournament``
with incidents, the property test, ``bench.incidents``).

The final places are checked against the rule for leaving an event (the lead's, in
``docs/``): an entry withdrawn before the start has no place and no fee in the pool; one that
withdrew after the start is placed below every entry that completed the stage it left and above
every entry eliminated earlier (withdrawn entries of one stage in the order of that stage's
standings, equal standing sharing a place); disqualified entries share the last place and are
paid nothing; places follow competition ranking; the payouts add up to the pool.

A violation is a sentence naming the entries, tables or jobs concerned; a checker collects them
(and never raises), so that a run can go on and report every one.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from django.core.cache import cache

from durak_site.jobs import lease_key
from games.models import Game
from tournaments.models import (
    AwardsFailure,
    Entry,
    Payout,
    PrizePool,
    Round,
    Seat,
    Stage,
    StageEntry,
    Table,
    Tournament,
)
from tournaments.selectors.standings import standing_rows

#: An entry that left the event: it is never seated again.
GONE = (Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED)


def competition_ranking_violations(places: Iterable[int]) -> list[str]:
    """Places ``1, 2, 2, 4, ...``: each place is one more than the number of entries above it."""
    ordered = sorted(places)
    for index, place in enumerate(ordered):
        tied = index > 0 and ordered[index - 1] == place
        if not tied and place != index + 1:
            return [
                f"places are not a competition ranking: {ordered} (place {place} has "
                f"{index} entries above it)"
            ]
    return []


def _job_keys(tournament: Tournament) -> list[tuple[str, tuple[int, ...]]]:
    """The tournament's jobs the reconciler knows by their arguments (see ``durak_site.jobs``)."""
    keys: list[tuple[str, tuple[int, ...]]] = [
        (name, (tournament.pk,))
        for name in (
            "tournaments.prize_pool_compute",
            "tournaments.tournament_ranks_compute",
            "tournaments.ratings_update",
        )
    ]
    for round_id in Round.objects.filter(stage__tournament=tournament).values_list("pk", flat=True):
        keys += [
            ("tournaments.round_pair", (round_id,)),
            ("tournaments.round_complete", (round_id,)),
        ]
    games = Game.objects.filter(table__round__stage__tournament=tournament)
    keys += [("games.game_finished", (gid,)) for gid in games.values_list("pk", flat=True)]
    return keys


def failed_jobs(tournament: Tournament) -> list[str]:
    """The tournament's jobs whose last run failed (their lease says so: a worker logged the
    error and will try again in a minute) — a failure nobody would otherwise see."""
    return [
        f"job {name}{args} failed"
        for name, args in _job_keys(tournament)
        if cache.get(lease_key(name, args)) == "failed"
    ]


def stored_failures(tournament: Tournament) -> list[str]:
    """The tournament's end-of-event jobs whose failure is stored
    (``tournaments.services.failures``): shown in the console, but a failure all the same."""
    return [
        f"the {failure.job} job failed ({failure.code}): {failure.message}"
        for failure in AwardsFailure.objects.filter(tournament=tournament).order_by("pk")
    ]


class InvariantChecker:
    """The invariants of one tournament: :meth:`step` after each step of a run (cheap: what
    must hold at every moment), :meth:`final` at its end. ``violations`` collects what failed,
    each sentence once."""

    def __init__(self, tournament: Tournament) -> None:
        self.tournament = tournament
        self.violations: list[str] = []
        # entry -> the seats it had when it was first seen gone: any other seat is a new one
        self._gone_seats: dict[int, set[int]] = {}
        self.steps = 0

    def _add(self, found: Iterable[str]) -> None:
        for violation in found:
            if violation not in self.violations:
                self.violations.append(violation)

    # --- at every step ------------------------------------------------------------------------

    def step(self) -> list[str]:
        """Check what must hold at any moment (cheap: it runs after every job); returns the new
        violations."""
        self.steps += 1
        before = len(self.violations)
        self._add(self._gone_not_seated_again())
        self._add(self._seats_unique())
        self._add(stored_failures(self.tournament))
        return self.violations[before:]

    def _gone_not_seated_again(self) -> list[str]:
        found = []
        gone = Entry.objects.filter(tournament=self.tournament, status__in=GONE)
        seats = defaultdict(set)
        for seat_id, entry_id in Seat.objects.filter(
            entry__in=gone, table__round__stage__tournament=self.tournament
        ).values_list("pk", "entry_id"):
            seats[entry_id].add(seat_id)
        for entry in gone:
            known = self._gone_seats.setdefault(entry.pk, seats[entry.pk])
            new = seats[entry.pk] - known
            if new:
                tables = sorted(
                    _where(s.table)
                    for s in Seat.objects.filter(pk__in=new).select_related("table__round__stage")
                )
                found.append(
                    f"{entry.name} ({entry.status}) was seated again after leaving: "
                    + ", ".join(tables)
                )
        return found

    def _seats_unique(self) -> list[str]:
        found = []
        for round_ in Round.objects.filter(
            stage__tournament=self.tournament, status=Round.Status.PLAYING
        ):
            seated = list(
                Seat.objects.filter(table__round=round_).values_list(
                    "table_id", "entry_id", "player_id"
                )
            )
            tables_of: dict[int, set[int]] = defaultdict(set)
            for table_id, entry_id, _player in seated:
                tables_of[entry_id].add(table_id)
            if any(len(tables) > 1 for tables in tables_of.values()):
                found.append(
                    f"stage {round_.stage.order} round {round_.number}: an entry sits at two tables"
                )
            players = [p for _t, _e, p in seated]
            if len(players) != len(set(players)):
                found.append(
                    f"stage {round_.stage.order} round {round_.number}: a player sits at two seats"
                )
        return found

    # --- at the end ---------------------------------------------------------------------------

    def final(self) -> list[str]:
        """Check the finished event; returns the new violations."""
        before = len(self.violations)
        self.step()
        self._add(failed_jobs(self.tournament))
        tournament = Tournament.objects.get(pk=self.tournament.pk)
        if tournament.status != Tournament.Status.FINISHED:
            self._add([f"the event did not finish: it is {tournament.status}"])
            return self.violations[before:]
        self._add(self._everything_over())
        self._add(self._places())
        self._add(self._money(tournament))
        if tournament.ranks_computed_at is None:
            self._add(["the ranks were not computed"])
        if tournament.ratings_applied_at is None:
            self._add(["the ratings were not updated"])
        return self.violations[before:]

    def _everything_over(self) -> list[str]:
        found = []
        rounds = Round.objects.filter(stage__tournament=self.tournament)
        for round_ in rounds.exclude(status=Round.Status.FINISHED):
            found.append(f"{round_} is {round_.status} in a finished event")
        tables = Table.objects.filter(round__stage__tournament=self.tournament, is_bye=False)
        for table in tables.exclude(status=Table.Status.FINISHED).exclude(
            status=Table.Status.WAITING, seats__isnull=True
        ):
            found.append(f"{table} is {table.status} in a finished event")
        games = Game.objects.filter(table__in=tables).exclude(status__in=Game.OVER)
        for game in games:
            found.append(f"game {game.pk} of {game.table} is {game.status} in a finished event")
        return found

    def _started_entries(self) -> tuple[list[Entry], list[Entry]]:
        """(entries that started, entries withdrawn before the start): an entry starts when it
        joins a stage (at the start, or by late registration)."""
        entries = list(
            Entry.objects.filter(tournament=self.tournament).select_related("player", "team")
        )
        joined = set(
            StageEntry.objects.filter(stage__tournament=self.tournament).values_list(
                "entry_id", flat=True
            )
        )
        return [e for e in entries if e.pk in joined], [e for e in entries if e.pk not in joined]

    def _places(self) -> list[str]:
        found: list[str] = []
        started, before_start = self._started_entries()
        for entry in before_start:
            if entry.final_place is not None:
                found.append(f"{entry.name} never started but has place {entry.final_place}")
        unplaced = [e.name for e in started if e.final_place is None]
        if unplaced:
            found.append(f"entries that started have no final place: {', '.join(unplaced)}")
            return found
        place = {e.pk: int(e.final_place or 0) for e in started}
        found += competition_ranking_violations(place.values())
        disqualified = [e for e in started if e.status == Entry.Status.DISQUALIFIED]
        last = len(started) - len(disqualified) + 1
        for entry in disqualified:
            if place[entry.pk] != last:
                found.append(
                    f"{entry.name} is disqualified: place {place[entry.pk]}, not the shared "
                    f"last place {last}"
                )
        found += self._order_by_exit(
            [e for e in started if e.status != Entry.Status.DISQUALIFIED], place
        )
        return found

    def _order_by_exit(self, entries: list[Entry], place: dict[int, int]) -> list[str]:
        """Those who got further come first: by the last stage joined (later first), and within
        a stage those who completed it before those who withdrew from it; withdrawn entries of a
        stage follow its standings."""
        stages = {
            s.pk: s for s in Stage.objects.filter(tournament=self.tournament).order_by("order")
        }
        last_stage: dict[int, Stage] = {}
        for entry_id, stage_id in StageEntry.objects.filter(
            stage__tournament=self.tournament
        ).values_list("entry_id", "stage_id"):
            stage = stages[stage_id]
            if entry_id not in last_stage or stage.order > last_stage[entry_id].order:
                last_stage[entry_id] = stage
        groups: dict[tuple[int, int], list[Entry]] = defaultdict(list)
        for entry in entries:
            withdrew = entry.status == Entry.Status.WITHDRAWN
            groups[(-last_stage[entry.pk].order, int(withdrew))].append(entry)
        found = []
        keys = sorted(groups)
        for better, worse in itertools.pairwise(keys):
            worst_of_better = max(groups[better], key=lambda e: place[e.pk])
            best_of_worse = min(groups[worse], key=lambda e: place[e.pk])
            if place[worst_of_better.pk] >= place[best_of_worse.pk]:
                found.append(
                    f"{best_of_worse.name} ({_exit(worse)}) has place {place[best_of_worse.pk]}, "
                    f"not below {worst_of_better.name} ({_exit(better)}) at place "
                    f"{place[worst_of_better.pk]}"
                )
        for (order, left), group in groups.items():
            stage = next(s for s in stages.values() if s.order == -order)
            if left and len(group) > 1 and stage.format != Stage.Format.KNOCKOUT:
                found += _follows_standings(stage, group, place)
        return found

    def _money(self, tournament: Tournament) -> list[str]:
        pool = PrizePool.objects.filter(tournament=tournament).first()
        if pool is None:
            return ["the finished event has no prize pool"]
        found = []
        if not pool.final:
            found.append("the prize pool is not final")
        started, before_start = self._started_entries()
        fees = sum(
            (tournament.entry_fee for e in started if e.paid), start=Decimal(0)
        ) + tournament.reentry_fee * sum(e.reentries for e in started)
        if pool.gross != fees:
            found.append(
                f"the pool's gross {pool.gross} is not the fees of the entries that started "
                f"({fees}; {len(before_start)} withdrew before the start)"
            )
        payouts = list(Payout.objects.filter(tournament=tournament).select_related("entry"))
        paid = sum((p.amount for p in payouts), start=Decimal(0))
        if paid != pool.total:
            found.append(f"the payouts add up to {paid}, not the pool's {pool.total}")
        for payout in payouts:
            if payout.entry.status == Entry.Status.DISQUALIFIED:
                found.append(f"{payout.entry.name} is disqualified but paid {payout.amount}")
            if payout.entry.final_place is None:
                found.append(f"{payout.entry.name} has no place but is paid {payout.amount}")
        ranked = sorted(
            (p for p in payouts if p.entry.final_place is not None),
            key=lambda p: int(p.entry.final_place or 0),
        )
        for higher, lower in itertools.pairwise(ranked):
            if higher.entry.final_place != lower.entry.final_place and higher.amount < lower.amount:
                found.append(
                    f"place {lower.entry.final_place} is paid more ({lower.amount}) than place "
                    f"{higher.entry.final_place} ({higher.amount})"
                )
        return found


def _where(table: Table) -> str:
    """A table in words that do not depend on the language."""
    return f"stage {table.round.stage.order} round {table.round.number} table {table.number}"


def _exit(key: tuple[int, int]) -> str:
    order, withdrew = key
    return f"{'withdrew in' if withdrew else 'completed'} stage {-order}"


def _follows_standings(stage: Stage, group: list[Entry], place: dict[int, int]) -> list[str]:
    """Entries that withdrew from ``stage`` keep its order among themselves: a better rank in
    its standings (tie-breaks before the seeded draw) is a better place. An entry that left
    before it played there has no standing and is not compared."""
    rows = {int(row.entry): row for row in standing_rows(stage)}
    found = []
    for a in group:
        for b in group:
            ra, rb = rows.get(a.pk), rows.get(b.pk)
            if ra is None or rb is None or not ra.played or not rb.played:
                continue
            if ra.rank < rb.rank and place[a.pk] >= place[b.pk]:
                found.append(
                    f"{a.name} (rank {ra.rank}) and {b.name} (rank {rb.rank}) withdrew from "
                    f"{stage}: places {place[a.pk]} and {place[b.pk]} do not follow its standings"
                )
    return found
