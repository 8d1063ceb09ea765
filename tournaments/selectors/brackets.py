"""A knockout stage's tree: the one bracket the API serves and the public pages draw
(``site/events/bracket.py`` only lays it out)."""

from __future__ import annotations

from typing import TypedDict

from tournaments import selectors
from tournaments.models import Entry, Stage, Table
from tournaments.selectors.events import (
    Row,
    entry_ref,
    int_or_none,
    result_body,
    result_in_force,
    tables_with_results,
)
from tournaments.selectors.play import last_game_id


class BracketEdge(TypedDict):
    """A place of a table that goes on to a later table."""

    from_table: int
    place: int
    to_table: int


class BracketNode(TypedDict):
    """A table of the tree: who sits there, the result in force, who goes on from it."""

    id: int
    round: int
    number: int
    status: str
    is_final: bool
    walkover: bool
    entries: list[Row]  # seated, by seat (``events.entry_ref``)
    byes: list[Row]  # entries that come here straight
    result: Row | None  # ``events.result_body``
    advancing: list[Row]
    last_game: int | None  # its series' last finished game (``play.last_game_id``)


class Bracket(TypedDict):
    advance_per_table: int | None
    rounds: int
    nodes: list[BracketNode]
    edges: list[BracketEdge]


def bracket(stage: Stage) -> Bracket:
    """A knockout stage as a tree: its tables as nodes (round by round), and an edge from each
    place of a table that feeds a later table; byes go straight to their table. Four queries."""
    tables = tables_with_results(
        Table.objects.filter(round__stage=stage)
        .select_related("round")
        .order_by("round__number", "number")
    )
    bye_ids = [
        int(f["entry"])
        for t in tables
        for f in t.feeds_from or []
        if isinstance(f, dict) and int_or_none(f.get("entry")) is not None
    ]
    names = selectors.entry_names(bye_ids)
    last_round = max((t.round.number for t in tables), default=0)
    advance = stage.knockout_advance or 1
    nodes: list[BracketNode] = []
    edges: list[BracketEdge] = []
    for table in tables:
        seats = list(table.seats.all())
        for seat in seats:
            names[seat.entry_id] = seat.entry.name
        result = result_in_force(table)
        final = table.round.number == last_round
        places = list(result.places) if result is not None else []
        still_in = {seat.entry_id for seat in seats if seat.entry.status in Entry.ACTIVE}
        advancing = [] if final else selectors.feed_order(places, still_in)[:advance]
        seated: list[int] = []
        for seat in seats:
            if seat.entry_id not in seated:
                seated.append(seat.entry_id)
        byes: list[Row] = []
        for feed in table.feeds_from or []:
            if not isinstance(feed, dict):
                continue
            if int_or_none(feed.get("entry")) is not None:
                byes.append(entry_ref(int(feed["entry"]), names))
            elif int_or_none(feed.get("table")) is not None:
                for place in feed.get("places") or [feed.get("place", 1)]:
                    edges.append(
                        {"from_table": int(feed["table"]), "place": place, "to_table": table.pk}
                    )
        nodes.append(
            {
                "id": table.pk,
                "round": table.round.number,
                "number": table.number,
                "status": table.status,
                "is_final": final,
                "walkover": table.is_bye,
                "entries": [entry_ref(e, names) for e in seated],
                "byes": byes,
                "result": None if result is None else result_body(result, names),
                "advancing": [entry_ref(e, names) for e in advancing if e is not None],
                "last_game": last_game_id(table.series_state),
            }
        )
    return {
        "advance_per_table": stage.knockout_advance,
        "rounds": last_round,
        "nodes": nodes,
        "edges": edges,
    }
