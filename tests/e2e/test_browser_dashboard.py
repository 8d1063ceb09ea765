"""An organiser runs an event from its dashboard on a phone (390 × 844): from the tournament list
to the dashboard, then its one button, step by step: open registration, close it, start. The
page is in Russian, has no error, and fits the phone's width.

Screenshots go to ``/tmp/dash-<step>.png``.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, ViewportSize
from pytest_django import Settings

from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.e2e.test_browser_plan import log_in
from tests.factories import PlayerFactory, console_user
from tournaments import services
from tournaments.models import Tournament
from tournaments.permissions import ORGANISER

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

PHONE: ViewportSize = {"width": 390, "height": 844}


def shot(page: Page, step: str) -> None:
    page.screenshot(path=f"/tmp/dash-{step}.png", full_page=True)


def fits_the_phone(page: Page) -> bool:
    """Nothing of the page sticks out to the right: no sideways scrolling."""
    width = page.evaluate("document.documentElement.scrollWidth")
    return bool(width <= PHONE["width"])


def press(page: Page, label: str) -> str:
    """Press the dashboard's one button (``label``) and return the message it comes back with."""
    button = page.locator("#next-button")
    assert button.get_attribute("value") == label
    button.click()
    page.wait_for_selector("ul.messagelist li")
    return page.locator("ul.messagelist li").first.inner_text()


def test_an_organiser_moves_an_event_on_by_its_one_button_on_a_phone(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    organiser = console_user("organiser", ORGANISER)
    tournament = services.tournament_create(
        name="Кубок двора",
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        created_by=organiser,
    )
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="ru-RU", viewport=PHONE, is_mobile=True)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, base, organiser)

        # the tournament list: its name opens the dashboard
        page.goto(f"{base}/admin/tournaments/tournament/")
        page.click("#result_list a:text-is('Кубок двора')")
        page.wait_for_url(re.compile(rf"/admin/tournaments/tournament/{tournament.pk}/dashboard/"))
        assert page.locator("#next-step h2").inner_text() == "Следующий шаг"
        assert "черновик" in page.locator("#next-step p").first.inner_text()
        shot(page, "1-draft")
        assert fits_the_phone(page)

        # open registration; two players register
        said = press(page, "Открыть регистрацию")
        assert said == "Регистрация открыта в 1 турнире."
        for player in PlayerFactory.create_batch(2):
            services.entry_register(tournament=tournament, player=player)
        page.reload()
        assert page.locator("#next-step").get_attribute("data-step") == "close_registration"
        assert "заявлено: 2" in page.locator("#state").inner_text()
        shot(page, "2-registration")
        assert fits_the_phone(page)

        # close registration, then start
        press(page, "Закрыть регистрацию")
        assert page.locator("#next-step").get_attribute("data-step") == "start"
        said = press(page, "Начать турнир")
        assert said == "Начат 1 турнир."
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.RUNNING
        # the round is paired in the server (its jobs run there): it is in play now, and the two
        # players, who have not opened their table, are listed as not connected
        page.reload()
        assert page.locator("#next-step").get_attribute("data-step") == "playing"
        assert page.locator("#absent-players li").count() == 2
        shot(page, "3-running")
        assert fits_the_phone(page)
        # the settings are one click away
        page.click("#pages a:text-is('Настройки')")
        page.wait_for_url(re.compile(rf"/admin/tournaments/tournament/{tournament.pk}/change/"))
        context.close()
    assert errors == []
