"""A referee (not a superuser) reviews fair play in a browser (issue 24): from the event's
dashboard to its queue, a lower threshold, a pair's evidence, a flagged move's link to the
replay at that move, back, and a decision with a reason; the queue and the pair's page again on
a phone (390 × 844), with no sideways scrolling and no script error.

The event is simulated with a colluding pair and its fair-play job run after each round
(``tests.site.test_console_fairplay.simulate``). Screenshots go to
``tests/e2e/artifacts/fairplay-<step>.png``.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, ViewportSize
from pytest_django import Settings

from games.models import Game, GameAction
from tests.builders import pair_with_moves
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tests.e2e.test_browser_plan import log_in
from tests.site.test_console_fairplay import simulate
from tournaments.models import AuditEvent, PairEvidence
from tournaments.selectors.fairplay import pairs_flagged

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


def shot(page: Page, step: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"fairplay-{step}.png"), full_page=True)


def fits(page: Page, width: int) -> bool:
    """Nothing of the page sticks out to the right (wide tables scroll in their own box)."""
    return bool(page.evaluate("document.documentElement.scrollWidth") <= width)


def test_a_referee_reads_a_pairs_evidence_jumps_to_a_move_and_decides(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, tmp_path: Path
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    ARTIFACTS.mkdir(exist_ok=True)
    sim = simulate(tmp_path)
    assert not sim.referee.is_superuser
    top = pairs_flagged(sim.tournament, threshold=0).first()
    assert top is not None
    pick = pair_with_moves(sim.tournament)  # the top pair, when its evidence names moves
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        context = browser.new_context(locale="ru-RU", viewport=DESKTOP)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, base, sim.referee)

        # the event's dashboard links its fair-play queue
        page.goto(f"{base}/admin/tournaments/tournament/{sim.tournament.pk}/dashboard/")
        page.click("#pages a:text-is('Честная игра')")
        queue = rf"/admin/tournaments/tournament/{sim.tournament.pk}/fairplay/"
        page.wait_for_url(re.compile(queue))
        assert page.locator("#games-counted").inner_text() == "5"
        shot(page, "1-queue")

        # a lower bar: every pair who met, the highest score first
        page.fill("#id_threshold", "0")
        page.click("#threshold-form input[type=submit]")
        page.wait_for_url(re.compile(r"threshold=0"))
        first_row = page.locator("tr.pair-row").first
        assert first_row.get_attribute("data-pair") == str(top.pk)
        shot(page, "2-queue-lower")

        # a pair's evidence
        page.locator(f"tr.pair-row[data-pair='{pick.pk}'] a.pair-link").click()
        page.wait_for_url(re.compile(rf"/fairplay/pairs/{pick.pk}/"))
        assert page.locator("#terms-table tr.term").count() == len(pick.terms)
        assert "подкидывал" in page.locator("#terms-table").inner_text()
        shot(page, "3-pair")
        pair_page = page.url

        # a term's moves, and the first one's link to the replay at that move
        details = page.locator("#terms-table details:not(.missed)").first
        details.locator("summary").click()
        link = details.locator("a.move-link").first
        query = parse_qs(urlparse(link.get_attribute("href") or "").query)
        step = int(query["step"][0])
        game_id = int(re.findall(r"/games/(\d+)/replay/", link.get_attribute("href") or "")[0])
        link.click()
        page.wait_for_url(re.compile(rf"/games/{game_id}/replay/\?step={step}"))
        assert page.locator("#replay").get_attribute("data-step") == str(step)
        assert page.locator("#rp-position").inner_text().startswith(f"Ход {step} ")
        move = GameAction.objects.get(game_id=game_id, seq=step)
        assert page.locator("#rp-move").inner_text().strip()
        assert move.seq == step
        shot(page, "4-replay-at-move")

        # back to the pair: a term's chances not taken, the first one's link to the replay there
        page.go_back()
        page.wait_for_url(pair_page)
        missed = page.locator("#terms-table details.missed").first
        missed.locator("summary").click()
        assert "упущенн" in missed.locator("summary").inner_text()
        shot(page, "4-pair-missed")
        link = missed.locator("a.missed-link").first
        href = link.get_attribute("href") or ""
        step = int(parse_qs(urlparse(href).query)["step"][0])
        game_id = int(re.findall(r"/games/(\d+)/replay/", href)[0])
        row = page.locator("#terms-table tr.term", has=page.locator("details.missed")).first
        mover = int(row.get_attribute("data-mover") or 0)
        link.click()
        page.wait_for_url(re.compile(rf"/games/{game_id}/replay/\?step={step}"))
        assert page.locator("#replay").get_attribute("data-step") == str(step)
        chance = GameAction.objects.get(game_id=game_id, seq=step)
        assert Game.objects.get(pk=game_id).players[chance.seat] == mover
        shot(page, "4-replay-at-chance")

        # back to the pair, and a decision with its reason
        page.go_back()
        page.wait_for_url(pair_page)
        page.check("#decision-form input[value=warned]")
        page.fill("#id_reason", "Не подкидывали друг другу; предупредить обоих.")
        page.click("#decide-button")
        page.wait_for_selector("ul.messagelist li")
        assert "записано" in page.locator("ul.messagelist li").first.inner_text()
        assert "Предупреждение" in page.locator("#current-decision").inner_text()
        assert page.locator("#history-table tbody tr").count() == 1
        shot(page, "5-decided")

        # the season: the league's page links its queue, whose rows link each event's pair page
        page.goto(f"{base}/admin/tournaments/league/{sim.league.pk}/change/")
        page.click(".object-tools a:text-is('Честная игра')")
        page.wait_for_url(re.compile(rf"/admin/tournaments/league/{sim.league.pk}/fairplay/"))
        page.fill("#id_threshold", "0")
        page.click("#threshold-form input[type=submit]")
        page.wait_for_url(re.compile(r"threshold=0"))
        assert page.locator(f"a.pair-link[href$='/fairplay/pairs/{pick.pk}/']").count() == 1
        shot(page, "5-season")
        context.close()

        # the same pages on a phone
        phone = browser.new_context(locale="ru-RU", viewport=PHONE, is_mobile=True)
        page = phone.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, base, sim.referee)
        page.goto(f"{base}{queue}?threshold=0")
        shot(page, "6-phone-queue")
        assert fits(page, PHONE["width"])
        page.goto(pair_page)
        shot(page, "7-phone-pair")
        assert fits(page, PHONE["width"])
        for part in ("terms", "decide"):  # a closer look at the row cards and the form
            closer = ARTIFACTS / f"fairplay-8-phone-{part}.png"
            page.locator(f"#{part}").screenshot(path=str(closer))
        phone.close()

    pick.refresh_from_db()
    assert pick.decision == PairEvidence.Decision.WARNED and pick.decided_by == sim.referee
    audit = AuditEvent.objects.get(action=AuditEvent.Action.FAIRPLAY_DECIDE, target_id=pick.pk)
    assert audit.reason.startswith("Не подкидывали")
    assert errors == []
