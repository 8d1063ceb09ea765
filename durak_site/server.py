"""The ASGI application as the server processes load it (``durak_site.processes``): the one of
``durak_site.asgi`` plus tuning for a long-running server process that code importing the
application (the tests' communicators) should not get.

Garbage collection: everything alive after start-up is moved out of the collector's sight
(``gc.freeze``), and collections run less often, so that a full pass over everything the process
holds (Django, the URL and model registries, hundreds of consumers) does not stall the sockets.
Reference cycles are still collected, in larger batches. Measured in ``docs/performance.md``.
"""

from __future__ import annotations

import gc

from durak_site.asgi import application

__all__ = ["application"]

gc.collect()
gc.freeze()
gc.set_threshold(20_000, 50, 1000)
