"""A plan is refused with every problem at once, each at its field, in the reader's language.

``services.check_plan`` (what ``tournament_create`` runs) and ``validate_plan`` gather the
schema's field errors, each stage's problems, the rules at every table size, the pool and the
payouts into one ``ConfigurationError``; ``plan_words`` writes each in the active language
(Russian plurals through ``ngettext``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django import forms
from django.utils import translation

from tournaments import plan_words, services
from tournaments.errors import ConfigurationError
from tournaments.form_errors import form_error
from tournaments.models import Tournament
from tournaments.pairing.errors import ConfigError
from tournaments.plan_schema import error_lines
from tournaments.services.plans import check_plan

SWISS = {"format": "swiss", "table_size": 4, "rounds": 3}
PLAN: dict[str, Any] = {"name": "Кубок", "stages": [SWISS]}

# Three independent problems: a hand of 40 cards at 4-seat tables of the 36-card deck, a pogony
# minimum of 9 (1 to 4), and payouts adding up to 110.
THREE_ERRORS: dict[str, Any] = {
    **PLAN,
    "rules": {"deck_size": 36, "hand_size": 40, "pogony_min_cards": 9},
    "payout_structure": ["50", "30", "30"],
}


# The three independent problems of one plan (a hand of 40 at a 4-seat table, a pogony minimum
# of 9, payouts adding to 110), as each language words them: the service's, the console's and
# the API's tests all expect them back at once.
THREE_PROBLEMS = pytest.mark.parametrize(
    ("language", "hand", "pogony", "payouts"),
    [
        (
            "en",
            "for 4 players with 40 cards each, 160 cards are needed, more than the largest "
            "deck (52)",
            "must be 1 to 4, not 9",
            "the payout percentages must add up to exactly 100%; now they add up to 110%",
        ),
        (
            "ru",
            "для 4 игроков по 40 карт нужно 160 карт: больше, чем в самой большой колоде (52)",
            "должно быть от 1 до 4, а не 9",
            "доли выплат должны в сумме давать 100 %, сейчас 110 %",
        ),
    ],
)


def refusal(plan: dict[str, Any]) -> ConfigurationError:
    with pytest.raises(ConfigurationError) as refused:
        check_plan(plan)
    return refused.value


@THREE_PROBLEMS
def test_three_independent_problems_come_back_at_once_each_at_its_field(
    language: str, hand: str, pogony: str, payouts: str
) -> None:
    # given a plan with three independent problems; when it is checked in one language
    with translation.override(language):
        refused = refusal(THREE_ERRORS)
    # then all three are in the one refusal, each at its field, the code unchanged
    assert refused.code == "invalid_configuration"
    assert refused.fields == {
        "rules": {"hand_size": [hand], "pogony_min_cards": [pogony]},
        "payout_structure": [payouts],
    }
    # and the message names each field in words, in the same language
    labels = {
        "en": ("Rules, hand size", "Rules, cards for pogony", "Payouts by place (%)"),
        "ru": ("Правила, карт на руках", "Правила, карт для погон", "Выплаты по местам (%)"),
    }[language]
    assert refused.message == "; ".join(
        f"{label}: {text}" for label, text in zip(labels, (hand, pogony, payouts), strict=True)
    )


@pytest.mark.django_db
def test_tournament_create_refuses_the_three_at_once_and_stores_nothing() -> None:
    with translation.override("ru"), pytest.raises(ConfigurationError) as refused:
        services.tournament_create(**THREE_ERRORS)
    assert set(refused.value.fields) == {"rules", "payout_structure"}
    assert set(refused.value.fields["rules"]) == {"hand_size", "pogony_min_cards"}
    assert not Tournament.objects.exists()


def test_the_schemas_errors_and_the_deep_checks_come_back_together() -> None:
    # given a name too long (the schema) and payouts adding up to 90 (the pool)
    plan = {**PLAN, "name": "я" * 161, "payout_structure": ["50", "40"], "entry_fee": "-1"}
    refused = refusal(plan)
    # then both schema errors and the payouts are refused at once
    assert set(refused.fields) == {"name", "entry_fee", "payout_structure"}
    assert refused.fields["payout_structure"] == [
        "the payout percentages must add up to exactly 100%; now they add up to 90%"
    ]


def test_each_stage_says_all_its_problems() -> None:
    # given a swiss stage that sends on no one and a knockout letting everyone through, then
    # a third stage after the knockout
    plan = {
        **PLAN,
        "stages": [
            SWISS,
            {"format": "knockout", "table_size": 4, "advance_per_table": 4},
            SWISS,
        ],
    }
    refused = refusal(plan)
    assert refused.fields == {
        "stages": {
            0: {"advance": {"non_field_errors": ["say who advances to stage 2"]}},
            1: {
                "advance_per_table": [
                    "from a table of 4 seats at most 3 go on: otherwise nobody is knocked out"
                ],
                "format": [
                    "a knockout ends with its own final table (its last round is the final), so "
                    "no stage can follow it: make the knockout the last stage"
                ],
            },
        }
    }
    assert refused.message.startswith("Stage 1, advance: say who advances to stage 2; Stage 2")


def test_swiss_then_knockout_then_a_final_table_is_refused_with_the_reason_in_words() -> None:
    # the organiser's plan: swiss, a knockout, then "a separate final table"
    plan = {
        **PLAN,
        "stages": [
            {**SWISS, "advance": {"top": 16}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
            {"format": "round_robin", "table_size": 4, "groups": 1},
        ],
    }
    with translation.override("ru"):
        refused = refusal(plan)
    assert refused.fields == {
        "stages": {
            1: {
                "format": [
                    "плей-офф заканчивается своим финальным столом (его последний тур — это "
                    "финал), поэтому после него этапов быть не может: сделайте плей-офф "
                    "последним этапом"
                ]
            }
        }
    }


@pytest.mark.parametrize(
    ("entries", "words"),
    [
        (1, "в этапе всего 1 участник"),
        (2, "в этапе всего 2 участника"),
        (5, "в этапе всего 5 участников"),
        (21, "в этапе всего 21 участник"),
        (22, "в этапе всего 22 участника"),
        (111, "в этапе всего 111 участников"),
    ],
)
def test_a_count_takes_its_russian_plural_form(entries: int, words: str) -> None:
    problem = ConfigError(
        "",
        stage=1,
        field="advance",
        reason="advance_over_entries",
        params={"top": 64, "entries": entries},
    )
    with translation.override("ru"):
        assert plan_words.stage_problem(problem) == f"дальше должны пройти 64, а {words}"


@pytest.mark.parametrize(
    ("max_entries", "words"),
    [(21, "21 участник"), (22, "22 участника"), (25, "25 участников")],
)
def test_the_plural_form_reaches_the_refusal(max_entries: int, words: str) -> None:
    plan = {
        **PLAN,
        "max_entries": max_entries,
        "stages": [
            {**SWISS, "advance": {"top": 30}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
    }
    with translation.override("ru"):
        refused = refusal(plan)
    assert refused.fields["stages"][0]["advance"]["top"] == [
        f"дальше должны пройти 30, а в этапе всего {words}"
    ]


@pytest.mark.parametrize(
    ("hand", "seats", "words"),
    [
        (7, 6, "для 6 игроков по 7 карт нужна колода из 52 карт"),
        (9, 3, "для 3 игроков по 9 карт нужна колода из 36 карт"),
        (21, 2, "для 2 игроков по 21 карте нужна колода из 52 карт"),
    ],
)
def test_a_hand_too_big_for_the_deck_names_the_deck_it_needs(
    hand: int, seats: int, words: str
) -> None:
    plan = {
        **PLAN,
        "stages": [{"format": "round_robin", "table_size": seats, "groups": 1}],
        "rules": {"deck_size": 24, "hand_size": hand},
    }
    with translation.override("ru"):
        refused = refusal(plan)
    assert refused.fields == {"rules": {"hand_size": [words]}}


# Bad plans of every kind: the schema's fields, the stages, the rules, the scoring, the pool.
BAD_PLANS: list[dict[str, Any]] = [
    {"name": ""},
    {"name": "я" * 161},
    {"stages": []},
    {"stages": None},
    {"stages": {"format": "swiss"}},
    {"stages": [SWISS, "swiss"]},
    {"stages": [{**SWISS, "table_size": 7}]},
    {"stages": [{**SWISS, "rounds": None}]},
    {"stages": [{**SWISS, "rounds": "x"}]},
    {"stages": [{**SWISS, "colour": "red"}]},
    {"stages": [{**SWISS, "format": "chess"}]},
    {"stages": [{"format": "round_robin", "table_size": 4}]},
    {"stages": [{"format": "knockout", "table_size": 4}]},
    {"stages": [{**SWISS, "advance": {"top": 4, "per_table": 1}}]},
    {"stages": [{**SWISS, "series": {"format": "best_of", "target": 2}}]},
    {"stages": [{**SWISS, "scoring": {"tables": {"3": [1, "x", 0]}}}]},
    {"stages": [{**SWISS, "scoring": {"tables": {"4": [3, 2, 1.5, 0]}}}]},
    {"stages": [{**SWISS, "scoring": {"tables": {"4": [0, 1, 2, 3]}}}]},
    {"stages": [{**SWISS, "scoring": {"tables": {"4": [3, 2, 1]}}}]},
    {"stages": [{**SWISS, "scoring": {"bye_points": "-1"}}]},
    {"stages": [{**SWISS, "tiebreaks": ["buchholz", "buchholz"]}]},
    {"stages": [{**SWISS, "tiebreaks": ["elo"]}]},
    {"stages": [{**SWISS, "advance": {"top": 4}}]},
    {"stages": [SWISS, SWISS]},
    {"stages": [{**SWISS, "advance": {"top": 64}}, SWISS], "max_entries": 32},
    {"stages": [{**SWISS, "advance": {"per_table": 4}}, SWISS]},
    {"stages": [{"format": "knockout", "table_size": 4, "advance_per_table": 3}]},
    {"stages": [{"format": "knockout", "table_size": 4, "advance_per_table": 2}, SWISS]},
    {"stages": [{"format": "round_robin", "table_size": 4, "groups": 9}], "max_entries": 10},
    {"stages": [{"format": "swiss", "table_size": 6, "rounds": 2}], "team_size": 2},
    {"rules": ["variant"]},
    {"rules": {"variant": "chukotka"}},
    {"rules": {"players": 4}},
    {"rules": {"colour": "red"}},
    {"rules": {"hand_size": "six"}},
    {"rules": {"hand_size": 0}},
    {"rules": {"deck_size": 24, "hand_size": 7}},
    {"rules": {"pogony_min_cards": 9}},
    {"rules": {"transfer_over_trump": True}},
    {"rules": {"variant": "simple", "throw_in_by": "neighbours"}},
    {"team_size": 4},
    {"max_entries": 1},
    {"check_in_required": "maybe"},
    {"late_registration_rounds": -1},
    {"currency": "xyz"},
    {"entry_fee": "сто"},
    {"entry_fee": "10.0001"},
    {"entry_fee": "10.005"},
    {"guarantee": -1},
    {"rake_percent": "120"},
    {"payout_structure": "50,50"},
    {"payout_structure": ["60", "140"]},
    {"payout_structure": ["50", "30", "30"]},
    {"payout_structure": ["-10", "110"]},
    {"move_clock_seconds": 1.5},
    {"is_public": None},
    {"seed": "s" * 65},
    {"dropout_rule": "never"},
    {"colour": "red"},
]
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


@pytest.mark.parametrize("change", BAD_PLANS, ids=",".join)
def test_no_plan_message_is_latin_only_in_russian(change: dict[str, Any]) -> None:
    # given a bad plan; when it is checked in Russian
    with translation.override("ru"):
        refused = refusal({**PLAN, **change})
    # then every message at its field, and its field's words, are Russian
    lines = error_lines(refused.fields)
    assert lines
    for _path, message in lines:
        assert CYRILLIC.search(message), message
    for part in refused.message.split("; "):
        assert CYRILLIC.search(part), part


def test_a_form_shows_nested_errors_after_the_part_they_are_about() -> None:
    # the admin's settings form has one box for the rules: each option's error is named in it
    class Settings(forms.Form):
        rules = forms.JSONField(required=False)
        payout_structure = forms.JSONField(required=False)

    refused = refusal(THREE_ERRORS)
    form = Settings(data={"rules": "{}", "payout_structure": "[]"})
    assert form.is_valid()
    form_error(form, refused)
    assert form.errors["rules"] == [
        "Hand size: for 4 players with 40 cards each, 160 cards are needed, more than the "
        "largest deck (52)",
        "Cards for pogony: must be 1 to 4, not 9",
    ]
    assert form.errors["payout_structure"] == [
        "the payout percentages must add up to exactly 100%; now they add up to 110%"
    ]
