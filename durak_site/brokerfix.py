"""A worker that loses Redis while it runs a job survives it (a fix for kombu 5.7's Redis
transport, applied by :mod:`durak_site.celery` in every process that loads the app).

When the connection to Redis drops, the worker closes its channels and reconnects. Closing a
channel puts its unacknowledged messages back (our jobs acknowledge late, so a running job's
message is one), which needs a Redis client; but the channel's pool has just been dropped and
its transport detached from the connection (``transport.client`` is None), so kombu's
``Channel._connparams`` raises ``AttributeError``. Only connection errors are expected there:
the ``AttributeError`` reaches the worker's loop as an "Unrecoverable error" and the worker
exits, with no one left to run the jobs (the fault suite's Redis restart found it). The same
happens when a job finishes and acknowledges its message on the closed channel.

The fix makes that moment a connection error, which kombu and Celery already handle: the close
goes on, the acknowledgement is logged as failed, the worker reconnects. Nothing is lost: the
message stays in Redis's unacknowledged set until its visibility timeout, and the reconciler
has long sent the job again if its work is not done (``durak_site.jobs``).
"""

from __future__ import annotations

from typing import Any

import redis.exceptions
from kombu.transport import redis as kombu_redis

_MARK = "_durak_closed_channel_fix"


def apply() -> None:
    """Make ``Channel._connparams`` on a detached channel raise a Redis connection error
    instead of ``AttributeError`` (once per process)."""
    channel = kombu_redis.Channel
    if getattr(channel, _MARK, False):
        return
    original = channel._connparams  # type: ignore[attr-defined]

    def _connparams(self: Any, asynchronous: bool = False) -> Any:
        if self.connection.client is None:
            raise redis.exceptions.ConnectionError("the broker connection is already closed")
        return original(self, asynchronous=asynchronous)

    channel._connparams = _connparams  # type: ignore[attr-defined]
    setattr(channel, _MARK, True)
