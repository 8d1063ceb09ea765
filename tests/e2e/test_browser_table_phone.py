"""The live table fits one screen: a seated player plays a whole game against a bot at 390×844
(tapping) and at 1280×800 (keyboard only) without ever scrolling; a spectator's phone shows the
same layout, following live; axe finds nothing serious on the seated player's table at either
size. Each state kind is saved as a screenshot in ``tests/e2e/artifacts/table_<size>_<kind>.png``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, Position, WebSocketRoute

from games.models import Game
from tests.builders import TWO_SEATS, make_tournament, session_cookie
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.e2e.test_browser_game import READ_PAGE, choose
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.models import Table

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
OVER = {"finished", "adjudicated", "voided"}
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
# 80 letters without a space: the longest name a player may take must not push the page wider.
LONG_NAME = "Бот" + "Ж" * 77

# Where the parts a player needs sit, and whether the page was ever scrolled.
MEASURE = """() => {
  const box = (selector) => {
    const el = document.querySelector(selector);
    if (!el || !el.checkVisibility()) return null;
    const r = el.getBoundingClientRect();
    return {top: Math.round(r.top), bottom: Math.round(r.bottom),
            left: Math.round(r.left), right: Math.round(r.right)};
  };
  return {
    scrollY: window.scrollY, scrollX: window.scrollX,
    height: window.innerHeight, width: window.innerWidth,
    pageWidth: document.documentElement.scrollWidth,
    hand: box("#hand"), felt: box(".felt"), controls: box(".controls"),
    prompt: box("#prompt"), opponents: box("#opponents"),
  };
}"""

# What kind of moment the player is in, as the page shows it.
KIND = """() => {
  const live = document.getElementById("live");
  if (live.classList.contains("offline-mode")) return "offline";
  if (["finished", "adjudicated", "voided"].includes(live.dataset.status)) return "finished";
  const legal = [...document.querySelectorAll("#hand .card[data-legal]")]
    .flatMap((el) => el.dataset.legal.split(" "));
  const pass = document.querySelector("#btn-pass[data-legal]");
  if (document.querySelector("#opponents .tag.taker") && pass) return "taken";
  if (legal.includes("attack")) return "attacking";
  const take = document.querySelector("#btn-take[data-legal]");
  if (legal.includes("defend") || take) return "defending";
  if (pass) return "throwing";
  return "waiting";
}"""


@dataclass
class BotTable:
    table: Table
    game: Game
    cookie: str
    bot_seat: int


def start_table_against_bot() -> BotTable:
    """A started two-seat cup (24 cards): a person against a bot with the longest name."""
    human = PlayerFactory.create(display_name="Анна Козырева")
    bot = BotPlayerFactory.create(display_name=LONG_NAME)
    cup = make_tournament([human, bot], stages=TWO_SEATS, rules={"deck_size": 24}, entry_fee="0")
    services.tournament_start(tournament=cup)
    table = Table.objects.get(round__stage__tournament=cup)
    game = Game.objects.get(table=table)
    assert human.user is not None
    return BotTable(table, game, session_cookie(human.user), game.players.index(bot.pk))


def open_page(browser: Browser, base: str, path: str, size: str, cookie: str | None) -> Page:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU")
    if cookie is not None:
        name, value = cookie.split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": base}])
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


class Socket:
    """The page's table sockets, passed through to the server, so that a test can cut one or
    hold back the states after the next version (the bot answers within milliseconds: holding
    its answer shows the page waiting for it)."""

    def __init__(self, page: Page) -> None:
        self.routes: list[WebSocketRoute] = []
        self.hold_above: int | None = None
        self.held: list[str | bytes] = []
        page.route_web_socket(re.compile(r".*/ws/tables/.*"), self.route)

    def route(self, page_side: WebSocketRoute) -> None:
        server = page_side.connect_to_server()
        self.routes.append(page_side)

        def from_server(message: str | bytes) -> None:
            if self.hold_above is not None:
                data = json.loads(message)
                if data.get("type") == "state" and data.get("version", 0) > self.hold_above:
                    self.held.append(message)
                    return
            page_side.send(message)

        server.on_message(from_server)

    def hold_after(self, version: int) -> None:
        """Let the states up to ``version`` through, hold those after it."""
        self.hold_above, self.held = version, []

    def release(self) -> None:
        self.hold_above = None
        for message in self.held:
            self.routes[-1].send(message)
        self.held = []

    def cut(self) -> None:
        self.routes[-1].close(code=1001)


def table_cards(page: Page) -> list[str]:
    cards: list[str] = page.evaluate(
        "() => [...document.querySelectorAll('#table .card')].map((el) => el.dataset.card)"
    )
    return cards


def same_board(page: Page, spectator: Page) -> None:
    """Both pages come to show one version of the game, with the same cards on the felt."""
    version = "() => document.getElementById('live').dataset.version"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        seen = page.evaluate(version)
        if spectator.evaluate(version) == seen and page.evaluate(version) == seen:
            assert table_cards(spectator) == table_cards(page)
            return
        page.wait_for_timeout(30)
    pytest.fail("the spectator's page does not follow the game")


def wait_rendered(page: Page) -> None:
    page.wait_for_function("() => document.getElementById('live').dataset.version !== ''")


def assert_fits(page: Page, *, seated: bool = True) -> dict[str, Any]:
    """Everything needed to play lies inside the window, and the page has not scrolled."""
    m: dict[str, Any] = page.evaluate(MEASURE)
    assert m["scrollY"] == 0 and m["scrollX"] == 0, f"the page scrolled: {m}"
    assert m["pageWidth"] <= m["width"], f"something is wider than the window: {m}"
    parts = ("hand", "felt", "controls", "prompt", "opponents") if seated else ("felt", "opponents")
    for part in parts:
        box = m[part]
        assert box is not None, f"{part} is not shown"
        assert box["top"] >= 0 and box["bottom"] <= m["height"], f"{part} off screen: {m}"
        assert box["left"] >= 0 and box["right"] <= m["width"], f"{part} off screen: {m}"
    return m


def shoot(page: Page, size: str, kind: str, shots: dict[str, dict[str, Any]]) -> None:
    """A screenshot of the first moment of each kind, kept only if the page did not change
    while it was taken (the bot answers within milliseconds)."""
    if kind in shots:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    version = "() => document.getElementById('live').dataset.version"
    before = page.evaluate(version)
    if page.evaluate(KIND) != kind:
        return
    page.screenshot(path=str(ARTIFACTS / f"table_{size}_{kind}.png"))
    if page.evaluate(version) == before and page.evaluate(KIND) == kind:
        shots[kind] = page.evaluate(MEASURE) | {"prompt": page.locator("#prompt").inner_text()}


def save_positions(size: str, shots: dict[str, dict[str, Any]]) -> None:
    """Where the parts were in each screenshot, for whoever reads them."""
    path = ARTIFACTS / f"table_{size}_positions.json"
    path.write_text(json.dumps(shots, ensure_ascii=False, indent=1))


def assert_no_serious_axe_violation(page: Page) -> None:
    violations = Axe().run(page).response["violations"]
    serious = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]}"
        for v in violations
        if v["impact"] in {"serious", "critical"}
    ]
    assert not serious, serious


def cut_the_socket(page: Page, socket: Socket, size: str, shots: dict[str, dict[str, Any]]) -> None:
    """The connection drops: a banner says so, every move is off; it comes back by itself."""
    version = page.evaluate("() => document.getElementById('live').dataset.version")
    socket.cut()
    page.wait_for_function("() => !document.getElementById('offline').hidden")
    assert "Связь потеряна" in page.locator("#offline").inner_text()
    assert "Связь потеряна" in page.locator("#prompt").inner_text()
    assert page.locator(".controls button:enabled").count() == 0
    assert page.locator('#hand .card:not([aria-disabled="true"])').count() == 0
    shoot(page, size, "offline", shots)
    page.wait_for_function("() => document.getElementById('connection').className.endsWith('ok')")
    assert "Связь восстановлена" in page.locator("#offline").inner_text()
    assert page.evaluate("() => document.getElementById('live').dataset.version") == version


def check_prompt(page: Page, kind: str) -> None:
    """The words for the moment: who takes, how many may still be thrown in, what to beat."""
    text = page.locator("#prompt").inner_text()
    if kind == "taken":
        assert re.search(r"берёт: (подкиньте ещё до \d+ карт|нажмите «Бито»)", text), text
        assert page.locator("#opponents .tag.taker").inner_text() == "берёт"
    elif kind == "throwing":
        assert re.search(r"всё отбито: (подкиньте ещё до \d+ карт|нажмите «Бито»)", text), text
    elif kind == "defending":
        assert re.search(r"(отбейте|нечем отбить) .+ возьмите", text), text
    elif kind == "attacking":
        assert text.startswith("Ваш ход: выберите карту"), text


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
def test_on_a_phone_a_whole_game_against_a_bot_fits_one_screen_and_a_spectator_follows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given a person against a bot, the person's phone and a spectator's phone
    live = start_table_against_bot()
    shots: dict[str, dict[str, Any]] = {}
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        path = f"/tables/{live.table.pk}/"
        page = open_page(browser, base, path, "phone", live.cookie)
        socket = Socket(page)
        page.goto(base + path)
        wait_rendered(page)
        spectator = open_page(browser, base, path, "phone", None)
        spectator.goto(base + path)
        wait_rendered(spectator)
        assert_no_serious_axe_violation(page)
        # every card says its name in words, in the page's language
        names = page.locator("#hand button.card").evaluate_all(
            "cards => cards.map((c) => c.getAttribute('aria-label'))"
        )
        assert len(names) == 6
        for name in names:
            assert re.fullmatch(
                r"(девятка|десятка|валет|дама|король|туз) (пик|треф|бубен|червей)", name
            )

        # when the person plays the whole game by tapping
        steps, offered = 0, time.monotonic()
        while True:
            offer = page.evaluate(READ_PAGE)
            # then at every moment the hand, the felt and the moves are on the screen
            assert_fits(page)
            kind = page.evaluate(KIND)
            if offer["status"] in OVER:
                shoot(page, "phone", "finished", shots)
                break
            move = choose(offer)
            if move is None:
                assert time.monotonic() - offered < 60, "the page offers no move"
                page.wait_for_timeout(30)
                continue
            offered = time.monotonic()
            check_prompt(page, kind)
            shoot(page, "phone", kind, shots)
            if steps == 2:
                cut_the_socket(page, socket, "phone", shots)
            if steps == 4:
                # the phone turned on its side: still one screen
                page.set_viewport_size({"width": 844, "height": 390})
                page.wait_for_timeout(100)
                assert_fits(page)
                page.screenshot(path=str(ARTIFACTS / "table_landscape.png"))
                page.set_viewport_size({"width": 390, "height": 844})
                page.wait_for_timeout(100)
            if steps % 4 == 3:
                # the spectator's phone follows live: the same version, the same cards on the felt
                same_board(page, spectator)
                assert_fits(spectator, seated=False)
            steps += 1
            assert steps < 200, "the game does not end"
            hold = move[0] == "card" and "waiting" not in shots
            if hold:
                socket.hold_after(int(offer["version"]) + 1)
            tap(page, move)
            page.wait_for_function(
                "v => document.getElementById('live').dataset.version !== v",
                arg=offer["version"],
            )
            waited = False
            if hold:
                # the bot's answer held back: the page waits for the bot, and says so
                if page.evaluate(KIND) == "waiting":
                    words = page.locator("#prompt").inner_text()
                    assert re.match(r"Ждём: Бот|Бот\S* отбивается: можно подкинуть", words), words
                    shoot(page, "phone", "waiting", shots)
                    waited = True
                socket.release()
            if waited:
                # and the bot's answer is read out, its cards in words
                page.wait_for_function(
                    "() => /^Бот\\S* .*(пик|треф|бубен|червей|бито|берёт)/.test("
                    "document.getElementById('announce').textContent)"
                )

        # then the finished table names the fool and leaves no choice prompt behind
        prompt = page.locator("#prompt").inner_text()
        assert prompt.startswith("Партия окончена") and "выберите" not in prompt
        assert page.locator("#message.error").count() == 0
        # and the game just over links to its replay, as a reload would
        game = page.locator("#live").get_attribute("data-game")
        replay = page.locator(f'#replays a[data-game="{game}"]')
        assert replay.get_attribute("href") == f"/games/{game}/replay/"
        # and the spectator's phone shows the same board, all seats in the strip, no hand
        same_board(page, spectator)
        assert_fits(spectator, seated=False)
        assert spectator.locator("#opponents .opponent").count() == 2
        assert spectator.locator("#hand .card").count() == 0
        assert spectator.locator("#log li").count() == page.locator("#log li").count()
        ARTIFACTS.mkdir(exist_ok=True)
        spectator.screenshot(path=str(ARTIFACTS / "table_phone_spectator.png"))

        # a crowded moment: sixteen cards fan out in one row, six pairs fit on the felt
        socket.routes[-1].send(json.dumps(a_crowded_moment(live)))
        page.wait_for_function("() => document.getElementById('live').dataset.version === '999'")
        assert_fits(page)
        rows = page.locator("#hand .card").evaluate_all(
            "cards => new Set(cards.map((c) => Math.round(c.getBoundingClientRect().top))).size"
        )
        assert page.locator("#hand .card").count() == 16 and rows <= 2  # lifted or not
        assert page.locator("#opponents .seat-rank").inner_text() == "мастер"
        # a card that beats two attack cards asks which, then beats the one chosen
        tap(page, ("card", "KD"))
        assert page.locator("#prompt").inner_text().startswith("Ваш ход: теперь выберите")
        page.screenshot(path=str(ARTIFACTS / "table_phone_crowded.png"))
    save_positions("phone", shots)
    assert {"attacking", "defending", "waiting", "finished", "offline"} <= set(shots), sorted(shots)
    assert Game.objects.get(pk=live.game.pk).status == Game.Status.FINISHED


def tap(page: Page, move: tuple[str, ...]) -> None:
    """A move as a thumb makes it: a card by its visible corner (in a fanned hand the next card
    covers the rest of it), an attack card on the felt first when defending."""
    corner: Position = {"x": 8, "y": 12}
    if move[0] == "defend":
        page.click(f'#table .card[data-card="{move[1]}"]', position=corner)
        page.click(f'#hand .card[data-card="{move[2]}"]', position=corner)
    elif move[0] == "card":
        page.click(f'#hand .card[data-card="{move[1]}"]', position=corner)
    else:
        page.click(f"#{move[1]}")


def a_crowded_moment(live: BotTable) -> dict[str, Any]:
    """A state the server could send late in a game: sixteen cards in hand, six on the felt,
    one card that beats two of them, and a rank from the standings by the bot's name."""
    me = 1 - live.bot_seat
    on_table = {"9H", "AH", "9D", "TD", "TC", "KC", "JD", "QD"}
    hand = [r + s for r in "9TJQKA" for s in "SCDH" if r + s not in on_table]
    players = ["Анна", LONG_NAME] if live.bot_seat == 1 else [LONG_NAME, "Анна"]
    ranks = ["", ""]
    ranks[live.bot_seat] = "мастер"
    return {
        "type": "state",
        "game": live.game.pk,
        "number": 1,
        "event": "state",
        "version": 999,
        "status": "active",
        "role": "player",
        "seat": me,
        "players": players,
        "ranks": ranks,
        "view": {
            "finished": False,
            "trump": "S",
            "trump_card": "9S",
            "stock": 0,
            "discard": 0,
            "attacker": live.bot_seat,
            "defender": me,
            "taking": False,
            "table": [
                {"attack": "9H", "defense": "AH"},
                {"attack": "9D", "defense": None},
                {"attack": "TD", "defense": None},
                {"attack": "TC", "defense": "KC"},
                {"attack": "JD", "defense": None},
                {"attack": "QD", "defense": None},
            ],
            "out": [],
            "passed": [],
            "throwers": [live.bot_seat],
            "shown": [],
            "bout": 3,
            "hand": hand,
            "hand_sizes": [len(hand), 3] if me == 0 else [3, len(hand)],
        },
        "legal": [
            {"type": "defend", "cards": ["KD"], "target": "9D"},
            {"type": "defend", "cards": ["KD"], "target": "TD"},
            {"type": "take"},
        ],
        "throw_room": 0,
        "deadline": None,
        "seed_commitment": "0" * 64,
        "seed": None,
        "result": None,
        "log": [],
    }


