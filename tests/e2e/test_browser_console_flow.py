"""A whole event run from the console in a real browser, nothing from code.

An organiser logs in, creates a two-stage tournament in the plan form (a swiss qualifier of 4-seat
tables over two rounds, the top 4 to a knockout final table), assigns two referees, opens
registration, imports 16 players from a CSV file, closes registration and starts. The rounds
are paired by the jobs; the organiser gives the seats to bots. A referee corrects a result of
the second round with a reason (the standings change) and enters the last table's result as
played over the board; the final table is given to bots; the tournament finishes and its
progress page shows the places, the payouts and the ranks. With the two-person rule on, every
result a referee enters waits until the other referee confirms it.

Screenshots go to ``tests/e2e/artifacts/``: ``flow_<rule>_<step>.png``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page
from pytest_django import Settings

from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.e2e.test_browser_plan import PASSWORD, stage_field
from tests.factories import console_user
from tournaments import selectors
from tournaments.models import Entry, Payout, RankRecord, Round, Table, TableResult, Tournament
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.selectors.standings import standing_rows

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CLUBS = ["Тула", "Спартак", "Заря", "Нева"]
CSV = "name;club;rating\n" + "".join(
    f"Игрок {n:02d};{CLUBS[n % 4]};{1500 + 10 * n}\n" for n in range(1, 17)
)


class Console:
    """One person's browser session in the console."""

    def __init__(self, browser: Browser, base: str, user: User, shots: str) -> None:
        self.base, self.shots = base, shots
        self.context = browser.new_context(locale="ru-RU", viewport={"width": 1440, "height": 1000})
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(f"{base}/admin/")
        self.page.fill("#id_username", user.get_username())
        self.page.fill("#id_password", PASSWORD)
        self.page.click("input[type=submit]")
        self.page.wait_for_selector("#user-tools")

    def go(self, path: str) -> Page:
        self.page.goto(f"{self.base}{path}")
        return self.page

    def shot(self, step: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"flow_{self.shots}_{step}.png"), full_page=True)

    def action(self, changelist: str, ids: list[int], name: str, reason: str = "") -> None:
        """Select ``ids`` on a list page, run the action ``name`` (giving ``reason`` if asked)
        and check that the console reports success and no error."""
        page = self.go(changelist)
        for pk in ids:
            page.check(f"input[name='_selected_action'][value='{pk}']")
        page.select_option("select[name='action']", name)
        page.click("button[name='index']")
        if reason:
            page.fill("textarea[name='reason']", reason)
            page.click("input[type=submit].default")
        page.wait_for_selector("ul.messagelist")
        assert page.locator("ul.messagelist li.error").count() == 0, page.inner_text(
            "ul.messagelist"
        )

    def result(self, table: Table, order: list[str], reason: str = "") -> None:
        """Enter (or correct) a table's result on its result page: names first out first."""
        page = self.go(f"/admin/tournaments/table/{table.pk}/result/")
        for place, name in enumerate(order, start=1):
            page.select_option(f"select[name='place_{place}']", label=name)
        if reason:
            page.fill("textarea[name='reason']", reason)
        page.click("input[name='enter']")
        page.wait_for_selector("ul.messagelist li.success")

    def confirm(self, table: Table) -> None:
        page = self.go(f"/admin/tournaments/table/{table.pk}/result/")
        page.click("input[name='confirm']")
        page.wait_for_selector("ul.messagelist li.success")


def seated_names(table: Table) -> list[str]:
    return [
        s.player.display_name for s in table.seats.select_related("player").order_by("position")
    ]


def tables_of(tournament: Tournament, stage: int, number: int) -> list[Table]:
    """The tables of round ``number`` of the ``stage``-th stage (from 1), byes left out."""
    return list(
        Table.objects.filter(
            round__stage__tournament=tournament,
            round__stage__order=stage,
            round__number=number,
            is_bye=False,
        ).order_by("number")
    )


def wait_until(condition: Callable[[], object], what: str, page: Page, timeout: float = 60) -> None:
    """Poll the database (the server's jobs run in its own process) until ``condition()``."""
    waited = 0.0
    while not condition():
        if waited >= timeout:
            pytest.fail(f"{what}: not after {timeout} s")
        page.wait_for_timeout(250)
        waited += 0.25


def points_of(tournament: Tournament) -> dict[str, str]:
    stage = tournament.stages.order_by("order")[0]
    names = selectors.entry_names(int(row.entry) for row in standing_rows(stage))
    return {names[int(row.entry)]: str(row.points) for row in standing_rows(stage)}


