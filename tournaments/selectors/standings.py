"""A stage's standings: the one builder every face reads (the console's progress page, the API,
the public pages), and the scoring's rows the services decide who goes on by.

Derived from the stage's confirmed results, never stored; a few queries per stage, none per
entry or table.
"""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar, overload

from tournaments import adapters
from tournaments.models import Stage, StageEntry, TableResult
from tournaments.scoring import points as scoring_points
from tournaments.scoring.results import TableResult as PureResult
from tournaments.scoring.results import effective_results
from tournaments.selectors import pure_result, result_values, stage_entry_ids
from tournaments.values import frozen


@dataclass(frozen=True)
class StandingLine:
    """One line of a stage's standings, every tie-break value with it (exact points: the faces
    round them as they show them)."""

    position: int  # strict (1, 2, 3, ...) after the seeded draw
    place: int  # shared by entries tied on every tie-break (1, 2, 2, 4)
    entry_id: int
    name: str
    points: Fraction
    played: int
    byes: int
    first_places: int
    fools: int
    buchholz: Fraction
    head_to_head: Fraction | None  # only for entries whose tie reached this criterion
    decided_by: str  # the criterion that put it below the line before ("draw"); "" on the first
    pogony_given: int
    pogony_received: int
    player_id: int | None = None  # the entry's player; None for a team


def stage_tie_breaks(stage: Stage) -> list[str]:
    """The stage's tie-breaks in the order they apply (points first; a seeded draw last)."""
    order = [str(c) for c in stage.tiebreaks or scoring_points.DEFAULT_TIE_BREAKS]
    return order if "points" in order else ["points", *order]


def has_standings(stage: Stage) -> bool:
    """A knockout stage, or one that has not begun, has no standings (its bracket tells)."""
    return stage.format != Stage.Format.KNOCKOUT and stage.status != Stage.Status.PENDING


#: How many stage standings computations a process keeps (:func:`_kept_or`): the round's
#: completion, the feed's moved rows, the pairing and the faces ask for the same ones in turn.
KEPT = 8
_kept: OrderedDict[Hashable, list[Any]] = OrderedDict()
_kept_lock = threading.Lock()
T = TypeVar("T")


def _kept_or(key: Hashable, compute: Callable[[], list[T]]) -> list[T]:
    """``compute()``, or a copy of what it gave for ``key`` in this process: the last
    :data:`KEPT` computations are kept, keyed by every input they read. A key holds the inputs
    whole, never ids alone (a rolled back transaction hands the same ids out again); the rows
    are immutable values, so a hit is the same answer, and a correction, a new result, a
    renamed entry or a changed rule is a new key."""
    with _kept_lock:
        kept = _kept.get(key)
        if kept is not None:
            _kept.move_to_end(key)
            return list(kept)
    rows = compute()
    with _kept_lock:
        _kept[key] = rows
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return list(rows)


def _rules_key(stage: Stage, entries: tuple[str, ...]) -> tuple[Any, ...]:
    """What a stage's standings read besides its results."""
    return (
        "scored",
        stage.pk,
        f"{stage.tournament.seed}:{stage.order}",
        repr(stage.scoring),
        repr(stage.tiebreaks),
        entries,
    )


#: How many results may differ from those of the last standings computed for the same stage,
#: rules and entries for them to be updated (``scoring.points.Standings.updated``) rather than
#: computed whole: a table's result, a correction (one out, one in), a few at once.
UPDATE_MAX = 8
#: The lines last made per stage: the pogony and entries they read, the scoring's rows they
#: were made of (kept alive, so that their ids stay theirs) and each line by the ``id`` of its
#: row (:func:`_new_lines` makes a line again only when its row changed, or any name, player or
#: pogony). By id, not a pair per entry: 10,000 tuples fewer for the cycle collector to walk.
_line_memo: OrderedDict[
    int,
    tuple[
        tuple[list[tuple[int, list[Any]]], list[tuple[int, int | None, str | None, str | None]]]
        | None,
        list[scoring_points.StandingRow],
        dict[int, StandingLine],
    ],
] = OrderedDict()
#: The last :class:`~tournaments.scoring.points.Standings` computed per stage, rules and
#: entries (:func:`_rules_key`), with the results they are over: the next computation for
#: them updates it (the feed's moved rows after each table's result; the faces after it).
_latest: OrderedDict[Hashable, tuple[frozenset[PureResult], scoring_points.Standings]] = (
    OrderedDict()
)


