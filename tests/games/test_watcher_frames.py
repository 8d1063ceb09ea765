"""A state's frame for the sockets without a seat is made once per process and holds no hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import consumers, selectors
from games.broadcast import game_message
from games.hooks import PLAYER, SPECTATOR
from tests.builders import LiveTable

pytestmark = pytest.mark.django_db(transaction=True)


def frame(snapshot: dict[str, Any], **changes: Any) -> str:
    call: dict[str, Any] = {
        "role": SPECTATOR,
        "names": {},
        "ranks": {},
        "log_since": 0,
        "language": "en",
        **changes,
    }
    return consumers.watcher_frame(snapshot, **call)


def test_watchers_at_one_point_share_one_frame_without_a_hand(
    live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = game_message(live_table.game)
    made = []
    real = selectors.state_message

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(kwargs["role"])
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors, "state_message", counted)
    first = frame(snapshot)
    # the same state for another watcher: the frame made for the first
    assert frame(snapshot) is first
    assert made == [SPECTATOR]
    message = json.loads(first)
    assert message["role"] == SPECTATOR and message["seat"] is None and message["legal"] == []
    assert message["view"]["hand"] is None and "hands" not in message["view"]
    # whatever the frame says differently is made apart: the role, the language, the log
    # already sent, the players' names
    assert frame(snapshot, role=PLAYER) != first
    assert frame(snapshot, language="ru") is not first
    assert frame(snapshot, log_since=1) is not first
    assert frame(snapshot, names={live_table.game.players[0]: "A"}) != first
    assert made == [SPECTATOR, PLAYER, SPECTATOR, SPECTATOR, SPECTATOR]
