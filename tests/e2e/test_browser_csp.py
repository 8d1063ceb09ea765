"""The Content-Security-Policy in a real browser: the pages that run scripts (the live table, the
front page, the API's Swagger UI and Redoc) work under it, with no violation reported, and the
live table's socket (``connect-src 'self'``) connects."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.builders import start_live_table
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).parent / "artifacts"

# Every violation the page reports, collected before any script of the page runs.
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline")));
"""


def visit(browser: Browser, url: str) -> tuple[Page, list[str]]:
    """A page at ``url`` in a context of its own, and the console's CSP complaints."""
    page = browser.new_context().new_page()
    page.add_init_script(WATCH)
    complaints: list[str] = []
    page.on(
        "console",
        lambda m: complaints.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.goto(url)
    return page, complaints


def violations(page: Page, complaints: list[str]) -> list[str]:
    found: list[str] = page.evaluate("window.__violations")
    return found + complaints


@pytest.mark.usefixtures("eager_jobs")
def test_the_pages_scripts_run_under_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    live = start_live_table()
    ARTIFACTS.mkdir(exist_ok=True)
    with asgi_server() as address, chromium(monkeypatch) as browser:
        base = f"http://{address}"
        # the live table: its script renders the state that came over its socket
        table, complaints = visit(browser, f"{base}/tables/{live.table.pk}/")
        # (a function: an expression is evaluated at each poll, which the policy refuses)
        table.wait_for_function("() => document.getElementById('live').dataset.version !== ''")
        assert table.locator("#hand .card").count() == 0  # a spectator: no hand, but a board
        assert table.locator("#connection.ok").count() == 1
        table.screenshot(path=str(ARTIFACTS / "csp-table.png"), full_page=True)
        assert violations(table, complaints) == []
        # the front page (the language menu's script)
        home, complaints = visit(browser, f"{base}/")
        home.wait_for_load_state("load")
        assert violations(home, complaints) == []
        # the API's docs: Swagger UI (an inline script with the nonce) and Redoc (a worker)
        docs, complaints = visit(browser, f"{base}/api/v1/docs/")
        docs.wait_for_selector(".swagger-ui .info .title", timeout=20_000)
        docs.screenshot(path=str(ARTIFACTS / "csp-swagger.png"))
        assert violations(docs, complaints) == []
        redoc, complaints = visit(browser, f"{base}/api/v1/redoc/")
        redoc.wait_for_selector(".api-info h1, .api-info", timeout=20_000)
        redoc.wait_for_timeout(500)
        redoc.screenshot(path=str(ARTIFACTS / "csp-redoc.png"))
        # Redoc's bundle hard-codes its maker's logo from a CDN and hides it when it does not
        # load: the one request the policy is meant to refuse there.
        logo = "https://cdn.redoc.ly/redoc/logo-mini.svg"
        assert [v for v in violations(redoc, complaints) if logo not in v] == []


def test_an_inline_script_without_the_nonce_is_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The policy is not decoration: a script injected into a page does not run."""
    with asgi_server() as address, chromium(monkeypatch) as browser:
        page, complaints = visit(browser, f"http://{address}/")
        page.wait_for_load_state("load")
        ran = page.evaluate(
            """() => {
              const s = document.createElement("script");
              s.textContent = "window.__injected = true";
              document.body.append(s);
              return window.__injected === true;
            }"""
        )
        assert ran is False
        assert any("script-src" in v for v in violations(page, complaints))
