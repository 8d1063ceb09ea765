"""The real path: a task crosses Redis to a worker process; a message crosses the Redis layer."""

from __future__ import annotations

import subprocess
import sys

import pytest
from channels.layers import get_channel_layer

from durak_site.tasks import ping
from tests.conftest import ROOT, subprocess_env

pytestmark = pytest.mark.real_stack


@pytest.mark.django_db(transaction=True)
def test_a_task_runs_in_a_real_worker_and_its_result_comes_back(celery_worker: None) -> None:
    # given a worker process listening on this run's queue
    # when a task is sent through the Redis broker
    result = ping.delay("через брокер")
    # then the worker ran it and the result came back through the Redis backend
    answer = result.get(timeout=30)
    assert answer["echo"] == "через брокер"
    assert result.successful()


SENDER = """
import asyncio, sys, django
django.setup()
from channels.layers import get_channel_layer
async def main():
    await get_channel_layer().send(sys.argv[1], {"type": "probe", "text": sys.argv[2]})
asyncio.run(main())
"""


async def test_a_message_from_another_process_crosses_the_redis_layer() -> None:
    layer = get_channel_layer()
    assert layer is not None
    channel = await layer.new_channel()
    # another process, with its own layer connection, sends to our channel
    sender = subprocess.run(
        [sys.executable, "-c", SENDER, channel, "ход сделан"],
        cwd=ROOT,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sender.returncode == 0, sender.stderr
    message = await layer.receive(channel)
    assert message == {"type": "probe", "text": "ход сделан"}