def _scored(
    stage: Stage,
    results: list[PureResult],
    entry_ids: Iterable[int],
    over: frozenset[PureResult] | None = None,
) -> list[scoring_points.StandingRow]:
    """The scoring's rows over ``results`` (in force; ``over``: the same as a set, when the
    caller has it) and ``entry_ids`` (kept: :func:`_kept_or`; updated from the last ones
    computed for the stage when only a few results differ)."""
    entries = tuple(str(e) for e in entry_ids)
    rules = _rules_key(stage, entries)
    over = frozenset(results) if over is None else over
    return _kept_or((*rules, over), lambda: _computed(stage, rules, over, results))


def _computed(
    stage: Stage, rules: tuple[Any, ...], over: frozenset[PureResult], results: list[PureResult]
) -> list[scoring_points.StandingRow]:
    """The rows over ``results`` (``over``: as a set) under ``rules`` (:func:`_rules_key`): the
    last standings computed under the same rules updated when at most :data:`UPDATE_MAX`
    results differ, else computed whole; kept as the last under those rules."""
    entries = rules[-1]
    with _kept_lock:
        latest = _latest.get(rules)
    state = None
    if latest is not None:
        before, kept = latest
        added, removed = over - before, before - over
        if len(added) + len(removed) <= UPDATE_MAX:
            state = kept.updated(added=added, removed=removed)
    if state is None:
        state = scoring_points.Standings.of(
            results,
            adapters.scoring_config(stage),
            seed=f"{stage.tournament.seed}:{stage.order}",
            entries=entries,
        )
    with _kept_lock:
        _latest[rules] = (over, state)
        _latest.move_to_end(rules)
        while len(_latest) > KEPT:
            _latest.popitem(last=False)
    return state.rows


