"""Issue #21's "done means", in a real browser: an ordinary organiser, the console in Russian,
runs an event start to finish as a guided workflow.

- a three-stage plan (swiss → swiss → knockout: a knockout is always the last stage) sent first
  with three independent mistakes, all three shown at their fields in one submit, then fixed and
  saved with bots for every empty seat: the new event's dashboard;
- twelve players from a CSV file (a BOM, semicolons) through the import page, then the
  dashboard's one button: open registration, close it, start; the bots play every round to the
  end with no action per round from the organiser, and the dashboard says it is over;
- an over-the-board round of another event (no bots): its pairing list and result slips printed
  to A4 PDF, its results typed into the grid with the keyboard;
- on every page visited, no sentence in Latin letters only (``tests.e2e.wording``).

The organiser's clicks are counted and printed: every click and key that moves on (links
included), and among them the submits, which change something or are refused.
Print screenshots go to ``/tmp/flow-*.png``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page
from pytest_django import Settings

from tests.e2e.conftest import CHROMIUM, asgi_server, chromium, printed
from tests.e2e.test_browser_dashboard import press
from tests.e2e.test_browser_plan import log_in, stage_field
from tests.e2e.wording import latin_on
from tests.factories import console_user
from tests.site.test_console_paper import hall_round
from tournaments.models import AuditEvent, Entry, Round, Stage, Table, TableResult, Tournament
from tournaments.permissions import ORGANISER

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

CLUBS = ["Тула", "Спартак", "Заря"]
#: A spreadsheet's export: a byte-order mark, Russian headers, semicolons.
CSV = "\ufeffИмя;Клуб;Рейтинг\n" + "".join(
    f"Участник {n:02d};{CLUBS[n % 3]};{1500 + 10 * n}\n" for n in range(1, 13)
)
FINISH_TIMEOUT = 90  # seconds: four rounds of bots' games, with a real worker in CI


class Organiser:
    """The organiser's browser: its clicks counted, each page it lands on read for Latin-only
    sentences (collected by address, asserted at the end so that one run lists them all)."""

    def __init__(self, page: Page, base: str, user: User) -> None:
        self.page, self.base = page, base
        self.clicks = 0  # every click, choice of a file and key pressed to move on
        self.submits = 0  # the clicks that post: a change, or its refusal
        self.allowed = frozenset({user.get_username()})
        self.latin: dict[str, list[str]] = {}

    def read(self) -> None:
        found = latin_on(self.page, self.allowed)
        if found:
            path = self.page.url.removeprefix(self.base)
            self.latin.setdefault(path, []).extend(
                s for s in found if s not in self.latin.get(path, [])
            )

    def go(self, path: str) -> Page:
        self.page.goto(f"{self.base}{path}")
        self.read()
        return self.page

    def click(self, selector: str, *, submit: bool = False) -> None:
        self.clicks += 1
        self.submits += submit
        self.page.click(selector)

    def step(self, label: str) -> str:
        """The dashboard's one button."""
        self.clicks += 1
        self.submits += 1
        said = press(self.page, label)
        self.read()
        return said

    def key(self, key: str, *, submit: bool = False) -> None:
        self.clicks += 1
        self.submits += submit
        self.page.keyboard.press(key)


def plan_with_three_mistakes(me: Organiser) -> None:
    """The add form: swiss (4 seats, top 8) → swiss (top 4) → a knockout final table; a hand of
    40 at 4-seat tables, a pogony minimum of 9, payouts adding up to 110."""
    page = me.page
    page.fill("[name='name']", "Кубок выходного дня")
    page.fill("[name='entry_fee']", "1000")
    page.fill("[name='payout_structure']", "50, 30, 30")
    page.fill("[name='rules-hand_size']", "40")
    page.fill("[name='rules-pogony_min_cards']", "9")
    page.fill("[name='move_clock_seconds']", "0")
    page.select_option("[name='absent_bots']", Tournament.AbsentBots.EMPTY.value)
    for row, (format_, advance) in enumerate([("swiss", "8"), ("swiss", "4"), ("knockout", "1")]):
        if row:
            me.click("#add-stage")
        page.select_option(stage_field(row, "format"), format_)
        page.select_option(stage_field(row, "table_size"), "4")
        if format_ == "swiss":
            page.fill(stage_field(row, "rounds"), "1")
            page.select_option(stage_field(row, "advance_rule"), "top")
            page.fill(stage_field(row, "advance_count"), advance)
        else:
            page.fill(stage_field(row, "advance_per_table"), advance)


