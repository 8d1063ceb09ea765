"""Impossible configurations are refused when they are created, never found in round 3."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments import services
from tournaments.errors import ConfigurationError
from tournaments.models import Stage, Tournament

GOOD_SWISS = {"format": "swiss", "table_size": 4, "rounds": 3}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kwargs", "complaint"),
    [
        ({"stages": [{**GOOD_SWISS, "table_size": 7}]}, "table size must be 2 to 6"),
        (
            {"stages": [{**GOOD_SWISS, "advance": {"top": 40}}, GOOD_SWISS], "max_entries": 32},
            "40 are to advance but only 32 take part",
        ),
        (
            {"stages": [GOOD_SWISS], "payout_structure": ["50", "30", "10"]},
            "must add up to exactly 100",
        ),
        ({"stages": [GOOD_SWISS], "rules": {"variant": "chukotka"}}, "rules: variant"),
        ({"stages": [GOOD_SWISS], "rules": {"players": 4}}, "set per table"),
        (
            {
                "stages": [
                    {"format": "knockout", "table_size": 4, "advance_per_table": 2},
                    GOOD_SWISS,
                ]
            },
            "no stage can follow it",
        ),
        (
            {"stages": [{"format": "knockout", "table_size": 4, "advance_per_table": 4}]},
            "nobody is knocked out",
        ),
        ({"stages": [GOOD_SWISS], "rake_percent": "120"}, "rake"),
        ({"stages": [GOOD_SWISS], "entry_fee": "-5"}, "entry fee"),
        ({"stages": [{**GOOD_SWISS, "colour": "red"}]}, "unknown setting"),
        ({"stages": [{**GOOD_SWISS, "series": {"format": "best_of", "target": 2}}]}, "odd"),
        ({"stages": []}, "at least one stage"),
        ({"stages": [GOOD_SWISS], "rules": {"deck_size": 24, "hand_size": 7}}, "rules"),
    ],
)
def test_refused_at_creation_and_nothing_stored(kwargs: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_create(name="Плохой турнир", **kwargs)
    assert complaint in refused.value.message
    assert refused.value.code == "invalid_configuration"
    assert Tournament.objects.count() == 0
    assert Stage.objects.count() == 0


@pytest.mark.django_db
def test_a_valid_plan_is_stored_with_its_stages() -> None:
    tournament = services.tournament_create(
        name="Кубок",
        rules={"variant": "transfer"},
        stages=[
            {**GOOD_SWISS, "advance": {"top": 8}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
        payout_structure=["50", "30", "20"],
    )
    stages = list(tournament.stages.order_by("order"))
    assert [s.format for s in stages] == ["swiss", "knockout"]
    assert stages[0].advance_mode == Stage.AdvanceMode.TOP_N and stages[0].advance_count == 8
    assert stages[1].knockout_advance == 2
    assert tournament.rules == {"variant": "transfer"}
    assert tournament.slug == "kubok" or tournament.slug
