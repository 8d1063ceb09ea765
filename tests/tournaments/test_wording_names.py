"""One naming of where a game is played (``tournaments.wording``): stages, rounds (a knockout's by
their distance from the final), tables and the games of a series, in English and in Russian; and
the status badges, of which a finished event's is never live."""

from __future__ import annotations

import pytest
from django.utils import translation

from tournaments.models import Stage
from tournaments.wording import (
    game_name,
    place_name,
    round_name,
    stage_name,
    stage_names,
    status_badge,
    table_name,
)


def test_a_swiss_or_round_robin_round_is_numbered() -> None:
    assert round_name(2) == "Round 2"
    # a knockout's number of rounds does not matter to a swiss round
    assert round_name(2, knockout=False, rounds=2) == "Round 2"


@pytest.mark.parametrize(
    ("number", "rounds", "name"),
    [
        (1, 1, "Final"),
        (2, 2, "Final"),
        (1, 2, "Semi-final"),
        (1, 3, "Quarter-final"),
        (2, 4, "Quarter-final"),
        (1, 4, "1/8 final"),
        (1, 6, "1/32 final"),
    ],
)
def test_a_knockout_round_is_named_by_its_distance_from_the_final(
    number: int, rounds: int, name: str
) -> None:
    assert round_name(number, knockout=True, rounds=rounds) == name


def test_a_knockout_round_whose_stage_size_is_unknown_is_numbered() -> None:
    # given no number of rounds (or a round beyond it), when named, then by its number
    assert round_name(2, knockout=True, rounds=None) == "Round 2"
    assert round_name(5, knockout=True, rounds=3) == "Round 5"


def test_a_stage_is_its_own_name_else_its_format() -> None:
    assert stage_name("Финальная пулька", "knockout") == "Финальная пулька"
    assert stage_name("", "knockout") == "Knockout"
    assert stage_name("", "swiss") == "Swiss"
    assert stage_name("", "round_robin") == "Round robin"


def test_unnamed_stages_of_one_format_are_told_apart_by_their_order() -> None:
    # given two unnamed swiss stages, a named one and an unnamed knockout
    stages = [
        Stage(order=1, format="swiss"),
        Stage(order=2, format="swiss"),
        Stage(order=3, format="swiss", name="Отбор"),
        Stage(order=4, format="knockout"),
    ]
    # then the swiss ones carry their order; the knockout, alone of its format, does not
    assert stage_names(stages) == {
        1: "Swiss, stage 1",
        2: "Swiss, stage 2",
        3: "Отбор",
        4: "Knockout",
    }
    with translation.override("ru"):
        assert stage_names(stages)[2] == "Швейцарская система, этап 2"


def test_a_place_reads_stage_round_table_and_game_leaving_out_what_is_empty() -> None:
    assert (
        place_name(stage="Knockout", round="Final", table=table_name(1), game=game_name(2))
        == "Knockout · Final · Table 1 · game 2"
    )
    assert place_name(stage="Swiss", round=round_name(2)) == "Swiss · Round 2"


def test_the_names_in_russian() -> None:
    with translation.override("ru"):
        assert stage_name("", "knockout") == "Плей-офф"
        assert round_name(2) == "Тур 2"
        assert round_name(3, knockout=True, rounds=3) == "Финал"
        assert round_name(2, knockout=True, rounds=3) == "Полуфинал"
        assert round_name(1, knockout=True, rounds=3) == "1/4 финала"
        assert table_name(1) == "Стол 1"
        assert game_name(2) == "партия 2"


@pytest.mark.parametrize("status", ["finished", "cancelled", "registration", "draft"])
def test_only_a_running_event_is_live(status: str) -> None:
    assert not status_badge("tournament", status).live
    assert status_badge("tournament", "running").live


def test_a_badge_has_its_statuss_words_and_class() -> None:
    with translation.override("ru"):
        badge = status_badge("tournament", "finished")
    assert (badge.css, badge.live) == ("status-finished", False)
    assert badge.label == "Завершён"
    assert status_badge("round", "playing").live
    assert not status_badge("table", "finished").live
