"""The shortcuts a big field's standings pages take (issue 23) give what the long way gives:
the final places with the points of standings already built, the tournament's facts without
the payouts the pages do not show."""

from __future__ import annotations

import gc

import pytest

from bench.standings import build, finish
from tests.api.test_events import finished_event
from tournaments.models import Stage
from tournaments.selectors import events
from tournaments.selectors.places import final_places
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
