"""The usual cast and the real parts the suite starts itself.

The cast, shared by every suite: ``referee`` (an ordinary user of the referee group, assigned to
``live_table``'s event; a test assigns it to any other event it referees), ``staff_user`` (a
superuser: only where a test means staff), ``outsider`` (logged in, no seat, no rights: must be
refused), ``players`` (two humans), ``bot_players`` (sixteen bots), ``game`` (a dealt game of
the two ``players``, no table), ``open_tournament`` (the bots registered for a swiss then
knockout event) and ``live_table`` (a started two-seat tournament, its game in play).
The scenes behind them, for tests that need a variant, are in ``tests/builders.py``.

The console's cast (``tournaments.permissions``): ``superuser``, ``organiser`` and
``other_organiser`` (group ``organiser``), ``event_referee`` and ``other_referee`` (group
``referee``), ``staff_without_group``; ``console_events``: event A of ``organiser`` refereed by
``event_referee``, event B of ``other_organiser`` refereed by ``other_referee``.

``real_stack`` tests need PostgreSQL + Redis (``DATABASE_URL`` and ``REDIS_URL`` set, as in
``.ci/run``); on the embedded defaults they are skipped with that reason.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from asgiref.sync import SyncToAsync
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, connections
from django.utils import translation
from hypothesis import settings as hypothesis_settings
from pytest_django import DjangoDbBlocker, Settings

from durak_site import dbloop, dbthreads, jobs
from durak_site.celery import app
from durak_site.processes import worker_command
from games import services as game_services
from games.models import Game
from tests.builders import (
    GAME_SEED,
    ConsoleEvent,
    LiveTable,
    console_event,
    make_tournament,
    start_live_table,
)
from tests.factories import (
    BotPlayerFactory,
    PlayerFactory,
    SuperuserFactory,
    UserFactory,
    console_user,
    referee_user,
)
from tournaments.models import Player, Tournament
from tournaments.permissions import ORGANISER, REFEREE

# CI replays the same examples every run (a red build is reproducible); locally hypothesis
# explores new ones each time.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
hypothesis_settings.register_profile("dev", deadline=None)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "dev")

ROOT = Path(__file__).resolve().parent.parent
REAL_STACK = bool(os.environ.get("REDIS_URL")) and bool(settings.USES_POSTGRES)
# The names of the worker processes the suite has started and not yet stopped.
RUNNING_WORKERS: set[str] = set()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if REAL_STACK:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL + Redis: set DATABASE_URL and REDIS_URL")
    for item in items:
        if "real_stack" in item.keywords:
            item.add_marker(skip)


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child process of the suite (server, worker, CLI)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **extra}
    env.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    return env


def run_database_url() -> str:
    """DATABASE_URL pointing at the database pytest-django created for this run."""
    url = urlsplit(os.environ["DATABASE_URL"])
    return url._replace(path="/" + connection.settings_dict["NAME"]).geturl()


@contextlib.contextmanager
def worker_process(name: str, log_name: str, blocker: DjangoDbBlocker) -> Iterator[None]:
    """A real Celery worker process called ``name`` (``worker@host``) on the test database and
    this run's own queue, answering before this yields, stopped after; its output goes to
    ``log_name`` in the project folder."""
    with blocker.unblock():
        env = subprocess_env(DATABASE_URL=run_database_url())
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    with open(ROOT / log_name, "w") as log:
        worker = subprocess.Popen(
            worker_command(sys.executable, queue=queue, name=name, solo=True, loglevel="warning"),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while not app.control.ping(destination=[name], timeout=1.0):
                if worker.poll() is not None:
                    raise RuntimeError(f"the worker {name} died: see {log.name}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the worker {name} did not answer: see {log.name}")
            RUNNING_WORKERS.add(name)
            yield
        finally:
            RUNNING_WORKERS.discard(name)
            worker.terminate()
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()


def wait_until_workers_are_quiet(timeout: float = 60) -> None:
    """Drop what is still queued, revoke what a worker holds for later (a countdown) and wait
    for the task in hand: a job still running when a test's tables are flushed holds row locks
    that the flush's ``TRUNCATE`` deadlocks on (jobs chained by a finished event go on after
    its test's last assertion). Quiet means an empty queue and nothing active or reserved,
    twice in a row."""
    inspect = app.control.inspect(destination=sorted(RUNNING_WORKERS), timeout=1.0)
    deadline = time.monotonic() + timeout
    quiet_checks = 0
    while quiet_checks < 2:
        app.control.purge()
        later = [t["request"]["id"] for ts in (inspect.scheduled() or {}).values() for t in ts]
        if later:
            app.control.revoke(later)
        held = [*(inspect.active() or {}).values(), *(inspect.reserved() or {}).values()]
        quiet_checks = 0 if any(held) else quiet_checks + 1
        if time.monotonic() > deadline:
            raise RuntimeError(f"the workers did not go quiet in {timeout:.0f} s: {held}")


@pytest.fixture(scope="session")
def celery_worker(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[None]:
    """A real Celery worker process on the test database and this run's own queue. Once it
    runs, it takes the jobs of every later test too (``_workers_quiet_before_the_flush``)."""
    if not REAL_STACK:
        pytest.skip("a real worker needs REDIS_URL and DATABASE_URL")
    app.control.purge()
    name = f"test-{os.getpid()}@{socket.gethostname()}"
    with worker_process(name, ".pytest-worker.log", django_db_blocker):
        yield


@pytest.fixture(autouse=True)
def _workers_quiet_before_the_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test whose rows are committed (and flushed after it) ends with the suite's workers
    quiet (``wait_until_workers_are_quiet``), whether or not it asked for one: a job it queued
    is taken by a worker started for an earlier test."""
    yield
    marker = request.node.get_closest_marker("django_db")
    committed = "transactional_db" in request.fixturenames or bool(
        marker and marker.kwargs.get("transaction")
    )
    if RUNNING_WORKERS and committed:
        wait_until_workers_are_quiet()


