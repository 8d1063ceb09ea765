"""The production start: ``python -m durak_site.serve`` (in the virtual environment; from a
checkout, ``python3 dev.py serve`` does the same).

In order, and stopping at the first failure with a message:

1. the settings must be production's (``DJANGO_DEBUG=0``, with its required secret key and
   hosts) with a broker (``REDIS_URL``): the jobs need a worker;
2. ``check --deploy`` (an error stops the start; warnings are printed);
3. ``migrate`` (``--no-migrate`` when another step of the deployment does it);
4. ``collectstatic``: the manifest that every page names its scripts and styles through
   (WhiteNoise serves the files; a server started without it refuses to start,
   ``durak_site.server``);
5. a Celery worker, Celery beat and the ASGI server (``--workers`` uvicorn processes on one
   port, believing forwarded headers only from ``DURAK_TRUSTED_PROXIES``), each in a process
   group of its own; ``/healthz`` must answer within a minute.

Then it watches them: SIGTERM, SIGINT or SIGHUP, or the exit of any one of them, stops all
(SIGTERM, 15 seconds, then SIGKILL), and the exit code says which.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

from durak_site.processes import (
    asgi_command,
    beat_command,
    stop,
    trusted_proxies_in,
    wait_serving,
    watch,
    worker_command,
)

ROOT = Path(__file__).resolve().parent.parent


def say(message: str) -> None:
    print(f"[serve] {message}", flush=True)


def options(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m durak_site.serve", description=__doc__)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2, help="ASGI server processes")
    parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes")
    parser.add_argument(
        "--beat-schedule",
        type=Path,
        default=ROOT / ".celerybeat-schedule",
        help="the file where beat keeps when each periodic job last ran",
    )
    parser.add_argument("--no-migrate", action="store_true", help="do not run migrations")
    return parser.parse_args(argv)


def prepare(*, migrate: bool) -> None:
    """Steps 1 to 4 of the module's docstring, in this process."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    import django  # noqa: PLC0415 (after the settings module is named)

    django.setup()
    from django.conf import settings  # noqa: PLC0415
    from django.core.management import call_command  # noqa: PLC0415
    from django.db import connections  # noqa: PLC0415

    if settings.DEBUG:
        raise SystemExit("serve is production's start: set DJANGO_DEBUG=0 (dev.py demo develops)")
    if settings.CELERY_TASK_ALWAYS_EAGER or not settings.REDIS_URL:
        raise SystemExit("serve needs a broker for its worker: set REDIS_URL")
    say("check --deploy")
    call_command("check", deploy=True)
    if migrate:
        say("migrate")
        call_command("migrate", interactive=False, verbosity=1)
    say(f"collectstatic into {settings.STATIC_ROOT}")
    call_command("collectstatic", interactive=False, verbosity=0)
    connections.close_all()


def main(argv: list[str] | None = None) -> int:
    args = options(sys.argv[1:] if argv is None else argv)
    prepare(migrate=not args.no_migrate)
    python = sys.executable
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    running: dict[str, subprocess.Popen[bytes]] = {}

    def start(name: str, command: list[str]) -> subprocess.Popen[bytes]:
        # A process group of its own: stopping it reaches its children (the worker's pool, the
        # server's workers), and a terminal's Ctrl-C reaches only this process, which stops all.
        proc = subprocess.Popen(command, cwd=ROOT, env=env, process_group=0)
        running[name] = proc
        say(f"{name} started (pid {proc.pid})")
        return proc

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, interrupt)
    try:
        start("worker", [*worker_command(python), "--concurrency", str(args.concurrency)])
        start("beat", beat_command(python, args.beat_schedule))
        proxies = trusted_proxies_in(env)  # checked by the settings in prepare()
        server = asgi_command(
            python, args.host, args.port, workers=args.workers, trusted_proxies=proxies
        )
        asgi = start("asgi", server)
        local = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
        wait_serving(f"{local}:{args.port}", asgi, 60, "the server's output above")
        say(f"serving on {args.host}:{args.port} with a Celery worker and beat")
        # Which addresses the lockout and the throttles count: the operator should see it.
        if proxies:
            say(f"client addresses forwarded by {', '.join(proxies)} are believed")
        else:
            say("no proxy is trusted (DURAK_TRUSTED_PROXIES): clients are their connections")
        return watch(running, say=say)
    except KeyboardInterrupt:
        say("stopping")
        return 0
    except RuntimeError as exc:  # the server did not come up
        say(str(exc))
        return 1
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)  # a second signal must not cut the stop short
        stop(running.values(), say=say)


if __name__ == "__main__":
    sys.exit(main())
