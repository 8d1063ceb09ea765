"""Real servers for end-to-end tests: ASGI server processes on free ports, on the test database;
and Debian's chromium driven by Playwright on the pages they serve."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, connections
from playwright.sync_api import Browser, Page, sync_playwright

from durak_site.processes import asgi_command, free_port, trusted_proxies_in, wait_serving
from tests.conftest import ROOT, run_database_url, subprocess_env

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def server_env() -> dict[str, str]:
    """The child's settings: this run's test database, jobs run in the server process itself
    (no worker is needed to finish a game), and the same channel layer as the tests."""
    env = subprocess_env(CELERY_TASK_ALWAYS_EAGER="1", DJANGO_DEBUG="1")
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    if settings.USES_POSTGRES:
        env["DATABASE_URL"] = run_database_url()
    else:
        env.pop("DATABASE_URL", None)
        env["DURAK_SQLITE_PATH"] = str(connection.settings_dict["NAME"])
    return env


@contextmanager
def asgi_server(env: dict[str, str] | None = None, timeout: float = 40) -> Iterator[str]:
    """The project's ASGI server process (``durak_site.processes``), believing forwarded headers
    from the ``DURAK_TRUSTED_PROXIES`` of ``env`` only; yields its ``host:port``."""
    port = free_port()
    log_path = ROOT / f".pytest-asgi-{port}.log"
    log = log_path.open("w")
    env = env or server_env()
    server = subprocess.Popen(
        asgi_command(sys.executable, "127.0.0.1", port, trusted_proxies=trusted_proxies_in(env)),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    address = f"127.0.0.1:{port}"
    try:
        wait_serving(address, server, timeout, str(log_path))
        yield address
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        log_path.unlink(missing_ok=True)


@contextmanager
def closing_connections() -> Iterator[None]:
    """Playwright runs the test body with a context of its own, and Django keeps a connection
    per context: close the ones opened there, or the test database cannot be dropped."""
    try:
        yield
    finally:
        connections.close_all()


@contextmanager
def chromium(monkeypatch: pytest.MonkeyPatch) -> Iterator[Browser]:
    """Debian's chromium, headless, through Playwright's sync API."""
    # Playwright's sync API runs an event loop in this thread; the test's own reads of the
    # database are plain synchronous queries.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as pw, closing_connections():
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


def open_table(
    browser: Browser,
    address: str,
    table_id: int,
    *,
    cookie: str | None = None,
    locale: str | None = None,
    errors: list[str] | None = None,
) -> Page:
    """A table page in a browser context of its own (``cookie``: ``sessionid=...`` of a user;
    ``locale``: the browser's language, else chromium's default), once its first state message
    has been rendered. ``errors`` collects the page's uncaught JavaScript errors."""
    base = f"http://{address}"
    context = browser.new_context(locale=locale)
    if cookie is not None:
        name, value = cookie.split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": base}])
    page = context.new_page()
    if errors is not None:
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    page.goto(f"{base}/tables/{table_id}/")
    # A function, not an expression: Playwright evals an expression again at every poll, which
    # the pages' Content-Security-Policy (no 'unsafe-eval') refuses.
    page.wait_for_function("() => document.getElementById('live').dataset.version !== ''")
    return page


def wait_version_change(page: Page, old: str) -> None:
    page.wait_for_function(
        "old => document.getElementById('live').dataset.version !== old", arg=old, timeout=10_000
    )


def wait_status(page: Page, status: str) -> None:
    """Until the page shows the game in ``status`` (its ``#live[data-status]``)."""
    page.wait_for_function(
        "s => document.getElementById('live').dataset.status === s", arg=status, timeout=10_000
    )


# A page object of a PDF (not the /Pages tree): Chromium writes them uncompressed.
PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def printed(page: Page, screenshot: str) -> int:
    """``page`` printed to an A4 PDF (the print media, as the browser's Print does) after a
    screenshot of it to the path ``screenshot``; the PDF's page count."""
    page.emulate_media(media="print")
    page.screenshot(path=screenshot, full_page=True)
    pdf = page.pdf(format="A4", prefer_css_page_size=True, print_background=False)
    assert pdf.startswith(b"%PDF") and len(pdf) > 5_000
    return len(PDF_PAGE.findall(pdf))
