"""``durak_site.redisloop.run``: one event loop per process for synchronous code's Redis sends
(a worker's broadcasts and feed events), in a Celery prefork child too; and the broadcasts of a
worker on the Redis pub/sub layer sent from it, not from a new loop per pass."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from typing import Any

import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer

from durak_site import redisloop
from games import broadcast


async def _here() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    return asyncio.get_running_loop(), threading.current_thread()


def test_every_call_runs_on_the_one_loop_of_the_process_on_its_own_thread() -> None:
    # when: three calls from this thread and one from another
    seen = [redisloop.run(_here, timeout=5) for _ in range(3)]
    other: list[Any] = []
    thread = threading.Thread(target=lambda: other.append(redisloop.run(_here, timeout=5)))
    thread.start()
    thread.join()
    # then: one loop, one thread, neither the caller's
    assert len({id(loop) for loop, _ in [*seen, *other]}) == 1
    (loop_thread,) = {t for _, t in [*seen, *other]}
    assert loop_thread is not threading.current_thread() and loop_thread.daemon


def test_a_result_and_an_exception_come_back_to_the_caller() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def failing() -> None:
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    assert redisloop.run(answer, timeout=5) == 42
    with pytest.raises(ConnectionError):
        redisloop.run(failing, timeout=5)


def test_past_its_timeout_the_coroutine_is_cancelled_and_the_loop_goes_on() -> None:
    cancelled = threading.Event()

    async def hanging() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(TimeoutError):
        redisloop.run(hanging, timeout=0.1)
    assert cancelled.wait(5)
    assert redisloop.run(_here, timeout=5)[0].is_running()


def test_from_the_loops_own_thread_it_refuses_instead_of_waiting_on_itself() -> None:
    async def nested() -> None:
        redisloop.run(_here, timeout=1)

    with pytest.raises(RuntimeError, match="own thread"):
        redisloop.run(nested, timeout=5)


def _child(out: Any) -> None:
    loop, thread = redisloop.run(_here, timeout=5)
    out.send((os.getpid(), id(loop), thread.ident))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a forked child (Celery's prefork pool)")
def test_a_forked_child_makes_a_loop_of_its_own() -> None:
    # given: the loop running in this process (a prefork pool's parent that sent once)
    loop, thread = redisloop.run(_here, timeout=5)
    # when: a forked child sends (the parent's loop thread is not in the child)
    receiving, sending = multiprocessing.get_context("fork").Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_child, args=(sending,))
    child.start()
    assert receiving.poll(20), "the child's run() did not answer"
    pid, child_loop, _thread = receiving.recv()
    child.join(10)
    # then: it ran on a loop and thread of its own; the parent's still runs here
    assert pid != os.getpid() and child.exitcode == 0
    assert child_loop != id(loop)  # the parent's loop object is in the child's memory too
    assert redisloop.run(_here, timeout=5) == (loop, thread)


def test_a_workers_broadcasts_on_the_redis_layer_go_out_from_the_process_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given: a Redis pub/sub channel layer whose publishes are noted (no Redis needed)
    layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1/0"])
    published: list[tuple[str, Any, threading.Thread]] = []

    async def publish(_layer: Any, group: str, message: dict[str, Any]) -> None:
        published.append((group, asyncio.get_running_loop(), threading.current_thread()))

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(broadcast, "_publish", publish)
    monkeypatch.setattr(broadcast, "resender", broadcast.Resender())
    # when: three passes from synchronous code, as a worker's jobs send them
    for table in (1, 2, 3):
        sent = broadcast._send_many([(broadcast.table_group(table), {"game_id": table})])
        assert sent == 1
    # then: each went out on the process's loop (one loop for all, not the caller's thread)
    loop, thread = redisloop.run(_here, timeout=5)
    assert [group for group, _, _ in published] == ["table-1", "table-2", "table-3"]
    assert {(id(lp), t) for _, lp, t in published} == {(id(loop), thread)}
    assert broadcast.resender.waiting() == {}
