"""Reads of the tournament domain: standings are derived from results here, never stored."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    JSONField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast, NullIf
from django.utils.translation import gettext

from tournaments.models import (
    AwardsFailure,
    Entry,
    PrizePool,
    Round,
    Seat,
    Stage,
    StageEntry,
    Table,
    TableResult,
    Tournament,
)
from tournaments.scoring.results import Pogony
from tournaments.scoring.results import TableResult as PureResult
from tournaments.values import frozen


def effective_result(table: Table) -> TableResult | None:
    """The table's result in force: the newest confirmed one of its correction chain (a result
    waiting for a second referee, or rejected by one, does not count)."""
    return TableResult.objects.filter(table=table).effective().order_by("-id").first()


def result_entry_ids(result: TableResult) -> list[int]:
    """Every entry a result names: places, drawn, the losing team, pogony, the fool."""
    hung = [i for h in result.pogony or [] for i in [h.get("by"), *h.get("on", [])]]
    ids = [*result.places, *result.drawn, *result.team_lost, *hung, result.fool_entry_id]
    return [int(i) for i in ids if isinstance(i, int)]


@dataclass(frozen=True)
class NamedResult:
    """A result with entries' names for ids, as people read it."""

    places: list[str]  # first out first
    fool: str  # "" on a draw
    drawn: list[str]
    team_lost: list[str]
    pogony: list[str]  # "Ann on Bob (6)"


def named_result(result: TableResult, names: Mapping[int, str]) -> NamedResult:
    """``result`` with the ``names`` of its entries (``result_entry_ids``; an unknown id shows
    as ``#id``)."""

    def name(entry: Any) -> str:
        return names.get(entry, f"#{entry}")

    return NamedResult(
        places=[name(e) for e in result.places],
        fool=name(result.fool_entry_id) if result.fool_entry_id else "",
        drawn=[name(e) for e in result.drawn],
        team_lost=[name(e) for e in result.team_lost],
        pogony=[
            gettext("%(by)s on %(on)s (%(rank)s)")
            % {
                "by": name(h.get("by")),
                "on": ", ".join(name(e) for e in h.get("on", [])),
                "rank": "10" if h.get("rank") == "T" else h.get("rank", "—"),
            }
            for h in result.pogony or []
            if isinstance(h, dict)
        ],
    )


def to_pure_result(result: TableResult) -> PureResult:
    """A stored result as the scoring code's value (entries as strings)."""
    return pure_result(
        (
            result.pk,
            result.places,
            result.fool_entry_id,
            result.drawn,
            result.team_lost,
            result.pogony,
            result.supersedes_id,
            result.reason,
        )
    )


#: The result fields the scoring reads (``TableResult`` values, not instances: a 10,000-entry
#: stage has 7,500 of them after three rounds, and an instance costs more than its scoring).
RESULT_FIELDS = (
    "id",
    "places",
    "fool_entry_id",
    "drawn",
    "team_lost",
    "pogony",
    "supersedes_id",
    "reason",
)


def result_values(results: QuerySet[TableResult], *more: str) -> list[tuple[Any, ...]]:
    """``results`` as :data:`RESULT_FIELDS` tuples (then ``more``), for :func:`pure_result`.
    ``drawn``, ``team_lost`` and ``pogony`` come as ``None`` when empty: nearly always, and
    PostgreSQL tells it cheaper than Python decodes ``[]`` (22,500 of the 30,000 JSON fields
    of a 10,000-entry stage after three rounds). The JSON fields come as text, decoded here:
    every ``places`` in one ``json.loads``, not one each through the field's converter (a
    10,000-entry stage's 7,500 results: a third of their reading)."""
    empty = Value([], output_field=JSONField())
    rows = list(
        results.annotate(
            _places=Cast("places", TextField()),
            _drawn=Cast(NullIf("drawn", empty), TextField()),
            _team_lost=Cast(NullIf("team_lost", empty), TextField()),
            _pogony=Cast(NullIf("pogony", empty), TextField()),
        ).values_list(*(f if f in _SCALARS else "_" + f for f in RESULT_FIELDS), *more)
    )
    places = json.loads("[" + ",".join(row[1] for row in rows) + "]")
    loads = json.loads
    return [
        (
            pk,
            at_table,
            fool,
            drawn and loads(drawn),
            team_lost and loads(team_lost),
            pogony and loads(pogony),
            *rest,
        )
        for (pk, _, fool, drawn, team_lost, pogony, *rest), at_table in zip(
            rows, places, strict=True
        )
    ]


