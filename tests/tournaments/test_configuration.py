"""Impossible configurations are refused when they are created, never found in round 3."""

from __future__ import annotations

import doctest
from decimal import Decimal
from typing import Any

import pytest

from tournaments import plan_schema, services
from tournaments.errors import ConfigurationError
from tournaments.models import Stage, Tournament
from tournaments.plan_schema import (
    StageSpecSerializer,
    TournamentPlanSerializer,
    error_fields,
    error_message,
)
from tournaments.plan_words import field_label

GOOD_SWISS = {"format": "swiss", "table_size": 4, "rounds": 3}
PLAN: dict[str, Any] = {"name": "Кубок", "stages": [GOOD_SWISS]}


def stage(**change: Any) -> dict[str, Any]:
    """A plan whose only stage is the good swiss stage with ``change``."""
    return {"stages": [{**GOOD_SWISS, **change}]}


def keys(path: str) -> list[str | int]:
    """``stages[0].series.target`` as the keys down DRF's nested shape."""
    return [
        int(part[1:-1]) if part.startswith("[") else part
        for part in path.replace("[", ".[").split(".")
    ]


def at_path(fields: Any, path: str) -> Any:
    """The field errors at ``path`` (``stages[0].series.target``) in DRF's nested shape."""
    node = fields
    for key in keys(path):
        node = node[key]
    return node


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kwargs", "complaint"),
    [
        ({"stages": [{**GOOD_SWISS, "table_size": 7}]}, "Stage 1, table size: must be 2 to 6"),
        (
            {"stages": [{**GOOD_SWISS, "advance": {"top": 40}}, GOOD_SWISS], "max_entries": 32},
            "Stage 1, advance: 40 are to advance but the stage has only 32 entries",
        ),
        (
            {"stages": [GOOD_SWISS], "payout_structure": ["50", "30", "10"]},
            "must add up to exactly 100",
        ),
        ({"stages": [GOOD_SWISS], "rules": {"variant": "chukotka"}}, "Rules, variant: must be one"),
        (
            {"stages": [GOOD_SWISS], "rules": {"players": 4}},
            "Rules, players per table: set per table",
        ),
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
        ({"stages": [GOOD_SWISS], "rake_percent": "120"}, "Rake %: the rake is a percentage"),
        ({"stages": [GOOD_SWISS], "entry_fee": "-5"}, "Entry fee: must not be negative"),
        ({"stages": [{**GOOD_SWISS, "colour": "red"}]}, "Stage 1, colour: unknown setting"),
        (
            {"stages": [{**GOOD_SWISS, "series": {"format": "best_of", "target": 2}}]},
            "Stage 1, series length: must be odd for a best-of series, not 2",
        ),
        ({"stages": []}, "Stages: a tournament needs at least one stage"),
        (
            {"stages": [GOOD_SWISS], "rules": {"deck_size": 24, "hand_size": 7}},
            "Rules, hand size: for 4 players with 7 cards each, the 36-card deck is needed",
        ),
        ({"stages": [GOOD_SWISS], "currency": "xyz"}, "Currency: must be an ISO 4217 code"),
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
def test_a_name_of_the_longest_length_gets_a_slug_and_a_draw_seed_that_fit() -> None:
    # given a name of 120 Cyrillic letters, whose transliterated slug is longer than a seed may be
    name = ("Чемпионат" * 14)[:120]
    tournament = services.tournament_create(name=name, stages=[GOOD_SWISS])
    tournament.refresh_from_db()
    # then it is stored (PostgreSQL refused the seed, the slug cut to 64, with a DataError)
    assert tournament.name == name
    assert len(tournament.slug) > 64 and tournament.seed == tournament.slug[:64]


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


# --- the schema ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "path", "complaint"),
    [
        ({"name": ""}, "name", "must not be blank"),
        ({"name": "я" * 161}, "name", "must be at most 160 characters"),
        ({"rules": ["variant"]}, "rules", "must be an object, not list"),
        ({"rules": {"teams": [[0, 2], [1, 3]]}}, "rules.teams", "set per table"),
        ({"team_size": 4}, "team_size", "must be one of 1, 2, 3, not 4"),
        ({"max_entries": 1}, "max_entries", "must be at least 2"),
        ({"check_in_required": "maybe"}, "check_in_required", "must be yes or no (true or false)"),
        ({"late_registration_rounds": -1}, "late_registration_rounds", "must be at least 0"),
        ({"currency": "ZZZ"}, "currency", "must be an ISO 4217 code"),
        ({"entry_fee": "сто"}, "entry_fee", "must be a number"),
        ({"entry_fee": "10.0001"}, "entry_fee", "at most 3 decimal places"),
        ({"guarantee": -1}, "guarantee", "must not be negative"),
        ({"reentry_fee": "NaN"}, "reentry_fee", "must be a number"),
        ({"rake_percent": "100.01"}, "rake_percent", "the rake is a percentage from 0 to 100"),
        ({"payout_structure": "50,50"}, "payout_structure", "must be a list, not str"),
        ({"payout_structure": ["60", "140"]}, "payout_structure[1]", "must be at most 100"),
        ({"move_clock_seconds": 1.5}, "move_clock_seconds", "must be a whole number"),
        ({"is_public": None}, "is_public", "must not be empty"),
        ({"seed": "s" * 65}, "seed", "must be at most 64 characters"),
        ({"stages": None}, "stages", "must not be empty"),
        ({"stages": {"format": "swiss"}}, "stages", "must be a list of stages, not dict"),
        ({"stages": [GOOD_SWISS, "swiss"]}, "stages[1]", "must be an object, not str"),
        (stage(name="я" * 81), "stages[0].name", "must be at most 80 characters"),
        (stage(format="chess"), "stages[0].format", "must be one of swiss, round_robin, knockout"),
        (stage(table_size=1), "stages[0].table_size", "must be 2 to 6"),
        (stage(table_size=True), "stages[0].table_size", "must be a whole number"),
        (stage(rounds=0), "stages[0].rounds", "must be at least 1"),
        (stage(rounds=None), "stages[0].rounds", "a swiss stage needs its number of rounds"),
        (stage(format="round_robin"), "stages[0].groups", "a round-robin stage needs"),
        (stage(format="knockout"), "stages[0].advance_per_table", "how many of each table"),
        (stage(groups="two"), "stages[0].groups", "must be a whole number"),
        (stage(advance={"top": 0}), "stages[0].advance.top", "must be at least 1"),
        (stage(advance={"top": 4, "per_table": 1}), "stages[0].advance", "not both"),
        (stage(advance=[4]), "stages[0].advance", "must be an object, not list"),
        (
            stage(series={"format": "best_of", "target": 4}),
            "stages[0].series.target",
            "must be odd for a best-of series, not 4",
        ),
        (stage(series={"format": "bo3"}), "stages[0].series.format", "must be one of single"),
        (stage(series={"target": 0}), "stages[0].series.target", "must be at least 1"),
        (
            stage(scoring={"tables": {"4": [3, 2, 1.5, 0]}}),
            "stages[0].scoring.tables.4[2]",
            "must be exact",
        ),
        (
            stage(scoring={"tables": {"four": [3, 2, 1, 0]}}),
            "stages[0].scoring.tables.four",
            "a table size is a whole number",
        ),
        (stage(scoring={"bye_points": "-1"}), "stages[0].scoring.bye_points", "not be negative"),
        (stage(scoring=[3, 2, 1, 0]), "stages[0].scoring", "must be an object, not list"),
        (stage(tiebreaks=["elo"]), "stages[0].tiebreaks[0]", "must be one of points"),
        (stage(tiebreaks=["buchholz", "buchholz"]), "stages[0].tiebreaks", "listed twice"),
    ],
)
def test_each_invalid_field_is_named_by_its_path(
    change: dict[str, Any], path: str, complaint: str
) -> None:
    # given a good plan with one bad field; when the schema alone validates it (no database)
    plan = TournamentPlanSerializer(data={**PLAN, **change})
    # then the only error is on that field, in the message (the field in words) and in the
    # field errors (the field by its keys)
    assert not plan.is_valid()
    message = error_message(plan.errors)
    assert message.startswith(f"{field_label(keys(path))}: ") and complaint in message
    assert "; " not in message
    complaints = at_path(error_fields(plan.errors), path)
    if isinstance(complaints, dict):  # an object's own error (not one of its fields')
        complaints = complaints["non_field_errors"]
    assert any(complaint in text for text in complaints)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"colour": "red"}, "colour"),
        ({"league": 1}, "league"),
        (stage(colour="red"), "stages[0].colour"),
        (stage(advance={"top": 2, "bottom": 1}), "stages[0].advance.bottom"),
        (stage(series={"format": "first_to", "target": 5, "points": 5}), "stages[0].series.points"),
        (stage(scoring={"tables": {}, "bye": 1}), "stages[0].scoring.bye"),
    ],
)
def test_unknown_keys_are_refused(change: dict[str, Any], path: str) -> None:
    plan = TournamentPlanSerializer(data={**PLAN, **change})
    assert not plan.is_valid()
    assert error_message(plan.errors).startswith(f"{field_label(keys(path))}: unknown setting")