def focused(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        """() => {
          const el = document.activeElement;
          const hand = [...document.querySelectorAll('#hand button.card')];
          return {zone: el.closest('#hand') ? 'hand' : el.closest('#table') ? 'table' : el.tagName,
                  index: hand.indexOf(el), card: el.dataset ? el.dataset.card || null : null};
        }"""
    )
    return found


def keyboard_move(page: Page, move: tuple[str, ...]) -> None:
    """The move by keys alone: arrows along the hand, Enter; Enter on the table's target when
    the card beats more than one; P and T for pass and take."""
    if move[0] == "button":
        page.keyboard.press({"btn-pass": "p", "btn-take": "t"}[move[1]])
        return
    card = move[2] if move[0] == "defend" else move[1]
    cards = page.evaluate(
        "() => [...document.querySelectorAll('#hand button.card')].map(c => c.dataset.card)"
    )
    at = focused(page)
    assert at["zone"] == "hand", f"the keyboard's place left the hand: {at}"
    steps = cards.index(card) - at["index"]
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
    assert focused(page)["card"] == card
    page.keyboard.press("Enter")
    if move[0] == "defend" and focused(page)["zone"] == "table":
        page.keyboard.press("Enter")  # the first target this card beats


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
def test_on_a_desktop_a_whole_game_against_a_bot_by_keyboard_alone_fits_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given a person against a bot at 1280×800
    live = start_table_against_bot()
    shots: dict[str, dict[str, Any]] = {}
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        path = f"/tables/{live.table.pk}/"
        page = open_page(browser, base, path, "desktop", live.cookie)
        socket = Socket(page)
        page.goto(base + path)
        wait_rendered(page)
        assert_no_serious_axe_violation(page)
        # when the person tabs to the hand (one tab stop for the whole hand)
        for _ in range(40):
            page.keyboard.press("Tab")
            if focused(page)["zone"] == "hand":
                break
        assert focused(page)["zone"] == "hand"
        assert page.locator('#hand button.card[tabindex="0"]').count() == 1
        assert page.locator("#btn-take").get_attribute("aria-keyshortcuts") == "T"

        # and plays the whole game with keys only
        steps, offered = 0, time.monotonic()
        while True:
            offer = page.evaluate(READ_PAGE)
            assert_fits(page)
            kind = page.evaluate(KIND)
            if offer["status"] in OVER:
                shoot(page, "desktop", "finished", shots)
                break
            move = choose(offer)
            if move is None:
                assert time.monotonic() - offered < 60, "the page offers no move"
                page.wait_for_timeout(30)
                continue
            offered = time.monotonic()
            check_prompt(page, kind)
            shoot(page, "desktop", kind, shots)
            if steps == 2:
                cut_the_socket(page, socket, "desktop", shots)
            steps += 1
            assert steps < 200, "the game does not end"
            hold = move[0] == "card" and "waiting" not in shots
            if hold:
                socket.hold_after(int(offer["version"]) + 1)
            keyboard_move(page, move)
            page.wait_for_function(
                "v => document.getElementById('live').dataset.version !== v",
                arg=offer["version"],
            )
            if hold:
                # the bot's answer held back: the page waits for the bot, and says so
                if page.evaluate(KIND) == "waiting":
                    words = page.locator("#prompt").inner_text()
                    assert re.match(r"Ждём: Бот|Бот\S* отбивается: можно подкинуть", words), words
                    shoot(page, "desktop", "waiting", shots)
                socket.release()
            deadline = time.monotonic() + 5
            # the keyboard's place stays in the hand while there is one
            while page.evaluate(READ_PAGE)["status"] == "active" and time.monotonic() < deadline:
                if page.locator("#hand button.card").count() == 0 or focused(page)["zone"] in (
                    "hand",
                    "table",
                ):
                    break
                page.wait_for_timeout(20)

        # then the game is over and its words say so
        assert page.locator("#prompt").inner_text().startswith("Партия окончена")
        assert page.locator("#message.error").count() == 0
    save_positions("desktop", shots)
    assert {"attacking", "defending", "waiting", "finished", "offline"} <= set(shots), sorted(shots)
    assert Game.objects.get(pk=live.game.pk).status == Game.Status.FINISHED