_SCALARS = frozenset(RESULT_FIELDS) - {"places", "drawn", "team_lost", "pogony"}


def pure_result(row: Sequence[Any]) -> PureResult:
    """A stored result's fields as the scoring code's value (entries as strings):
    :func:`to_pure_result` without a model instance. ``row``: ``values_list(*RESULT_FIELDS)``
    or :func:`result_values` (an empty list there ``None``)."""
    pk, places, fool_entry_id, drawn, team_lost, pogony, supersedes_id, reason = row
    entries = tuple(map(str, places))
    fool = str(fool_entry_id) if fool_entry_id else None
    scoring_pogony = None
    if pogony:
        at_table = set(entries)
        for hung in pogony:
            # The table's scoring pogony: the one hung on the table's fool (the last one wins).
            on = tuple(e for e in map(str, hung["on"]) if e in at_table)
            if fool is not None and fool in on and str(hung["by"]) in at_table:
                scoring_pogony = Pogony(by=str(hung["by"]), on=on, rank=str(hung.get("rank", "")))
    # PureResult(...), its fields written at once (then validated): 7,500 of a big stage.
    return frozen(
        PureResult,
        {
            "id": str(pk),
            "places": entries,
            "fool": fool,
            "drawn": tuple(map(str, drawn)) if drawn else (),
            "pogony": scoring_pogony,
            "team_lost": tuple(map(str, team_lost)) if team_lost else (),
            "supersedes": str(supersedes_id) if supersedes_id else None,
            "reason": reason,
        },
    )


def stage_entry_ids(stage: Stage) -> list[int]:
    """The stage's entries in seed order."""
    return list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )


def tournament_history(stage: Stage, *, before: Round | None = None) -> list[list[list[int]]]:
    """Every earlier round of the whole tournament as seat-ordered tables of entry ids."""
    rounds = Round.objects.filter(stage__tournament=stage.tournament).exclude(
        status=Round.Status.PENDING
    )
    if before is not None:
        rounds = rounds.exclude(pk=before.pk)
    out: list[list[list[int]]] = []
    for rnd in rounds.order_by("stage__order", "number").prefetch_related(
        Prefetch("tables", queryset=Table.objects.filter(is_bye=False).order_by("number")),
        Prefetch("tables__seats", queryset=Seat.objects.order_by("position")),
    ):
        tables = []
        for table in rnd.tables.all():
            ids: list[int] = []
            for seat in table.seats.all():
                if seat.entry_id not in ids:
                    ids.append(seat.entry_id)
            if len(ids) > 1:
                tables.append(ids)
        out.append(tables)
    return out


def tournament_byes(stage: Stage, *, before: Round | None = None) -> list[list[int]]:
    """The entries that had a bye in each earlier round of the whole tournament, the rounds in
    :func:`tournament_history`'s order (a swiss stage gives the next bye to one who had fewer)."""
    rounds = Round.objects.filter(stage__tournament=stage.tournament).exclude(
        status=Round.Status.PENDING
    )
    if before is not None:
        rounds = rounds.exclude(pk=before.pk)
    out: list[list[int]] = []
    for rnd in rounds.order_by("stage__order", "number").prefetch_related(
        Prefetch("tables", queryset=Table.objects.filter(is_bye=True).order_by("number")),
        Prefetch("tables__seats", queryset=Seat.objects.order_by("position")),
    ):
        out.append(
            list(dict.fromkeys(seat.entry_id for t in rnd.tables.all() for seat in t.seats.all()))
        )
    return out


def entries_by_id(ids: Iterable[int]) -> dict[int, Entry]:
    return Entry.objects.select_related("player", "team").in_bulk(list(ids))


def entry_names(ids: Iterable[int]) -> dict[int, str]:
    """Entries' names (player or team) by id, in one query."""
    return {pk: entry.name for pk, entry in entries_by_id(set(ids)).items()}


def feed_order(places: Sequence[Any], still_in: Collection[int]) -> list[int]:
    """A knockout table's finishing order as its places go on to the next round: the entries
    still in (``still_in``) first, in their order. An entry that left (withdrawn or
    disqualified while its table played) is not seated again: the next finisher goes on in its
    place (``docs/leaving.md``); only when too few are still in does a place fall to it.

    >>> feed_order([7, 3, 5, 9], still_in={3, 5, 9})
    [3, 5, 9, 7]
    """
    order = [int(e) for e in places]
    return [e for e in order if e in still_in] + [e for e in order if e not in still_in]


