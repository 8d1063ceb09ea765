"""Optional server-side timing of the live table's hot path, for the load benchmark.

Off unless ``DURAK_TIMING`` names a file prefix: then each process appends lines
``<unix time> <phase> <milliseconds>`` to ``<prefix>.<pid>`` (buffered, flushed about once a
second and at exit), and ``bench.live_tables`` aggregates them. When off, :func:`record` is one
attribute test, so the instrumented code paths cost nothing measurable.

Phases (per accepted action unless said otherwise):

``act.total``     the consumer's await of the service call (waiting for a database thread
                  included)
``act.loop``      the one-statement write of an action on the event loop
                  (``games.services.live``)
``act.db``        ``table_act`` on a database thread: row lock, engine apply, insert, update,
                  commit (its broadcast is collected, not sent, there)
``act.broadcast`` the consumer's ``group_send`` of the collected broadcast (a Redis publish)
``layer``         from the start of ``group_send`` to the consumer's handler (per socket)
``redact``        the per-viewer state message: engine view, legal moves (per socket)
``send``          JSON encoding and handing the frame to the server (per socket)
"""

from __future__ import annotations

import atexit
import os
import threading
import time

PREFIX = os.environ.get("DURAK_TIMING", "")
ENABLED = bool(PREFIX)

_lines: list[str] = []
_lock = threading.Lock()
_flushed = [time.monotonic()]


def record(phase: str, seconds: float) -> None:
    """Note ``seconds`` spent in ``phase`` (a no-op unless ``DURAK_TIMING`` is set)."""
    if not ENABLED:
        return
    _lines.append(f"{time.time():.4f} {phase} {seconds * 1e3:.4f}\n")
    now = time.monotonic()
    if now - _flushed[0] > 1.0:
        _flushed[0] = now
        flush()


def flush() -> None:
    if not ENABLED:
        return
    with _lock:
        lines = _lines[:]
        del _lines[: len(lines)]
        if lines:
            with open(f"{PREFIX}.{os.getpid()}", "a", encoding="ascii") as out:
                out.writelines(lines)


if ENABLED:
    atexit.register(flush)