@pytest.mark.parametrize("two_person", [False, True], ids=["one_referee", "two_person_rule"])
def test_an_organiser_and_referees_run_a_whole_event_from_the_console(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, tmp_path: Path, two_person: bool
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    organiser = console_user("organiser", ORGANISER)
    first_referee = console_user("referee-1", REFEREE)
    second_referee = console_user("referee-2", REFEREE)
    players_csv = tmp_path / "players.csv"
    players_csv.write_text(CSV, encoding="utf-8")
    shots = "two_person" if two_person else "one_referee"
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        boss = Console(browser, base, organiser, shots)

        # the plan, in the form: swiss 4-seat × 2 rounds, top 4 → a knockout final table
        page = boss.go("/admin/tournaments/tournament/add/")
        page.wait_for_selector("#add-stage")
        page.fill("[name='name']", "Кубок консоли")
        page.fill("[name='entry_fee']", "100")
        page.fill("[name='payout_structure']", "50, 30, 20")
        page.fill("[name='move_clock_seconds']", "0")
        if two_person:
            page.check("[name='two_person_rule']")
        page.select_option(stage_field(0, "format"), "swiss")
        page.select_option(stage_field(0, "table_size"), "4")
        page.fill(stage_field(0, "rounds"), "2")
        page.select_option(stage_field(0, "advance_rule"), "top")
        page.fill(stage_field(0, "advance_count"), "4")
        page.click("#add-stage")
        page.select_option(stage_field(1, "format"), "knockout")
        page.select_option(stage_field(1, "table_size"), "4")
        page.fill(stage_field(1, "advance_per_table"), "1")
        page.click("input[name='_save']")
        page.wait_for_url(re.compile(r"/admin/tournaments/tournament/\d+/dashboard/"))
        # its settings, from its dashboard
        page.click("#pages a:text-is('Настройки')")
        page.wait_for_url(re.compile(r"/admin/tournaments/tournament/\d+/change/"))
        tournament = Tournament.objects.get()
        assert tournament.two_person_rule is two_person
        changelist = "/admin/tournaments/tournament/"

        # the referees, on the tournament's page
        for name in ("referee-1", "referee-2"):
            page.select_option("#id_referees_from", label=name)
            page.click("#id_referees_add")
        page.click("input[name='_save']")
        page.wait_for_selector("ul.messagelist li.success")
        assert set(tournament.referees.values_list("username", flat=True)) == {
            "referee-1",
            "referee-2",
        }

        # registration: open, 16 players from a CSV file, close, start
        boss.action(changelist, [tournament.pk], "open_registration")
        page = boss.go(f"/admin/tournaments/tournament/{tournament.pk}/import-players/")
        page.set_input_files("input[type=file]", str(players_csv))
        page.click("input[type=submit].default")
        page.wait_for_selector("input[name='rows']", state="attached")
        boss.shot("1_import_preview")
        page.click("input[type=submit].default")
        page.wait_for_selector("ul.messagelist li.success")
        assert Entry.objects.filter(tournament=tournament).count() == 16
        boss.action(changelist, [tournament.pk], "close_registration")
        boss.action(changelist, [tournament.pk], "start")
        round_1 = Round.objects.get(stage__tournament=tournament, stage__order=1, number=1)
        wait_until(lambda: Table.objects.filter(round=round_1).count() == 4, "round 1 paired", page)

        # round 1: every seat to the bots; they play it, and round 2 is paired
        boss.action("/admin/tournaments/round/", [round_1.pk], "hand_round_to_bots", "демо")
        wait_until(
            lambda: len(tables_of(tournament, 1, 2)) == 4, "round 1 played, round 2 paired", page
        )

        # round 2: three tables to the bots; the fourth is played over the board
        later = tables_of(tournament, 1, 2)
        boss.action(
            f"/admin/tournaments/table/?round__stage__tournament__id__exact={tournament.pk}",
            [t.pk for t in later[:3]],
            "hand_table_to_bots",
            "игроки ушли",
        )
        wait_until(lambda: all(selectors.effective_result(t) for t in later[:3]), "3 tables", page)
        boss.go(f"/admin/tournaments/tournament/{tournament.pk}/progress/")
        boss.shot("2_progress_round_2")

        # a referee corrects a finished table's result with a reason: the standings change
        referee = Console(browser, base, first_referee, shots)
        second = Console(browser, base, second_referee, shots)
        corrected = later[0]
        result = selectors.effective_result(corrected)
        assert result is not None
        names = selectors.entry_names(result.places)
        order = [names[e] for e in result.places]
        before = points_of(tournament)
        fixed = [order[1], order[0], *order[2:]]
        referee.result(corrected, fixed, reason="протокол: первые два перепутаны")
        referee.shot("3_correction_entered")
        if two_person:
            assert points_of(tournament) == before  # pending: nothing changes yet
            second.confirm(corrected)
        after = points_of(tournament)
        assert after != before and after[order[1]] > before[order[1]]
        referee.go(f"/admin/tournaments/table/{corrected.pk}/result/")
        referee.shot("4_correction_history")
        assert TableResult.objects.filter(table=corrected).count() == 2

        # the last table of round 2, over the board; the final table is seated
        board = later[3]
        referee.result(board, seated_names(board))
        if two_person:
            second.confirm(board)
        wait_until(lambda: len(tables_of(tournament, 2, 1)) == 1, "the final seated", page)
        final = tables_of(tournament, 2, 1)[0]
        wait_until(lambda: final.seats.count() == 4, "the final's seats", page)
        boss.action(
            f"/admin/tournaments/table/?round__stage__tournament__id__exact={tournament.pk}",
            [final.pk],
            "hand_table_to_bots",
            "финал ботам",
        )
        wait_until(
            lambda: Tournament.objects.get(pk=tournament.pk).status == "finished",
            "the tournament finished",
            page,
        )
        wait_until(
            lambda: (
                Payout.objects.filter(tournament=tournament).exists()
                and Tournament.objects.get(pk=tournament.pk).ranks_computed_at is not None
            ),
            "payouts and ranks computed",
            page,
            timeout=30,
        )

        # the finish: places, payouts, ranks on the progress page
        page = boss.go(f"/admin/tournaments/tournament/{tournament.pk}/progress/")
        text = page.inner_text("#content")
        winner = Entry.objects.get(tournament=tournament, final_place=1)
        assert winner.name in text
        for payout in Payout.objects.filter(tournament=tournament):
            assert payout.entry.name in text
        for rank in RankRecord.objects.filter(tournament=tournament).select_related("player"):
            assert rank.player.display_name in text
        boss.shot("5_finished")
        for person in (boss, referee, second):
            assert person.errors == []
            person.context.close()
