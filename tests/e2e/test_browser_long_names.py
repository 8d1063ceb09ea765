"""A display name of 80 letters without a space (the longest a player may choose), and an event
named as long, fit a phone's width on every public page that shows them: the name breaks inside
its box, and no page scrolls sideways (the tables of figures scroll inside their own region).

Screenshots go to ``tests/e2e/artifacts/``: ``long_name_<page>.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from games.models import Game
from tests.api.test_events import finished_event
from tests.builders import TWO_SEATS, make_tournament
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import BotPlayerFactory
from tournaments import services
from tournaments.models import Tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE: ViewportSize = {"width": 390, "height": 844}


def open_page(browser: Browser, url: str) -> Page:
    page = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
    page.goto(url)
    return page


LONG = "Длинноеимябезединогопробела" * 3  # 81 letters, no space: cut to the field's 80


def overflowing(page: Page, selector: str) -> list[str]:
    """The elements of ``selector`` wider than their box, and the page if it scrolls sideways."""
    found: list[str] = page.evaluate(
        """sel => {
          const beyond = (el) => el.getBoundingClientRect().right > window.innerWidth + 1;
          const wide = Array.from(document.querySelectorAll(sel))
            .filter((el) => el.scrollWidth > el.clientWidth + 1 || beyond(el))
            .map((el) => `${sel}: ${el.scrollWidth} > ${el.clientWidth}`);
          const doc = document.documentElement;
          if (doc.scrollWidth > doc.clientWidth) {
            wide.push(`page: ${doc.scrollWidth} > ${doc.clientWidth}`);
          }
          return wide;
        }""",
        selector,
    )
    return found


def test_an_80_letter_name_without_a_space_fits_a_phone(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    # given a player, and an event, whose names are 80 letters without a space
    long_player = BotPlayerFactory.create(display_name=LONG[:80])
    field = [long_player, *BotPlayerFactory.create_batch(15)]
    league = services.league_create(name="Лига", season="2026", actor=None)
    event = finished_event(field, name=LONG[:80] + "Кубок", league=league)
    # and a game of theirs to replay
    pair = [long_player, BotPlayerFactory.create(display_name=LONG[1:81])]
    duel = make_tournament(pair, stages=TWO_SEATS, rules={"deck_size": 24})
    services.tournament_start(tournament=duel)
    game = Game.objects.filter(table__round__stage__tournament=duel).order_by("pk").first()
    assert game is not None and game.status == Game.Status.FINISHED
    assert Tournament.objects.get(pk=event.pk).status == Tournament.Status.FINISHED
    pages = {
        "home": ("/", ".tournament-list a"),
        "tournament": (
            f"/tournaments/{event.slug}/",
            ".event-title h1, .podium-name, #final-places tbody th, .standings tbody th,"
            " .seats .who",
        ),
        "standings_embed": (f"/embed/tournaments/{event.slug}/standings/?stage=1", "tbody th"),
        "profile": (f"/players/{long_player.pk}/", "h1, table.data a"),
        "league": (f"/leagues/{league.slug}/2026/", "table.data tbody th"),
        "replay": (
            f"/games/{game.pk}/replay/",
            ".rp-players, .rp-name, .rp-places li, .rp-box .fool, .rp-moves a",
        ),
    }
    ARTIFACTS.mkdir(exist_ok=True)
    with asgi_server() as address, chromium(monkeypatch) as browser:
        wrong = []
        for name, (path, selector) in pages.items():
            # when it is opened on a phone
            page = open_page(browser, f"http://{address}{path}")
            page.wait_for_load_state("load")
            assert page.locator(selector).count() > 0, name
            page.screenshot(path=str(ARTIFACTS / f"long_name_{name}.png"), full_page=True)
            for part in ("final", "stage-1", "embed"):  # the tournament page's, closer
                if name == "tournament":
                    shot = ARTIFACTS / f"long_name_{name}_{part}.png"
                    page.locator(f"#{part}").screenshot(path=str(shot))
            # then no name is wider than its box and the page does not scroll sideways
            wrong += [f"{name}: {w}" for w in overflowing(page, selector)]
            page.context.close()
        assert not wrong, "\n".join(wrong)
