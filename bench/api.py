"""The API's final standings of a finished tournament under load, beside a plain view.

    python -m bench.api [--players 1024] [--seconds 10] [--connections 32] [--rebuild]

It finds a finished tournament of ``--players`` entries in its database (else it builds one with
``bench.tournament``: every game played through the live services by one real Celery worker),
starts ONE real ASGI server process (``durak_site.processes``, production settings: no debug
query log), and measures for ``--seconds`` each, with ``--connections`` keep-alive HTTP/1.1
connections sending requests back to back:

1. **plain**: a view that returns the same rows with ``.values()`` and ``JsonResponse``
   (``bench/api_urls.py``), the floor the API is measured against;
2. **api**: ``GET /api/v1/tournaments/<slug>/standings/``, uncached;
3. **api 304**: the same with ``If-None-Match`` of its ETag (answered 304 before the body is
   built);
4. **live**: ``GET /api/v1/tournaments/<slug>/live/``, the overlay's one call, uncached (each
   answer through Django; its body from the shared cache of built answers after the first);
5. **live 304**: the same with ``If-None-Match`` (the API's ASGI front answers it).

Printed for each: requests, requests per second, latency p50/p90/p99/max, non-2xx/304 answers;
then the API's share of the plain view's rate (target: at least 50 %), the 304 rate (target: at
least 1,500 requests per second on one process), and the number of SQL queries of a standings
request (target: at most 3) and of a ``/live/`` request, counted in this process with Django's
test client: the first at a version builds the answer into the shared cache, every later one
reads it from there.

It needs PostgreSQL and Redis: ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/durak_apibench``, created if missing and migrated) and
``REDIS_URL`` (default ``redis://127.0.0.1:6379/6``).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import django
from django.core.management import call_command
from django.db import connection, connections
from django.db.models import Count
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench import production_env
from bench.live_tables import ensure_database
from durak_site.processes import asgi_command, collectstatic_command, free_port, wait_serving

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/durak_apibench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"
#: The throttles would turn a benchmark into 429s (one client, far above any real rate): off.
NO_THROTTLE = "off"


@dataclass
class Run:
    """What one load phase measured."""

    name: str
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)  # seconds, one per answer
    statuses: dict[int, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def line(self) -> str:
        ms = 1000
        worst = max(self.latencies, default=0) * ms
        return (
            f"{self.name:<8} {len(self.latencies):>7} requests  {self.rate:>8.0f}/s  "
            f"p50 {self.percentile(50) * ms:6.1f} ms  p90 {self.percentile(90) * ms:6.1f} ms  "
            f"p99 {self.percentile(99) * ms:6.1f} ms  max {worst:6.1f} ms  "
            f"statuses {dict(sorted(self.statuses.items()))}"
        )


async def _connection(
    host: str, port: int, path: str, *, headers: dict[str, str], until: float, run: Run
) -> None:
    """One keep-alive connection sending GET ``path`` back to back until ``until``."""
    reader, writer = await asyncio.open_connection(host, port)
    extra = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
        f"Accept-Language: en\r\nConnection: keep-alive\r\n{extra}\r\n"
    ).encode()
    try:
        while time.perf_counter() < until:
            started = time.perf_counter()
            writer.write(request)
            await writer.drain()
            status_line = await reader.readline()
            status = int(status_line.split()[1])
            length, chunked = 0, False
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
                elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                    chunked = True
            if chunked:
                while True:
                    size = int((await reader.readline()).strip(), 16)
                    await reader.readexactly(size + 2)
                    if size == 0:
                        break
            elif length:
                await reader.readexactly(length)
            run.latencies.append(time.perf_counter() - started)
            run.statuses[status] = run.statuses.get(status, 0) + 1
    finally:
        writer.close()


async def _load(
    address: str, path: str, *, headers: dict[str, str], seconds: float, sockets: int, run: Run
) -> None:
    host, port = address.split(":")
    started = time.perf_counter()
    until = started + seconds
    await asyncio.gather(
        *(
            _connection(host, int(port), path, headers=headers, until=until, run=run)
            for _ in range(sockets)
        )
    )
    run.seconds = time.perf_counter() - started


def measure(
    address: str, path: str, *, name: str, seconds: float, connections: int, headers: dict[str, str]
) -> Run:
    run = Run(name)
    # A short warm-up (connections, the server's caches), not counted.
    warm = min(2.0, seconds / 4)
    asyncio.run(
        _load(address, path, headers=headers, seconds=warm, sockets=connections, run=Run("warm"))
    )
    asyncio.run(
        _load(address, path, headers=headers, seconds=seconds, sockets=connections, run=run)
    )
    return run


def finished_tournament(players: int, rebuild: bool) -> str:
    """The slug of a finished tournament of ``players`` entries (built if there is none)."""
    from tournaments.models import Tournament  # noqa: PLC0415 (the models, after django.setup())

    def find() -> str | None:
        return (
            Tournament.objects.filter(status=Tournament.Status.FINISHED)
            .annotate(n=Count("entries"))
            .filter(n=players)
            .order_by("-finished_at")
            .values_list("slug", flat=True)
            .first()
        )

    slug = None if rebuild else find()
    if slug is None:
        print(f"building a finished tournament of {players} players (bench.tournament)")
        subprocess.run(
            [sys.executable, "-m", "bench.tournament", "--players", str(players)],
            cwd=ROOT,
            check=True,
        )
        slug = find()
    assert slug is not None, "bench.tournament finished no tournament"
    return slug


def standings_queries(slug: str, what: str = "standings") -> tuple[int, int]:
    """SQL queries of a standings (or ``what``) request through Django's test client in this
    process: the first at the tournament's version (it builds the answer) and the next (from
    the cache)."""
    client = Client()
    path = f"/api/v1/tournaments/{slug}/{what}/"
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 200, response.status_code
        counts.append(len(queries))
    return counts[0], counts[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--rebuild", action="store_true", help="build a new tournament")
    args = parser.parse_args(argv)
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    os.environ["DURAK_API_RATE_ANON"] = os.environ["DURAK_API_RATE_USER"] = NO_THROTTLE

    ensure_database(os.environ["DATABASE_URL"])
    django.setup()
    call_command("migrate", verbosity=0)
    slug = finished_tournament(args.players, args.rebuild)
    cold, warm = standings_queries(slug)
    live_cold, live_warm = standings_queries(slug, "live")

    connections.close_all()
    port = free_port()
    env = {
        **os.environ,
        **production_env("127.0.0.1"),
        "DURAK_ROOT_URLCONF": "bench.api_urls",
    }
    # Production's server starts only with the static files collected (durak_site.server).
    subprocess.run(collectstatic_command(sys.executable), cwd=ROOT, env=env, check=True)
    log_path = ROOT / f".bench-api-{port}.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            asgi_command(sys.executable, "127.0.0.1", port),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        address = f"127.0.0.1:{port}"
        try:
            wait_serving(address, server, 60, str(log_path))
            api = f"/api/v1/tournaments/{slug}/standings/"
            etag = _etag(address, api)
            common = {"seconds": args.seconds, "connections": args.connections}
            plain = measure(
                address, f"/bench/plain-standings/{slug}/", name="plain", headers={}, **common
            )
            uncached = measure(address, api, name="api", headers={}, **common)
            cached = measure(
                address, api, name="api 304", headers={"If-None-Match": etag}, **common
            )
            live = f"/api/v1/tournaments/{slug}/live/"
            live_etag = _etag(address, live)
            live_uncached = measure(address, live, name="live", headers={}, **common)
            live_cached = measure(
                address, live, name="live 304", headers={"If-None-Match": live_etag}, **common
            )
        finally:
            server.terminate()
            server.wait(timeout=20)
    runs = (plain, uncached, cached, live_uncached, live_cached)
    failed = sum(n for run in runs for code, n in run.statuses.items() if code >= 500)
    if failed:
        print(f"{failed} answers were 5xx: the server's log is {log_path}; its end:")
        print("".join(log_path.read_text().splitlines(keepends=True)[-40:]))
    else:
        log_path.unlink(missing_ok=True)

    db = urlsplit(os.environ["DATABASE_URL"]).path.lstrip("/")
    print(f"\nfinal standings of {slug} ({args.players} players, database {db}), one ASGI process")
    print(f"{args.connections} keep-alive connections, {args.seconds:g} s each\n")
    for run in runs:
        print(run.line())
    share = uncached.rate / plain.rate if plain.rate else 0.0
    print(f"\napi / plain: {share:.0%} (target at least 50%)")
    print(f"304 rate: {cached.rate:.0f}/s (target at least 1,500/s)")
    print(f"queries per standings request: {warm} (target at most 3); {cold} to build it")
    print(f"queries per live request: {live_warm}; {live_cold} to build it")
    for run in runs:
        print(f"median latency {run.name} {statistics.median(run.latencies) * 1000:.1f} ms")
    return 0


def _etag(address: str, path: str) -> str:
    host, port = address.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("GET", path, headers={"Accept": "application/json", "Accept-Language": "en"})
    response = conn.getresponse()
    response.read()
    etag = response.getheader("ETag")
    assert response.status == 200 and etag, (response.status, etag)
    return etag


if __name__ == "__main__":
    sys.exit(main())
