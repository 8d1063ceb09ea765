"""axe-core (``axe-playwright-python``) on the main pages in chromium, served by a real ASGI
server process: no "serious" or "critical" violation anywhere.

The pages, grouped by the part of the site they belong to (each group is one test, so a group's
failure names its own pages): the front page, a player's profile, the leagues, a league season
and a game's replay; the tournament page; the live table as a spectator sees it; the accounts'
pages (log in, sign up, password reset, the profile form, "my games").

Every violation found (of any impact) is written to ``tests/e2e/artifacts/axe_<group>.json``
with its rule, impact, help URL and the offending elements, for whoever fixes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from playwright.sync_api import Browser

from games.models import Game
from tests.builders import session_cookie, start_live_table
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import BotPlayerFactory, PlayerFactory
from tests.site.test_profiles import played_league
from tournaments import services
from tournaments.models import Player, Tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
#: The impacts that fail the test (axe's scale: minor, moderate, serious, critical).
FAILING = {"serious", "critical"}


@dataclass
class Scene:
    """What the pages show: a league season of bots with a finished tournament, its games
    over, a live table in play, and a human player who can log in."""

    tournament: Tournament
    league_url: str
    bot: Player
    game: Game
    live_table_id: int
    human: User


def build_scene() -> Scene:
    bots = BotPlayerFactory.create_batch(4)
    league = services.league_create(name="Лига доступности", season="2026", actor=None)
    (tournament,) = played_league(bots, 1, league=league)
    game = Game.objects.filter(table__round__stage__tournament=tournament).order_by("pk").first()
    assert game is not None and game.is_over
    live = start_live_table()
    human = PlayerFactory.create(display_name="Анна", club="Клуб", city="Тверь").user
    assert human is not None
    return Scene(
        tournament=tournament,
        league_url=f"/leagues/{league.slug}/2026/",
        bot=bots[0],
        game=game,
        live_table_id=live.table.pk,
        human=human,
    )


def pages(scene: Scene, group: str) -> list[tuple[str, str, bool]]:
    """The ``(name, path, logged in)`` of a group's pages."""
    return {
        "people": [
            ("home", "/", False),
            ("profile", f"/players/{scene.bot.pk}/", False),
            ("leagues", "/leagues/", False),
            ("league", scene.league_url, False),
            ("replay", f"/games/{scene.game.pk}/replay/?step=5", False),
        ],
        "tournament": [("tournament", f"/tournaments/{scene.tournament.slug}/", False)],
        "live-table": [("live table", f"/tables/{scene.live_table_id}/", False)],
        "accounts": [
            ("log in", "/accounts/login/", False),
            ("sign up", "/accounts/signup/", False),
            ("password reset", "/accounts/password-reset/", False),
            ("account profile", "/accounts/profile/", True),
            ("my games", "/me/", True),
        ],
    }[group]


def audit(
    browser: Browser, base: str, path: str, cookie: str | None, *, width: int, height: int
) -> list[dict[str, Any]]:
    """axe's violations on ``path`` at one window size (a logged-in session with ``cookie``)."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU")
    if cookie is not None:
        name, value = cookie.split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": base}])
    page = context.new_page()
    response = page.goto(base + path)
    assert response is not None and response.status == 200, f"{path}: {response}"
    page.wait_for_load_state("networkidle")
    if path.startswith("/tables/"):
        # the live table fills itself over its socket: audit it as a spectator sees it
        page.wait_for_function("() => document.getElementById('live').dataset.version !== ''")
    result = Axe().run(page)
    context.close()
    violations: list[dict[str, Any]] = result.response["violations"]
    return violations


@pytest.fixture
def scene(eager_jobs: None) -> Iterator[Scene]:
    yield build_scene()


@pytest.mark.parametrize("group", ["people", "tournament", "live-table", "accounts"])
def test_no_serious_accessibility_violation(
    group: str, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    found: dict[str, list[dict[str, Any]]] = {}
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        cookie = session_cookie(scene.human)
        for name, path, logged_in in pages(scene, group):
            for size, (width, height) in {"desktop": (1280, 800), "phone": (390, 844)}.items():
                violations = audit(
                    browser,
                    base,
                    path,
                    cookie if logged_in else None,
                    width=width,
                    height=height,
                )
                found[f"{name} ({size})"] = [
                    {
                        "rule": v["id"],
                        "impact": v["impact"],
                        "help": v["help"],
                        "url": v["helpUrl"],
                        "nodes": [n["target"] for n in v["nodes"]][:10],
                        "summary": [n.get("failureSummary", "") for n in v["nodes"]][:3],
                    }
                    for v in violations
                ]
    ARTIFACTS.mkdir(exist_ok=True)
    report = ARTIFACTS / f"axe_{group.replace(' ', '-')}.json"
    report.write_text(json.dumps(found, ensure_ascii=False, indent=2))
    failing = {
        page: [
            f"{v['rule']} ({v['impact']}): {v['help']} at {v['nodes']}"
            for v in violations
            if v["impact"] in FAILING
        ]
        for page, violations in found.items()
    }
    failing = {page: lines for page, lines in failing.items() if lines}
    assert not failing, "serious or critical axe violations (details in {}):\n{}".format(
        report, "\n".join(f"- {page}: {'; '.join(vs)}" for page, vs in failing.items())
    )
