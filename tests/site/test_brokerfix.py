"""A worker's broker channel that Redis dropped closes as a connection error, not an
``AttributeError`` that kills the worker (``durak_site.brokerfix``; the fault suite's Redis
restart is the whole story: ``tests/chaos/test_edge_faults.py``)."""

from __future__ import annotations

from typing import Any

import pytest
import redis.exceptions
from django.conf import settings
from kombu import Connection

from durak_site import brokerfix
from tests.conftest import REAL_STACK

pytestmark = pytest.mark.skipif(not REAL_STACK, reason="needs Redis (REDIS_URL)")


def test_a_channel_whose_connection_was_detached_closes_with_its_unacknowledged_message() -> None:
    brokerfix.apply()
    brokerfix.apply()  # once is enough: applying again changes nothing
    with Connection(settings.CELERY_BROKER_URL) as connection:
        # given a channel holding a message it has not acknowledged (a job acknowledged late)
        channel: Any = connection.channel()  # the Redis transport's channel (untyped in stubs)
        queue = connection.SimpleQueue("durak-brokerfix-test", channel=channel)
        queue.clear()
        queue.put({"job": 1})
        queue.get(timeout=5)  # received, not acknowledged
        assert channel.qos._delivered
        # when the connection to Redis drops: its pool gone, its transport detached
        channel._disconnect_pools()
        channel.connection.client = None
        # then reaching Redis from it is a connection error, which kombu expects there
        with pytest.raises(redis.exceptions.ConnectionError):
            channel._connparams()
        # and closing it goes on (kombu ignores connection errors there) instead of raising
        # the AttributeError that stopped the worker
        connection.maybe_close_channel(channel)
        assert channel.closed
