"""The public pages joined up, in a real browser, by links only (issue #20): from a finished
cup's page to a bracket node's replay, back to the bracket, on to a player's profile, and from
there to a game's replay. Then the pages a person looks at: the home page's "Watch now" list,
an open event's countdown and registered players, the replay's header, at 1280x800 and 390x844
(screenshots ``links_<page>_<desktop|phone>.png`` in ``tests/e2e/artifacts/``), none scrolling
sideways, none refused by the site's Content-Security-Policy.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from games.models import Game
from tests.builders import make_tournament, start_live_table
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.models import Table, Tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
KNOCKOUT = [
    {
        "format": "knockout",
        "table_size": 2,
        "advance_per_table": 1,
        "series": {"format": "best_of", "target": 3},
    }
]
# Policy refusals, as the CSP test watches for them.
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline")));
"""


def new_page(browser: Browser, size: str, errors: list[str]) -> Page:
    width, height = SIZES[size]
    page = browser.new_context(
        viewport={"width": width, "height": height}, locale="ru-RU"
    ).new_page()
    page.add_init_script(WATCH)
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return page


def check(page: Page, name: str, size: str, errors: list[str]) -> None:
    """The page does not scroll sideways and broke no policy; its screenshot is saved."""
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at {size}"
    errors.extend(page.evaluate("() => window.__violations"))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"links_{name}_{size}.png"), full_page=True)


def played_cup() -> tuple[Tournament, Game]:
    """A cup of four bots played to the end (semi-finals and a final, best of three) and the
    game that decided its final."""
    cup = make_tournament(
        BotPlayerFactory.create_batch(4, bot_kind="random"),
        stages=KNOCKOUT,
        name="Кубок по ссылкам",
        seed="links-e2e",
    )
    services.tournament_start(tournament=cup)
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.FINISHED
    final = Table.objects.get(round__stage__tournament=cup, round__number=2)
    decider = Game.objects.filter(table=final).order_by("-number").first()
    assert decider is not None
    return cup, decider


def test_a_visitor_goes_round_by_links_from_the_bracket_to_a_replay_and_a_profile(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    # given a cup played to the end
    cup, decider = played_cup()
    errors: list[str] = []

    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        page = new_page(browser, "desktop", errors)
        # when a visitor opens the cup and follows the final's node in the bracket
        page.goto(f"{base}/tournaments/{cup.slug}/")
        final_node = page.locator("#bracket-1 svg g.node a").filter(has_text="Стол 1").last
        final_node.click()
        # then it is the replay of the game that decided the final, named as the bracket names it
        expect(page).to_have_url(re.compile(rf"/games/{decider.pk}/replay/$"))
        expect(page.locator("#rp-place")).to_contain_text("Плей-офф · Финал · Стол 1 · партия")
        # and back to the bracket
        page.locator("#rp-back").click()
        expect(page).to_have_url(re.compile(rf"/tournaments/{cup.slug}/#bracket-1$"))
        expect(page.locator("#bracket-1 svg")).to_be_visible()
        # on to a player's profile from the bracket
        winner = page.locator("#bracket-1 svg g.row.win a").first
        name = (winner.text_content() or "").strip()
        winner.click()
        expect(page).to_have_url(re.compile(r"/players/\d+/$"))
        expect(page.locator("h1")).to_contain_text(name)
        # and from the profile, a game to its replay, named there as the replay names it
        row = (
            page.locator("table.games tbody tr")
            .filter(has=page.locator("a[href$='/replay/']"))
            .first
        )
        listed = row.locator(".game-where").inner_text()
        row.locator("a[href$='/replay/']").click()
        expect(page).to_have_url(re.compile(r"/games/\d+/replay/$"))
        place = page.locator("#rp-place").inner_text()
        assert listed.startswith(place), (listed, place)
    assert errors == []


def test_the_watch_list_an_open_events_countdown_and_a_replays_header_at_two_sizes(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    # given a finished cup, a table being played now, and an event open for registration that
    # starts in a day
    _, decider = played_cup()
    live = start_live_table()
    starts = timezone.now() + timedelta(days=1, hours=2)
    open_event = make_tournament(
        PlayerFactory.create_batch(7),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 2}],
        name="Открытый кубок",
        starts_at=starts,
    )
    errors: list[str] = []

    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        for size in SIZES:
            page = new_page(browser, size, errors)
            # the replay's header
            page.goto(f"{base}/games/{decider.pk}/replay/")
            expect(page.locator("#rp-place")).to_contain_text("Плей-офф · Финал · Стол 1")
            check(page, "replay", size, errors)
            # the home page: the table being played, its players and its place, linked
            page.goto(f"{base}/")
            watch = page.locator(".watch-list")
            expect(watch.locator(f"a[href='/tables/{live.table.pk}/']")).to_be_visible()
            for player in live.players:
                expect(watch).to_contain_text(player.display_name)
            expect(watch).to_contain_text("Тур 1 · Стол 1")
            check(page, "home", size, errors)
            # the open event: its start, a countdown the script keeps ticking, who registered
            page.goto(f"{base}/tournaments/{open_event.slug}/")
            countdown = page.locator("#countdown")
            expect(countdown).to_have_text(re.compile(r"через 1 д \d\d:\d\d:\d\d"))
            first = countdown.inner_text()
            expect(countdown).not_to_have_text(first, timeout=3000)
            expect(page.locator("#registered li")).to_have_count(7)
            # the start, in the reader's own time zone (the script's; UTC as served)
            expect(page.locator("#facts time.local-time")).to_have_attribute("data-localised", "1")
            check(page, "open_event", size, errors)
    assert errors == []
