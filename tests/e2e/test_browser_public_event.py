"""The public pages of an event in a real browser (``tournaments.site.events``).

A visitor opens a finished three-stage tournament that bots played to the end (every game
through the live services and jobs): the knockout bracket is drawn, the final places carry their
payouts and ranks, at desktop and at phone width (the bracket scrolls sideways, the page does
not). The embeds of the standings and the bracket render in both themes. A running tournament's
page updates by itself when a table finishes: no reload, the standings change.

Screenshots go to ``tests/e2e/artifacts/``: ``public_<what>_<width>.png``.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.db import connections
from playwright.sync_api import Browser, Page, ViewportSize
from rest_framework.authtoken.models import Token

from tests.builders import make_tournament
from tests.conftest import REAL_STACK, jobs_in_process
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.factories import BotPlayerFactory, PlayerFactory, SuperuserFactory
from tournaments import services
from tournaments.models import Entry, Payout, RankRecord, Stage, Table, Tournament
from tournaments.wording import rank_title

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}

# Series of up to three games in the swiss stages: with the random bots' play about one game in
# ten ends with pogony, so some ranks (звания) are all but certain to be earned.
BEST_OF_3 = {"format": "best_of", "target": 3}
THREE_STAGES = [
    {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": 32}, "series": BEST_OF_3},
    {"format": "swiss", "table_size": 4, "rounds": 1, "advance": {"top": 16}, "series": BEST_OF_3},
    {"format": "knockout", "table_size": 4, "advance_per_table": 2},
]


@pytest.fixture
def server() -> Iterator[str]:
    with asgi_server() as address:
        yield address


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"public_{name}.png"), full_page=True)


def open_page(browser: Browser, url: str, viewport: ViewportSize, errors: list[str]) -> Page:
    context = browser.new_context(viewport=viewport, locale="en-GB")
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return page


def assert_accessible(page: Page, name: str) -> None:
    """axe-core finds no serious or critical violation on ``page`` (all of them are written to
    ``artifacts/axe_public_<name>.json``)."""
    violations: list[dict[str, Any]] = Axe().run(page).response["violations"]
    (ARTIFACTS / f"axe_public_{name}.json").write_text(json.dumps(violations, indent=1))
    failing = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in violations
        if v["impact"] in {"serious", "critical"}
    ]
    assert not failing, "\n".join(failing)


def finished_three_stage_event() -> Tournament:
    """48 bots through two swiss stages into a knockout of 4-seat tables (two of each go on),
    every game played by the (random) bots through the services and jobs, run in-process."""
    bots = BotPlayerFactory.create_batch(48, bot_kind="random")
    with jobs_in_process():
        tournament = make_tournament(
            bots, stages=THREE_STAGES, name="Кубок трёх этапов", seed="public-pages"
        )
        services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.ranks_computed_at is not None
    return tournament


def test_a_visitor_sees_the_bracket_final_places_payouts_and_ranks(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a finished three-stage event of bots (built before the browser starts: Playwright's
    # loop in this thread would refuse the services' broadcasts)
    event = finished_three_stage_event()
    podium = list(
        Entry.objects.filter(tournament=event, final_place__lte=3)
        .select_related("player")
        .order_by("final_place", "pk")
    )
    paid = {p.entry_id for p in Payout.objects.filter(tournament=event)}
    ranks = list(RankRecord.objects.filter(tournament=event).select_related("player"))
    assert ranks, "the bots hung no pogony: pick another seed"
    knockout = event.stages.get(format=Stage.Format.KNOCKOUT)
    knockout_tables = Table.objects.filter(round__stage=knockout).count()
    errors: list[str] = []
    with chromium(monkeypatch) as browser:
        visit_finished_event(
            browser,
            server,
            event=event,
            podium=podium,
            paid=paid,
            ranks=ranks,
            knockout_tables=knockout_tables,
            errors=errors,
        )
    assert errors == []


def visit_finished_event(
    browser: Browser,
    server: str,
    *,
    event: Tournament,
    podium: list[Entry],
    paid: set[int],
    ranks: list[RankRecord],
    knockout_tables: int,
    errors: list[str],
) -> None:
    url = f"http://{server}/tournaments/{event.slug}/"
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        # when a visitor opens the page
        page = open_page(browser, url, viewport, errors)

        # then the bracket is drawn: every table of the knockout, the winner starred
        svg = page.locator("#bracket-3 svg.bracket-svg")
        svg.wait_for()
        assert svg.locator("g.node").count() == knockout_tables
        assert svg.locator("path.edge.adv").count() > 0
        winner_row = svg.locator("g.row.win")
        assert winner_row.count() == 1
        assert podium[0].name in (winner_row.text_content() or "")
        # the final places: the podium, a payout for each paid place, the ranks earned
        table = page.locator("#final-places")
        assert table.locator("tbody tr").count() == Entry.objects.filter(tournament=event).count()
        first = table.locator("tbody tr").first
        assert podium[0].name in first.inner_text() and "RUB" in first.inner_text()
        for entry in podium:
            assert entry.name in page.locator(".podium").inner_text()
        payouts = table.locator("td.payout").all_inner_texts()
        assert sum("RUB" in p for p in payouts) == len(paid)
        final_text = table.inner_text()
        for record_ in ranks:
            if record_.rank:
                assert rank_title(record_.rank) in final_text  # the page is in English
        # names link to the players' profiles
        href = first.locator("th a").get_attribute("href")
        assert href == f"/players/{podium[0].player_id}/"

        if label == "phone":
            # the page itself does not scroll sideways; the bracket does, inside its frame
            widths = page.evaluate(
                """() => {
                  const frame = document.querySelector('#bracket-3 .bracket-scroll');
                  return {page: document.documentElement.scrollWidth,
                          frame: frame.clientWidth, picture: frame.scrollWidth};
                }"""
            )
            assert widths["page"] <= PHONE["width"], widths
            assert widths["picture"] > widths["frame"], widths
        shot(page, f"finished_{label}")
        page.screenshot(path=str(ARTIFACTS / f"public_finished_{label}_top.png"))
        for part in ("stage-1", "stage-3", "rules"):
            page.locator(f"#{part}").screenshot(
                path=str(ARTIFACTS / f"public_finished_{label}_{part}.png")
            )
        page.locator("#bracket-3").screenshot(path=str(ARTIFACTS / f"public_bracket_{label}.png"))

        # a collapsed round opens in place with its tables (fetched, not a new page)
        page.evaluate("window.__stayed = true")
        round_ = page.locator("#stage-1 details.round").first
        round_.locator("summary").click()
        round_.locator(".tcard").first.wait_for()
        assert round_.locator(".tcard").count() == 12
        assert "best of 3" in round_.locator(".tcard").first.inner_text()
        round_.screenshot(path=str(ARTIFACTS / f"public_round_{label}.png"))
        assert page.evaluate("window.__stayed === true")
        assert_accessible(page, f"page_{label}")
        page.context.close()

    # the embeds: the standings (the final places) and the bracket, light and dark
    for what, theme in (("standings", "light"), ("bracket", "dark")):
        page = open_page(
            browser,
            f"http://{server}/embed/tournaments/{event.slug}/{what}/?theme={theme}",
            {"width": 480, "height": 600},
            errors,
        )
        assert page.locator("header.site-header").count() == 0
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        if what == "bracket":
            assert page.locator("svg.bracket-svg g.node").count() == knockout_tables
        else:
            assert podium[0].name in page.locator("#final-places tbody tr").first.inner_text()
        shot(page, f"embed_{what}_{theme}")
        assert_accessible(page, f"embed_{what}_{theme}")
        page.context.close()


# --- live ---------------------------------------------------------------------------------------


def finish_table(address: str, table: Table, token: str) -> str:
    """Finish the table through the services (the last seat the fool, the first out first);
    returns the winner's name. With Redis, in this process (the broadcast crosses Redis to the
    server's socket); on the embedded defaults the channel layer lives in the server's process,
    so the result goes through the server: the API's write, which calls the same service."""
    seats = list(table.seats.order_by("position").select_related("player"))
    entries = [seat.entry_id for seat in seats]
    if REAL_STACK:
        # In a thread of its own: Playwright's event loop runs in this one, and the broadcast
        # after commit (async_to_sync) refuses to run beside it.
        def record() -> None:
            try:
                with jobs_in_process():
                    services.table_record_result(
                        table=table, places=entries, fool=entries[-1], source="bot"
                    )
            finally:
                connections.close_all()

        with ThreadPoolExecutor(1) as pool:
            pool.submit(record).result(timeout=60)
        return seats[0].player.display_name
    body = json.dumps({"places": entries, "fool": entries[-1]}).encode()
    request = urllib.request.Request(
        f"http://{address}/api/v1/tables/{table.pk}/result/",
        data=body,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        assert response.status == 201
    return seats[0].player.display_name


def standings_text(page: Page) -> Any:
    return page.locator("#standings-1 tbody").inner_text()


def test_the_page_updates_live_when_a_table_finishes(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a running swiss event of eight people (nobody moves: no bot, no clock), round 1 paired
    referee = SuperuserFactory.create()
    token = Token.objects.create(user=referee).key
    with jobs_in_process():
        tournament = make_tournament(
            PlayerFactory.create_batch(8),
            stages=[{"format": "swiss", "table_size": 4, "rounds": 2}],
            name="Живой кубок",
            created_by=referee,
        )
        services.tournament_start(tournament=tournament)
    table = Table.objects.filter(round__stage__tournament=tournament).order_by("number").first()
    assert table is not None and table.status == Table.Status.PLAYING
    errors: list[str] = []
    with chromium(monkeypatch) as browser:
        watch_a_table_finish(
            browser, server, tournament=tournament, table=table, token=token, errors=errors
        )
    assert errors == []


def watch_a_table_finish(
    browser: Browser,
    server: str,
    *,
    tournament: Tournament,
    table: Table,
    token: str,
    errors: list[str],
) -> None:
    page = open_page(browser, f"http://{server}/tournaments/{tournament.slug}/", DESKTOP, errors)
    page.locator("#live.on").wait_for(timeout=10_000)
    assert "live" in page.locator("#live").inner_text().lower()
    page.evaluate("window.__stayed = true")
    before = standings_text(page)
    card = page.locator(f"#table-{table.pk}")
    assert "playing" in card.inner_text()
    shot(page, "live_before")
    # a second reader closes the round in play and opens the stage's scoring
    reader = open_page(browser, page.url, DESKTOP, errors)
    reader.locator("#live.on").wait_for(timeout=10_000)
    round_ = reader.locator("details.round").first
    assert round_.get_attribute("open") is not None
    round_.locator("summary").click()
    reader.locator("#stage-1 details.plan summary").click()

    # when the table finishes
    winner = finish_table(server, table, token)

    # then the page shows it, without a reload: the table finished, the standings changed
    page.wait_for_function(
        "id => document.querySelector(`#table-${id} .tag.status-finished`) !== null",
        arg=table.pk,
        timeout=15_000,
    )
    page.wait_for_function(
        "old => document.querySelector('#standings-1 tbody').innerText !== old",
        arg=before,
        timeout=15_000,
    )
    assert page.evaluate("window.__stayed === true")
    after = standings_text(page)
    first_line = page.locator("#standings-1 tbody tr").first.inner_text()
    assert winner in first_line and "3" in first_line, (before, after)
    assert "Updated" in page.locator("#live").inner_text()
    shot(page, "live_after")
    assert_accessible(page, "live")

    # the second reader's page changed too, and kept what they closed and opened
    reader.wait_for_function(
        "id => document.querySelector(`#table-${id} .tag.status-finished`) !== null",
        arg=table.pk,
        timeout=15_000,
    )
    assert reader.locator("details.round").first.get_attribute("open") is None
    assert reader.locator("#stage-1 details.plan").get_attribute("open") is not None
    reader.context.close()

    # when every other table finishes, round 2 is paired and played, and the event ends
    for _ in range(3):
        waiting = Table.objects.filter(
            round__stage__tournament=tournament, status=Table.Status.PLAYING
        ).order_by("round__number", "number")
        for other in waiting:
            finish_table(server, other, token)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    # then the final places appear in place, still without a reload
    page.locator("#final-places").wait_for(timeout=15_000)
    assert page.evaluate("window.__stayed === true")
    assert page.locator("#tournament-status").inner_text() == "Finished"
    # and the page no longer says it is live: a finished event never does (issue #20)
    assert page.locator("#live:visible").count() == 0
    shot(page, "live_finished")
    page.context.close()
    phone = open_page(browser, f"http://{server}/tournaments/{tournament.slug}/", PHONE, errors)
    phone.locator("#final-places").wait_for(timeout=10_000)
    assert phone.locator("#live").count() == 0
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "live_phone")
    phone.context.close()
