"""The people pages in a real browser, served by a real ASGI server process: a bot's profile
after three tournaments shows its rating plot; its recent game replays step by step (buttons,
keys, the slider) with the deal verified; the league's season page.

Screenshots at 1280x800 and 390x844 go to ``tests/e2e/artifacts/`` (ignored by git):
``people_<page>_<desktop|phone>.png``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from games.engine import GameState, Rules
from games.models import Game
from games.services.fairness import replay_log
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import BotPlayerFactory
from tests.site.test_profiles import played_league
from tournaments import services
from tournaments.models import Player

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}

READ_BOARD = """() => ({
  step: document.getElementById("replay").dataset.step,
  hands: [...document.querySelectorAll(".rp-seat [data-hand]")].map(
    (hand) => [...hand.querySelectorAll(".card")].map((c) => c.dataset.card).join(" ")).join(" | "),
  table: [...document.querySelectorAll("#rp-table .card")].map((c) => c.dataset.card).join(" "),
  stock: document.getElementById("rp-stock").textContent,
  move: document.getElementById("rp-move").textContent,
})"""


def shoot(browser: Browser, url: str, name: str) -> None:
    """Screenshots of ``url`` at both sizes; the page must not scroll sideways on a phone."""
    ARTIFACTS.mkdir(exist_ok=True)
    for size, (width, height) in SIZES.items():
        context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU")
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at {size}"
        page.screenshot(path=str(ARTIFACTS / f"people_{name}_{size}.png"), full_page=True)
        context.close()


def expected(state: GameState) -> tuple[str, str]:
    """A state's hands and table as :data:`READ_BOARD` reads them off the page."""
    hands = " | ".join(" ".join(state.hand(s)) for s in range(state.setup.n))
    table = " ".join(c for pair in state.table_json() for c in pair.values() if c)
    return hands, table


def board(page: Page) -> dict[str, str]:
    result: dict[str, str] = page.evaluate(READ_BOARD)
    return result


def test_a_profile_plots_the_rating_and_a_game_replays_step_by_step(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    # given eight bots that played three tournaments of a league, every game to its end
    bots = BotPlayerFactory.create_batch(8)
    league = services.league_create(name="Лига ботов", season="2026", actor=None)
    played_league(bots, 3, league=league)
    bot = Player.objects.get(pk=bots[0].pk)
    game = Game.objects.filter(table__seats__player=bot).order_by("-created_at", "-pk").first()
    assert game is not None and game.status == Game.Status.FINISHED
    log = list(game.actions.order_by("seq").values_list("action", flat=True))
    states, ok = replay_log(Rules.from_dict(game.rules), game.seed, game.setup, log)
    assert ok
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        errors: list[str] = []
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))

        # the profile: the plot with a point per tournament and the start, and its data table
        page.goto(f"{base}/players/{bot.pk}/")
        chart = page.locator("svg.chart")
        expect(chart).to_be_visible()
        assert chart.locator("circle.dot.ordinal").count() == 4
        box = chart.bounding_box()
        assert box is not None and box["width"] > 500 and box["height"] > 200
        assert chart.get_attribute("role") == "img"
        page.get_by_text("The rating history as a table").click()
        expect(page.locator("details.pf-data table tbody tr")).to_have_count(4)

        # a recent game's replay, reached from the profile
        page.locator(f'a[href="/games/{game.pk}/replay/"]').first.click()
        page.wait_for_url(f"**/games/{game.pk}/replay/")
        page.wait_for_function("() => document.getElementById('replay').dataset.ready === '1'")
        expect(page.locator("#seed-check")).to_contain_text("Verified")
        expect(page.locator("#replay-check")).to_be_visible()
        start = board(page)
        assert start["step"] == "0" and start["table"] == ""
        seen = [start]
        next_button = page.locator("#rp-next")
        for _ in range(6):
            next_button.click()
            seen.append(board(page))
        assert [s["step"] for s in seen] == [str(i) for i in range(7)]
        # the hands and the table change as the moves are made, exactly as the engine replays
        # them, and each move is named
        for shown in seen:
            assert (shown["hands"], shown["table"]) == expected(states[int(shown["step"])])
        # (a card played changes the board; a pass or a take may leave it as it was)
        played = [a for a in log[:6] if a.get("cards")]
        assert len({(s["hands"], s["table"]) for s in seen}) >= 1 + len(played) >= 2
        assert seen[1]["table"] != ""
        moves = page.locator("#rp-moves li").all_inner_texts()
        assert [s["move"] for s in seen] == [m.strip() for m in moves[:7]]
        assert "?step=6" in page.url
        # the keyboard and the slider
        page.locator("body").press("ArrowLeft")
        assert board(page)["step"] == "5"
        page.locator("#rp-last").focus()
        page.keyboard.press("Home")
        assert board(page)["step"] == "0"
        page.locator("#rp-step").fill(str(game.version))
        end = board(page)
        assert end["step"] == str(game.version)
        assert page.locator("#rp-next").get_attribute("aria-disabled") == "true"
        # the last step is the one the server draws for ?step=last (the script and the
        # page agree)
        page.goto(f"{base}/games/{game.pk}/replay/?step={game.version}")
        page.wait_for_function("() => document.getElementById('replay').dataset.ready === '1'")
        assert board(page) == end
        page.locator("#rp-prev").click()
        assert board(page)["step"] == str(game.version - 1)
        assert errors == []
        context.close()

        shoot(browser, f"{base}/players/{bot.pk}/", "profile")
        shoot(browser, f"{base}/games/{game.pk}/replay/?step=5", "replay")
        shoot(browser, f"{base}/leagues/{league.slug}/2026/", "league")
        shoot(browser, f"{base}/leagues/", "leagues")
        shoot(browser, f"{base}/", "home")


def test_the_replay_works_without_javascript(
    monkeypatch: pytest.MonkeyPatch, eager_jobs: None
) -> None:
    bots = BotPlayerFactory.create_batch(4)
    played_league(bots, 1)
    game = Game.objects.filter(table__seats__player=bots[0]).order_by("pk").first()
    assert game is not None
    with asgi_server() as address, chromium(monkeypatch) as browser:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(f"http://{address}/games/{game.pk}/replay/")
        page.locator("#rp-next").click()
        page.wait_for_url("**/replay/?step=1#board")
        page.locator("#rp-next").click()
        page.wait_for_url("**/replay/?step=2#board")
        expect(page.locator("#rp-position")).to_contain_text("2")
        # a move of the list, and the slider's form
        page.locator('#rp-moves a[href="?step=4#board"]').click()
        page.wait_for_url("**/replay/?step=4#board")
        page.locator("#rp-go").click()
        page.wait_for_url("**/replay/?step=4#board")
        expect(page.locator("#rp-position")).to_have_text(re.compile(r"^\D*4\D"))  # move 4 of N
        context.close()
