"""The embeds where a club uses them, in a real browser: the snippet the tournament page offers,
pasted into a page saved on a computer (``file://``, whose origin no ``frame-ancestors`` source
but its absence admits), shows the standings and the bracket, each sized to its content by the
height the embed posts (``static/js/embed.js``, ``static/js/embed-loader.js``), in the colours
its ``?theme=`` asks for.

Screenshots go to ``tests/e2e/artifacts/``: ``embed_<what>.png``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Frame, Page, ViewportSize

from tests.api.test_events import finished_event
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium
from tournaments.models import Entry

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP: ViewportSize = {"width": 1100, "height": 900}


def club_page(snippets: list[str]) -> str:
    """A club's page as someone would write it, with the snippets pasted in."""
    body = "\n".join(f"<h2>Part {n}</h2>\n{code}" for n, code in enumerate(snippets, 1))
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>Club</title></head>'
        f"<body style='font-family: sans-serif'><h1>Our club</h1>\n{body}\n"
        "<p>The end of the club's page.</p></body></html>"
    )


def open_page(browser: Browser, url: str, complaints: list[str]) -> Page:
    """``url`` in a context of its own; ``complaints`` collects its script errors and what the
    browser refused (a frame, a script: Chromium logs "Refused to ...")."""
    page = browser.new_context(viewport=DESKTOP, locale="en-GB").new_page()
    page.on("pageerror", lambda error: complaints.append(f"{page.url}: {error}"))
    page.on(
        "console",
        lambda m: complaints.append(m.text) if m.type == "error" or "Refused" in m.text else None,
    )
    page.goto(url)
    return page


def embed_frame(page: Page, frame_id: str) -> Frame:
    frame = page.locator(f"iframe#{frame_id}").element_handle().content_frame()
    assert frame is not None
    return frame


def sized(page: Page, frame_id: str) -> dict[str, Any]:
    """Once the loader has sized the frame (and the content has settled: a font or a late
    layout posts again): the frame's height and its content's."""
    page.wait_for_function(
        "id => document.getElementById(id).style.height !== ''", arg=frame_id, timeout=10_000
    )
    frame = embed_frame(page, frame_id)
    deadline = time.monotonic() + 5
    while True:
        content = frame.evaluate("() => document.documentElement.getBoundingClientRect().height")
        height = page.evaluate("id => document.getElementById(id).clientHeight", frame_id)
        if abs(height - content) <= 1 or time.monotonic() > deadline:
            return {"frame": height, "content": content}
        page.wait_for_timeout(100)


def background(frame: Frame) -> str:
    colour: str = frame.evaluate("() => getComputedStyle(document.body).backgroundColor")
    return colour


def test_the_offered_snippet_works_from_a_local_file_sized_and_themed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # given a finished event and a visitor of its page, who takes the code of both embeds
    event = finished_event(8, name="Кубок клуба", seed="embed-seed")
    winner = Entry.objects.get(tournament=event, final_place=1).name
    ARTIFACTS.mkdir(exist_ok=True)
    with asgi_server() as address, chromium(monkeypatch) as browser:
        complaints: list[str] = []
        site = open_page(browser, f"http://{address}/tournaments/{event.slug}/", complaints)
        standings = site.input_value("#embed-standings-code")
        bracket = site.input_value("#embed-bracket-code")
        # the page's own preview is sized by the same loader
        sized(site, f"durak-{event.slug}-standings")
        site.locator("#embed").screenshot(path=str(ARTIFACTS / "embed_snippet_box.png"))
        # the copy button puts the code on the clipboard, and says so
        site.context.grant_permissions(["clipboard-read", "clipboard-write"])
        site.click("#embed-standings button.copy")
        site.wait_for_function(
            "() => document.querySelector('#embed-standings .copy-status').textContent !== ''"
        )
        assert site.locator("#embed-standings .copy-status").inner_text() == "Copied"
        assert site.evaluate("() => navigator.clipboard.readText()") == standings
        # the theme chooser rewrites the code
        site.select_option("#embed-theme", "dark")
        dark = site.input_value("#embed-standings-code")
        assert "theme=dark" in dark and dark == standings.replace("theme=light", "theme=dark")

        # when the code is pasted into a page saved on a computer and opened from there
        local = tmp_path / "club.html"
        local.write_text(club_page([standings, bracket]), encoding="utf-8")
        club = open_page(browser, local.as_uri(), complaints)

        # then the standings load inside their frame, the winner's name first
        frame = embed_frame(club, f"durak-{event.slug}-standings")
        frame.wait_for_selector("#final-places tbody th", timeout=10_000)
        assert frame.locator("#final-places tbody th").first.inner_text() == winner
        # and each frame takes its content's height (not the snippet's 480 or 560)
        for kind, first in (("standings", 480), ("bracket", 560)):
            got = sized(club, f"durak-{event.slug}-{kind}")
            assert abs(got["frame"] - got["content"]) <= 1, (kind, got)
            assert got["frame"] != first, kind
        bracket_frame = embed_frame(club, f"durak-{event.slug}-bracket")
        assert bracket_frame.locator("svg.bracket-svg").count() == 1
        club.screenshot(path=str(ARTIFACTS / "embed_framed_local_file.png"), full_page=True)
        light = background(frame)
        # nothing refused: no framing, no script of the page, the preview or the embeds
        assert complaints == []

        # when the dark code is pasted instead: the embed's colours are the dark theme's
        local.write_text(club_page([dark]), encoding="utf-8")
        club = open_page(browser, local.as_uri(), complaints)
        dark_frame = embed_frame(club, f"durak-{event.slug}-standings")
        dark_frame.wait_for_selector("#final-places", timeout=10_000)
        sized(club, f"durak-{event.slug}-standings")
        assert (light, background(dark_frame)) == ("rgb(250, 250, 247)", "rgb(21, 24, 26)")
        ink = dark_frame.evaluate("() => getComputedStyle(document.querySelector('h1 a')).color")
        assert ink == "rgb(140, 196, 255)"  # the dark theme's links
        club.screenshot(path=str(ARTIFACTS / "embed_framed_dark.png"), full_page=True)
