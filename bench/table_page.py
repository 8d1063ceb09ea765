"""The weight of the live table page, as a seated player's browser loads it.

    python -m bench.table_page [--loads 5]

On a fresh SQLite database (``DURAK_SQLITE_PATH``, default a temporary file) it starts a two-seat
cup of a person against a bot, serves it with the project's ASGI server (``durak_site.processes``;
jobs in the server process, an in-memory channel layer) and opens the person's table in Debian's
chromium (Playwright) ``--loads`` times, each in a fresh browser context (an empty cache).

Printed: the requests of one load by kind, the bytes of the page's JavaScript and CSS as served
(uncompressed, and gzip level 6 as a proxy would send them), the document's size, and the time
from the start of the navigation to the first state rendered from the socket (``#live`` gets its
version): the median, the minimum and the maximum of the loads.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"


def setup(db_path: str) -> None:
    os.environ.update(
        DURAK_SQLITE_PATH=db_path,
        CELERY_TASK_ALWAYS_EAGER="1",
        DJANGO_SETTINGS_MODULE="durak_site.settings",
    )
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    import django  # noqa: PLC0415 (only once the environment above is set)

    django.setup()
    from django.core.management import call_command  # noqa: PLC0415 (after django.setup())

    call_command("migrate", "--noinput", verbosity=0)


def person_against_bot() -> tuple[int, str]:
    """A started cup of a person against a bot: (the table's id, the person's session cookie)."""
    from django.contrib.auth import get_user_model  # noqa: PLC0415 (after django.setup())
    from django.test import Client  # noqa: PLC0415 (after django.setup())

    from tournaments import services  # noqa: PLC0415 (after django.setup())
    from tournaments.models import Player, Table  # noqa: PLC0415 (after django.setup())

    stamp = str(time.time_ns())
    user = get_user_model().objects.create_user(username=f"bench-{stamp}", password=None)
    person = Player.objects.create(user=user, display_name="Анна")
    bot = Player.objects.create(display_name="Бот", is_bot=True, bot_kind="heuristic")
    cup = services.tournament_create(
        name=f"Bench {stamp}",
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        entry_fee="0",
        rake_percent="0",
        move_clock_seconds=0,
        rules={"deck_size": 36},
    )
    services.tournament_open_registration(tournament=cup)
    for player in (person, bot):
        services.entry_register(tournament=cup, player=player)
    services.tournament_start(tournament=cup)
    table = Table.objects.get(round__stage__tournament=cup)
    client = Client()
    client.force_login(user)
    return table.pk, f"sessionid={client.cookies['sessionid'].value}"


def one_load(browser: Any, base: str, path: str, cookie: str) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU")
    name, value = cookie.split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": base}])
    page = context.new_page()
    requests: list[Any] = []
    # A lambda, not the bound method: Playwright tags its handlers with an attribute.
    page.on("requestfinished", lambda request: requests.append(request))  # noqa: PLW0108
    page.goto(base + path, wait_until="commit")
    page.wait_for_function("() => document.getElementById('live').dataset.version !== ''")
    rendered: float = page.evaluate(
        "() => performance.now() - performance.getEntriesByType('navigation')[0].startTime"
    )
    page.wait_for_load_state("networkidle")
    bodies: dict[str, bytes] = {}
    kinds: dict[str, int] = {}
    for request in requests:
        kinds[request.resource_type] = kinds.get(request.resource_type, 0) + 1
        response = request.response()
        if response is not None and request.resource_type in ("script", "stylesheet", "document"):
            bodies[request.url] = response.body()
    context.close()
    return {"ms": rendered, "kinds": kinds, "bodies": bodies}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"skipped: no chromium at {CHROMIUM}")
        return 0
    work = tempfile.mkdtemp(prefix="bench-table-")
    db_path = os.environ.get("DURAK_SQLITE_PATH") or str(Path(work) / "db.sqlite3")
    setup(db_path)
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 (a dev requirement)

    from durak_site.processes import asgi_command, free_port, wait_serving  # noqa: PLC0415

    table_id, cookie = person_against_bot()
    port = free_port()
    log_path = Path(work) / "server.log"
    env = {**os.environ, "DJANGO_DEBUG": "1"}
    with log_path.open("w") as log:
        server = subprocess.Popen(
            asgi_command(sys.executable, "127.0.0.1", port, quiet=True),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_serving(f"127.0.0.1:{port}", server, 40, str(log_path))
            base, path = f"http://127.0.0.1:{port}", f"/tables/{table_id}/"
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
                )
                one_load(browser, base, path, cookie)  # warm the server's caches
                loads = [one_load(browser, base, path, cookie) for _ in range(args.loads)]
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    report(loads)
    return 0


def report(loads: list[dict[str, Any]]) -> None:
    first = loads[0]
    kinds = first["kinds"]
    print(f"live table page (a seated player, 390×844, empty cache), {len(loads)} loads")
    total = sum(kinds.values())
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    print(f"  requests per load: {total} ({detail}; the socket not counted)")
    for label, ending in (("JavaScript", ".js"), ("CSS", ".css")):
        files = {url: body for url, body in first["bodies"].items() if url.endswith(ending)}
        raw = sum(len(b) for b in files.values())
        packed = sum(len(gzip.compress(b, 6)) for b in files.values())
        names = ", ".join(url.rsplit("/", 1)[-1] for url in files)
        print(f"  {label}: {len(files)} files ({names}), {raw} bytes, {packed} gzipped")
    documents = [b for url, b in first["bodies"].items() if not url.endswith((".js", ".css"))]
    if documents:
        html = documents[0]
        print(f"  HTML document: {len(html)} bytes, {len(gzip.compress(html, 6))} gzipped")
    times = sorted(load["ms"] for load in loads)
    median = statistics.median(times)
    print(
        f"  navigation to the first state rendered: median {median:.0f} ms"
        f" (min {times[0]:.0f}, max {times[-1]:.0f})"
    )


if __name__ == "__main__":
    sys.exit(main())