def test_an_organiser_runs_an_event_to_its_end_in_russian(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, tmp_path: Path, eager_jobs: None
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    organiser = console_user("organiser", ORGANISER)
    assert not organiser.is_superuser
    players_csv = tmp_path / "участники.csv"
    players_csv.write_bytes(CSV.encode("utf-8"))
    # the over-the-board event of part 4, made before the browser's event loop runs in this thread
    round_ = hall_round(organiser, [])
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="ru-RU", viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, base, organiser)
        me = Organiser(page, base, organiser)
        me.read()

        # 1. the plan, in one form: three mistakes shown at once, at their fields, in Russian
        me.go("/admin/tournaments/tournament/")
        me.click(".object-tools a.addlink")
        page.wait_for_selector("#add-stage")
        me.read()
        plan_with_three_mistakes(me)
        me.click("input[name='_save']", submit=True)
        page.wait_for_selector("p.errornote")
        me.read()
        assert "нужно 160 карт" in page.locator(".form-row.field-hand_size .errorlist").inner_text()
        assert "от 1 до 4, а не 9" in page.inner_text(".form-row.field-pogony_min_cards .errorlist")
        assert "сейчас 110 %" in page.inner_text(".form-row.field-payout_structure .errorlist")
        assert page.locator("ul.errorlist").count() == 3
        page.screenshot(path="/tmp/flow-plan-errors.png", full_page=True)
        assert not Tournament.objects.filter(name="Кубок выходного дня").exists()
        page.fill("[name='rules-hand_size']", "6")
        page.fill("[name='rules-pogony_min_cards']", "1")
        page.fill("[name='payout_structure']", "50, 30, 20")
        assert page.input_value("[name='absent_bots']") == "empty"  # kept through the refusal
        assert page.inner_text("label[for='id_absent_bots']").startswith(
            "Боты играют за отсутствующих"
        )
        me.click("input[name='_save']", submit=True)
        page.wait_for_url(re.compile(r"/admin/tournaments/tournament/\d+/dashboard/"))
        me.read()
        tournament = Tournament.objects.get(name="Кубок выходного дня")
        assert tournament.absent_bots == Tournament.AbsentBots.EMPTY
        assert [(s.format, s.advance_count) for s in tournament.stages.order_by("order")] == [
            (Stage.Format.SWISS, 8),
            (Stage.Format.SWISS, 4),
            (Stage.Format.KNOCKOUT, 0),
        ]
        dashboard = page.url.removeprefix(base)

        # 2. registration: open it, import the file, close it, start
        assert me.step("Открыть регистрацию") == "Регистрация открыта в 1 турнире."
        me.click("#pages a:text-is('Импорт игроков из CSV')")
        page.wait_for_selector("input[type=file]")
        me.read()
        me.clicks += 1  # choosing the file
        page.set_input_files("input[type=file]", str(players_csv))
        me.click("input[type=submit].default", submit=True)
        page.wait_for_selector("input[name='rows']", state="attached")
        me.read()
        assert "Участник 12" in page.inner_text("#content")
        me.click("input[type=submit].default", submit=True)
        page.wait_for_selector("ul.messagelist li.success")
        me.read()
        assert Entry.objects.filter(tournament=tournament).count() == 12
        assert page.url == f"{base}{dashboard}"  # back where the import was opened
        assert "заявлено: 12" in page.inner_text("#state")
        me.step("Закрыть регистрацию")
        assert me.step("Начать турнир") == "Начат 1 турнир."

        # 3. the bots play every round; the organiser only watches the dashboard
        waited = 0.0
        while page.locator("#next-step").get_attribute("data-step") != "finished":
            step = page.locator("#next-step").get_attribute("data-step")
            assert step == "playing", page.inner_text("#next-step")
            if waited > FINISH_TIMEOUT:
                pytest.fail(f"not finished after {FINISH_TIMEOUT} s: {page.inner_text('#state')}")
            page.wait_for_timeout(1000)
            waited += 1
            page.reload()
        print(f"\nthe bots played the event to its end in {waited:.0f} s")
        me.read()
        assert "Турнир завершён." in page.inner_text("#next-step")
        # twelve entries: eight went no further than a swiss stage, four played the final
        assert "выбыли: 8" in page.inner_text("#state")
        page.screenshot(path="/tmp/flow-finished.png", full_page=True)
        # its settings (each locked, saying why) and its progress page, from the dashboard
        me.click("#pages a:text-is('Настройки')")
        page.wait_for_selector("#tournament_form")
        me.read()
        me.clicks += 1  # back
        me.go(dashboard)
        me.click("#pages a:text-is('Ход турнира')")
        page.wait_for_url(re.compile(r"/progress/$"))
        me.read()
        # and every other page the dashboard links, read for words
        me.go(dashboard)
        for href in page.eval_on_selector_all("#pages a", "links => links.map(a => a.href)"):
            me.go(href.removeprefix(base))
        me.go(f"/admin/tournaments/tournament/{tournament.pk}/progress/")
        winner = Entry.objects.get(tournament=tournament, final_place=1)
        assert winner.name in page.inner_text("#content")
        run_clicks, run_submits = me.clicks, me.submits
        # every round was paired and played with nothing from the organiser
        rounds = Round.objects.filter(stage__tournament=tournament)
        assert rounds.count() == 3 and not rounds.exclude(status=Round.Status.FINISHED).exists()
        assert sorted(
            AuditEvent.objects.filter(tournament=tournament, actor=organiser).values_list(
                "action", flat=True
            )
        ) == sorted(
            [AuditEvent.Action.TOURNAMENT_CREATE, AuditEvent.Action.TOURNAMENT_OPEN]
            + [AuditEvent.Action.ENTRY_REGISTER] * 12
            + [AuditEvent.Action.TOURNAMENT_CLOSE, AuditEvent.Action.TOURNAMENT_START]
        )

        # 4. another event, over the board: a round's paper, then its results by keyboard
        admin = f"/admin/tournaments/round/{round_.pk}"
        me.go(f"{admin}/change/")
        me.clicks += 1
        page.get_by_role("link", name="Рассадка для печати").click()
        page.wait_for_selector("table")
        me.read()
        assert printed(page, "/tmp/flow-pairings.png") == 2
        text = page.evaluate("() => document.querySelector('main').innerText")
        assert "Рассадка по столам" in text and "Рассадка по фамилиям" in text
        for table in Table.objects.filter(round=round_):
            for seat in table.seats.select_related("player"):
                assert len(re.findall(rf"{re.escape(seat.player.display_name)}(?!\d)", text)) == 2
        page.emulate_media(media="screen")
        me.go(f"{admin}/slips/")
        assert printed(page, "/tmp/flow-slips.png") == 2
        for table in Table.objects.filter(round=round_):
            slip = page.locator(f'article.slip[data-table="{table.number}"]').inner_text()
            assert all(s.player.display_name in slip for s in table.seats.all())
        page.emulate_media(media="screen")
        me.go(f"{admin}/results/")
        first = Table.objects.filter(round=round_).order_by("number")[0]
        while page.evaluate("() => document.activeElement.name") != f"t{first.pk}-seat_1":
            page.keyboard.press("Tab")
        for row in range(1, 5):
            for place in ("1", "2", "3"):
                page.keyboard.type(place)
                me.key("Enter")
            me.key("Enter", submit=row == 4)  # past the draw box; on the last row it saves
        page.locator(".messagelist").wait_for()
        me.read()
        assert "Сохранено 4 результата" in page.inner_text(".messagelist")
        page.screenshot(path="/tmp/flow-grid.png", full_page=True)
        # the running event's own pages, read for words: its dashboard and what it links, its
        # referees, the round's projector, a table's result page
        hall = round_.stage.tournament_id
        me.go(f"/admin/tournaments/tournament/{hall}/dashboard/")
        for href in page.eval_on_selector_all("#pages a", "links => links.map(a => a.href)"):
            me.go(href.removeprefix(base))
        me.go(f"/admin/tournaments/tournament/{hall}/referees/")
        me.go("/admin/tournaments/tournament/staff/")
        me.go(f"{admin}/projector/")
        me.go(f"/admin/tournaments/table/{first.pk}/result/")
        context.close()

    print(
        f"\norganiser's clicks: {run_clicks} to run the event ({run_submits} of them submits), "
        f"{me.clicks} with the paper and the grid ({me.submits} submits)"
    )
    assert TableResult.objects.filter(table__round=round_, entered_by=organiser).count() == 4
    assert me.latin == {}
    assert errors == []
