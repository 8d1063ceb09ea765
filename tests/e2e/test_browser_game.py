"""A whole game in real browsers: two players click their cards on the live table page served by
a real ASGI server process; a spectator's page never holds a hidden card."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from games.engine import GameState
from games.models import Game, GameAction
from tests.builders import LiveTable, session_cookie, start_live_table
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium, open_table, wait_version_change

SUITS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
OVER = {"finished", "adjudicated", "voided"}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

# What a player's page offers, read from the data attributes the page exposes for this.
# A page waiting for its move's answer, or for its socket, offers nothing (its cards are
# aria-disabled, which Playwright's click waits out): the loops wait for the next state.
READ_PAGE = """() => {
  const live = document.getElementById("live");
  const busy = live.dataset.pending === "1"
    || !document.getElementById("connection").className.endsWith("ok");
  const hand = busy ? [] : [...document.querySelectorAll("#hand .card[data-legal]")].map((el) => ({
    card: el.dataset.card, legal: el.dataset.legal.split(" "),
    targets: (el.dataset.targets || "").split(" ").filter(Boolean)}));
  const buttons = busy ? [] : [...document.querySelectorAll(".controls button[data-legal]")]
    .map((b) => b.id);
  return {version: live.dataset.version, status: live.dataset.status, hand, buttons};
}"""


def card_texts(card: str) -> list[str]:
    rank = "10" if card[0] == "T" else card[0]
    return [f'data-card="{card}"', f"{rank}{SUITS[card[1]]}"]


def hidden_cards(game_id: int) -> set[str]:
    """Cards in a hand right now that were never face up (played, or the trump card)."""
    game = Game.objects.get(pk=game_id)
    hands = {c for hand in game.state["hands"] for c in hand}
    public = set()
    for action in GameAction.objects.filter(game=game).values_list("action", flat=True):
        public |= set(action.get("cards", [])) | (
            {action["target"]} if "target" in action else set()
        )
    public.add(GameState.from_dict(game.state).public_json()["trump_card"])
    return hands - public


def assert_spectator_sees_no_hidden_card(page: Page, game_id: int) -> None:
    assert page.locator("#hand .card").count() == 0
    assert page.locator(".mini-hand .card:not(.back)").count() == 0
    html = page.content()
    for card in hidden_cards(game_id):
        for text in card_texts(card):
            assert text not in html, f"the spectator's page shows the hidden {card}"


def choose(offer: dict[str, Any]) -> tuple[str, ...] | None:
    """A legal move: defend, else attack/throw, else pass, else take (as click targets)."""
    for entry in offer["hand"]:
        if "defend" in entry["legal"]:
            return ("defend", entry["targets"][0], entry["card"])
    for entry in offer["hand"]:
        if {"attack", "throw"} & set(entry["legal"]):
            return ("card", entry["card"])
    for button in ("btn-pass", "btn-take"):
        if button in offer["buttons"]:
            return ("button", button)
    return None


def click(page: Page, move: tuple[str, ...]) -> None:
    if move[0] == "defend":
        # The card's top-left corner, as a person clicks it: its middle may lie under a
        # defence card of the table's layout, which Playwright refuses to click through.
        page.click(f'#table .card[data-card="{move[1]}"]', position={"x": 8, "y": 8})
        page.click(f'#hand .card[data-card="{move[2]}"]')
    elif move[0] == "card":
        page.click(f'#hand .card[data-card="{move[1]}"]')
    else:
        page.click(f"#{move[1]}")


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
def test_two_players_play_a_whole_game_by_clicking_and_the_spectator_sees_no_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    live: LiveTable = start_live_table(clock=600)
    cookies = [session_cookie(u) for u in live.users]
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        # one player's browser asks for Russian (the default), the other for English
        pages = [
            open_table(browser, address, live.table.pk, cookie=cookie, locale=locale)
            for cookie, locale in zip(cookies, ("ru-RU", "en-US"), strict=True)
        ]
        spectator = open_table(browser, address, live.table.pk)
        # the first player's page shows the hand the game holds for them: six cards, unless
        # something acted meanwhile (then the message says what)
        game = Game.objects.get(pk=live.game.pk)
        held = bin(GameState.from_dict(game.state).hands[0]).count("1")
        shown = pages[0].locator("#hand .card").count()
        moves = list(GameAction.objects.filter(game=game).values_list("action", flat=True))
        assert shown == held == 6, (shown, held, game.version, moves)
        assert spectator.locator("#live").get_attribute("data-role") == "spectator"
        assert_spectator_sees_no_hidden_card(spectator, live.game.pk)

        steps = 0
        while True:
            offers = [page.evaluate(READ_PAGE) for page in pages]
            if all(o["status"] in OVER for o in offers):
                break
            moves = [choose(o) for o in offers]
            ready = [(s, m) for s, m in enumerate(moves) if m is not None]
            if not ready:  # a state is still on its way: wait for it
                pages[0].wait_for_timeout(50)
                continue
            seat, move = ready[0]
            steps += 1
            assert steps < 300, "the game does not end"
            click(pages[seat], move)
            wait_version_change(pages[seat], offers[seat]["version"])
            if steps == 6 and os.environ.get("DURAK_SCREENSHOTS"):
                folder = Path(os.environ["DURAK_SCREENSHOTS"])
                pages[seat].screenshot(path=str(folder / "mid-player.png"), full_page=True)
                spectator.screenshot(path=str(folder / "mid-spectator.png"), full_page=True)
            if steps % 5 == 0:
                spectator.wait_for_function(
                    "v => document.getElementById('live').dataset.version === v",
                    arg=pages[seat].evaluate("document.getElementById('live').dataset.version"),
                )
                assert_spectator_sees_no_hidden_card(spectator, live.game.pk)

        # the end: the result with the fool, and the seed with its check, on every page
        game = Game.objects.get(pk=live.game.pk)
        assert game.status == Game.Status.FINISHED and steps > 5
        for page in (*pages, spectator):
            page.wait_for_function("() => !document.getElementById('result').hidden")
            assert page.locator("#seed").inner_text() == game.seed
            href = page.locator("#verify-link").get_attribute("href")
            assert href == f"/games/{game.pk}/verify"
        assert game.result is not None
        fool = game.result["fool"]
        result_text = pages[0].locator("#result-body").inner_text()
        if fool is not None:
            assert live.players[fool].display_name in result_text
        assert_spectator_sees_no_hidden_card(spectator, live.game.pk)
        assert pages[0].locator("#log li").count() >= min(steps, 30)
        verify = pages[0].request.get(f"{base}{href}").json()
        assert verify["commitment_ok"] and verify["replay_ok"]
        if os.environ.get("DURAK_SCREENSHOTS"):
            folder = Path(os.environ["DURAK_SCREENSHOTS"])
            pages[0].screenshot(path=str(folder / "player.png"), full_page=True)
            spectator.screenshot(path=str(folder / "spectator.png"), full_page=True)
    assert re.fullmatch(r"[0-9a-f]{64}", game.seed_commitment)
