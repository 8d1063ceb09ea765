"""A new player in a real browser: signs up, registers for an open tournament from "my games",
the organiser starts it, the player finds their table on "my games" and plays at the live table
(a bot holds the other seat); then the profile. Served by a real ASGI server process.

Screenshots go to ``tests/e2e/artifacts/`` (ignored by git), each at a desktop (1280x800) and a
phone (390x844) size: ``player_signup_<size>.png``, ``player_my_games_<size>.png`` (seated, with
the link to the table), ``player_profile_<size>.png``, and ``player_table_desktop.png``.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from playwright.sync_api import Browser, BrowserContext, Page

from games.models import Game, GameAction
from tests.builders import make_tournament
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.e2e.test_browser_game import READ_PAGE, choose, click
from tests.factories import BotPlayerFactory
from tournaments import services
from tournaments.models import Entry, Player, Table, Tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PASSWORD = "Pikovaya-Dama-1834"


def shoot(browser: Browser, base: str, path: str, name: str, cookies: list[dict[str, str]]) -> None:
    """``path`` at both sizes, in contexts carrying ``cookies`` (the player's session)."""
    for size, viewport in SIZES.items():
        context = browser.new_context(locale="en-US", viewport=viewport)  # type: ignore[arg-type]
        context.add_cookies(cookies)  # type: ignore[arg-type]
        page = context.new_page()
        page.goto(f"{base}{path}")
        page.screenshot(path=str(ARTIFACTS / f"player_{name}_{size}.png"), full_page=True)
        context.close()


def session(context: BrowserContext) -> list[dict[str, str]]:
    return [
        {"name": c["name"], "value": c["value"], "url": context.pages[0].url}
        for c in context.cookies()
        if c["name"] in ("sessionid", "csrftoken", "django_language")
    ]


def start(tournament: Tournament) -> None:
    """The organiser starts ``tournament``, its jobs run here, in a thread of its own:
    Playwright's event loop runs in the test's thread, and the broadcasts after commit
    (``async_to_sync``) refuse to run beside it."""

    def run() -> None:
        try:
            services.tournament_start(tournament=Tournament.objects.get(pk=tournament.pk))
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(run).result(timeout=60)


def wait_until(page: Page, predicate: str, arg: Any = None, timeout: float = 10.0) -> None:
    """Until the JavaScript function ``predicate`` is true on the page. Polled with
    ``evaluate``: Playwright's ``wait_for_function`` evaluates a string inside the page, which
    the site's Content-Security-Policy (no ``unsafe-eval``) rightly refuses."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(predicate, arg):
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {predicate}")
        page.wait_for_timeout(50)


LIVE_VERSION = "() => document.getElementById('live').dataset.version"


def play_one_move(page: Page) -> None:
    """Wait until the page offers this player a move (the bot may move first), and make it."""
    for _ in range(200):
        offer = page.evaluate(READ_PAGE)
        move = choose(offer)
        if move is not None:
            click(page, move)
            wait_until(page, f"old => ({LIVE_VERSION})() !== old", offer["version"])
            return
        page.wait_for_timeout(50)
    pytest.fail("the table never offered the player a move")


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
def test_a_new_player_signs_up_registers_and_plays_at_their_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given: an open two-seat cup with a bot already entered, and its fee
    bot = BotPlayerFactory.create(display_name="Бот Тузик")
    cup = make_tournament(
        [bot],
        name="Friday cup",
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        rules={"deck_size": 24},
        entry_fee="150",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="en-US", viewport=SIZES["desktop"])  # type: ignore[arg-type]
        page = context.new_page()
        # no script error, and nothing the Content-Security-Policy refuses (logged as errors)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on(
            "console",
            lambda m: (
                errors.append(f"{m.text} {m.location.get('url')}") if m.type == "error" else None
            ),
        )

        # the visitor finds "Sign up" in the header of the front page
        page.goto(f"{base}/")
        page.get_by_role("link", name="Sign up").click()
        page.wait_for_url(f"{base}/accounts/signup/")
        shoot(browser, base, "/accounts/signup/", "signup", [])
        # a mistake first: the two passwords differ; the form says so on the field
        page.get_by_label("Username", exact=True).fill("lena")
        page.get_by_label("Email").fill("lena@example.org")
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Password again").fill("something else")
        page.get_by_label("Display name").fill("Лена Козырева")
        page.get_by_label("City").fill("Казань")
        page.get_by_role("button", name="Create my account").click()
        assert "The two passwords differ." in page.locator(".errorlist").inner_text()
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Password again").fill(PASSWORD)
        page.get_by_role("button", name="Create my account").click()
        page.wait_for_url(f"{base}/me/")
        assert "Welcome, Лена Козырева!" in page.locator(".messages").inner_text()
        player = Player.objects.get(user__username="lena")

        # "my games" offers the open cup with its fee; the player registers
        panel = page.locator(f'.entry-panel[data-tournament="{cup.slug}"]')
        assert "150.00" in panel.inner_text()
        panel.get_by_role("button", name="Register").click()
        page.wait_for_url(f"{base}/me/")
        assert "You are registered for Friday cup." in page.locator(".messages").inner_text()
        entry = Entry.objects.get(tournament=cup, player=player)
        assert entry.status == Entry.Status.REGISTERED

        # the organiser starts it (in the test process): the first round is paired and dealt
        start(cup)
        table = Table.objects.get(round__stage__tournament=cup)
        assert set(table.seats.values_list("player_id", flat=True)) == {player.pk, bot.pk}

        # the player finds their table on "my games"
        page.goto(f"{base}/me/")
        link = page.locator(".seat-now").get_by_role("link", name="Go to table 1")
        assert link.get_attribute("href") == f"/tables/{table.pk}/"
        # the cup's own panel points there too
        in_panel = page.locator(f'.entry-panel[data-tournament="{cup.slug}"] a.button')
        assert in_panel.get_attribute("href") == f"/tables/{table.pk}/"
        assert "Бот Тузик" in page.locator(".seat-now").inner_text()
        cookies = session(context)
        shoot(browser, base, "/me/", "my_games", cookies)
        link.click()
        page.wait_for_url(f"{base}/tables/{table.pk}/")
        wait_until(page, f"() => ({LIVE_VERSION})() !== ''")
        assert page.locator("#live").get_attribute("data-role") == "player"

        # and plays a move there (the bot answers for the other seat)
        play_one_move(page)
        game = Game.objects.get(table=table, number=1)
        seat = game.players.index(player.pk)
        assert GameAction.objects.filter(game=game, seat=seat, kind=GameAction.Kind.PLAYER).exists()
        page.screenshot(path=str(ARTIFACTS / "player_table_desktop.png"), full_page=True)

        # the profile: change the city, the page says it is saved
        page.goto(f"{base}/accounts/profile/")
        page.get_by_label("City").fill("Набережные Челны")
        page.get_by_role("button", name="Save").click()
        assert "Your profile is saved." in page.locator(".messages").inner_text()
        player.refresh_from_db()
        assert player.city == "Набережные Челны"
        shoot(browser, base, "/accounts/profile/", "profile", session(context))
        # the header's language menu switches the page at once (a script of our own origin)
        with page.expect_navigation():
            page.select_option("form.lang select", "ru")
        assert page.locator("html").get_attribute("lang") == "ru"
        assert errors == []
