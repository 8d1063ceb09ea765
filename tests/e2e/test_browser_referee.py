"""The referee's controls on the live table page, in real browsers: pause, resume and adjudicate
with a reason, followed by the players' pages; an empty reason is refused on the page itself.
An adjudication starts from empty choices, shows a seat chosen twice and a fool not last at
their selects, marks a withdrawn entry's seat, and is sent only from its confirmation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from games.models import Game, RefereeEvent
from tests.builders import session_cookie, start_live_table
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium, open_table, wait_status
from tournaments.models import Entry, Seat

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


def root_status(page: Page) -> str:
    status: str = page.evaluate("document.getElementById('live').dataset.status")
    return status


def command(page: Page, name: str, reason: str) -> None:
    page.fill("#referee-reason", reason)
    page.click(f"#btn-{name}")


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
def test_a_referee_pauses_resumes_and_adjudicates_from_the_page(
    monkeypatch: pytest.MonkeyPatch, referee: User
) -> None:
    live = start_live_table(referees=[referee])
    # the entry of seat 0's player has withdrawn: the ruling's choices mark it
    Entry.objects.filter(
        pk=Seat.objects.get(table=live.table, player=live.players[0]).entry_id
    ).update(status=Entry.Status.WITHDRAWN)
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
        assert offered(judge) == ["pause", "void"]  # adjudicate waits for a ruling

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
        assert offered(judge) == ["resume", "void"]
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
        assert offered(judge) == ["pause", "void"]  # adjudicate waits for a ruling

        # adjudicate: every choice starts empty, and the button waits until all are made
        names = [p.display_name for p in live.players]
        places = judge.locator("#ruling-places select")
        adjudicate = judge.locator("#btn-adjudicate")
        assert [places.nth(i).input_value() for i in (0, 1)] == ["", ""]
        assert judge.locator("#ruling-fool").input_value() == ""
        assert places.nth(0).locator("option").first.inner_text() == "— выберите —"
        fool_options = judge.locator("#ruling-fool option").all_inner_texts()
        assert fool_options == ["— выберите —", "никто (ничья)", f"{names[0]} (снят)", names[1]]
        assert adjudicate.is_disabled()
        # a seat chosen for a second place is an error at that select, nothing is swapped
        judge.select_option("#ruling-places select[data-place='0']", "1")
        judge.select_option("#ruling-places select[data-place='1']", "1")
        assert [places.nth(i).input_value() for i in (0, 1)] == ["1", "1"]
        twice = "Этот игрок уже занимает другое место"
        assert judge.locator("#ruling-place-error-1").text_content() == twice
        assert judge.locator("#ruling-place-error-0").text_content() == ""
        assert places.nth(1).get_attribute("aria-invalid") == "true"
        assert adjudicate.is_disabled()
        judge.select_option("#ruling-places select[data-place='1']", "0")
        assert judge.locator("#ruling-place-error-1").text_content() == ""
        assert adjudicate.is_disabled()  # the fool is still to be chosen (a draw is a choice)
        # a fool who is not last is an error at the fool's select
        judge.select_option("#ruling-fool", "1")
        fool_error = judge.locator("#ruling-fool-error")
        assert fool_error.text_content() == "Дурак занимает последнее место"
        assert adjudicate.is_disabled()
        judge.select_option("#ruling-fool", "0")
        assert fool_error.text_content() == "" and adjudicate.is_enabled()

        # a click shows what will be written; Back (or Esc) sends nothing
        judge.fill("#referee-reason", "техническое поражение")
        adjudicate.click()
        dialog = judge.locator("#ruling-confirm")
        dialog.wait_for(state="visible")
        assert judge.locator("#ruling-summary").inner_text() == (
            f"1. {names[1]}, 2. {names[0]} (снят); дурак: {names[0]} (снят); "
            "причина: техническое поражение"
        )
        assert judge.evaluate("document.activeElement.id") == "btn-ruling-back"
        if os.environ.get("DURAK_SCREENSHOTS"):
            folder = Path(os.environ["DURAK_SCREENSHOTS"])
            judge.screenshot(path=str(folder / "referee-confirm.png"), full_page=True)
        judge.keyboard.press("Enter")
        dialog.wait_for(state="hidden")
        assert judge.evaluate("document.activeElement.id") == "btn-adjudicate"
        adjudicate.click()
        dialog.wait_for(state="visible")
        judge.keyboard.press("Escape")
        dialog.wait_for(state="hidden")
        assert RefereeEvent.objects.filter(game=live.game).count() == 2
        assert root_status(judge) == "active"
        # Confirm sends it, by the keyboard too
        adjudicate.click()
        judge.locator("#btn-ruling-confirm").focus()
        judge.keyboard.press("Enter")

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