def test_unknown_keys_are_named_with_the_other_errors() -> None:
    plan = TournamentPlanSerializer(data={**PLAN, **stage(rounds=0, colour="red")})
    assert not plan.is_valid()
    assert error_message(plan.errors) == (
        "Stage 1, rounds: must be at least 1; Stage 1, colour: unknown setting (the settings "
        "are name, format, table_size, rounds, groups, advance_per_table, advance, series, "
        "scoring, tiebreaks)"
    )


FULL_PLAN: dict[str, Any] = {
    "name": "  Кубок Тулы  ",
    "stages": [
        {
            "name": "Отбор",
            "format": "swiss",
            "rounds": "3",
            "advance": {"per_table": 2},
            "series": {"format": "best_of", "target": 3},
            "scoring": {"tables": {"4": [3, 2, "1/2", 0]}, "bye_points": "1.5"},
            "tiebreaks": ["buchholz", "fewest_fools"],
        },
        {"format": "knockout", "advance_per_table": 1, "advance": {}, "series": None},
    ],
    "rules": {"variant": "transfer"},
    "team_size": 2,
    "max_entries": 64,
    "currency": "eur",
    "entry_fee": 10.5,
    "rake_percent": "12.5",
    "payout_structure": ["50", Decimal("30"), 20],
}


