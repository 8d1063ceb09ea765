"""The browser tests' reader of Latin-only sentences (``tests.e2e.wording``), without a browser."""

from __future__ import annotations

import doctest

from tests.e2e import wording
from tests.e2e.wording import latin_sentences


def test_its_examples_hold() -> None:
    assert doctest.testmod(wording).failed == 0


def test_an_untranslated_label_message_or_button_is_found() -> None:
    texts = [
        "Pairings to print",
        "Результаты · Enter results",
        "Registration opened in 1 tournament.",
        "Сохранить",
        "Pairings to print",  # once
    ]
    assert latin_sentences(texts) == [
        "Pairings to print",
        "Enter results",
        "Registration opened in 1 tournament",
    ]


def test_proper_names_codes_and_addresses_are_not_sentences() -> None:
    texts = [
        "Импорт игроков из CSV",
        "CSV, UTF-8 or Windows-1251",  # the names of formats: no sentence
        "Взнос: 1 000,00 RUB",
        "QR PDF A4",
        "https://example.org/t/kubok-tuly/ admin@example.org",
        "kubok-vykhodnogo-dnya",
        "score_groups byes_total",
        "ДОБРО ПОЖАЛОВАТЬ, ORGANISER",
        "organiser referee",
    ]
    assert latin_sentences(texts, allowed=frozenset({"organiser", "referee"})) == []
