"""The shortcuts a big field's standings pages take (issue 23) give what the long way gives:
the final places with the points of standings already built, the tournament's facts without
the payouts the pages do not show, the standings lines made as they are read, the players of
a few entries, the search by name with the event's id."""

from __future__ import annotations

import gc

import pytest

from bench.standings import build, finish
from tests.api.test_events import finished_event, team_event
from tournaments import selectors
from tournaments.models import RankRecord, Round, Stage, Tournament
from tournaments.selectors import events
from tournaments.selectors.places import final_count, final_places, final_places_page
from tournaments.selectors.standings import (
    StandingLines,
    forget_kept,
    has_standings,
    stage_standings,
    standings_lines,
)

pytestmark = pytest.mark.django_db


def test_the_final_places_with_the_standings_built_are_the_final_places() -> None:
    # given a finished swiss (pogony now and then, a bye when the field is odd)
    tournament = build(23, 2, "final-known")
    finish(tournament)
    stage = Stage.objects.select_related("tournament").get(tournament=tournament)
    # when the final places take the points of the stage's standings, already built
    forget_kept()
    known = final_places(tournament, {stage.order: stage_standings(stage)})
    # then they are the final places computed from the results, line for line
    forget_kept()
    assert known == final_places(tournament)
    assert len({line.points for line in known.lines}) > 1
    assert gc.isenabled()


def test_the_final_places_take_the_other_stages_points_from_their_results() -> None:
    # given a finished swiss then knockout
    tournament = finished_event(8)
    stages = list(tournament.stages.select_related("tournament").order_by("order"))
    built = {s.order: stage_standings(s) for s in stages if has_standings(s)}
    # when only the swiss stage's standings are given
    assert list(built) == [1]
    known = final_places(tournament, built)
    # then every line is the one the results give, the knockout's points among them
    assert known == final_places(tournament)
    assert {line.stage for line in known.lines} == {1, 2}


def test_the_facts_without_payouts_are_the_facts_but_the_payouts() -> None:
    # given a finished event that paid prizes
    tournament = finished_event(8)
    detail = events.tournament_detail(tournament)
    assert detail["money"]["payouts"]
    # when the pages ask for its facts without the payouts
    lean = events.tournament_detail(tournament, payouts=False)
    # then nothing else differs but the default scale's percentages, which they word
    assert detail["money"]["payout_structure_default"]
    assert lean["money"]["payout_structure"] == []
    del detail["money"]["payouts"]
    detail["money"]["payout_structure"] = []
    assert lean == detail


def _same_as_the_whole(tournament: Tournament) -> None:
    whole = final_places(tournament)
    count = final_count(tournament)
    assert count == len(whole.lines) > 0
    for start, stop in [(0, 0), (0, 3), (2, 7), (count - 1, count + 5), (count + 1, count + 9)]:
        page = final_places_page(tournament, start, stop)
        assert page.lines == whole.lines[start:stop]
        assert page.podium == [line for line in whole.lines if line.place <= 3]
        assert page.paid_out == whole.paid_out
        assert page.stages_left == len({line.stage for line in whole.lines})


def test_a_page_of_the_final_places_is_that_page_of_them() -> None:
    # given a finished swiss then knockout (two stages left, prizes paid)
    two_stages = finished_event(8)
    # and a finished swiss (one stage left; pogony and rank records), and a team event
    one_stage = build(23, 2, "final-page")
    finish(one_stage)
    teams = team_event()
    for index, entry in enumerate(teams.entries.order_by("pk")):
        entry.final_place = index + 1
        entry.save(update_fields=["final_place"])
    members = teams.entries.values_list("team__members", flat=True)
    RankRecord.objects.bulk_create(
        RankRecord(tournament=teams, player_id=p, rank="", pogony_given=i, pogony_received=1)
        for i, p in enumerate(members)
    )
    # then each page read in the database is that page of every line, with the same podium,
    # amount paid out and stages left
    assert len({line.stage for line in final_places(two_stages).lines}) == 2
    assert final_places(one_stage).paid_out > 0
    assert {line.pogony_given for line in final_places(teams).lines} != {0}
    for tournament in (two_stages, one_stage, teams):
        _same_as_the_whole(tournament)


def test_the_lines_made_as_they_are_read_are_the_standings_lines() -> None:
    # given a running swiss of 23 entries after two rounds (pogony now and then, a bye)
    tournament = build(23, 2, "lines-read")
    stage = Stage.objects.select_related("tournament").get(tournament=tournament)
    whole = stage_standings(stage)
    assert len(whole) == 23 and {line.pogony_given for line in whole} != {0}
    # when they are read a line, a slice, from the end, whole, with nothing kept
    forget_kept()
    lines = standings_lines(stage)
    assert isinstance(lines, StandingLines) and len(lines) == 23
    assert lines[5] == whole[5] and lines[-1] == whole[-1] and lines[-23] == whole[0]
    assert lines[3:9] == whole[3:9] and lines[20:40] == whole[20:] and lines[::-4] == whole[::-4]
    assert lines[3] is lines[3:4][0]  # a line is made once
    with pytest.raises(IndexError):
        lines[23]
    with pytest.raises(IndexError):
        lines[-24]
    assert list(lines) == whole
    # then, once the whole lines are kept, they are given as they are
    stage_standings(stage)
    kept = standings_lines(stage)
    assert isinstance(kept, list) and kept == whole
    assert gc.isenabled()


def test_the_players_of_a_few_entries_are_theirs_among_all() -> None:
    # given an event, and a team event
    for tournament in (build(9, 1, "few-players"), team_event()):
        everyone = selectors.entry_players(tournament)
        some = list(everyone)[::3]
        # then the players of a few entries (or of none) are those of every entry
        assert selectors.entry_players(tournament, some) == {e: everyone[e] for e in some}
        assert selectors.entry_players(tournament, []) == {}


def test_the_search_by_name_with_the_events_id_finds_what_it_finds_without() -> None:
    # given a round of a running swiss, and another event whose players bear the same names
    tournament = build(40, 2, "by-id")
    build(40, 2, "by-id")
    round_ = Round.objects.filter(stage__tournament=tournament, number=2).get()
    for find, tables in (("by-id 17", 1), ("Игрок BY-ID 23", 1), ("nobody", 0), ("", 10)):
        # when the search is given the event's id
        with_id = events.round_table_index([round_.pk], find=find, tournament_id=tournament.pk)
        # then it finds the same tables as through the rounds' event: one a name, none for
        # nobody, every table for nothing
        assert with_id == events.round_table_index([round_.pk], find=find)
        assert sum(line.found for line in with_id[round_.pk]) == tables
        assert len(with_id[round_.pk]) == 10
