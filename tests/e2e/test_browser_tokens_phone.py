"""The personal API tokens page on a phone (390×844): a player makes a token with a long name,
sees its key once, whole and copyable, within the screen, then revokes it; the API's index
(``/api/v1/``) is readable at that size too. Screenshots: ``tests/e2e/artifacts/tokens_*.png``."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize

from games.models import ApiToken
from tests.builders import session_cookie
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import UserFactory

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE: ViewportSize = {"width": 390, "height": 844}
# A name as long as the form takes (100), with no space to break at.
LONG_NAME = "Оверлей" + "Ж" * 93

# What sticks out of the screen's width: the page's own width, and every element wider.
OVERFLOW = """() => {
  const width = window.innerWidth;
  const out = [...document.querySelectorAll("body *")]
    .filter((el) => el.checkVisibility())
    .map((el) => [el, el.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.right > width + 1)
    .map(([el, r]) => `${el.tagName.toLowerCase()}.${el.className}: ${Math.round(r.right)}`);
  return {pageWidth: document.documentElement.scrollWidth, width, out};
}"""


def fits(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"tokens_{name}.png"), full_page=True)
    got = page.evaluate(OVERFLOW)
    assert got["pageWidth"] <= got["width"], (name, got)
    assert not got["out"], (name, got["out"])


def test_a_token_is_made_seen_once_and_revoked_on_a_phone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    user = UserFactory.create(username="phone-developer")
    cookie = session_cookie(user)
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(viewport=PHONE, locale="ru-RU", is_mobile=True)
        name, value = cookie.split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": base}])
        page = context.new_page()
        page.goto(f"{base}/accounts/tokens/")
        fits(page, "empty")

        # the form, at the phone's width: a long name, read and write
        page.locator("input[name=name]").fill(LONG_NAME)
        page.locator("input[name=scope][value=write]").check()
        page.locator("form.account-form button[type=submit]").click()
        page.wait_for_selector("#token-created")
        fits(page, "created")

        # the key is shown whole in its box, the box and its copy button on the screen
        token = ApiToken.objects.get(user=user)
        key = page.locator("#token-key").input_value()
        assert key and key.startswith(token.prefix)
        box = page.locator("#token-key").bounding_box()
        copy = page.locator("button[data-copy=token-key]")
        assert copy.is_visible()
        button = copy.bounding_box()
        assert box is not None and button is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert button["x"] + button["width"] <= PHONE["width"]
        # the whole key is visible in the box without scrolling it
        assert page.locator("#token-key").evaluate(
            "(el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight"
        )

        # shown once: the page read again has only its first characters
        page.goto(f"{base}/accounts/tokens/")
        assert page.locator("#token-key").count() == 0
        assert key not in page.content()
        assert page.locator(".token-prefix").first.inner_text().startswith(token.prefix)
        fits(page, "listed")

        # revoked, after the question
        page.locator(".token-revoke").first.click()
        page.wait_for_url("**/revoke/")
        fits(page, "revoke")
        page.locator("form.entry-actions button[type=submit]").click()
        page.wait_for_url(f"{base}/accounts/tokens/")
        assert page.locator(".token-row.revoked").count() == 1
        assert page.locator(".token-revoke").count() == 0
        fits(page, "revoked")
        token.refresh_from_db()
        assert token.revoked_at is not None

        # the API's index, in the same phone's browser
        page.goto(f"{base}/api/v1/")
        fits(page, "api_index")
        context.close()
