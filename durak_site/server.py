"""The ASGI application as the server processes load it (``durak_site.processes``): the one of
``durak_site.asgi`` plus tuning for a long-running server process that code importing the
application (the tests' communicators) should not get.

Garbage collection: the live-table load benchmark's slowest round trips were the collector's
full passes over everything the process holds (Django, the URL and model registries, hundreds
of consumers). Everything alive after start-up is moved out of the collector's sight
(``gc.freeze``), and collections run less often. Measured at 200 tables at a player's pace on
two servers, alternating runs: p99 43 and 69 ms with this, 118 and 166 ms without. Reference
cycles are still collected, just in larger batches.
"""

from __future__ import annotations

import gc

from durak_site.asgi import application

__all__ = ["application"]

gc.collect()
gc.freeze()
gc.set_threshold(20_000, 50, 1000)
