"""The console speaks Russian by default and English on request: model and field names, choice
labels and the names of stages, rounds and tables, not only the page chrome."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tournaments.models import Round, Stage, Table

APPS = ("tournaments", "games")


class _Text(HTMLParser):
    """The text a reader sees: no tags, attributes, scripts or styles."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    parser = _Text()
    parser.feed(response.content.decode())
    return " ".join(" ".join(parser.parts).split())


def english_model_names() -> re.Pattern[str]:
    """Every English model name (singular and plural) of the two apps, as whole words."""
    names: set[str] = set()
    with translation.override("en"):
        for label in APPS:
            for model in apps.get_app_config(label).get_models():
                names |= {str(model._meta.verbose_name), str(model._meta.verbose_name_plural)}
    words = sorted(names, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)


@pytest.mark.django_db
def test_the_admin_is_russian_by_default(client: Client, staff_user: User) -> None:
    # given a superuser with no language chosen
    client.force_login(staff_user)

    # when it opens the admin index, the tournaments list and the add page
    index = visible_text(client, reverse("admin:index"))
    changelist = visible_text(client, reverse("admin:tournaments_tournament_changelist"))
    add = visible_text(client, reverse("admin:tournaments_tournament_add"))

    # then model names are Russian, and no English model name is left
    assert "Турниры и лиги" in index and "Турниры" in index and "Партии" in index
    assert "Турниры" in changelist and "Добавить турнир" in changelist
    assert "Добавить турнир" in add and "Название" in add
    english = english_model_names()
    for page in (index, changelist, add):
        assert not english.findall(page), english.findall(page)
        assert "Add " not in page


@pytest.mark.django_db
def test_the_admin_speaks_english_once_chosen(client: Client, staff_user: User) -> None:
    # given a superuser who picks English with the site's language form
    client.force_login(staff_user)
    response = client.post(reverse("set_language"), {"language": "en", "next": "/admin/"})
    assert response.status_code == 302

    # when it opens the admin
    index = visible_text(client, reverse("admin:index"))
    add = visible_text(client, reverse("admin:tournaments_tournament_add"))

    # then it reads English
    assert "Tournaments and leagues" in index and "Tournaments" in index
    assert "Add tournament" in add
    assert "Турнир" not in index


@pytest.mark.django_db
def test_the_language_cookie_alone_chooses_english(client: Client, staff_user: User) -> None:
    client.force_login(staff_user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    changelist = visible_text(client, reverse("admin:tournaments_tournament_changelist"))
    assert "Add tournament" in changelist


def test_stage_round_and_table_names_follow_the_language() -> None:
    stage = Stage(order=1, format=Stage.Format.SWISS)
    knockout = Stage(order=3, format=Stage.Format.KNOCKOUT)
    round_robin = Stage(order=2, format=Stage.Format.ROUND_ROBIN)
    round_ = Round(stage=stage, number=2)
    table = Table(round=round_, number=3)
    with translation.override("ru"):
        assert str(stage) == "Швейцарская система, этап 1"
        assert str(round_robin) == "Круговая система, этап 2"
        assert str(knockout) == "Плей-офф, этап 3"
        assert str(round_) == "Швейцарская система, этап 1, тур 2"
        assert str(table) == "Швейцарская система, этап 1, тур 2, стол 3"
    with translation.override("en"):
        assert str(stage) == "Swiss, stage 1"
        assert str(knockout) == "Knockout, stage 3"
        assert str(table) == "Swiss, stage 1, round 2, table 3"


def test_a_named_stage_keeps_its_name() -> None:
    stage = Stage(order=1, format=Stage.Format.SWISS, name="Отборочный")
    with translation.override("en"):
        assert str(stage) == "Отборочный"


def _labels(model: type[models.Model]) -> list[tuple[str, str]]:
    """(where, text) of each name a page can show for a model: its names, its fields' names and
    help texts, its choice labels."""
    meta = model._meta
    found = [
        (f"{meta.label} name", str(meta.verbose_name)),
        (f"{meta.label} plural", str(meta.verbose_name_plural)),
    ]
    for field in [*meta.fields, *meta.many_to_many]:
        if field.auto_created:
            continue
        where = f"{meta.label}.{field.name}"
        found.append((where, str(field.verbose_name)))
        if field.help_text:
            found.append((f"{where} help", str(field.help_text)))
        found += [(f"{where} = {value}", str(label)) for value, label in field.flatchoices]
    return found


@pytest.mark.parametrize("label", APPS)
def test_every_model_name_field_and_choice_has_a_russian_translation(label: str) -> None:
    models_ = list(apps.get_app_config(label).get_models())
    with translation.override("en"):
        english = [_labels(m) for m in models_]
        app_en = str(apps.get_app_config(label).verbose_name)
    with translation.override("ru"):
        russian = [_labels(m) for m in models_]
        app_ru = str(apps.get_app_config(label).verbose_name)
    assert app_ru != app_en
    untranslated = [
        where
        for en, ru in zip(english, russian, strict=True)
        for (where, en_text), (_, ru_text) in zip(en, ru, strict=True)
        if en_text == ru_text
    ]
    assert not untranslated
