"""The facts the tournament feed's events carry (``tournaments.services.feed``): each event's
``data``, the same on the socket and in a webhook's body, so that a client need not read the
REST endpoints again after each event.

Every row here is the REST API's row, built by the same code (``selectors.events``,
``selectors.standings``, ``selectors.places``, ``selectors.people``) and written as the API
writes it (:func:`jsonable`: times in ISO 8601 with ``Z``, money as a string with the
serializer's digits, points as JSON numbers). Public facts only, as the REST answers: seats,
scores and results, never a card, a game's state or a seed.

Bounded for a 1,024-player event: a table's result carries the standings rows that moved (at
most :data:`MOVED_ROWS_LIMIT`, ``truncated`` beyond), a round's pairing its tables' seats
(ids and names), a stage's or the event's end its standings in the short rows of
:data:`SHORT_STANDING_KEYS` / :data:`SHORT_FINAL_KEYS`. Each builder takes a fixed number of
queries, whatever the size of the event (``tests/api/test_feed_facts.py`` counts them).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

from tournaments.models import (
    RankRecord,
    RatingChange,
    Round,
    Seat,
    Stage,
    StageEntry,
    Table,
    TableResult,
    Tournament,
)
from tournaments.money import amount_text
from tournaments.notifications import time_text
from tournaments.selectors import events, standings
from tournaments.selectors.people import rating_change_row
from tournaments.selectors.places import final_places
from tournaments.selectors.play import with_current_games

Row = dict[str, Any]

#: At most this many moved standings rows in a ``table_finished`` or ``result_corrected``
#: event: the table's own entries first (their points changed), then the rows it pushed, nearest
#: the top first. Beyond it, ``truncated`` is true: read the stage's standings.
MOVED_ROWS_LIMIT: Final = 100
#: Above this many entries in a stage, a table's result carries no moved rows, only
#: ``truncated``: finding them reads the stage's whole standings before and after the result
#: (the results and entries read again, the standings updated from those before, every line
#: compared: ``selectors.standings.standings_change``, for each of the round's thousands of
#: tables), and such a result moves far more than :data:`MOVED_ROWS_LIMIT` rows anyway.
#: ``round_finished`` carries the stage's standings whole.
MOVED_ROWS_MAX_ENTRIES: Final = 1024
#: A stage's standings row as ``round_finished`` and ``stage_finished`` carry it (the REST
#: row's keys, the tie-break values left out).
SHORT_STANDING_KEYS: Final = ("position", "place", "entry_id", "player_id", "name", "points")
#: A final standings row as ``tournament_finished`` carries it (before the awards).
SHORT_FINAL_KEYS: Final = ("place", "entry_id", "player_id", "name", "status", "points")
#: A round table as ``round_paired`` carries it: who sits where (the REST row's keys).
PAIRED_TABLE_KEYS: Final = ("id", "number", "status", "is_bye", "score_group", "seats")


#: The types :func:`jsonable` gives back as they are (exactly these, not their subclasses).
_AS_IS: Final = frozenset({str, int, bool, float})


def jsonable(value: Any, currency: str | None = None) -> Any:
    """``value`` (a selector's row) as the REST API writes it in JSON: times in ISO 8601 with
    ``Z`` for UTC (DRF's ``DateTimeField``), points as numbers, and money as the API's
    ``MoneyField``: a string with the minor-unit digits of the ``currency`` named in the same
    row or an enclosing one (``tournaments.money.amount_text``)."""
    if value is None or type(value) in _AS_IS:  # most values: no abstract class to ask
        return value
    if isinstance(value, Mapping):
        currency = value.get("currency", currency)
        return {str(k): jsonable(v, currency) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, currency) for v in value]
    if isinstance(value, datetime.datetime):
        return time_text(value)
    if isinstance(value, Decimal):
        if currency is None:
            raise ValueError(f"an amount without its currency: {value}")
        return amount_text(value, currency)
    if isinstance(value, Fraction):
        return events.number(value)
    return value


def _short(rows: Iterable[Row], keys: tuple[str, ...]) -> list[Row]:
    return [jsonable({key: row[key] for key in keys}) for row in rows]


# --- a table's result ---------------------------------------------------------------------------


def table_row(
    table: Table,
    *,
    seats: Sequence[Seat] | None = None,
    result: TableResult | None = None,
) -> Row:
    """The table as the round's REST answer shows it (seats with entries and players, the series
    score, the result in force with its places, its last game): four queries. With ``seats``
    (the table's, entries and players joined, by position) and ``result``: a table whose series
    has just ended, held by the caller, ``result`` the only one in force and no game in play
    (``services.results.table_after_game``): built from them, no query."""
    if seats is None:
        rows = with_current_games(events.table_rows(Table.objects.filter(pk=table.pk)))
    else:
        rows = with_current_games([events.table_row_of(table, seats, result)], current={})
    row: Row = jsonable(rows[0])
    return row


def _moved_by(line: standings.StandingLine) -> tuple[Any, ...]:
    return (line.points, line.played, line.fools, line.pogony_given, line.pogony_received)


def moved_standings(stage: Stage, result_id: int) -> Row:
    """The rows of ``stage``'s standings (REST rows, with ``player_id``) that the result
    ``result_id`` changed when it took effect: the table's entries (their points, games,
    fools or pogony changed) and every other row that changed (its position or place, or a
    tie-break: an opponent's points move a Buchholz), by position. So a client that keeps the
    rows of these events holds the REST standings. At most :data:`MOVED_ROWS_LIMIT`, the
    table's entries first (``truncated`` says more moved). No rows for a stage without
    standings (a knockout's: its bracket tells), nor for a stage of more than
    :data:`MOVED_ROWS_MAX_ENTRIES` entries (``truncated``: read the stage's standings)."""
    if (
        standings.has_standings(stage)
        and StageEntry.objects.filter(stage=stage).count() > MOVED_ROWS_MAX_ENTRIES
    ):
        return {"stage": stage.order, "rows": [], "truncated": True}
    before, after = standings.standings_change(stage, result_id)
    old = {line.entry_id: line for line in before}
    scored, pushed = [], []
    for line in after:
        was = old.get(line.entry_id)
        if was is line:  # the same line (``selectors.standings``: most of them)
            continue
        if was is None or _moved_by(was) != _moved_by(line):
            scored.append(line)
        elif was != line:
            pushed.append(line)
    chosen = sorted((scored + pushed)[:MOVED_ROWS_LIMIT], key=lambda line: line.position)
    return {
        "stage": stage.order,
        "rows": [jsonable(events.standing_row(line)) for line in chosen],
        "truncated": len(scored) + len(pushed) > MOVED_ROWS_LIMIT,
    }


def result_facts(
    table: Table,
    result_id: int,
    *,
    seats: Sequence[Seat] | None = None,
    result: TableResult | None = None,
) -> Row:
    """``table_finished`` / ``result_corrected``: the table (``table_detail``: its REST row, the
    result in force with its places) and the standings rows that moved (``standings``).
    ``seats`` and ``result``: :func:`table_row`'s, for a table whose series has just ended."""
    stage = table.round.stage
    return {
        "stage": stage.order,
        "round": table.round.number,
        "table": table.number,
        "table_id": table.pk,
        "table_detail": table_row(table, seats=seats, result=result),
        "standings": moved_standings(stage, result_id),
    }


# --- rounds, stages, the end --------------------------------------------------------------------


def paired_facts(round_: Round) -> Row:
    """``round_paired``: the round's tables and who sits at each (entry and player ids and
    names, bots), as the round's REST answer shows them: three queries."""
    stage = round_.stage
    tables = events.seated_table_rows(round_.tables.order_by("number"))
    return {
        "stage": stage.order,
        "round": round_.number,
        "tables": _short(tables, PAIRED_TABLE_KEYS),
    }


def stage_standings_short(stage: Stage) -> Row:
    """A stage's standings in short rows (:data:`SHORT_STANDING_KEYS`): none for a knockout
    stage. Two queries."""
    # The short keys of ``events.standing_row`` read off each line (that row, whole, for ten
    # thousand lines cost a second of the round's completion: ``docs/performance.md``).
    rows = [
        jsonable(
            {
                key: events.number(line.points) if key == "points" else getattr(line, key)
                for key in SHORT_STANDING_KEYS
            }
        )
        for line in standings.stage_standings(stage)
    ]
    return {"stage": stage.order, "rows": rows}


def round_facts(round_: Round) -> Row:
    """``round_finished``: the stage's standings after it (short rows)."""
    stage = round_.stage
    return {
        "stage": stage.order,
        "round": round_.number,
        "standings": stage_standings_short(stage),
    }


def stage_facts(stage: Stage, round_number: int) -> Row:
    """``stage_finished``: the stage's final standings (short rows) and who goes on (the entries
    of the next stage, best seed first; none after the last stage)."""
    following = stage.tournament.stages.filter(order__gt=stage.order).order_by("order").first()
    advancing = (
        list(following.stage_entries.order_by("seed").values_list("entry_id", flat=True))
        if following is not None
        else []
    )
    return {
        "stage": stage.order,
        "round": round_number,
        "standings": stage_standings_short(stage),
        "advancing": advancing,
    }


def finished_facts(tournament: Tournament, stage: Stage, round_number: int) -> Row:
    """``tournament_finished``: the final places (short rows, :data:`SHORT_FINAL_KEYS`). The
    awards come later (``tournament_completed``)."""
    lines = final_places(tournament).lines
    return {
        "stage": stage.order,
        "round": round_number,
        "final_standings": {
            "currency": tournament.currency,
            "rows": _short(
                (events.final_place_row(line, tournament.currency) for line in lines),
                SHORT_FINAL_KEYS,
            ),
        },
    }


# --- the awards ---------------------------------------------------------------------------------


def payouts(tournament: Tournament) -> Row:
    """The prize pool (the REST tournament's ``money.prize_pool``) and the places it pays (the
    REST final standings rows with a payout): at most eight queries."""
    pool = events.prize_pool(tournament)
    paid = [
        events.final_place_row(line, tournament.currency)
        for line in final_places(tournament).lines
        if line.payout is not None
    ]
    return {
        "currency": tournament.currency,
        "prize_pool": None if pool is None else jsonable(events.prize_pool_row(pool)),
        "payouts": [
            jsonable(
                {key: row[key] for key in ("place", "entry_id", "player_id", "name", "payout")},
                tournament.currency,
            )
            for row in paid
        ],
    }


def ranks(tournament: Tournament) -> list[Row]:
    """The ranks (звания) of the tournament's players, by player id (the REST profile's rank of
    the tournament, without its history): one query."""
    records = RankRecord.objects.filter(tournament=tournament).order_by("player_id")
    return [
        {
            "player_id": record.player_id,
            "rank": record.rank,
            "pogony_received": record.pogony_received,
            "pogony_given": record.pogony_given,
        }
        for record in records
    ]


def ratings(tournament: Tournament) -> list[Row]:
    """The tournament's rating changes, by player id (the REST profile's ``rating_history``
    row, without the tournament): one query."""
    changes = RatingChange.objects.filter(tournament=tournament).order_by("player_id")
    return [
        jsonable({"player_id": change.player_id, **rating_change_row(change)}) for change in changes
    ]


def completed_facts(tournament: Tournament) -> Row:
    """``tournament_completed``, the last event of a finished tournament: the final standings
    exactly as the REST answer gives them (places, points, ranks, payouts) and the prize pool.
    The rating changes came just before, in ``awards_computed`` (``"what": "ratings"``)."""
    pool = events.prize_pool(tournament)
    return {
        "final_standings": {
            "finished": True,
            "currency": tournament.currency,
            "rows": [
                jsonable(events.final_place_row(line, tournament.currency))
                for line in final_places(tournament).lines
            ],
        },
        "prize_pool": None if pool is None else jsonable(events.prize_pool_row(pool)),
    }