class AwardsState:
    """What a tournament's awards are (``with_awards_state``'s ``awards_state``)."""

    FAILED = "failed"  # an end-of-event job failed (``AwardsFailure``)
    MISSING = "missing"  # finished without its places, final pool, ranks or ratings
    COMPLETE = "complete"  # finished with all of them
    PENDING = ""  # not finished: nothing is due yet


def with_awards_state(tournaments: QuerySet[Tournament]) -> QuerySet[Tournament]:
    """``tournaments`` annotated with ``awards_state`` (:class:`AwardsState`): a finished event
    whose places, prize pool, ranks or ratings are missing or failed is never silently done. One
    query, whatever the number of events (indexed ``EXISTS``)."""
    finished = Q(status=Tournament.Status.FINISHED)
    unplaced = Entry.objects.filter(
        tournament=OuterRef("pk"), final_place__isnull=True, stage_entries__isnull=False
    )
    pool = PrizePool.objects.filter(tournament=OuterRef("pk"), final=True)
    return tournaments.annotate(
        awards_state=Case(
            When(~finished, then=Value(AwardsState.PENDING)),
            When(
                Exists(AwardsFailure.objects.filter(tournament=OuterRef("pk"))),
                then=Value(AwardsState.FAILED),
            ),
            When(
                Exists(unplaced)
                | ~Exists(pool)
                | Q(ranks_computed_at__isnull=True)
                | Q(ratings_applied_at__isnull=True),
                then=Value(AwardsState.MISSING),
            ),
            default=Value(AwardsState.COMPLETE),
            output_field=CharField(),
        )
    )


def current_of(stages: Sequence[Stage]) -> Stage | None:
    """Of ``stages`` (in order): the running one, else the last that has started, else the
    first."""
    running = [s for s in stages if s.status == Stage.Status.RUNNING]
    started = [s for s in stages if s.status != Stage.Status.PENDING]
    candidates = running or started[-1:] or list(stages[:1])
    return candidates[0] if candidates else None


def entry_players(
    tournament: Tournament, entries: Iterable[int] | None = None
) -> dict[int, int | None]:
    """The player of each entry of ``tournament`` (None for a team), in one query: the public
    pages link names to the players' profiles. ``entries``: only those (a page's tables or
    final places: a hundred, not an event's 10,000)."""
    rows = Entry.objects.filter(tournament=tournament)
    if entries is not None:
        rows = rows.filter(pk__in=list(entries))
    return dict(rows.values_list("pk", "player_id").order_by())


def tournaments_showing_player(player_id: int) -> QuerySet[Tournament]:
    """The tournaments whose answers name the player ``player_id``: its own entries, its teams'
    entries, and the seats it took (a bot handed a seat has no entry). One query when read."""
    entries = Entry.objects.filter(Q(player_id=player_id) | Q(team__members=player_id))
    seats = Seat.objects.filter(player_id=player_id)
    return Tournament.objects.filter(
        Q(pk__in=entries.values("tournament_id"))
        | Q(pk__in=seats.values("table__round__stage__tournament_id"))
    )


def tournaments_showing_team(team_id: int) -> QuerySet[Tournament]:
    """The tournaments whose answers name the team ``team_id``: those it has an entry in."""
    return Tournament.objects.filter(
        pk__in=Entry.objects.filter(team_id=team_id).values("tournament_id")
    )


def public_tournaments(limit: int = 30) -> list[tuple[str, list[Tournament]]]:
    """Public tournaments grouped by status for the front page, newest first in each group,
    each with its ``entries_count`` (one query per group, not one per tournament)."""
    order = [
        Tournament.Status.RUNNING,
        Tournament.Status.REGISTRATION,
        Tournament.Status.FINISHED,
    ]
    rows = (
        Tournament.objects.filter(is_public=True, status__in=order)
        .annotate(entries_count=Count("entries"))
        .order_by("-created_at", "-pk")
    )
    return [(status, list(rows.filter(status=status)[:limit])) for status in order]


def table_with_tournament(table_id: int) -> Table:
    return Table.objects.select_related("round__stage__tournament").get(pk=table_id)
