"""The reads of an event the API and the public pages share, each in a fixed number of
queries however big the event is: its plan and money, its rounds, tables and results.

Plain dicts in the shapes of :mod:`tournaments.api.events.serializers` (which the public pages
format too); no request, no HTTP. The standings, final places, bracket and league table have
modules of their own (``standings``, ``places``, ``brackets``, ``leagues``).
The assembly follows the console's progress page (``tournaments.console.progress``): the
result in force of every table in one prefetch, every name in one query, the standings from
the stage's confirmed results (``selectors``), never one query per table, round or row.

Public facts only: a table's series is reduced to its score (points, fools, pogony, ranks),
never a game's state, cards or seed; a result is a confirmed one (``counted``), never a pending
or rejected one; people are named as the standings name them (no accounts, no emails).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, overload

from django.db.models import Case, Count, Exists, OuterRef, Prefetch, Q, QuerySet, Value, When

from games.engine.errors import EngineError
from games.engine.series import Series
from tournaments import adapters, selectors
from tournaments.models import (
    Entry,
    Payout,
    PrizePool,
    Round,
    Seat,
    Stage,
    Table,
    TableResult,
    Tournament,
)
from tournaments.scoring.errors import ScoringError
from tournaments.selectors import standings
from tournaments.selectors.places import FinalPlace, field_entries
from tournaments.selectors.play import last_game_id, with_current_games
from tournaments.selectors.standings import StandingLine
from tournaments.values import frozen
from tournaments.wording import compromise_lines, stage_name, stage_names

Row = dict[str, Any]

#: The pairing explanation's keys a reader may see (``Round.explanation``); anything else
#: stays in the console (fail closed).
EXPLANATION_KEYS = (
    "algorithm",
    "score_groups",
    "rounds",
    "lower_bounds",
    "advance_per_table",
    "byes",
    "compromises",
    "waiting_for_feeders",
)


def number(value: Fraction | float) -> float:
    """Points as a JSON number: exact when they are (9, 9.5, 9.75), else to four places."""
    return round(float(value), 4)


def standing_row(line: StandingLine, word: Callable[[Fraction], float] = number) -> Row:
    """A stage's standings line (``selectors.standings.stage_standings``) in the API's shape
    (``StageStandingRowSerializer``, its fields in its order: the API sends these rows as
    they are); the feed's events carry the same rows. Written out, not ``asdict``: a
    10,000-entry stage makes 10,000 of them per answer. ``word``: :func:`number`, or one that
    remembers (:func:`standing_rows`)."""
    h2h = line.head_to_head
    return {
        "position": line.position,
        "place": line.place,
        "entry_id": line.entry_id,
        "player_id": line.player_id,
        "name": line.name,
        "points": word(line.points),
        "played": line.played,
        "byes": line.byes,
        "first_places": line.first_places,
        "fools": line.fools,
        "buchholz": word(line.buchholz),
        "head_to_head": None if h2h is None else word(h2h),
        "decided_by": line.decided_by,
        "pogony_given": line.pogony_given,
        "pogony_received": line.pogony_received,
    }


def _worded() -> Callable[[Fraction], float]:
    """:func:`number`, each distinct value worded once and remembered by identity: the
    selectors give one ``Fraction`` per distinct value (a 10,000-line answer has a few dozen),
    alive while their lines are (a float and a round per value made a tenth of a 10,000-row
    answer)."""
    worded: dict[int, float] = {}

    def word(value: Fraction) -> float:
        known = worded.get(id(value))
        if known is None:
            known = worded[id(value)] = number(value)
        return known

    return word


def standing_rows(lines: Sequence[StandingLine]) -> list[Row]:
    """:func:`standing_row` of every line (``lines`` hold the values it remembers)."""
    word = _worded()
    with standings.collector_paused():
        return [standing_row(line, word) for line in lines]


def final_place_rows(lines: Sequence[FinalPlace], currency: str) -> list[Row]:
    """:func:`final_place_row` of every line (``lines`` hold the values it remembers)."""
    word = _worded()
    with standings.collector_paused():
        return [final_place_row(line, currency, word) for line in lines]


def final_place_row(
    line: FinalPlace, currency: str, word: Callable[[Fraction], float] = number
) -> Row:
    """A final place (``selectors.places.final_places``) in the API's shape
    (``FinalStandingRowSerializer``); ``currency``: the tournament's, which its payout is in.
    The feed's events carry the same rows."""
    # Written out, not ``asdict`` (its deep copy was a third of a 10,000-row answer).
    return {
        "place": line.place,
        "entry_id": line.entry_id,
        "player_id": line.player_id,
        "team_id": line.team_id,
        "name": line.name,
        "status": str(line.status),
        "points": word(line.points),
        "stage": line.stage,
        "pogony_given": line.pogony_given,
        "pogony_received": line.pogony_received,
        "rank": line.rank,
        "payout": line.payout,
        "currency": currency,
    }


