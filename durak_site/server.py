"""The ASGI application as the server processes load it (``durak_site.processes``): the one of
``durak_site.asgi`` plus tuning for a long-running server process that code importing the
application (the tests' communicators) should not get.

Garbage collection: tuned for a long-running process (``processes.collector_tuned``): a full pass
over everything the process holds (Django, the URL and model registries, hundreds of consumers)
does not stall the sockets. Measured in ``docs/performance.md``.

Logs: the server's own loggers print request paths with their query strings; secrets in those
are redacted (``durak_site.logs``).

Production (``DEBUG`` off) refuses to start without its collected static files: every page
names its scripts and styles through the manifest that ``manage.py collectstatic`` writes, so
without it (or with one older than the static files) each page would be a 500.
"""

from __future__ import annotations

from django.conf import settings

from durak_site import logs
from durak_site.asgi import application
from durak_site.processes import collector_tuned
from durak_site.startup import static_files_problem

__all__ = ["application"]

logs.install()
if not settings.DEBUG and (problem := static_files_problem()):
    raise SystemExit(f"durak: cannot serve: {problem}")

collector_tuned()
