"""Worker that plays random 2-player games of the PyPI package ``durakgame`` (a peer engine).

Run by ``python -m bench.engine --vs-durakgame`` with *another* interpreter, one that has
``durakgame`` installed (it is not a requirement of this project)::

    python3 -m venv .bench-venv && .bench-venv/bin/pip install durakgame==1.0.4
    .bench-venv/bin/python tools/durakgame_driver.py --mem-mb 1024

It lives outside ``games/engine`` on purpose: the engine imports nothing but the standard
library, and this script imports nothing from the engine.  The worker caps its own address
space (``RLIMIT_AS``), then reads one request per line on stdin, ``{"seed": 7, "limit": 0.5}``,
plays one full game of ``durakgame.MrRandom`` against ``durakgame.MrRandom`` (the package's own
random play, deck shuffled and moves chosen by the global ``random`` seeded with ``seed``), and
answers one line on stdout::

    {"status": "ok" | "timeout" | "memory" | "error", "seconds": 0.0012, "moves": 57, "why": ""}

``seconds`` is the game's wall time measured here (``time.perf_counter``, the deal included);
a game is stopped by ``SIGALRM`` after ``limit`` seconds.

Before the first request the worker warms up: a fresh interpreter plays its first game about
20 % slower than the next ones (the same seeds in a fresh worker and in a used one; from the
second game on no difference), and the caller starts a fresh worker after every blow-up, so a
quarter of the timed games would be first games.  It plays untimed games of its own (seeds
``WARMUP_SEED + 1``, ``+ 2``, ..., none a bench's; ``WARMUP_LIMIT`` seconds each) until one
finishes or ``WARMUP_TRIES`` are tried, then answers
``{"ready": true, "warmup": <games played>, "finished": <true if one did>}`` (``"ready": false``
after a memory blow-up, and it exits).  After a timed game's ``memory`` the worker exits too
(the caller starts a new one).  The package prints to stdout in one corner case, so the answers
go to a duplicate of the original stdout and ``sys.stdout`` is sent to ``/dev/null``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import sys
import time
from types import FrameType
from typing import Any, TextIO


class _TimeUp(Exception):
    """Raised by the SIGALRM handler when a game runs over its limit."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _TimeUp


def play_one(seed: int, limit: float) -> dict[str, Any]:
    """Play one random game of ``durakgame`` with ``seed``; stop it after ``limit`` seconds."""
    import durakgame  # noqa: PLC0415 (optional: only the comparison venv has it)

    random.seed(seed)
    moves = 0
    status = "ok"
    why = ""
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        history = durakgame.play(durakgame.MrRandom(), durakgame.MrRandom())
        moves = len(history.p1Moves) + len(history.p2Moves)
    except _TimeUp:
        status = "timeout"
    except MemoryError:
        status = "memory"
    except Exception as exc:  # the peer's own failure (e.g. no move to choose from)
        status, why = "error", f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    seconds = time.perf_counter() - start
    return {"status": status, "seconds": seconds, "moves": moves, "why": why}


WARMUP_SEED = 2**62
"""Above every seed the bench asks for (``seed * 1_000_003 + game``)."""
WARMUP_LIMIT = 0.1
"""Seconds allowed to one warm-up game."""
WARMUP_TRIES = 5
"""Warm-up games played at most, if none finishes."""


def warm_up() -> dict[str, Any]:
    """Play untimed games until one finishes (at most ``WARMUP_TRIES``); return the ready line."""
    played = 0
    status = ""
    while played < WARMUP_TRIES and status not in ("ok", "memory"):
        played += 1
        status = play_one(WARMUP_SEED + played, WARMUP_LIMIT)["status"]
    return {"ready": status != "memory", "warmup": played, "finished": status == "ok"}


def serve(requests: TextIO, answers: TextIO) -> None:
    """Answer one game per request line until the end of input (or a memory blow-up)."""
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        answer = play_one(int(request["seed"]), float(request.get("limit", 0.5)))
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
        if answer["status"] == "memory":
            return


def main(argv: list[str] | None = None) -> None:
    """Cap the address space, import durakgame once, warm up, then serve requests."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mem-mb", type=int, default=1024, help="RLIMIT_AS in MiB (0 = none)")
    args = parser.parse_args(argv)
    if args.mem_mb > 0:
        cap = args.mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    import durakgame  # noqa: F401, PLC0415 (optional; imported once, before the first timed game)

    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    ready = warm_up()
    answers.write(json.dumps(ready) + "\n")
    answers.flush()
    if ready["ready"]:
        serve(sys.stdin, answers)


if __name__ == "__main__":
    main()
