"""The compiled catalogues (.mo, kept in the tree: CI does not compile) match their .po sources,
and the Russian catalogue, the default language, is complete; the services' refusals speak the
language active where they are raised."""

from __future__ import annotations

import ast
import gettext
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from durak_site.errors import status_name
from tournaments import services
from tournaments.errors import RegistrationError
from tournaments.models import Entry, Tournament

LOCALE = Path(settings.LOCALE_PATHS[0])
CATALOGUES = sorted(LOCALE.glob("*/LC_MESSAGES/django.po"))


def read_po(path: Path) -> dict[str | tuple[str, int], str]:
    """The entries msgfmt compiles (not fuzzy, translated; no header), keyed as ``gettext``
    keys its catalogue: ``msgid``, ``"<msgctxt>\x04<msgid>"`` with a context, and
    ``(msgid, n)`` for each plural form."""
    entries: dict[str | tuple[str, int], str] = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = [line for line in block.splitlines() if line and not line.startswith("#~")]
        if any(line.startswith("#,") and "fuzzy" in line for line in lines):
            continue
        fields: dict[str, str] = {}
        current = None
        for line in lines:
            if line.startswith("#"):
                continue
            if line.startswith('"'):
                assert current is not None, f"{path}: a continuation line without a field"
                fields[current] += ast.literal_eval(line)
                continue
            key, _, value = line.partition(" ")
            current = key
            fields[key] = ast.literal_eval(value)
        if not fields.get("msgid"):
            continue
        key = fields["msgid"]
        if "msgctxt" in fields:
            key = f"{fields['msgctxt']}\x04{key}"
        forms = sorted(k for k in fields if k.startswith("msgstr["))
        if forms:
            if all(fields[k] for k in forms):
                for k in forms:
                    entries[(key, int(k[len("msgstr[") : -1]))] = fields[k]
        elif fields.get("msgstr"):
            entries[key] = fields["msgstr"]
    return entries


def test_there_are_russian_and_english_catalogues() -> None:
    assert {p.parent.parent.name for p in CATALOGUES} >= {"ru", "en"}


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda p: p.parent.parent.name)
def test_each_mo_is_compiled_from_its_po(po: Path) -> None:
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: run manage.py compilemessages"
    with mo.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    catalogue = {
        k: v
        for k, v in compiled._catalog.items()  # type: ignore[attr-defined]
        if k and k != ("", 0)
    }
    assert catalogue == read_po(po), f"{mo} is stale: run manage.py compilemessages"


def test_the_russian_catalogue_is_complete() -> None:
    po = LOCALE / "ru" / "LC_MESSAGES" / "django.po"
    text = po.read_text(encoding="utf-8")
    msgids = text.count("\nmsgid ") - 1  # less the header
    translated = {k[0] if isinstance(k, tuple) else k for k in read_po(po)}
    assert len(translated) == msgids, "a Russian translation is missing or fuzzy"


@pytest.mark.parametrize(
    ("language", "message"),
    [("ru", "для дисквалификации нужна причина"), ("en", "a disqualification needs a reason")],
)
def test_a_services_refusal_is_in_the_language_active_where_it_is_raised(
    language: str, message: str
) -> None:
    with translation.override(language), pytest.raises(RegistrationError) as refused:
        services.entry_disqualify(entry=Entry(), reason=" ")
    # the code stays what clients match on; only the message is translated
    assert (refused.value.code, refused.value.message) == ("registration_refused", message)


def test_a_status_in_a_refusal_is_its_label_in_the_active_language() -> None:
    with translation.override("ru"):
        assert status_name(Tournament.Status, "running") == "идёт"
    with translation.override("en"):
        assert status_name(Tournament.Status, Tournament.Status.RUNNING) == "running"
