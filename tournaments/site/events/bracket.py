"""A knockout stage drawn as a picture: the geometry of an SVG tree of tables.

:func:`layout` turns a stage's tree (``selectors.brackets.bracket``: tables as nodes,
an edge from each place of a table to the table it feeds, byes) into boxes, rows and lines with
coordinates; ``templates/tournaments/_bracket.html`` draws them as inline SVG (no script, no
library). Tables of 2 to 6 seats feed the tables of the next round: a column per round, each
table centred on the tables that feed it, a line from each place that goes on to the row where
that player sits next (before the feeder has finished: from the table to the seat it will
fill). Who went on is highlighted (``adv``), the fool marked, the final's winner starred.
Colours live in ``static/css/events.css`` (classes only, so the light and dark themes restyle
it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from tournaments.selectors.brackets import Bracket, BracketEdge, BracketNode
from tournaments.wording import round_name, table_name

NODE_WIDTH = 216
COLUMN_GAP = 44
HEAD = 22  # a table's title bar
ROW = 20  # one seat
FOOT = 4
GAP = 14  # between two tables of a column
TOP = 30  # the columns' titles
MARGIN = 6
NAME_CHARS = 20  # what fits beside the place number and the mark at 12 px


@dataclass(frozen=True)
class Row:
    """One seat of a table box: its place (or nothing before the result), the name, a mark."""

    top: float  # relative to the box
    label: str
    name: str
    full_name: str
    href: str
    mark: str
    classes: str

    @property
    def text_y(self) -> float:
        return self.top + ROW / 2 + 4

    @property
    def height(self) -> int:
        return ROW


@dataclass(frozen=True)
class Node:
    id: int
    x: float
    y: float
    height: float
    title: str
    status: str
    status_label: str
    href: str  # the live table, its replay once finished, "" while it waits for its players
    rows: list[Row]

    @property
    def width(self) -> int:
        return NODE_WIDTH

    @property
    def head(self) -> int:
        return HEAD

    @property
    def center(self) -> float:
        return self.y + self.height / 2

    @property
    def label(self) -> str:
        """The box in words, for a screen reader: the table, its state, its players."""
        names = ", ".join(r.full_name for r in self.rows if r.full_name)
        return f"{self.title}, {self.status_label}: {names}" if names else self.title


@dataclass(frozen=True)
class Edge:
    path: str
    classes: str


@dataclass(frozen=True)
class Column:
    x: float
    title: str

    @property
    def center(self) -> float:
        return self.x + NODE_WIDTH / 2


@dataclass(frozen=True)
class Picture:
    width: float
    height: float
    columns: list[Column]
    nodes: list[Node]
    edges: list[Edge]


def shorten(name: str, limit: int = NAME_CHARS) -> str:
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def status_label(status: str) -> str:
    """A table's status in a word: waiting (for its feeders), playing, finished."""
    labels = {
        "waiting": gettext("waiting"),
        "playing": gettext("playing"),
        "finished": gettext("finished"),
    }
    return labels.get(status, status)


def _place_rows(
    node: Mapping[str, Any], profile: Callable[[int], str], is_final: bool
) -> list[tuple[int | None, str, str, str, str, str]]:
    """(entry, label, name, href, mark, classes) per seat of a table: in place order once it
    has a result, else in seat order, else (still waiting) the byes and the places that will
    come."""
    rows: list[tuple[int | None, str, str, str, str, str]] = []
    result = node.get("result")
    advancing = {e["id"] for e in node.get("advancing") or []}
    if result is not None:
        for place in result["places"]:
            entry = place["entry"]
            if entry is None:
                continue
            classes = []
            mark = ""
            if entry["id"] in advancing:
                classes.append("adv")
                mark = "→"
            if place["fool"]:
                classes.append("fool")
                mark = gettext("fool")
            if place["drawn"]:
                classes.append("drawn")
                mark = gettext("draw")
            if is_final and place["place"] == 1:
                classes.append("win")
                mark = "★"
            rows.append(
                (
                    entry["id"],
                    str(place["place"]),
                    entry["name"],
                    profile(entry["id"]),
                    mark,
                    " ".join(classes),
                )
            )
        return rows
    for entry in node.get("entries") or []:
        rows.append((entry["id"], "", entry["name"], profile(entry["id"]), "", ""))
    return rows


