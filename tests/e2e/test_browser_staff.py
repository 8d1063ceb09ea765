"""An organiser invites a referee from a phone, and the referee accepts from a phone (390×844),
in Russian, in a real browser on a real server: the letter is the one the server sent (its
console e-mail backend writes it to the server's log), the link in it opens the invitation's
page, the referee makes an account there and lands in the console, on its one event.

Screenshots: ``/tmp/staff-<step>.png``.
"""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, ViewportSize
from pytest_django import Settings

from tests.builders import make_tournament
from tests.conftest import ROOT
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.e2e.test_browser_plan import PASSWORD
from tests.factories import console_user
from tournaments.models import Tournament
from tournaments.permissions import ORGANISER, can_manage, can_referee

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

PHONE: ViewportSize = {"width": 390, "height": 844}
NEW_PASSWORD = "судья-Пароль-2026"


def phone(browser: Browser) -> Page:
    context = browser.new_context(locale="ru-RU", viewport=PHONE)
    return context.new_page()


def fits_the_screen(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"))


def sent_letters(address: str) -> list[EmailMessage]:
    """The letters the server at ``address`` has sent (its console backend prints each to its
    log, ``tests.e2e.conftest.asgi_server``'s, between lines of 79 dashes)."""
    log = (ROOT / f".pytest-asgi-{address.rsplit(':', 1)[1]}.log").read_text(encoding="utf-8")
    letters = []
    for block in log.split("-" * 79):
        start = block.find("Content-Type:")
        if start != -1 and "\nTo: " in block:
            raw = block[start:].strip().encode("utf-8")
            parsed = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(parsed, EmailMessage)
            letters.append(parsed)
    return letters


def test_an_organiser_invites_a_referee_who_accepts_on_a_phone(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]  # the server's
    organiser = console_user("phone-organiser", ORGANISER)
    event = make_tournament([], name="Кубок телефона", created_by=organiser)
    other = make_tournament([], name="Чужой кубок", created_by=console_user("other", ORGANISER))
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        # the organiser, logged in on a phone, goes from its event's page to its referees
        page = phone(browser)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/admin/")
        page.fill("#id_username", organiser.get_username())
        page.fill("#id_password", PASSWORD)
        page.click("input[type=submit]")
        page.wait_for_selector("#logout-form", state="attached")
        page.goto(f"{base}/admin/tournaments/tournament/{event.pk}/change/")
        page.get_by_role("link", name="Судьи", exact=True).click()
        page.wait_for_selector("#invite-form")
        assert page.locator("h1").inner_text() == "Судьи турнира Кубок телефона"
        # and invites by e-mail
        page.fill("#id_invite-email", "new.referee@example.com")
        page.get_by_role("button", name="Отправить приглашение").click()
        page.wait_for_selector("#handed")
        page.screenshot(path="/tmp/staff-invite.png", full_page=True)
        assert fits_the_screen(page)
        shown = page.input_value("#handed-link")
        assert "new.referee@example.com" in page.locator("#invitations").inner_text()
        # the letter the server sent, in Russian, carries the same link
        (letter,) = sent_letters(address)
        assert letter["To"] == "new.referee@example.com"
        assert str(letter["Subject"]).strip() == "Приглашение судить: Кубок телефона"
        body = letter.get_content()
        assert "phone-organiser приглашает вас судить эти турниры" in body
        assert shown in body.split()
        # the referee opens it on a phone and makes an account
        referee = phone(browser)
        referee.on("pageerror", lambda error: errors.append(str(error)))
        referee.goto(shown)
        assert "Кубок телефона" in referee.locator("#invitation-tournaments").inner_text()
        assert fits_the_screen(referee)
        referee.screenshot(path="/tmp/staff-accept.png", full_page=True)
        referee.get_by_label("Имя пользователя").fill("new-referee")
        referee.get_by_label("Ваше имя").fill("Анна Судья")
        referee.get_by_label("Пароль", exact=True).fill(NEW_PASSWORD)
        referee.get_by_label("Пароль ещё раз").fill(NEW_PASSWORD)
        referee.get_by_role("button", name="Принять и создать учётную запись").click()
        # then it is in the console, on its one event, and nothing else
        referee.wait_for_selector("#result_list")
        assert "Теперь вы судья: Кубок телефона." in referee.content()
        listed = referee.locator("#result_list").inner_text()
        assert "Кубок телефона" in listed and "Чужой кубок" not in listed
        referee.screenshot(path="/tmp/staff-referee-console.png", full_page=True)
        # the link is spent
        referee.goto(shown)
        assert "Это приглашение уже принято." in referee.locator("#invitation-refusal").inner_text()
        assert errors == []
    user = User.objects.get(username="new-referee")
    event = Tournament.objects.get(pk=event.pk)
    assert can_referee(user, event) and not can_manage(user, event)
    assert not can_referee(user, Tournament.objects.get(pk=other.pk))
    assert user.is_staff and not user.is_superuser