@pytest.fixture(autouse=True)
def _close_async_connections() -> Iterator[None]:
    """Database connections opened in an async test live in asgiref's one sync thread
    (``database_sync_to_async``), in the consumers' database threads (``durak_site.dbthreads``)
    and on the event loops (``durak_site.dbloop``); close them there so that the test database
    can be flushed and dropped (PostgreSQL refuses to drop a database that still has a session)."""
    yield
    SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=30)
    dbthreads.close_all()
    dbloop.close_all()


@pytest.fixture(autouse=True)
def _no_delayed_job_outlives_its_test() -> Iterator[None]:
    """A delayed job run in-process (a game's clock, Celery eager) that is not due when its
    test ends is cancelled: it would fire in a later test, where the database is not open to
    it or its rows are gone."""
    yield
    jobs.cancel_delayed()


@pytest.fixture(autouse=True)
def _english_refusals() -> Iterator[None]:
    """The test body speaks English, so that a test matches a service's refusal by its English
    text; the site's default, Russian, is what a request gets (the test Client and the ASGI
    server choose a request's language themselves, through ``LocaleMiddleware``)."""
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Settings) -> None:
    # The real hasher is slow on purpose; tests only need passwords to round-trip.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def declared_refusals_only(settings: Settings) -> None:
    """An API operation that answers a refusal its schema does not declare raises
    (``tournaments.api.contract.check_error_code``): every test's requests check the schema."""
    settings.API_CHECK_ERROR_CODES = True


@pytest.fixture
def eager_jobs() -> Iterator[None]:
    """Run jobs in-process for this test, whatever the configuration (a real worker is tested
    separately)."""
    with jobs_in_process():
        yield


@contextlib.contextmanager
def jobs_in_process() -> Iterator[None]:
    """Jobs run in-process (Celery eager) inside this block, whatever the configuration."""
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = saved


# --- the usual cast -------------------------------------------------------------------------------


@pytest.fixture
def referee(db: None) -> User:
    """The referee: an ordinary user (no staff rights) of the ``referee`` group, assigned to
    ``live_table``'s event; at the tables of the events it is assigned to, the referee panel,
    every hand and the referee's commands. Assign it to any other event a test needs it in
    (``tournament.referees.add(referee)``, ``start_live_table(referees=[referee])``)."""
    return referee_user()


@pytest.fixture
def staff_user(db: None) -> User:
    """Staff with every right (a superuser): for a test that means staff, not a referee."""
    return SuperuserFactory.create(username="staff")


@pytest.fixture
def outsider(db: None) -> User:
    """A logged-in user with no seat and no staff rights: must be refused."""
    return UserFactory.create(username="outsider")


@pytest.fixture
def players(db: None) -> list[Player]:
    """Two human players, each with a user to log in as."""
    return PlayerFactory.create_batch(2)


@pytest.fixture
def bot_players(db: None) -> list[Player]:
    """Sixteen bots: a whole field for the default swiss then knockout plan."""
    return BotPlayerFactory.create_batch(16)


@pytest.fixture
def game(players: list[Player]) -> Game:
    """A game of the two ``players`` dealt from ``GAME_SEED`` (standard rules, no table)."""
    return game_services.game_create(rules={}, players=[p.pk for p in players], seed=GAME_SEED)


@pytest.fixture
def open_tournament(bot_players: list[Player]) -> Tournament:
    """The sixteen bots registered for a swiss then knockout event that has not started."""
    return make_tournament(bot_players)


@pytest.fixture
def live_table(eager_jobs: None, referee: User) -> LiveTable:
    """A started public two-seat tournament of two humans, refereed by ``referee``: its table
    and game in play."""
    return start_live_table(referees=[referee])


# --- the console's cast -------------------------------------------------------------------------


@pytest.fixture
def superuser(db: None) -> User:
    return SuperuserFactory.create(username="root")


@pytest.fixture
def organiser(db: None) -> User:
    """Owns event A of ``console_events``."""
    return console_user("organiser", ORGANISER)


@pytest.fixture
def other_organiser(db: None) -> User:
    """Owns event B of ``console_events``."""
    return console_user("other-organiser", ORGANISER)


@pytest.fixture
def event_referee(db: None) -> User:
    """Assigned to event A of ``console_events``."""
    return console_user("event-referee", REFEREE)


@pytest.fixture
def other_referee(db: None) -> User:
    """Assigned to event B of ``console_events`` only."""
    return console_user("other-referee", REFEREE)


@pytest.fixture
def staff_without_group(db: None) -> User:
    """Staff, so the admin lets it in, but in no console group: sees nothing."""
    return console_user("staff-only", None)


@pytest.fixture
def console_events(
    organiser: User, other_organiser: User, event_referee: User, other_referee: User
) -> tuple[ConsoleEvent, ConsoleEvent]:
    """Events A and B: running, with one of every record the console shows."""
    return (
        console_event(owner=organiser, referees=[event_referee], name="Кубок А"),
        console_event(owner=other_organiser, referees=[other_referee], name="Кубок Б"),
    )