def layout(
    tree: Bracket,
    *,
    profile: Callable[[int], str],
    table_url: Callable[[int, str, int | None], str],
) -> Picture:
    """The picture of ``tree`` (``selectors.brackets.bracket``): ``profile(entry id)`` links a
    name ("" for none), ``table_url(table id, status, last game id)`` a table (its live page
    while it plays, its replay once finished)."""
    nodes_in: Sequence[BracketNode] = tree["nodes"]
    edges_in: Sequence[BracketEdge] = tree["edges"]
    rounds = int(tree["rounds"] or 0)
    by_id = {int(n["id"]): n for n in nodes_in}
    numbers = {int(n["id"]): n["number"] for n in nodes_in}
    incoming: dict[int, list[BracketEdge]] = {}
    for edge in edges_in:
        incoming.setdefault(int(edge["to_table"]), []).append(edge)

    # Each table's rows (relative to its box), and where each incoming edge lands.
    rows_of: dict[int, list[Row]] = {}
    entry_row: dict[tuple[int, int], int] = {}  # (table, entry) -> row index
    slot_row: dict[tuple[int, int, Any], int] = {}  # (table, feeder, place) -> row index
    for node in nodes_in:
        table = int(node["id"])
        raw = _place_rows(node, profile, bool(node["is_final"]))
        if not raw:  # waiting for its feeders: the byes, then the places to come
            raw = [
                (bye["id"], "", bye["name"], profile(bye["id"]), "", "")
                for bye in node.get("byes") or []
            ]
            for edge in incoming.get(table, []):
                slot_row[(table, int(edge["from_table"]), edge["place"])] = len(raw)
                text = gettext("Table %(table)s, place %(place)s") % {
                    "table": numbers.get(int(edge["from_table"]), "?"),
                    "place": edge["place"],
                }
                raw.append((None, "", text, "", "", "slot"))
        rows = []
        for index, (entry, label, name, href, mark, classes) in enumerate(raw):
            if entry is not None:
                entry_row[(table, entry)] = index
            rows.append(
                Row(
                    top=HEAD + index * ROW,
                    label=label,
                    name=shorten(name),
                    full_name="" if classes == "slot" else name,
                    href=href,
                    mark=mark,
                    classes=classes,
                )
            )
        rows_of[table] = rows

    # Columns, then each table centred on its feeders (never over the one above it).
    placed: dict[int, Node] = {}
    columns = []
    for number in range(1, rounds + 1):
        x = MARGIN + (number - 1) * (NODE_WIDTH + COLUMN_GAP)
        title = round_name(number, knockout=True, rounds=rounds)
        columns.append(Column(x, title))
        bottom = float(TOP)
        column = sorted((n for n in nodes_in if n["round"] == number), key=lambda n: n["number"])
        for node in column:
            table = int(node["id"])
            height = HEAD + max(1, len(rows_of[table])) * ROW + FOOT
            feeders = [placed[f] for f in {int(e["from_table"]) for e in incoming.get(table, [])}]
            wanted = (
                sum(f.center for f in feeders) / len(feeders) - height / 2 if feeders else bottom
            )
            y = max(wanted, bottom)
            seated = bool(node.get("entries"))
            placed[table] = Node(
                id=table,
                x=x,
                y=y,
                height=height,
                title=table_name(node["number"]),
                status=str(node["status"]),
                status_label=(
                    (gettext("walkover") if seated else gettext("void"))
                    if node.get("walkover")
                    else status_label(str(node["status"]))
                ),
                href=table_url(table, str(node["status"]), node.get("last_game")) if seated else "",
                rows=rows_of[table],
            )
            bottom = y + height + GAP

    lines: list[tuple[int, int, float, float, str]] = []  # source, target, y1, y2, classes
    drawn: set[tuple[int, float, int, float]] = set()
    for edge in edges_in:
        source, target = int(edge["from_table"]), int(edge["to_table"])
        if source not in placed or target not in placed:
            continue
        src, dst = placed[source], placed[target]
        result = by_id[source].get("result")
        y1, y2 = src.center, dst.center
        classes = ""
        entry = None
        if result is not None:
            places = [p for p in result["places"] if p["place"] == edge["place"]]
            entry = places[0]["entry"]["id"] if places and places[0]["entry"] else None
        if entry is not None:
            classes = "adv"
            out = next(
                (i for i, r in enumerate(rows_of[source]) if r.label == str(edge["place"])), None
            )
            if out is not None:
                y1 = src.y + HEAD + out * ROW + ROW / 2
        landing = entry_row.get((target, entry)) if entry is not None else None
        if landing is None:
            landing = slot_row.get((target, source, edge["place"]))
        if landing is not None:
            y2 = dst.y + HEAD + landing * ROW + ROW / 2
        key = (source, round(y1, 1), target, round(y2, 1))
        if key in drawn:
            continue
        drawn.add(key)
        lines.append((source, target, y1, y2, classes))

    # Each line turns at a vertical of its own between the columns (spread over the gap, in the
    # order of where the lines land), so that two players' paths can be told apart.
    into: dict[int, list[tuple[int, int, float, float, str]]] = {}
    for line in lines:
        into.setdefault(line[1], []).append(line)
    edges = []
    for target, arriving in into.items():
        arriving.sort(key=lambda line: (line[3], line[2]))
        for order, (source, _, y1, y2, classes) in enumerate(arriving):
            x1, x2 = placed[source].x + NODE_WIDTH, placed[target].x
            share = (order + 1) / (len(arriving) + 1)
            middle = x1 + 8 + (x2 - x1 - 16) * share
            path = f"M{x1:g} {y1:g}H{middle:g}V{y2:g}H{x2:g}"
            edges.append(Edge(path, classes))
    # The highlighted lines last, so that they are drawn over the others.
    edges.sort(key=lambda e: e.classes == "adv")

    nodes = list(placed.values())
    width = MARGIN * 2 + max(1, rounds) * NODE_WIDTH + max(0, rounds - 1) * COLUMN_GAP
    bottom = max((n.y + n.height for n in nodes), default=float(TOP)) + MARGIN
    return Picture(width=width, height=bottom, columns=columns, nodes=nodes, edges=edges)