@overload
def entry_ref(entry_id: int, names: Mapping[int, str]) -> Row: ...
@overload
def entry_ref(entry_id: None, names: Mapping[int, str]) -> None: ...
@overload
def entry_ref(entry_id: int | None, names: Mapping[int, str]) -> Row | None: ...
def entry_ref(entry_id: int | None, names: Mapping[int, str]) -> Row | None:
    if entry_id is None:
        return None
    return {"id": entry_id, "name": names.get(entry_id, f"#{entry_id}")}


def int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# --- results ------------------------------------------------------------------------------------


def result_body(result: TableResult, names: Mapping[int, str]) -> Row:
    """A confirmed result as readers see it: places first out first, the fool, draws, the
    losing team, every pogony hung (entries; the players behind them stay out)."""
    drawn = {int_or_none(e) for e in result.drawn}
    places = []
    for place, entry in enumerate(result.places, 1):
        entry_id = int_or_none(entry)
        places.append(
            {
                "place": place,
                "entry": entry_ref(entry_id, names),
                "fool": entry_id is not None and entry_id == result.fool_entry_id,
                "drawn": entry_id in drawn,
            }
        )
    pogony = []
    for hung in result.pogony or []:
        if not isinstance(hung, dict):
            continue
        rank = hung.get("rank")
        pogony.append(
            {
                "by": entry_ref(int_or_none(hung.get("by")), names),
                "on": [
                    entry_ref(int_or_none(e), names) for e in hung.get("on", []) if int_or_none(e)
                ],
                "rank": "10" if rank == "T" else str(rank or ""),
            }
        )
    return {
        "id": result.pk,
        "places": places,
        "fool": entry_ref(result.fool_entry_id, names),
        "drawn": [entry_ref(int_or_none(e), names) for e in result.drawn if int_or_none(e)],
        "team_lost": [entry_ref(int_or_none(e), names) for e in result.team_lost if int_or_none(e)],
        "pogony": pogony,
        "source": result.source,
        "reason": result.reason,
        "supersedes": result.supersedes_id,
        "created_at": result.created_at,
    }


def tournament_results(tournament: Tournament) -> QuerySet[TableResult]:
    """The tournament's confirmed results (a pending or rejected one is not public), each with
    its table, round and stage, and whether it is still in force (not corrected since)."""
    corrected = TableResult.objects.counted().filter(supersedes=OuterRef("pk"))
    return (
        TableResult.objects.counted()
        .filter(table__round__stage__tournament=tournament)
        .select_related("table__round__stage")
        .annotate(corrected=Exists(corrected))
    )


def result_rows(results: Sequence[TableResult]) -> list[Row]:
    """A page of :func:`tournament_results` as rows (one query for every name on it)."""
    names = selectors.entry_names(i for r in results for i in selectors.result_entry_ids(r))
    rows = []
    for result in results:
        table = result.table
        rows.append(
            {
                **result_body(result, names),
                "in_force": not getattr(result, "corrected", False),
                "table": {
                    "id": table.pk,
                    "number": table.number,
                    "round": table.round.number,
                    "stage": table.round.stage.order,
                },
            }
        )
    return rows


