"""A pairing's compromises are stored as data and worded where they are shown, in the reader's
language (issue 20): the Russian page says "встречаются снова", with Russian plurals."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import Round, Table
from tournaments.pairing.models import Compromise, CompromiseKind
from tournaments.wording import compromise_lines, compromise_text, explanation_words, rank_title

NAMES = {5: "Бот 5", 7: "Бот 7"}


def repeat(times: int) -> dict[str, object]:
    return Compromise(CompromiseKind.REPEAT, (5, 7), times=times).to_json(NAMES)


@pytest.mark.parametrize(
    ("times", "russian", "english"),
    [
        (1, "уже встречались 1 раз)", "met 1 time before)"),
        (2, "уже встречались 2 раза)", "met 2 times before)"),
        (5, "уже встречались 5 раз)", "met 5 times before)"),
        (21, "уже встречались 21 раз)", "met 21 times before)"),
    ],
)
def test_a_repeat_meeting_is_worded_in_the_readers_language_with_its_plural(
    times: int, russian: str, english: str
) -> None:
    with translation.override("ru"):
        assert compromise_text(repeat(times)) == f"Бот 5 и Бот 7 встречаются снова ({russian}"
    with translation.override("en"):
        assert compromise_text(repeat(times)) == f"Бот 5 and Бот 7 meet again ({english}"


def test_every_kind_of_compromise_has_its_russian_words() -> None:
    kinds = [
        Compromise(CompromiseKind.SAME_CLUB, (5, 7), value="Клуб 1"),
        Compromise(CompromiseKind.SAME_TEAM, (5, 7), value="Команда 2"),
        Compromise(CompromiseKind.SEAT_IMBALANCE, (5,), times=2),
        Compromise(CompromiseKind.BYE, (7,), times=1),
    ]
    with translation.override("ru"):
        words = compromise_lines([c.to_json(NAMES) for c in kinds])
    assert words == [
        "Бот 5 и Бот 7 из одного клуба «Клуб 1»",
        "Бот 5 и Бот 7 из одной команды «Команда 2»",
        "Бот 5 снова ходит первым (уже ходил первым 2 раза)",
        "Бот 7 пропускает тур без игры (до этого: 1)",
    ]


def test_a_compromise_stored_in_english_before_is_read_back_and_worded_in_russian() -> None:
    # given: what rounds paired before this change stored (``Compromise.describe``)
    stored = Compromise(CompromiseKind.REPEAT, (5, 7), times=2).describe(NAMES)
    assert stored == "Бот 5 and Бот 7 meet again (met 2 times before)"
    # then: a Russian reader reads it in Russian; a sentence of no known form stays as it is
    with translation.override("ru"):
        assert compromise_lines([stored, "что-то своё"]) == [
            "Бот 5 и Бот 7 встречаются снова (уже встречались 2 раза)",
            "что-то своё",
        ]


def test_a_knockouts_bye_to_a_top_seed_is_worded_too_also_as_stored_before() -> None:
    with translation.override("ru"):
        assert compromise_lines(
            [
                {"kind": "knockout_bye", "names": ["Бот 5"]},
                "Бот 7 goes straight to round 2 (top seed)",
            ]
        ) == [
            "Бот 5 сразу проходит во второй раунд (высокий посев)",
            "Бот 7 сразу проходит во второй раунд (высокий посев)",
        ]


def test_a_rounds_explanation_words_its_compromises_and_byes() -> None:
    info = {
        "algorithm": "swiss",
        "compromises": [repeat(1)],
        "byes": [Compromise(CompromiseKind.BYE, (7,), times=0).to_json(NAMES)],
    }
    with translation.override("ru"):
        lines = [line for _label, found in explanation_words(info) for line in found]
    assert "Бот 5 и Бот 7 встречаются снова (уже встречались 1 раз)" in lines
    assert "Бот 7 пропускает тур без игры (до этого: 0)" in lines


def test_a_rank_is_titled_in_the_readers_language_and_a_leagues_own_as_written() -> None:
    with translation.override("en"):
        assert [rank_title(r) for r in ("сержант", "старшина", "", "ефрейтор")] == [
            "sergeant",
            "sergeant major",
            "",
            "ефрейтор",
        ]
    with translation.override("ru"):
        assert rank_title("старшина") == "старшина"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("language", "words"),
    [("ru", "из одного клуба «Спартак»"), ("en", "share the club “Спартак”")],
)
def test_a_paired_rounds_compromises_reach_the_api_and_the_page_in_the_readers_language(
    language: str, words: str
) -> None:
    # given: four players of one club at one table of a swiss round (paired, not yet played)
    players = PlayerFactory.create_batch(4, club="Спартак")
    swiss = [{"format": "swiss", "table_size": 4, "rounds": 2}]
    tournament = make_tournament(players, stages=swiss)
    services.tournament_start(tournament=tournament)
    round_1 = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_1.pk)
    # then: they are stored as data, not as sentences
    stored = Table.objects.get(round=round_1).compromises
    assert stored and all(c["kind"] == "same_club" for c in stored)
    client = Client(headers={"accept-language": language})
    # and the API's round and the tournament's page word them in the reader's language
    body = client.get(f"/api/v1/tournaments/{tournament.slug}/stages/1/rounds/1/").json()
    assert all(words in c for c in body["explanation"]["compromises"])
    assert all(words in c for c in body["tables"][0]["compromises"])
    page = client.get(f"/tournaments/{tournament.slug}/").content.decode()
    other = {"ru": "share the club", "en": "из одного клуба"}[language]
    assert words in page and other not in page
