"""The knockout bracket's picture (``tournaments.site.events.bracket.layout``) on trees shaped as
the selectors build them (``selectors.brackets.bracket``): columns, tables centred on their
feeders and never overlapping, lines from each place that goes on to the seat it takes, the
waiting tables' seats to come, the winner starred; 2-seat and 6-seat tables alike. No
database."""

from __future__ import annotations

import itertools
import re
from typing import Any, cast

import pytest
from django.test import Client

from tests.api.test_events import finished_event
from tournaments.selectors.brackets import Bracket
from tournaments.site.events import bracket
from tournaments.site.events.bracket import GAP, HEAD, ROW, Picture, layout, shorten

Row = dict[str, Any]


def entry(n: int) -> Row:
    return {"id": n, "name": f"Игрок {n}"}


def result(order: list[int]) -> Row:
    last = len(order)
    return {
        "places": [
            {"place": i, "entry": entry(e), "fool": i == last, "drawn": False}
            for i, e in enumerate(order, 1)
        ],
        "fool": entry(order[-1]),
    }


def node(
    table: int,
    round_: int,
    number: int,
    seated: list[int],
    *,
    finished: list[int] | None = None,
    advance: int = 1,
    final: bool = False,
) -> Row:
    """A table of the tree: ``seated`` its entries, ``finished`` its places if it has ended."""
    status = "finished" if finished else ("playing" if seated else "waiting")
    return {
        "id": table,
        "round": round_,
        "number": number,
        "status": status,
        "is_final": final,
        "entries": [entry(e) for e in seated],
        "byes": [],
        "result": result(finished) if finished else None,
        "advancing": [entry(e) for e in finished[:advance]] if finished and not final else [],
    }


def edge(source: int, place: int, target: int) -> Row:
    return {"from_table": source, "place": place, "to_table": target}


def draw(tree: Row) -> Picture:
    return layout(
        cast(Bracket, tree),
        profile=lambda entry_id: f"/players/{entry_id}/",
        table_url=lambda table_id, status, last_game: (
            f"/games/{last_game}/replay/"
            if status == "finished" and last_game
            else f"/tables/{table_id}/"
        ),
    )


def head_to_head_tree() -> Row:
    """Eight players at 2-seat tables, one goes on: round 1 over (but table 4), table 5 of round
    2 playing, table 6 and the final waiting."""
    nodes = [
        node(1, 1, 1, [1, 8], finished=[1, 8]),
        node(2, 1, 2, [4, 5], finished=[5, 4]),
        node(3, 1, 3, [2, 7], finished=[7, 2]),
        node(4, 1, 4, [3, 6]),
        node(5, 2, 1, [1, 5]),
        node(6, 2, 2, []),
        node(7, 3, 1, [], final=True),
    ]
    edges = [edge(1, 1, 5), edge(2, 1, 5), edge(3, 1, 6), edge(4, 1, 6)]
    edges += [edge(5, 1, 7), edge(6, 1, 7)]
    return {"advance_per_table": 1, "rounds": 3, "nodes": nodes, "edges": edges}


def by_id(picture: Picture) -> dict[int, bracket.Node]:
    return {n.id: n for n in picture.nodes}


def test_a_column_per_round_and_no_table_over_another() -> None:
    picture = draw(head_to_head_tree())
    # knockout rounds are named by their distance from the final (``wording.round_name``)
    assert [c.title for c in picture.columns] == ["Quarter-final", "Semi-final", "Final"]
    nodes = by_id(picture)
    assert len({nodes[i].x for i in (1, 2, 3, 4)}) == 1
    assert nodes[1].x < nodes[5].x < nodes[7].x
    for column in ((1, 2, 3, 4), (5, 6)):
        for upper, lower in itertools.pairwise(column):
            assert nodes[lower].y >= nodes[upper].y + nodes[upper].height + GAP
    assert picture.width >= nodes[7].x + nodes[7].width
    assert picture.height >= max(n.y + n.height for n in picture.nodes)


def test_each_table_sits_between_the_tables_that_feed_it() -> None:
    nodes = by_id(draw(head_to_head_tree()))
    assert nodes[5].center == pytest.approx((nodes[1].center + nodes[2].center) / 2)
    assert nodes[6].center == pytest.approx((nodes[3].center + nodes[4].center) / 2)
    assert nodes[7].center == pytest.approx((nodes[5].center + nodes[6].center) / 2)