def test_the_schema_alone_validates_a_plan_and_fills_its_defaults() -> None:
    # No django_db mark: the schema must not need the database.
    plan = TournamentPlanSerializer(data=FULL_PLAN)
    assert plan.is_valid(), plan.errors
    settings = plan.validated_data
    assert settings["name"] == "Кубок Тулы"
    assert settings["currency"] == "EUR"
    assert settings["entry_fee"] == Decimal("10.5") and settings["guarantee"] == 0
    assert settings["payout_structure"] == [50, 30, 20]
    assert settings["rake_percent"] == Decimal("12.5")
    assert (settings["check_in_required"], settings["is_public"]) == (False, True)
    assert (settings["move_clock_seconds"], settings["late_registration_rounds"]) == (60, 0)
    swiss, knockout = settings["stages"]
    assert swiss == {
        "name": "Отбор",
        "format": "swiss",
        "table_size": 4,  # a 2x2 team table: the default for teams of two
        "rounds": 3,
        "groups": None,
        "advance_per_table": None,
        "advance": {"per_table": 2},
        "series": {"format": "best_of", "target": 3},
        "scoring": {"tables": {"4": [3, 2, "1/2", 0]}, "bye_points": "1.5"},
        "tiebreaks": ["buchholz", "fewest_fools"],
    }
    assert knockout["advance"] is None
    assert knockout["series"] == {"format": "single", "target": 1}
    assert (knockout["scoring"], knockout["tiebreaks"]) == ({}, [])


def test_a_stage_validates_alone() -> None:
    spec = StageSpecSerializer(data={"format": "round_robin", "groups": 2, "table_size": 3})
    assert spec.is_valid(), spec.errors
    assert spec.validated_data["groups"] == 2
    bad = StageSpecSerializer(data={"format": "round_robin", "table_size": 3})
    assert not bad.is_valid()
    assert error_message(bad.errors) == "groups: a round-robin stage needs its number of groups"