# --- rounds and tables --------------------------------------------------------------------------


def explanation(round_: Round) -> Row:
    """A round's pairing explanation, its byes and compromises (stored as data) worded in the
    reader's language."""
    info = round_.explanation if isinstance(round_.explanation, dict) else {}
    out = {key: info[key] for key in EXPLANATION_KEYS if key in info}
    for key in ("byes", "compromises"):
        if key in out:
            out[key] = compromise_lines(out[key])
    return out


def round_summaries(stage: Stage) -> list[Row]:
    """The stage's rounds with how many of their tables have finished, play or wait."""
    rounds = stage.rounds.order_by("number").annotate(
        tables_total=Count("tables", filter=Q(tables__is_bye=False)),
        tables_finished=Count(
            "tables", filter=Q(tables__is_bye=False, tables__status=Table.Status.FINISHED)
        ),
        tables_playing=Count("tables", filter=Q(tables__status=Table.Status.PLAYING)),
        tables_waiting=Count("tables", filter=Q(tables__status=Table.Status.WAITING)),
        byes=Count("tables", filter=Q(tables__is_bye=True)),
    )
    return [
        {
            **_round_head(r),
            "tables": {
                "total": r.tables_total,
                "finished": r.tables_finished,
                "playing": r.tables_playing,
                "waiting": r.tables_waiting,
                "byes": r.byes,
            },
        }
        for r in rounds
    ]


def _round_head(round_: Round) -> Row:
    return {
        "id": round_.pk,
        "number": round_.number,
        "status": round_.status,
        "paired_at": round_.paired_at,
        "finished_at": round_.finished_at,
        "explanation": explanation(round_),
    }


def series_score(table: Table, seats: Sequence[Seat]) -> Row | None:
    """The table's series so far as a score: per seat its points, fools, pogony and rank.

    Read from ``Table.series_state`` (``games.engine.series.Series.to_dict``) by replaying its
    games' results: no game state, no card (not even a long durak's laid-out ones)."""
    state = table.series_state
    if not isinstance(state, dict) or "format" not in state:
        return None
    try:
        series = Series.from_dict({k: v for k, v in state.items() if k != "game_ids"})
    except (EngineError, ValueError, TypeError, KeyError):
        return None
    by_position = {seat.position: seat for seat in seats}
    rows = []
    for index, label in enumerate(series.seats):
        seat = by_position.get(label) if isinstance(label, int) else None
        rows.append(
            {
                "position": label if isinstance(label, int) else index,
                "entry_id": seat.entry_id if seat is not None else None,
                "points": number(series.points[index]),
                "fools": series.fools[index],
                "pogony_received": series.pogony_received[index],
                "pogony_given": series.pogony_given[index],
                "rank": series.ranks[index] or "",
            }
        )
    return {
        "format": series.format,
        "target": series.target,
        "games_played": len(series.games),
        "finished": series.finished,
        "seats": rows,
    }


def _seat_rows(seats: Sequence[Seat]) -> list[Row]:
    return [
        {
            "position": seat.position,
            "entry": {"id": seat.entry_id, "name": seat.entry.name},
            "player": {"id": seat.player_id, "name": seat.player.display_name},
            "bot": bool(seat.bot_kind) or seat.player.is_bot,
        }
        for seat in seats
    ]


def tables_with_results(tables: QuerySet[Table]) -> list[Table]:
    """``tables`` with their seats (entries and players) and the result in force of each
    (``selectors.effective_result``), in three queries."""
    seats = Seat.objects.select_related("entry__player", "entry__team", "player").order_by(
        "position"
    )
    in_force = TableResult.objects.effective().order_by("-id")
    return list(
        tables.prefetch_related(
            Prefetch("seats", queryset=seats),
            Prefetch("results", queryset=in_force, to_attr="in_force"),
        )
    )


def result_in_force(table: Table) -> TableResult | None:
    return next(iter(getattr(table, "in_force", [])), None)


