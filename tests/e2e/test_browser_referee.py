"""The referee's controls on the live table page, in real browsers: pause, resume and adjudicate
with a reason, followed by the players' pages; an empty reason is refused on the page itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from games.models import Game, RefereeEvent
from tests.builders import session_cookie, start_live_table
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium, open_table, wait_status

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

# Which referee buttons the page offers (enabled), by command.
OFFERED = """() => [...document.querySelectorAll('#referee button[data-command]')]
  .filter((b) => !b.disabled).map((b) => b.dataset.command).sort()"""


def offered(page: Page) -> list[str]:
    commands: list[str] = page.evaluate(OFFERED)
    return commands


def referee_says(page: Page, text: str) -> None:
    page.wait_for_function(
        "t => document.getElementById('referee-message').textContent.includes(t)", arg=text
    )


def command(page: Page, name: str, reason: str) -> None:
    page.fill("#referee-reason", reason)
    page.click(f"#btn-{name}")


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
def test_a_referee_pauses_resumes_and_adjudicates_from_the_page(
    monkeypatch: pytest.MonkeyPatch, referee: User
) -> None:
    live = start_live_table(referees=[referee])
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        judge = open_table(
            browser,
            address,
            live.table.pk,
            cookie=session_cookie(referee),
            locale="ru-RU",
            errors=errors,
        )
        players = [
            open_table(
                browser,
                address,
                live.table.pk,
                cookie=session_cookie(user),
                locale=lang,
                errors=errors,
            )
            for user, lang in zip(live.users, ("ru-RU", "en-US"), strict=True)
        ]
        judge.wait_for_selector("#referee", state="visible")
        assert judge.locator("#referee-title").inner_text() == "Управление судьи"
        # a referee sees every hand, face up
        assert judge.locator("#opponents .opponent").count() == 2
        assert judge.locator("#opponents .card.back").count() == 0
        assert judge.locator("#opponents .card[data-card]").count() == 12
        for page in players:
            assert page.locator("#referee").count() == 0
        assert offered(judge) == ["adjudicate", "pause", "void"]

        # an empty reason never leaves the page
        judge.fill("#referee-reason", "   ")
        judge.click("#btn-pause")
        referee_says(judge, "Сначала укажите причину")
        assert judge.locator("#referee-message.error").count() == 1
        assert not RefereeEvent.objects.filter(game=live.game).exists()

        # pause: every page shows it, and the referee may now resume only
        command(judge, "pause", "игрок отошёл")
        for page in (judge, *players):
            wait_status(page, "paused")
        referee_says(judge, "Решение записано")
        assert judge.locator("#referee-reason").input_value() == ""
        assert players[0].locator("#game-status").inner_text() == "пауза (судья)"
        assert players[1].locator("#game-status").inner_text() == "paused by the referee"
        assert players[0].locator("#hand .card[data-legal]").count() == 0
        assert offered(judge) == ["adjudicate", "resume", "void"]
        if os.environ.get("DURAK_SCREENSHOTS"):
            folder = Path(os.environ["DURAK_SCREENSHOTS"])
            judge.screenshot(path=str(folder / "referee.png"), full_page=True)

        # the server refuses too, and the page says why: a pause of a paused game
        judge.evaluate("document.getElementById('btn-pause').disabled = false")
        command(judge, "pause", "ещё раз")
        referee_says(judge, "Отказано: Невозможно в текущем состоянии партии")

        command(judge, "resume", "игрок вернулся")
        for page in (judge, *players):
            wait_status(page, "active")
        assert offered(judge) == ["adjudicate", "pause", "void"]

        # adjudicate: naming seat 0 the fool moves it to the last place
        names = [p.display_name for p in live.players]
        judge.select_option("#ruling-fool", "0")
        places = judge.locator("#ruling-places select")
        assert [places.nth(i).input_value() for i in (0, 1)] == ["1", "0"]
        # a fool who is not last is refused on the page
        judge.select_option("#ruling-places select[data-place='0']", "0")
        command(judge, "adjudicate", "техническое поражение")
        referee_says(judge, "Дурак занимает последнее место")
        judge.select_option("#ruling-places select[data-place='1']", "0")
        assert [places.nth(i).input_value() for i in (0, 1)] == ["1", "0"]
        command(judge, "adjudicate", "техническое поражение")

        for page in (judge, *players):
            wait_status(page, "adjudicated")
            page.wait_for_selector("#result", state="visible")
        english = players[1].locator("#result-body").inner_text()
        assert f"1. {names[1]} (you), 2. {names[0]}" in english
        assert f"Fool: {names[0]}" in english
        assert f"Дурак: {names[0]} (вы)" in players[0].locator("#result-body").inner_text()
        assert offered(judge) == []
    assert errors == []

    game = Game.objects.get(pk=live.game.pk)
    assert game.status == Game.Status.ADJUDICATED
    assert game.result is not None
    assert (game.result["places"], game.result["fool"]) == ([1, 0], 0)
    reasons = list(
        RefereeEvent.objects.filter(game=game).order_by("pk").values_list("kind", "reason")
    )
    assert reasons == [
        ("pause", "игрок отошёл"),
        ("resume", "игрок вернулся"),
        ("adjudicate", "техническое поражение"),
    ]