def test_a_team_event_of_three_defaults_to_tables_of_six() -> None:
    plan = TournamentPlanSerializer(data={**PLAN, "team_size": 3})
    assert plan.is_valid(), plan.errors
    assert plan.validated_data["stages"][0]["table_size"] == 4  # given, kept
    bare = TournamentPlanSerializer(
        data={"name": "Тройки", "team_size": 3, "stages": [{"format": "swiss", "rounds": 2}]}
    )
    assert bare.is_valid(), bare.errors
    assert bare.validated_data["stages"][0]["table_size"] == 6


def test_validated_data_is_valid_input_again() -> None:
    first = TournamentPlanSerializer(data=FULL_PLAN)
    assert first.is_valid(), first.errors
    again = TournamentPlanSerializer(data=first.validated_data)
    assert again.is_valid(), again.errors
    assert again.validated_data == first.validated_data


@pytest.mark.django_db
def test_a_valid_plan_round_trips_through_the_database() -> None:
    # given a plan, validated by the schema
    schema = TournamentPlanSerializer(data=FULL_PLAN)
    assert schema.is_valid(), schema.errors
    # when it is created, then represented from the stored rows
    tournament = services.tournament_create(**FULL_PLAN)
    stored = TournamentPlanSerializer(Tournament.objects.get(pk=tournament.pk)).data
    # then the stored plan validates to the same settings (the blank seed became the slug)
    again = TournamentPlanSerializer(data=stored)
    assert again.is_valid(), again.errors
    assert again.validated_data == {**schema.validated_data, "seed": tournament.slug}
    assert stored["stages"][0]["advance"] == {"per_table": 2}
    assert stored["entry_fee"] == "10.500"


@pytest.mark.django_db
def test_validated_data_creates_a_tournament() -> None:
    # The API's way: validate the request, then pass the validated data to the service.
    schema = TournamentPlanSerializer(data=FULL_PLAN)
    assert schema.is_valid(), schema.errors
    tournament = services.tournament_create(**schema.validated_data)
    stages = list(tournament.stages.order_by("order"))
    assert [(s.order, s.format, s.table_size) for s in stages] == [
        (1, "swiss", 4),
        (2, "knockout", 4),
    ]
    assert (stages[0].advance_mode, stages[0].advance_count) == ("top_k_per_table", 2)
    assert (stages[0].series_format, stages[0].series_target) == ("best_of", 3)
    assert stages[1].advance_mode == Stage.AdvanceMode.NONE
    assert tournament.payout_structure == ["50", "30", "20"]
    assert (tournament.currency, tournament.team_size) == ("EUR", 2)


@pytest.mark.django_db
def test_the_refusal_carries_the_field_errors() -> None:
    good = {"format": "swiss", "table_size": 4, "rounds": 1, "advance": {"top": 8}}
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_create(
            name="Плохой турнир",
            stages=[good, good, {**good, "series": {"format": "best_of", "target": 2}}],
        )
    assert refused.value.message == (
        "Stage 3, series length: must be odd for a best-of series, not 2"
    )
    assert refused.value.fields == {
        "stages": {2: {"series": {"target": ["must be odd for a best-of series, not 2"]}}}
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({"rules": {"variant": "chukotka"}}, "rules.variant"),
        ({"payout_structure": ["50", "30"]}, "payout_structure"),
        (
            {"stages": [{**GOOD_SWISS, "scoring": {"tables": {"4": [0, 1, 2, 3]}}}]},
            "stages[0].scoring",
        ),
    ],
)
def test_the_deep_checks_name_their_field_too(kwargs: dict[str, Any], path: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_create(**{**PLAN, **kwargs})
    label = field_label(keys(path))
    assert refused.value.message.startswith(f"{label}: ")
    assert at_path(refused.value.fields, path) == [refused.value.message.removeprefix(f"{label}: ")]


@pytest.mark.django_db
def test_a_plan_that_cannot_run_is_refused_on_the_stage_to_blame() -> None:
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_create(**{**PLAN, **stage(advance={"top": 4})})
    assert refused.value.message == (
        "Stage 1, advance: this is the last stage: there is no stage to advance to"
    )
    assert refused.value.fields == {
        "stages": {
            0: {
                "advance": {
                    "non_field_errors": ["this is the last stage: there is no stage to advance to"]
                }
            }
        }
    }


def test_the_schema_doctests_pass() -> None:
    result = doctest.testmod(plan_schema)
    assert result.attempted and not result.failed