def table_rows(tables: QuerySet[Table]) -> list[Row]:
    """``tables`` (of one round or several) with their seats, series score and the result in
    force, in three queries however many tables."""
    return [
        table_row_of(table, list(table.seats.all()), result_in_force(table))
        for table in tables_with_results(tables)
    ]


def table_row_of(table: Table, seats: Sequence[Seat], result: TableResult | None) -> Row:
    """:func:`table_rows`' row of ``table`` from rows the caller holds: its seats (with their
    entries and players, by position) and its result in force (None: none)."""
    names = {seat.entry_id: seat.entry.name for seat in seats}
    return {
        "id": table.pk,
        "round_id": table.round_id,
        "number": table.number,
        "status": table.status,
        "is_bye": table.is_bye,
        "score_group": table.score_group,
        "finished_at": table.finished_at,
        "compromises": compromise_lines(table.compromises or []),
        "last_game": last_game_id(table.series_state),
        "seats": _seat_rows(seats),
        "series": series_score(table, seats),
        "result": None if result is None else result_body(result, names),
    }


def seated_table_rows(tables: QuerySet[Table]) -> list[Row]:
    """``tables`` with who sits where: :func:`table_rows`' keys but the series and the result
    (a round just paired has neither), in two queries and without loading its results (the
    ``round_paired`` facts of a round of thousands of tables)."""
    heads = list(tables.values("id", "number", "status", "is_bye", "score_group"))
    seats: dict[int, list[Row]] = {head["id"]: [] for head in heads}
    # :func:`_seat_rows` from plain values: ten thousand seats as models (with their entries and
    # players) were a second of a round's pairing. The entry's name is ``Entry.name``'s: its
    # player's display name, else its team's name.
    for seat in (
        Seat.objects.filter(table_id__in=list(seats))
        .order_by("position")
        .values(
            "table_id",
            "position",
            "entry_id",
            "entry__player__display_name",
            "entry__team__name",
            "player_id",
            "player__display_name",
            "player__is_bot",
            "bot_kind",
        )
    ):
        entry_name = seat["entry__player__display_name"]
        seats[seat["table_id"]].append(
            {
                "position": seat["position"],
                "entry": {
                    "id": seat["entry_id"],
                    "name": seat["entry__team__name"] if entry_name is None else entry_name,
                },
                "player": {"id": seat["player_id"], "name": seat["player__display_name"]},
                "bot": bool(seat["bot_kind"]) or seat["player__is_bot"],
            }
        )
    return [{**head, "seats": seats[head["id"]]} for head in heads]


@dataclass(frozen=True)
class TableIndexLine:
    """A table of a round as :func:`round_table_index` lists it."""

    id: int
    found: bool  # a seat's player (or team) name contains what was looked for
    mine: bool  # the reader's player sits at it


def round_table_index(
    round_ids: Sequence[int],
    *,
    find: str = "",
    player_id: int | None = None,
    tournament_id: int | None = None,
) -> dict[int, list[TableIndexLine]]:
    """Every table of the rounds ``round_ids``, by round, in number order: whether a seat's
    player (or team) name contains ``find`` (any case; "" finds every table) and whether
    ``player_id`` sits at it. One query, whatever the rounds' size: what a page of a round's
    tables, its search by name and its reader's own table are chosen from. ``tournament_id``:
    the rounds' event, when the caller knows it (else a subquery finds it)."""
    index: dict[int, list[TableIndexLine]] = {r: [] for r in round_ids}
    if not round_ids:
        return index
    # Each a set of tables (a semi-join), not a subquery per table: "Иван" is in half the names
    # of a big field, and 2,500 correlated subqueries over them took 160 ms.
    seats = Seat.objects.filter(table__round_id__in=list(round_ids))
    found: Any = Value(True)
    if find:
        # The event's few entries so named first (``Entry.name``: its player's name, else its
        # team's), then their seats by the seats' index: not every name of the database.
        # Its id as a value when known: through a subquery the planner expects 200 entries,
        # not the event's 10,000, and looks each one's player up by the index (24 ms against
        # 13 for a 10,000-entry event).
        events_: Any = (
            [tournament_id]
            if tournament_id is not None
            else Round.objects.filter(pk__in=list(round_ids)).values("stage__tournament_id")
        )
        entries = Entry.objects.filter(tournament_id__in=events_).filter(
            Q(player__display_name__icontains=find) | Q(team__name__icontains=find)
        )
        named = Q(entry_id__in=entries.values("id"))
        found = Case(When(pk__in=seats.filter(named).values("table_id"), then=True), default=False)
    mine: Any = Value(False)
    if player_id is not None:
        at = seats.filter(player_id=player_id).values("table_id")
        mine = Case(When(pk__in=at, then=True), default=False)
    rows = (
        Table.objects.filter(round_id__in=list(round_ids))
        .annotate(found=found, mine=mine)
        .order_by("round_id", "number")
        .values_list("round_id", "id", "found", "mine")
    )
    for round_id, table_id, is_found, is_mine in rows:
        # TableIndexLine(...), its fields written at once: a round of 2,500 tables.
        line = frozen(
            TableIndexLine, {"id": table_id, "found": bool(is_found), "mine": bool(is_mine)}
        )
        index[round_id].append(line)
    return index