_paused = 0  # computations running with the cycle collector paused (:func:`collector_paused`)
_resume = False  # whether the collector ran before the first of them


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector paused while a standings computation runs. It allocates tens of
    thousands of acyclic objects (results, tallies, rows), each allocation burst triggering a
    full collection that walks every object of the process (a Django worker holds millions):
    at 10,000 entries a third of the selector's time. Nothing it makes is a cycle, so nothing
    waits for the collector; it is resumed (if it ran before) when the last one ends. The
    selectors that build a row per entry of a big field (the final places, the API's rows)
    pause it so too."""
    global _paused, _resume  # noqa: PLW0603 (one counter per process, under its lock)
    with _kept_lock:
        _paused += 1
        if _paused == 1:
            _resume = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _kept_lock:
            _paused -= 1
            if _paused == 0 and _resume:
                gc.enable()


def forget_kept() -> None:
    """Drop the computations :func:`_scored` keeps (a benchmark's uncached figures), and the
    last standings of each stage it would update."""
    with _kept_lock:
        _kept.clear()
        _latest.clear()
        _line_memo.clear()
        _pure_kept.clear()


def _results(stage: Stage) -> list[tuple[Any, ...]]:
    """The stage's confirmed results as :data:`RESULT_FIELDS` tuples, oldest first."""
    return result_values(
        TableResult.objects.filter(table__round__stage=stage).counted().order_by("id")
    )


#: The scoring's value of each stored result read lately, by every field it is made of
#: (:func:`_pure`); emptied when it holds more than :data:`PURE_KEPT`.
_pure_kept: dict[tuple[Any, ...], PureResult] = {}
PURE_KEPT = 50_000


def _pure(stored: list[tuple[Any, ...]]) -> list[PureResult]:
    """``selectors.pure_result`` of each of ``stored``, the same object as the last time the
    same fields were read: the keys of the kept standings then compare by identity, not field
    by field (and the object is made and validated once, not after every table's result)."""
    out = []
    kept = _pure_kept
    for row in stored:
        pk, places, fool, drawn, team_lost, pogony, supersedes, reason = row
        key = (  # one tuple, the places last (not a tuple of them in it: 7,500 fewer)
            pk,
            fool,
            tuple(drawn) if drawn else None,
            tuple(team_lost) if team_lost else None,
            repr(pogony) if pogony else None,
            supersedes,
            reason,
            *places,
        )
        pure = kept.get(key)
        if pure is None:
            pure = pure_result(row)
            with _kept_lock:
                if len(kept) >= PURE_KEPT:
                    kept.clear()
                kept[key] = pure
        out.append(pure)
    return out


def standing_rows(stage: Stage) -> list[scoring_points.StandingRow]:
    """The scoring's rows of the stage (entries as strings), tie-broken as configured: what the
    services advance, place and pair by."""
    with collector_paused():
        pure = effective_results(_pure(_results(stage)))
        return _scored(stage, pure, stage_entry_ids(stage))


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _pogony_counts(
    hangings: Iterable[list[Any] | None],
) -> tuple[dict[int, int], dict[int, int]]:
    """Pogony given (one per entry hung on) and received, by entry, over the results'
    ``pogony`` values."""
    given: dict[int, int] = {}
    received: dict[int, int] = {}
    for pogony in hangings:
        for hung in pogony or []:
            if not isinstance(hung, dict):
                continue
            on = [e for e in (_int(x) for x in hung.get("on", [])) if e is not None]
            by = _int(hung.get("by"))
            if by is not None:
                given[by] = given.get(by, 0) + len(on)
            for entry in on:
                received[entry] = received.get(entry, 0) + 1
    return given, received


def stage_standings(stage: Stage) -> list[StandingLine]:
    """The stage's standings with every tie-break value, the entries' names and the pogony each
    gave and received: two queries (three if ``stage`` came without its tournament). Empty for
    a stage without standings (:func:`has_standings`)."""
    if not has_standings(stage):
        return []
    with collector_paused():
        stored = _results(stage)
        return _lines(stage, stored, _pure(stored), _stage_entries(stage))


def standings_change(stage: Stage, result_id: int) -> tuple[list[StandingLine], list[StandingLine]]:
    """The stage's standings before and after the result ``result_id`` (a table's first result
    or a correction, already stored and confirmed) took effect: the feed's moved rows. The
    queries of :func:`stage_standings`, whatever the stage's size; two empty lists for a stage
    without standings. The standings before are those the process kept after the result
    before it; those after are them updated (:func:`_computed`), and a line the result did not
    change is the same object in both."""
    if not has_standings(stage):
        return [], []
    with collector_paused():
        stored = _results(stage)
        pure = _pure(stored)
        entries = _stage_entries(stage)
        # The standings before are those after the table before it: kept (_kept_or).
        kept = [i for i, row in enumerate(stored) if row[0] != result_id]
        before = _lines(stage, [stored[i] for i in kept], [pure[i] for i in kept], entries)
        return before, _lines(stage, stored, pure, entries)


def _stage_entries(stage: Stage) -> list[tuple[int, int | None, str | None, str | None]]:
    """The stage's entries in seed order: (entry id, player id, player's name, team's name)."""
    return list(
        StageEntry.objects.filter(stage=stage)
        .order_by("seed")
        .values_list(
            "entry_id", "entry__player_id", "entry__player__display_name", "entry__team__name"
        )
    )


def _lines(
    stage: Stage,
    stored: list[tuple[Any, ...]],
    pure: list[PureResult],
    entries: list[tuple[int, int | None, str | None, str | None]],
) -> list[StandingLine]:
    """The lines over the results ``stored`` (:data:`RESULT_FIELDS`; ``pure``: the same as the
    scoring's values) and ``entries`` (:func:`_stage_entries`), kept (:func:`_kept_or`)."""
    key, effective, over, hangings = _lines_key(stage, stored, pure, entries)
    return _kept_or(key, lambda: _new_lines(stage, effective, over, hangings, entries))


def _lines_key(
    stage: Stage,
    stored: list[tuple[Any, ...]],
    pure: list[PureResult],
    entries: list[tuple[int, int | None, str | None, str | None]],
) -> tuple[tuple[Any, ...], list[PureResult], frozenset[PureResult], list[tuple[int, list[Any]]]]:
    """What :func:`_lines` keeps its lines by, with the results in force (a list and a set)
    and the pogony hung at them (result id, ``pogony``)."""
    effective = effective_results(pure)
    in_force = {int(r.id) for r in effective}
    hangings = [(row[0], row[5]) for row in stored if row[5] and row[0] in in_force]
    over = frozenset(effective)
    key = ("lines", *_rules_key(stage, ()), over, tuple(entries), repr(hangings))
    return key, effective, over, hangings


class StandingLines(Sequence[StandingLine]):
    """A stage's standings lines (:func:`stage_standings`'), each made when it is first read:
    a page of a 10,000-entry stage shows 50 of them. ``line(row)``: the line of the scoring's
    ``row``."""

    __slots__ = ("_line", "_made", "_rows")

    def __init__(
        self,
        rows: list[scoring_points.StandingRow],
        line: Callable[[scoring_points.StandingRow], StandingLine],
    ) -> None:
        self._rows = rows
        self._line = line
        self._made: dict[int, StandingLine] = {}

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> StandingLine: ...

    @overload
    def __getitem__(self, index: slice) -> list[StandingLine]: ...

    def __getitem__(self, index: int | slice) -> StandingLine | list[StandingLine]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(len(self._rows))[index]]
        return self._at(range(len(self._rows))[index])  # IndexError past either end

    def _at(self, i: int) -> StandingLine:
        line = self._made.get(i)
        if line is None:
            line = self._made[i] = self._line(self._rows[i])
        return line

    def __iter__(self) -> Iterator[StandingLine]:
        return iter(self[:])


def standings_lines(stage: Stage) -> Sequence[StandingLine]:
    """:func:`stage_standings`, each line made when it is first read (:class:`StandingLines`):
    the public pages show a page of them. The same queries and scoring (kept alike); the lines
    :func:`stage_standings` keeps when it has made them; else only the lines read are made,
    and none is kept (a 10,000-entry stage: 10,000 lines fewer to make, and for the cycle
    collector to walk, for a page of 50)."""
    if not has_standings(stage):
        return []
    with collector_paused():
        stored = _results(stage)
        pure = _pure(stored)
        entries = _stage_entries(stage)
        key, effective, over, hangings = _lines_key(stage, stored, pure, entries)
        with _kept_lock:
            kept = _kept.get(key)
            if kept is not None:
                _kept.move_to_end(key)
                return list(kept)
        names, line = _line_maker(hangings, entries)
        rows = _scored(stage, effective, names, over)
    return StandingLines(rows, line)


def _line_maker(
    hangings: list[tuple[int, list[Any]]],
    entries: list[tuple[int, int | None, str | None, str | None]],
) -> tuple[dict[int, str], Callable[[scoring_points.StandingRow], StandingLine]]:
    """The entries' names by entry (the scoring's last tie-break reads them) and the line of a
    scoring row (:func:`_line`) with the names, the players and the pogony ``hangings``."""
    given, received = _pogony_counts(pogony for _, pogony in hangings)
    names = {e: player or team or "" for e, _, player, team in entries}
    players = {e: player for e, player, _, _ in entries}
    return names, lambda row: _line(row, names, players, given, received)


def _line(
    row: scoring_points.StandingRow,
    names: dict[int, str],
    players: dict[int, int | None],
    given: dict[int, int],
    received: dict[int, int],
) -> StandingLine:
    """The line of the scoring's ``row``: ``names`` and ``players`` by entry, the pogony
    ``given`` and ``received`` by entry (:func:`_pogony_counts`)."""
    entry = int(row.entry)
    name = names.get(entry)
    return frozen(  # StandingLine(...), its fields written at once: 10,000 of them
        StandingLine,
        {
            "position": row.position,
            "place": row.rank,
            "entry_id": entry,
            "name": f"#{entry}" if name is None else name,
            "points": row.points,
            "played": row.played,
            "byes": row.byes,
            "first_places": row.first_places,
            "fools": row.fools,
            "buchholz": row.buchholz,
            "head_to_head": row.head_to_head,
            "decided_by": row.decided_by or "",
            "pogony_given": given.get(entry, 0),
            "pogony_received": received.get(entry, 0),
            "player_id": players.get(entry),
        },
    )


def _new_lines(
    stage: Stage,
    effective: list[PureResult],
    over: frozenset[PureResult],
    hangings: list[tuple[int, list[Any]]],
    entries: list[tuple[int, int | None, str | None, str | None]],
) -> list[StandingLine]:
    names, line_of = _line_maker(hangings, entries)
    with _kept_lock:
        # ``alive``: the rows ``memo``'s ids are of, held while it is read (another thread may
        # replace them in ``_line_memo`` meanwhile: a freed row's id could be a new row's).
        inputs, alive, memo = _line_memo.get(stage.pk, (None, [], {}))
    # The same names, players and pogony as the lines before: a line whose row is the row
    # before (``Standings``: the same object) is the line before, unchanged.
    if inputs != (hangings, entries):
        memo = {}
    rows = _scored(stage, effective, names, over)
    lines = []
    for row in rows:
        line = memo.get(id(row))
        if line is None:
            line = line_of(row)
        lines.append(line)
    made = dict(zip(map(id, rows), lines, strict=True))
    del alive
    with _kept_lock:
        _line_memo[stage.pk] = ((hangings, entries), rows, made)
        _line_memo.move_to_end(stage.pk)
        while len(_line_memo) > KEPT:
            _line_memo.popitem(last=False)
    return lines