def test_who_went_on_is_highlighted_and_lined_to_the_seat_they_took() -> None:
    picture = draw(head_to_head_tree())
    nodes = by_id(picture)
    first = nodes[1]
    assert [r.classes for r in first.rows] == ["adv", "fool"]
    assert [r.label for r in first.rows] == ["1", "2"] and first.rows[0].mark == "→"
    # the winner of table 1 (entry 1) sits first at table 5: a highlighted line between the rows
    y1 = first.y + HEAD + ROW / 2
    y2 = nodes[5].y + HEAD + ROW / 2
    highlighted = [e.path for e in picture.edges if e.classes == "adv"]
    assert any(
        p.startswith(f"M{first.x + first.width:g} {y1:g}H")
        and p.endswith(f"V{y2:g}H{nodes[5].x:g}")
        for p in highlighted
    )
    # three tables have finished: three highlighted lines, drawn over the others
    assert len(highlighted) == 3
    assert [e.classes for e in picture.edges][-3:] == ["adv"] * 3


def test_a_waiting_table_lists_the_seats_to_come_and_links_no_live_table() -> None:
    nodes = by_id(draw(head_to_head_tree()))
    waiting = nodes[6]
    assert waiting.href == "" and waiting.status_label == "waiting"
    assert [r.name for r in waiting.rows] == ["Table 3, place 1", "Table 4, place 1"]
    assert all(r.classes == "slot" and r.href == "" for r in waiting.rows)
    assert nodes[5].href == "/tables/5/"
    assert [r.href for r in nodes[5].rows] == ["/players/1/", "/players/5/"]
    assert "Игрок 1, Игрок 5" in nodes[5].label


def test_the_finals_winner_is_starred() -> None:
    tree = head_to_head_tree()
    tree["nodes"][-1] = node(7, 3, 1, [1, 7], finished=[7, 1], final=True)
    final = by_id(draw(tree))[7]
    assert final.rows[0].classes == "win" and final.rows[0].mark == "★"
    assert final.rows[1].classes == "fool" and final.rows[1].mark == "fool"


def test_six_seat_tables_feed_a_final_of_six() -> None:
    tree = {
        "advance_per_table": 3,
        "rounds": 2,
        "nodes": [
            node(1, 1, 1, list(range(1, 7)), finished=[6, 5, 4, 3, 2, 1], advance=3),
            node(2, 1, 2, list(range(7, 13)), finished=[7, 8, 9, 10, 11, 12], advance=3),
            node(3, 2, 1, [6, 5, 4, 7, 8, 9], final=True),
        ],
        "edges": [edge(t, place, 3) for t in (1, 2) for place in (1, 2, 3)],
    }
    picture = draw(tree)
    nodes = by_id(picture)
    assert all(len(n.rows) == 6 for n in picture.nodes)
    assert nodes[1].height == HEAD + 6 * ROW + bracket.FOOT
    assert [r.classes for r in nodes[1].rows].count("adv") == 3
    assert len([e for e in picture.edges if e.classes == "adv"]) == 6
    # each line lands on its own seat of the final, turning at a vertical of its own
    landings = {e.path.rsplit("V", 1)[1] for e in picture.edges}
    turns = {e.path.split("H")[1].split("V")[0] for e in picture.edges}
    assert len(landings) == 6 and len(turns) == 6


def test_long_names_are_shortened_and_kept_whole_for_the_tooltip() -> None:
    long = "Александр Сергеевич Пушкин-Гончаров"
    assert shorten(long).endswith("…") and len(shorten(long)) == bracket.NAME_CHARS
    assert shorten("Ann") == "Ann"
    tree = head_to_head_tree()
    tree["nodes"][4]["entries"][0]["name"] = long
    row = by_id(draw(tree))[5].rows[0]
    assert row.name == shorten(long) and row.full_name == long


def test_an_empty_tree_draws_an_empty_picture() -> None:
    picture = draw({"advance_per_table": 2, "rounds": 0, "nodes": [], "edges": []})
    assert picture.nodes == [] and picture.edges == [] and picture.columns == []


@pytest.mark.django_db
def test_the_svg_is_written_unlocalised_in_russian(client: Client) -> None:
    event = finished_event(8, name="Кубок восьми")
    html = client.get(f"/tournaments/{event.slug}/", headers={"Accept-Language": "ru"})
    text = html.content.decode()
    svg = text[text.index("<svg") : text.index("</svg>")]
    assert 'class="node ' in svg
    for attribute in ("d", "transform", "x", "y", "width", "height", "viewBox"):
        for value in re.findall(rf' {attribute}="([^"]*)"', svg):
            assert "," not in value, (attribute, value)
