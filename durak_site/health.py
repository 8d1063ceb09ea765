"""``/healthz``: is every part the service needs reachable right now?

200 when all are up, 503 when one is down. Each probe is bounded by a short timeout so that a
dead dependency answers quickly instead of hanging the check.

**What it tells whom.** A load balancer's probe, or anyone else, gets the status code and
``{"status": "ok"}`` or ``{"status": "unavailable"}``, nothing more: which database engine, which
channel layer and whether the jobs run in-process are a map of the deployment, and a dependency's
error text can name hosts. A logged-in staff user (``is_staff``) gets the details as well: what
is down, each part's check, the engines, and the age of beat's last tick.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from durak_site.celery import app as celery_app
from durak_site.errors import DATABASE_DOWN
from durak_site.tasks import BEAT_KEY

PROBE_TIMEOUT = 2  # seconds (kombu takes whole seconds)


def check_database() -> str:
    pool = getattr(connection, "pool", None)  # PostgreSQL's connection pool, if configured
    if pool is not None:
        # A connection from the pool waited for no longer than the probe: through Django the
        # wait is the pool's own timeout (10 s), and a dead database kept /healthz that long.
        # Django opens its pool with the process's first connection, which may be this one.
        pool.open()
        with pool.connection(timeout=PROBE_TIMEOUT) as conn:
            conn.execute("SELECT 1").fetchone()
        return "ok"
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


async def _channel_round_trip() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")
    channel = await layer.new_channel()
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz.ping", "token": token})
    message = await layer.receive(channel)
    if message.get("token") != token:
        raise RuntimeError("the channel layer returned another message")


def check_channel_layer() -> str:
    async def bounded() -> None:
        await asyncio.wait_for(_channel_round_trip(), PROBE_TIMEOUT)

    async_to_sync(bounded)()
    return "ok"


def check_broker() -> str:
    if celery_app.conf.task_always_eager:
        return "ok (eager: tasks run in-process)"
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=PROBE_TIMEOUT)
    return "ok"


CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "channel_layer": check_channel_layer,
    "broker": check_broker,
}


def _describe(exc: BaseException) -> str:
    text = str(exc) or exc.__class__.__name__
    return f"down: {text[:200]}"


def _staff(request: HttpRequest) -> bool:
    """Whether the caller is a logged-in staff user. Reading the session's user needs the
    database: while it is down, nobody is (the probe must still answer, and quickly)."""
    try:
        user = request.user
        return bool(user.is_authenticated and user.is_active and user.is_staff)
    except DATABASE_DOWN:
        return False


@never_cache
@require_safe  # HEAD too: a load balancer's probe may ask only for the status
def healthz(request: HttpRequest) -> JsonResponse:
    parts: dict[str, str] = {}
    down: list[str] = []
    for name, check in CHECKS.items():
        try:
            parts[name] = check()
        except Exception as exc:  # any failure of a dependency is reported, never raised
            parts[name] = _describe(exc)
            down.append(name)
    status = 200 if not down else 503
    body: dict[str, object] = {"status": "ok" if not down else "unavailable"}
    if not _staff(request):
        return JsonResponse(body, status=status)
    body |= {
        "down": down,
        "checks": parts,
        "database_engine": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
        "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
    }
    try:
        last_beat = cache.get(BEAT_KEY)
    except Exception:  # the cache is the same Redis; its outage shows in the layer check
        last_beat = None
    body["beat_age_seconds"] = None if last_beat is None else round(time.time() - last_beat, 1)
    return JsonResponse(body, status=status)
