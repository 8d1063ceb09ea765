"""The shortcuts a big field's standings pages take (issue 23) give what the long way gives:
the final places with the points of standings already built, the tournament's facts without
the payouts the pages do not show."""

from __future__ import annotations

import gc

import pytest

from bench.standings import build, finish
from tests.api.test_events import finished_event, team_event
from tournaments.models import RankRecord, Stage, Tournament
from tournaments.selectors import events
from tournaments.selectors.places import final_count, final_places, final_places_page
from tournaments.selectors.standings import forget_kept, has_standings, stage_standings

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
