"""A round's first games broadcast in one pass (``broadcast.broadcast_many_on_commit``): every
table's group gets its game after commit; with the channel layer down none is lost."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import transaction

from games import broadcast
from games.models import Game
from tests.games.test_reconcile_broadcast import FlakyLayer, layer, wait_for

__all__ = ["layer"]  # the fixture, shared with the single broadcasts' tests


def games_at(tables: range) -> list[Game]:
    return [Game(pk=100 + t, table_id=t, number=1, players=[1, 2], state={}) for t in tables]


def groups(messages: dict[str, dict[str, Any]]) -> set[str]:
    return set(messages)


@pytest.mark.django_db(transaction=True)
def test_every_game_of_a_round_is_sent_to_its_table_after_commit(layer: FlakyLayer) -> None:
    # given a channel layer that answers
    layer.down = False
    # when five games are broadcast together
    with transaction.atomic():
        broadcast.broadcast_many_on_commit(games_at(range(1, 6)), "started")
        assert layer.sent == 0  # nothing before the commit
    # then each went out once, nothing kept for the resender
    assert layer.sent == 5
    assert broadcast.resender.waiting() == {}


@pytest.mark.django_db(transaction=True)
def test_with_the_layer_down_every_game_is_kept_and_sent_when_it_is_back(
    layer: FlakyLayer,
) -> None:
    # given a channel layer that is down
    started = time.monotonic()
    # when five games are broadcast together
    with transaction.atomic():
        broadcast.broadcast_many_on_commit(games_at(range(1, 6)), "started")
    # then the commit did not wait on each of them, and all five wait for the resender
    assert time.monotonic() - started < broadcast.SEND_TIMEOUT
    assert groups(broadcast.resender.waiting()) == {broadcast.table_group(t) for t in range(1, 6)}
    # and once the layer is back each is sent
    layer.down = False
    wait_for(lambda: not broadcast.resender.waiting())
    assert layer.sent >= 5
