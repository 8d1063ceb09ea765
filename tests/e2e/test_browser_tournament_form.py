"""A running tournament's change page in a real browser, on a phone (390×844) and a desktop
(1280×800): no horizontal scrolling, the locked settings disabled with why, and the two-person
rule changed and saved (with its audit row). Screenshots: ``/tmp/form-<width>.png`` (the page
as loaded), ``-tournament.png`` and ``-money.png`` (two of its fieldsets) and ``-saved.png``
(after the save)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page
from pytest_django import Settings

from tests.builders import make_tournament
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.e2e.test_browser_plan import log_in
from tests.factories import PlayerFactory, console_user
from tournaments import services
from tournaments.models import AuditEvent, Tournament
from tournaments.permissions import ORGANISER

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]


def page_width(page: Page) -> int:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_a_running_tournaments_settings_fit_the_screen_and_the_two_person_rule_changes(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, width: int, height: int
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    organiser = console_user("organiser", ORGANISER)
    tournament = make_tournament(
        PlayerFactory.create_batch(8),
        stages=[
            {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": 4}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 1},
        ],
        name="Кубок Тулы по подкидному дураку, весенний этап",
        payout_structure=["40", "25", "20", "15"],
        created_by=organiser,
    )
    services.tournament_start(tournament=tournament)
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="ru-RU", viewport={"width": width, "height": height})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, base, organiser)
        page.goto(f"{base}/admin/tournaments/tournament/{tournament.pk}/change/")
        page.wait_for_selector("[name='two_person_rule']")

        # the page fits its screen: nothing to scroll sideways
        assert page_width(page) <= width
        # the payouts in their own box, disabled, with why; the move clock open, with its note
        payouts = page.locator("[name='payout_structure']")
        assert payouts.is_disabled() and payouts.input_value() == "40, 25, 20, 15"
        assert "взносы собраны" in page.locator(".form-row.field-payout_structure").inner_text()
        assert page.locator("[name='move_clock_seconds']").is_enabled()
        assert page.locator("[name='rules-hand_size']").is_disabled()
        page.screenshot(path=f"/tmp/form-{width}.png", full_page=True)
        for part, field in (("tournament", "name"), ("money", "entry_fee")):
            fieldset = page.locator(f"fieldset:has([name='{field}'])")
            fieldset.screenshot(path=f"/tmp/form-{width}-{part}.png")

        # the two-person rule, ticked and saved
        page.check("[name='two_person_rule']")
        page.click("input[name='_save']")
        page.wait_for_url(re.compile(r"/admin/tournaments/tournament/(\d+/change/)?$"))
        assert page.locator("ul.messagelist li.success").count() == 1
        assert page_width(page) <= width
        page.screenshot(path=f"/tmp/form-{width}-saved.png", full_page=True)
        context.close()

    assert Tournament.objects.get(pk=tournament.pk).two_person_rule is True
    [row] = AuditEvent.objects.filter(
        tournament=tournament, action=AuditEvent.Action.TOURNAMENT_EDIT
    )
    assert row.after == {"two_person_rule": True}
    assert errors == []