def round_detail(round_: Round) -> Row:
    """A round with its tables: seats, series score, the result in force, the game in play (or
    the last one over)."""
    tables = with_current_games(table_rows(round_.tables.order_by("number")))
    return {**_round_head(round_), "tables": tables}


# --- standings ----------------------------------------------------------------------------------


def prize_pool(tournament: Tournament) -> PrizePool | None:
    return PrizePool.objects.filter(tournament=tournament).first()


def payout_structure_used(
    tournament: Tournament, *, default_scale: bool = True
) -> tuple[list[Decimal], bool]:
    """The payout structure the pool is paid by, as percentages by place (rounded to 0.01),
    and whether it is the default scale: the organiser's own, else the default for the field's
    size (``field_entries``), as ``awards.prize_pool_compute`` chooses it. One query for the
    default (the field's size), none for the organiser's. A stored structure the scoring
    refuses is shown as stored. Without ``default_scale``, the default's percentages are left
    out (an empty list, no query): the pages word the scale, not its places (1,500 of them
    for a 10,000-entry field, tens of milliseconds of exact fractions)."""
    own = [Decimal(str(p)) for p in tournament.payout_structure or []]
    if own:
        try:
            structure = adapters.payout_structure(tournament, 1)
        except ScoringError:
            return own, False
        return list(structure.percentages), False
    if not default_scale:
        return [], True
    size = field_entries(tournament).count()
    return list(adapters.payout_structure(tournament, max(1, size)).percentages), True


def payout_rows(tournament: Tournament) -> list[Row]:
    """The tournament's payouts by place (tied places each with its share): one query."""
    rows = (
        Payout.objects.filter(tournament=tournament)
        .select_related("entry__player", "entry__team")
        .order_by("place", "entry_id")
    )
    return [
        {
            "place": p.place,
            "entry": {"id": p.entry_id, "name": p.entry.name},
            "currency": tournament.currency,
            "amount": p.amount,
        }
        for p in rows
    ]


def prize_pool_row(pool: PrizePool) -> Row:
    """The prize pool as the tournament's money shows it (``PrizePoolPublicSerializer``); the
    feed's ``awards_computed`` carries the same."""
    return {
        "currency": pool.currency,
        "gross": pool.gross,
        "rake": pool.rake,
        "total": pool.total,
        "paid_entries": pool.paid_entries,
        "final": pool.final,
    }


