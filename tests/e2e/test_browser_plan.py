"""The organiser's stage-plan page in a real browser: log in to the admin, "Add tournament", a
swiss qualifier and a knockout final (the second row through "Add another stage"), a refusal
shown on its field, the preview, then the save that lands on the tournament's change page.

Screenshots go to ``tests/e2e/artifacts/`` (ignored by git): ``plan_form.png`` (the whole page
with the preview), ``plan_form_errors.png`` (with a refusal), close-ups ``plan_stages.png``,
``plan_stages_errors.png`` and ``plan_preview.png``, and ``plan_saved.png`` (the change page).
In Russian: ``plan_ru_three_errors.png`` (three independent problems of one submit, each at its
field) and ``plan_ru_previews.png`` (the preview without an expected number of entries: the
fewest the plan runs with and a few usual sizes).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page
from pytest_django import Settings

from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import console_user
from tournaments.models import AuditEvent, Stage, Tournament
from tournaments.permissions import ORGANISER

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PASSWORD = "pw-for-tests-only"  # tests.factories.UserFactory's


def stage_field(row: int, name: str) -> str:
    return f"[name='stages-{row}-{name}']"


def log_in(page: Page, base: str, user: User) -> None:
    page.goto(f"{base}/admin/")
    page.fill("#id_username", user.get_username())
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#user-tools")


@pytest.mark.slow
def test_an_organiser_plans_previews_and_saves_a_tournament(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    # The server checks the password with its own hashers: the suite's fast one is not among them.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    organiser = console_user("organiser", ORGANISER)
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="en-US", viewport={"width": 1440, "height": 1000})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, base, organiser)

        # "Add tournament" from the admin's tournament list
        page.goto(f"{base}/admin/tournaments/tournament/")
        page.click(".object-tools a.addlink")
        page.wait_for_selector("#add-stage")  # shown by the page's script, once it has run
        assert page.url.endswith("/admin/tournaments/tournament/add/")
        # with the script, one stage row is open and the transfer options wait for their variant
        assert page.locator(".stage-row:visible").count() == 1
        assert page.locator("fieldset.transfer-only").is_hidden()
        page.select_option("[name='rules-variant']", "transfer")
        assert page.locator("fieldset.transfer-only").is_visible()
        page.check("[name='rules-trump_show']")

        page.fill("[name='name']", "Кубок Тулы")
        page.fill("[name='max_entries']", "64")
        page.fill("[name='entry_fee']", "500")
        page.fill("[name='rake_percent']", "10")
        page.fill("[name='payout_structure']", "50, 30, 20")

        # stage 1: a swiss qualifier of two rounds, the top 8 go on
        page.select_option(stage_field(0, "format"), "swiss")
        assert page.locator(f".stage-field.field-groups:has({stage_field(0, 'groups')})").evaluate(
            "cell => cell.classList.contains('unused')"
        )
        page.fill(stage_field(0, "name"), "Отбор")
        page.fill(stage_field(0, "rounds"), "2")
        page.select_option(stage_field(0, "advance_rule"), "top")
        page.fill(stage_field(0, "advance_count"), "8")
        # stage 2, through "Add another stage": a knockout, two of each table go on, best of 2
        page.click("#add-stage")
        assert page.locator(".stage-row:visible").count() == 2
        page.select_option(stage_field(1, "format"), "knockout")
        page.fill(stage_field(1, "name"), "Финал")
        page.fill(stage_field(1, "advance_per_table"), "2")
        page.select_option(stage_field(1, "series_format"), "best_of")
        page.fill(stage_field(1, "series_target"), "2")
        page.fill("[name='expected_entries']", "30")

        # an even best-of is refused on its field, and nothing is stored
        page.click("#preview-button")
        page.wait_for_selector("p.errornote")
        target = page.locator(
            f".stage-field.field-series_target:has({stage_field(1, 'series_target')})"
        )
        assert "must be odd for a best-of series" in target.inner_text()
        assert page.locator("#preview").count() == 0
        page.screenshot(path=str(ARTIFACTS / "plan_form_errors.png"), full_page=True)
        page.locator("#stages-group").screenshot(path=str(ARTIFACTS / "plan_stages_errors.png"))
        assert not Tournament.objects.exists()

        # the preview: the tables per round and the payouts
        assert page.input_value("[name='rules-variant']") == "transfer"
        assert page.locator(".stage-row:visible").count() == 2
        page.fill(stage_field(1, "series_target"), "3")
        page.click("#preview-button")
        page.wait_for_selector("#preview")
        stages = page.locator("#preview table.preview-stages")
        assert "6 of 4 seats, 2 of 3 seats" in stages.inner_text()
        assert page.locator("#payouts tbody tr").count() == 3
        page.screenshot(path=str(ARTIFACTS / "plan_form.png"), full_page=True)
        page.locator("#stages-group").screenshot(path=str(ARTIFACTS / "plan_stages.png"))
        page.locator("#preview").screenshot(path=str(ARTIFACTS / "plan_preview.png"))
        assert not Tournament.objects.exists()

        # save: the new tournament's dashboard, its console home
        page.click("input[name='_save']")
        page.wait_for_url(re.compile(r"/admin/tournaments/tournament/\d+/dashboard/"))
        assert page.locator("ul.messagelist li.success").count() == 1
        page.screenshot(path=str(ARTIFACTS / "plan_saved.png"), full_page=True)
        context.close()

    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.created_by) == ("Кубок Тулы", organiser)
    assert tournament.rules == {"variant": "transfer", "trump_show": True}
    stages_ = list(tournament.stages.order_by("order"))
    assert [(s.format, s.advance_mode, s.advance_count) for s in stages_] == [
        ("swiss", Stage.AdvanceMode.TOP_N, 8),
        ("knockout", Stage.AdvanceMode.NONE, 0),
    ]
    assert (stages_[1].series_format, stages_[1].series_target) == ("best_of", 3)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.TOURNAMENT_CREATE).count() == 1
    assert errors == []


@pytest.mark.slow
def test_in_russian_three_problems_show_at_once_and_the_preview_needs_no_count(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    organiser = console_user("organiser", ORGANISER)
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="ru-RU", viewport={"width": 1440, "height": 1000})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, base, organiser)
        page.goto(f"{base}/admin/tournaments/tournament/add/")
        page.wait_for_selector("#add-stage")

        # a plan with three independent problems: a hand of 40 at 4-seat tables of 36 cards,
        # a pogony minimum of 9 and payouts adding up to 110
        page.fill("[name='name']", "Кубок Тулы")
        page.fill("[name='entry_fee']", "1000")
        page.fill("[name='payout_structure']", "50, 30, 30")
        page.fill("[name='rules-hand_size']", "40")
        page.fill("[name='rules-pogony_min_cards']", "9")
        page.select_option(stage_field(0, "format"), "swiss")
        page.fill(stage_field(0, "rounds"), "3")
        page.select_option(stage_field(0, "advance_rule"), "top")
        page.fill(stage_field(0, "advance_count"), "8")
        page.click("#add-stage")
        page.select_option(stage_field(1, "format"), "knockout")
        page.fill(stage_field(1, "advance_per_table"), "2")

        # one submit: all three at their fields, in Russian
        page.click("input[name='_save']")
        page.wait_for_selector("p.errornote")
        assert "нужно 160 карт" in page.locator(".form-row.field-hand_size").inner_text()
        assert "от 1 до 4, а не 9" in page.locator(".form-row.field-pogony_min_cards").inner_text()
        payouts = page.locator(".form-row.field-payout_structure").inner_text()
        assert "сейчас 110 %" in payouts
        page.screenshot(path=str(ARTIFACTS / "plan_ru_three_errors.png"), full_page=True)
        assert not Tournament.objects.exists()

        # corrected, and previewed with no expected entries and no max entries
        page.fill("[name='rules-hand_size']", "6")
        page.fill("[name='rules-pogony_min_cards']", "1")
        page.fill("[name='payout_structure']", "50, 30, 20")
        page.click("#preview-button")
        page.wait_for_selector("#preview")
        headings = page.locator(".plan-preview h2").all_inner_texts()
        assert headings[0].startswith("Предпросмотр") and "8" in headings[0]
        assert len(headings) == 4
        assert "8\u00a0000,00\u00a0₽" in page.locator("#preview").inner_text()  # 8 × 1 000,00
        page.screenshot(path=str(ARTIFACTS / "plan_ru_previews.png"), full_page=True)
        page.locator("#preview").screenshot(path=str(ARTIFACTS / "plan_ru_preview.png"))
        context.close()
    assert errors == []
    assert not Tournament.objects.exists()
