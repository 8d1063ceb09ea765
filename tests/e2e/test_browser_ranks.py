"""The demo's league and a profile with a rank (issue 20) in a real browser, served by a real
ASGI server process, on a phone (390x844): the ranks stand next to the names, in Russian, and
nothing scrolls sideways.

Screenshots go to ``tests/e2e/artifacts/`` (ignored by git): ``ranks_<page>_phone.png``.
"""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from games import engine
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import console_group
from tournaments.management.commands import demo
from tournaments.models import League, RankRecord

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def no_sideways_scroll(page: Page, name: str) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways by {overflow}px"


def test_the_demo_league_and_a_profile_show_ranks_by_the_names_on_a_phone(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    # given: the demo, its deals from a fixed sequence of seeds
    seeds = (f"{n:032x}" for n in itertools.count(1))
    monkeypatch.setattr(engine, "new_seed", lambda: next(seeds))
    for group in ("organiser", "referee"):
        console_group(group)
    call_command("demo", players=8, timeout=60, stdout=io.StringIO())
    league = League.objects.get(name=demo.LEAGUE_NAME, season=demo.LEAGUE_SEASON)
    record = RankRecord.objects.filter(league=league, rank="старшина").select_related("player")
    wearer = record.first()
    assert wearer is not None
    ARTIFACTS.mkdir(exist_ok=True)
    with asgi_server() as address, chromium(monkeypatch) as browser:
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU")
        page = context.new_page()
        # when: a phone opens the league's season
        page.goto(f"http://{address}/leagues/{league.slug}/{league.season}/")
        # then: its table names each player with its rank beside
        row = page.locator("table.league-table th[scope=row]").filter(
            has_text=wearer.player.display_name
        )
        expect(row.locator(".rank")).to_have_text("старшина")
        expect(page.locator("table.league-table .rank", has_text="сержант").first).to_be_visible()
        no_sideways_scroll(page, "the league page")
        page.screenshot(path=str(ARTIFACTS / "ranks_league_phone.png"), full_page=True)
        # when: it follows the старшина's name to the profile
        row.get_by_role("link").click()
        # then: the rank stands by the name in the heading, and in the summary
        expect(page.locator("h1 .rank")).to_have_text("старшина")
        expect(page.locator(".stat", has_text="Звание")).to_contain_text("старшина")
        no_sideways_scroll(page, "the profile")
        page.screenshot(path=str(ARTIFACTS / "ranks_profile_phone.png"), full_page=True)
        context.close()
