"""How the console names a model in a sentence: counted ("5 турниров") and as the object of a
verb ("Выберите участника для изменения").

Django's admin puts a model's nominative name into every phrase ("5 турниры", "Выберите
участник"), which reads right in English only. Here the forms come from the catalogue, keyed by
the model's English name, so one entry per model serves every page:

- ``npgettext("counted", "%(count)s tournament", "%(count)s tournaments", n)``: a count with
  the noun in its plural form (Russian has three);
- ``pgettext("accusative", "tournament")``: the name as a verb's object, for Django's own
  "Select %s to change", "Add %s", "Change %s", "View %s".

English needs no entry (the msgids are the English forms). A model without a Russian entry
falls back to Django's wording, never to English words on a Russian page;
``tests/site/test_console_naming.py`` checks that every console model has both.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Model
from django.db.models.options import Options
from django.utils import translation
from django.utils.translation import gettext, npgettext, pgettext

#: Django's titles of a model's pages, by the page's kind (its own msgids, translated by Django).
TITLES = {
    "add": "Add %s",
    "change": "Change %s",
    "view": "View %s",
    "select": "Select %s",
    "select_to_change": "Select %s to change",
    "select_to_view": "Select %s to view",
}


def _meta(model: type[Model] | Model | Options[Any]) -> Options[Any]:
    return model if isinstance(model, Options) else model._meta


def _english(meta: Options[Model]) -> tuple[str, str]:
    """The model's English names (singular, plural): the catalogue's keys."""
    with translation.override(None):
        return str(meta.verbose_name), str(meta.verbose_name_plural)


def _translated(found: str, key: str) -> bool:
    """Whether the catalogue answered (``found`` differs from the English ``key``), or English
    is what the page speaks anyway."""
    return found != key or (translation.get_language() or "en").startswith("en")


def counted(model: type[Model] | Model | Options[Any], count: int) -> str:
    """``count`` objects of ``model``, the noun in the form the number asks for: "1 турнир",
    "2 турнира", "5 турниров" ("5 tournaments" in English).

    >>> from tournaments.models import Tournament
    >>> with translation.override("en"):
    ...     counted(Tournament, 1), counted(Tournament, 21)
    ('1 tournament', '21 tournaments')
    """
    meta = _meta(model)
    one, many = _english(meta)
    singular, plural = f"%(count)s {one}", f"%(count)s {many}"
    found = npgettext("counted", singular, plural, count)
    if not _translated(found, singular if count == 1 else plural):
        # Django's way, in the page's language: better than English.
        name = meta.verbose_name if count == 1 else meta.verbose_name_plural
        return f"{count} {name}"
    return found % {"count": count}


def accusative(model: type[Model] | Model | Options[Any]) -> str:
    """The model's name as a verb's object: "участника", "партию", "турнир"."""
    meta = _meta(model)
    one, _many = _english(meta)
    found = pgettext("accusative", one)
    return found if _translated(found, one) else str(meta.verbose_name)


def page_title(model: type[Model] | Model | Options[Any], kind: str) -> str:
    """The title of a page of ``model`` (``kind``: a key of :data:`TITLES`), with the model's
    name in the case the phrase asks for: "Выберите участника для изменения"."""
    return gettext(TITLES[kind]) % accusative(model)
