"""A round's paper for the hall and its result grid, in a real browser, as a referee who is not a
superuser: the pairing list and the result slips printed to PDF on A4 (the page count each
should have, the print media's text and look), then the round's results entered through the grid
with the keyboard only. Print-media screenshots go to ``/tmp/paper-*.png``."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from tests.builders import session_cookie
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium, printed
from tests.factories import console_user
from tests.site.test_console_paper import hall_round
from tournaments import selectors
from tournaments.models import Round, Table, TableResult
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.selectors.standings import stage_standings
from tournaments.wording import points_text

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

VISIBLE_TEXT = "() => document.querySelector('main').innerText"
TOOLBAR_SHOWN = "() => getComputedStyle(document.querySelector('.toolbar')).display !== 'none'"


def names_by_table(round_: Round) -> dict[int, list[str]]:
    return {
        table.number: [s.player.display_name for s in table.seats.order_by("position")]
        for table in Table.objects.filter(round=round_).order_by("number")
    }


def test_a_referee_prints_the_round_and_enters_its_results_by_keyboard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given a running event of twelve at four tables of three, refereed by a console referee
    organiser = console_user("hall-organiser", ORGANISER)
    referee: User = console_user("hall-referee", REFEREE)
    assert not referee.is_superuser
    round_ = hall_round(organiser, [referee])
    seated = names_by_table(round_)
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="ru-RU", viewport={"width": 1200, "height": 900})
        name, value = session_cookie(referee).split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": base}])
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        admin = f"{base}/admin/tournaments/round/{round_.pk}"

        # the round's page links its paper
        page.goto(f"{admin}/change/")
        for label in ("Рассадка для печати", "Бланки результатов", "Ввести результаты"):
            assert page.get_by_role("link", name=label).count() == 1

        # (a) the pairing list: by table, then by name, a page each
        page.goto(f"{admin}/pairings/")
        assert printed(page, "/tmp/paper-pairings.png") == 2
        assert not page.evaluate(TOOLBAR_SHOWN)
        text = page.evaluate(VISIBLE_TEXT)
        assert "Рассадка по столам" in text and "Рассадка по фамилиям" in text
        for names in seated.values():
            for player in names:
                # once on each list ("Игрок 1" is not "Игрок 10")
                assert len(re.findall(rf"{re.escape(player)}(?!\d)", text)) == 2

        # the slips: four tables, two to a sheet (two pages), or four to one
        page.emulate_media(media="screen")
        page.goto(f"{admin}/slips/")
        assert printed(page, "/tmp/paper-slips.png") == 2
        assert page.locator("article.slip svg").count() == 4
        text = page.evaluate(VISIBLE_TEXT)
        assert "Отсканируйте, чтобы внести результат" in text and "Подпись" in text
        for number, names in seated.items():
            slip = page.locator(f'article.slip[data-table="{number}"]').inner_text()
            assert all(player in slip for player in names)
        page.emulate_media(media="screen")
        page.goto(f"{admin}/slips/?per=4")
        assert printed(page, "/tmp/paper-slips-4.png") == 1

        # the projector, open meanwhile on another screen: nothing finished yet
        projector = context.new_page()
        projector.on("pageerror", lambda error: errors.append(str(error)))
        projector.goto(f"{admin}/projector/")
        projector.locator("#live.on").wait_for(state="attached")  # the feed's socket is open
        assert "Доиграно 0 столов из 4" in projector.locator("#projector-round").inner_text()

        # (b) the grid, keyboard only: Tab into the first box, digits and Enter from there
        page.emulate_media(media="screen")
        page.goto(f"{admin}/results/")
        page.screenshot(path="/tmp/paper-grid-empty.png", full_page=True)
        first = Table.objects.filter(round=round_).order_by("number").first()
        assert first is not None
        while page.evaluate("() => document.activeElement.name") != f"t{first.pk}-seat_1":
            page.keyboard.press("Tab")
        for number in sorted(seated):
            for place in ("2", "1", "3") if number == 1 else ("1", "2", "3"):
                page.keyboard.type(place)
                page.keyboard.press("Enter")
            if number == 2:
                page.keyboard.press("Space")  # table 2: the last two drew
            page.keyboard.press("Enter")  # past the draw box; on the last row it saves
        page.locator(".messagelist").wait_for()
        assert "Сохранено 4 результата" in page.locator(".messagelist").inner_text()
        page.screenshot(path="/tmp/paper-grid.png", full_page=True)
        # the projector follows without a reload (the tournament feed)
        # (the round's last result finishes it and the jobs pair round 2: the screen moves on)
        projector.wait_for_function(
            "t => document.getElementById('projector-round').innerText.includes(t)",
            arg="Тур 2",
            timeout=40_000,  # pairing round 2 and the feed, on a loaded CI machine
        )
        leader = stage_standings(round_.stage)[0]
        first_line = projector.locator("#projector-standings tbody tr").first.inner_text()
        assert leader.name in first_line and points_text(leader.points) in first_line
        projector.screenshot(path="/tmp/paper-projector.png")
    assert errors == []
    results = {r.table.number: r for r in TableResult.objects.filter(table__round=round_)}
    assert sorted(results) == [1, 2, 3, 4]
    assert all(r.entered_by == referee for r in results.values())
    one = list(Table.objects.get(round=round_, number=1).seats.order_by("position"))
    assert results[1].places == [one[1].entry_id, one[0].entry_id, one[2].entry_id]
    assert results[2].fool_entry_id is None and len(results[2].drawn) == 2
    assert selectors.effective_result(Table.objects.get(round=round_, number=3)) is not None