def stage_row(stage: Stage, name: str | None = None) -> Row:
    """A stage's plan as readers see it: format, table size, rounds, series, who advances, the
    points by place for each table size, the pogony penalty, the bye's points, the tie-breaks."""
    try:
        config = adapters.scoring_config(stage)
        sizes = {*config.tables, stage.table_size}
        by_place = {str(n): [number(p) for p in config.table_for(n)] for n in sorted(sizes)}
        penalty, bye = number(config.penalty), number(config.bye)
    except ScoringError:  # a stored plan the scoring refuses: shown as the defaults' shape
        by_place, penalty, bye = {}, 0.0, 0.0
    return {
        "order": stage.order,
        "name": stage_name(stage.name, stage.format) if name is None else name,
        "format": stage.format,
        "status": stage.status,
        "table_size": stage.table_size,
        "rounds_planned": stage.rounds_planned,
        "groups": stage.groups,
        "knockout_advance": stage.knockout_advance,
        "series": {"format": stage.series_format, "target": stage.series_target},
        "advance": {"mode": stage.advance_mode, "count": stage.advance_count},
        "scoring": {
            "points_by_place": by_place,
            "fool_pogony_penalty": penalty,
            "bye_points": bye,
        },
        "tie_breaks": standings.stage_tie_breaks(stage),
    }


def tournament_detail(
    tournament: Tournament, stages: Sequence[Stage] | None = None, *, payouts: bool = True
) -> Row:
    """A tournament's public facts: status and dates, rules, play settings, money (the prize
    pool as last computed, the payout structure used, the payouts) and its stages (``stages``:
    already read, in order; else read here). At most six queries (one fewer with
    ``stages``, two fewer without ``payouts``: then ``money`` has no ``payouts`` and the
    default scale's ``payout_structure`` is empty, which the pages do not show: a 10,000-entry
    event pays 1,500 places)."""
    pool = prize_pool(tournament)
    structure, default_structure = payout_structure_used(tournament, default_scale=payouts)
    league = tournament.league
    plan = list(tournament.stages.order_by("order") if stages is None else stages)
    names = stage_names(plan)
    money: Row = {
        "currency": tournament.currency,
        "entry_fee": tournament.entry_fee,
        "reentry_fee": tournament.reentry_fee,
        "rake_percent": tournament.rake_percent,
        "guarantee": tournament.guarantee,
        "payout_structure": structure,
        "payout_structure_default": default_structure,
        **({"payouts": payout_rows(tournament)} if payouts else {}),
        "prize_pool": None if pool is None else prize_pool_row(pool),
    }
    return {
        "slug": tournament.slug,
        "name": tournament.name,
        "status": tournament.status,
        "is_public": tournament.is_public,
        "league": None
        if league is None
        else {"slug": league.slug, "name": league.name, "season": league.season},
        "team_size": tournament.team_size,
        "entry_count": tournament.entries.exclude(status=Entry.Status.WITHDRAWN).count(),
        "created_at": tournament.created_at,
        "registration_closed_at": tournament.registration_closed_at,
        "started_at": tournament.started_at,
        "finished_at": tournament.finished_at,
        "changed_at": tournament.changed_at,
        "version": tournament.version,
        "rules": dict(tournament.rules or {}),
        "play": {
            "move_clock_seconds": tournament.move_clock_seconds,
            "dropout_rule": tournament.dropout_rule,
            "absent_bots": tournament.absent_bots,
            "absent_bots_seconds": tournament.absent_bots_seconds,
            "two_person_rule": tournament.two_person_rule,
            "check_in_required": tournament.check_in_required,
            "max_entries": tournament.max_entries,
            "late_registration_rounds": tournament.late_registration_rounds,
        },
        "money": money,
        "stages": [stage_row(s, names[s.order]) for s in plan],
    }


def registered_entries(tournament: Tournament) -> list[Row]:
    """Who has registered for ``tournament`` (entries still in: registered or checked in), in
    the order they registered, with the player to link each name to (None for a team): one
    query, whatever the size of the field."""
    rows = (
        Entry.objects.filter(tournament=tournament, status__in=Entry.ACTIVE)
        .select_related("player", "team")
        .order_by("registered_at", "pk")
    )
    return [
        {
            "id": entry.pk,
            "name": entry.name,
            "player_id": entry.player_id,
            "club": entry.player.club if entry.player is not None else "",
            "checked_in": entry.status == Entry.Status.CHECKED_IN,
        }
        for entry in rows
    ]
