"""The fault suite's fixtures: its own Redis and PostgreSQL, its processes, its figures.

``chaos_stack`` (one per run): a ``redis-server`` and a PostgreSQL cluster on free ports in a
temporary directory, a migrated database, and the environment for the project's processes on
them (``CeleryProcess`` starts workers and beat with it; ``Stack.manage`` and ``Stack.scene`` run
commands). Tests kill what they start; the fixture stops the services at the end. The shared
PostgreSQL and Redis are never touched.

Each test records what it measured with ``chaos_figures.record(test, **figures)``; the figures
are printed at the end of the run (no ``-s`` needed) and written to
``tests/chaos/artifacts/figures.json``.

The suite runs in the PostgreSQL + Redis pass of the test command (or with ``DURAK_CHAOS=1``):
``tests.chaos.stack.chaos_skip_reason``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tests.chaos.stack import (
    QUEUE,
    ROOT,
    CeleryProcess,
    Figures,
    PrivatePostgres,
    PrivateRedis,
    Stack,
    chaos_skip_reason,
    service_port,
)
from tests.conftest import REAL_STACK

SKIP = chaos_skip_reason(REAL_STACK)
_figures = Figures()  # its clock starts when the suite's services do (chaos_stack)


@pytest.fixture(scope="session")
def chaos_figures() -> Figures:
    return _figures


@pytest.fixture(scope="session")
def chaos_stack() -> Iterator[Stack]:
    """Private Redis and PostgreSQL with the project's database migrated on them."""
    if SKIP:
        pytest.skip(SKIP)
    _figures.started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="durak-chaos-"))
    os.chmod(workdir, 0o755)
    redis = PrivateRedis(workdir)
    postgres = PrivatePostgres(workdir)
    try:
        postgres.init()
        for service in (redis, postgres):
            # A port found free can still be taken before the service binds it: another one.
            for attempt in range(3):
                try:
                    service.start()
                    break
                except Exception:
                    if attempt == 2:
                        raise
                    service.port = service_port()
        url = postgres.create_database("durak_chaos")
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("DURAK_", "CELERY_", "DJANGO_", "PYTEST_"))
            and key not in ("DATABASE_URL", "REDIS_URL")
        }
        env.update(
            DATABASE_URL=url,
            REDIS_URL=redis.url(0),
            DURAK_CELERY_QUEUE=QUEUE,
            DJANGO_SETTINGS_MODULE="durak_site.settings",
            PYTHONUNBUFFERED="1",
        )
        stack = Stack(workdir, redis, postgres, url, env)
        stack.manage("migrate", "--no-input", "-v", "0")
        yield stack
    finally:
        redis.kill()
        postgres.stop()
        keep = os.environ.get("DURAK_CHAOS_KEEP")
        if keep:
            print(f"chaos work directory kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def processes(chaos_stack: Stack) -> Iterator[list[CeleryProcess]]:
    """Workers and beat a test starts (append them): stopped after the test, whatever happened
    (their logs stay in the work directory: ``DURAK_CHAOS_KEEP=1`` keeps it)."""
    started: list[CeleryProcess] = []
    yield started
    for proc in started:
        proc.stop()


#: The lines of a process's log worth showing when a test fails: what went wrong, what the
#: reconciler sent, the broker's losses and the jobs that failed or took long.
NOTEWORTHY = re.compile(
    r"WARNING|ERROR|CRITICAL|Traceback|raised|reconcile: sent|succeeded in \d{2,}\.|expired"
)
LOG_LINES = 80  # per process log, the last ones


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test of the suite shows, beside its traceback, what its processes logged (the
    work directory is gone when CI prints the failure): the noteworthy lines of each log it
    wrote."""
    report = yield
    stack = getattr(item, "funcargs", {}).get("chaos_stack")
    if report.when == "call" and report.failed and isinstance(stack, Stack):
        logs = [log for log in stack.workdir.glob("*.log") if log.stat().st_mtime >= call.start]
        for log in sorted(logs, key=lambda path: path.stat().st_mtime):
            lines = log.read_text(errors="replace").splitlines()
            picked = [line[:300] for line in lines if NOTEWORTHY.search(line)][-LOG_LINES:]
            report.sections.append((f"{log.name} ({len(lines)} lines)", "\n".join(picked)))
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _figures.by_test:
        return
    path = _figures.write()
    terminalreporter.section("fault suite figures")
    for test, values in _figures.by_test.items():
        terminalreporter.write_line(test)
        for name, value in values.items():
            terminalreporter.write_line(f"    {name}: {value}")
    terminalreporter.write_line(f"the fault suite took {_figures.seconds()} s")
    terminalreporter.write_line(f"(written to {path.relative_to(ROOT)})")
