"""A client follows the demo's running event only through ``/live/`` (with ``If-None-Match``)
and the event log (``/events/?since=``), as a TV overlay would (issue 22's "done means").

The event is the demo's own (``demo.Command._live``: the admin and seven of the league's bots at
4-seat tables, a swiss of two rounds). Its jobs run in-process, so the bots play as the demo's
worker would; the test plays the admin's seat one move at a time through the game service, and
the client polls after every move. It checks, move by move, that ``/live/`` answers 304 exactly
while the tournament's version stands still (and that what the client kept is then what a fresh
read gives), that the client's version only grows and the event log fills every version, and
that the standings the client built from the events are ``/live/``'s; at the end, that its view
(from ``tournament_completed``) is the final standings, payouts and ranks, and the prize pool,
as the test itself reads them from ``GET /standings/`` and ``GET /tournaments/{slug}/``.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games import engine
from games.engine import GameState
from games.engine.bots import HeuristicBot, acting_seat
from games.models import Game
from games.services import game_apply_action
from tests.factories import console_user
from tournaments import services
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle
from tournaments.management.commands import demo
from tournaments.models import Player, Table, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

API = "/api/v1/"
#: Where the client may go: ``/live/`` and the event log, nothing else.
FOLLOWED = ("live/", "events/")


@pytest.fixture(autouse=True)
def _no_throttling(monkeypatch: pytest.MonkeyPatch) -> None:
    # hundreds of polls in a few seconds: the API's throttles are tested elsewhere
    monkeypatch.setattr(ApiAnonThrottle, "allow_request", lambda self, request, view: True)
    monkeypatch.setattr(ApiUserThrottle, "allow_request", lambda self, request, view: True)


class Follower:
    """An overlay's client: it polls ``/live/`` with ``If-None-Match`` and, on each 200, reads
    the event log from the last version it has; its view is built from the events' facts."""

    def __init__(self, slug: str) -> None:
        self.http = Client(headers={"Accept-Language": "en"})
        self.base = f"{API}tournaments/{slug}/"
        self.paths: list[str] = []
        self.etag: str | None = None
        self.live: dict[str, Any] = {}
        self.version = 0
        self.answers = {200: 0, 304: 0}
        self.events: list[str] = []
        # the view, from the events
        self.standings: dict[int, dict[int, dict[str, Any]]] = {}  # stage -> entry id -> row
        self.results: dict[int, dict[str, Any]] = {}  # table id -> its result
        self.seats: dict[int, list[int]] = {}  # table id -> player ids by position
        self.final: list[dict[str, Any]] = []
        self.payouts: list[dict[str, Any]] = []
        self.ranks: dict[int, str] = {}
        self.prize_pool: dict[str, Any] | None = None
        self.completed: dict[str, Any] | None = None

    def _get(self, path: str, **headers: str) -> Any:
        assert path.startswith(FOLLOWED), path
        self.paths.append(path)
        return self.http.get(self.base + path, headers=headers)

    def poll(self) -> bool:
        """One poll; whether anything changed."""
        headers = {"If-None-Match": self.etag} if self.etag else {}
        answer = self._get("live/", **headers)
        assert answer.status_code in (200, 304), answer.content
        self.answers[answer.status_code] += 1
        if answer.status_code == 304:
            assert answer["ETag"] == self.etag
            return False
        self.etag, self.live = answer["ETag"], answer.json()
        self._catch_up()
        assert self.version == self.live["tournament"]["version"]
        return True

    def _catch_up(self) -> None:
        while True:
            page = self._get(f"events/?since={self.version}&limit=7")
            assert page.status_code == 200, page.content
            body = page.json()
            for event in body["events"]:
                # no gap, never backwards: every version has its event, in order
                assert event["version"] == self.version + 1, (event["version"], self.version)
                self.version = event["version"]
                self.apply(event["event"], event["data"])
            if not body["more"]:
                assert self.version == body["version"]
                return

    def apply(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append(kind)
        if kind in ("round_paired", "seats_swapped"):
            for table in data["tables"]:
                self.seats[table["id"]] = [s["player"]["id"] for s in table["seats"]]
        elif kind in ("table_finished", "result_corrected"):
            self.results[data["table_id"]] = data["table_detail"]["result"]
            moved = data["standings"]
            assert not moved["truncated"]
            rows = self.standings.setdefault(moved["stage"], {})
            for row in moved["rows"]:
                rows[row["entry_id"]] = row
        elif kind in ("round_finished", "stage_finished"):
            rows = self.standings.setdefault(data["stage"], {})
            for short in data["standings"]["rows"]:
                rows[short["entry_id"]] = {**rows.get(short["entry_id"], {}), **short}
        elif kind == "tournament_finished":
            self.final = data["final_standings"]["rows"]
        elif kind == "awards_computed":
            if data["what"] == "prize_pool":
                self.prize_pool, self.payouts = data["prize_pool"], data["payouts"]
            elif data["what"] == "ranks":
                self.ranks = {r["player_id"]: r["rank"] for r in data["ranks"]}
        elif kind == "tournament_completed":
            self.completed = data
            self.final = data["final_standings"]["rows"]
            self.prize_pool = data["prize_pool"]

    def stage_rows(self, stage: int) -> list[dict[str, Any]]:
        return sorted(self.standings.get(stage, {}).values(), key=lambda row: row["position"])


def the_demos_running_event() -> tuple[Tournament, Player]:
    """The demo's event in progress, made by the demo's own code (with in-process jobs the bots
    play their tables as it starts; the admin's table waits for the admin)."""
    organiser, referee = (console_user(group, group) for group in ("organiser", "referee"))
    admin = User.objects.create_superuser("admin", "admin@example.com", "x")
    bots = [  # as ``demo.Command._league`` makes the league's bots
        services.player_create(
            display_name=f"Бот лиги {i + 1}",
            club=f"Клуб {i % 3 + 1}",
            bot_kind="pogony" if i % 3 else "heuristic",
        )
        for i in range(demo.LEAGUE_PLAYERS)
    ]
    live = demo.Command()._live(admin, organiser, referee, bots)
    live.refresh_from_db()
    return live, Player.objects.get(user=admin)


def admins_move(me: Player, chooser: random.Random) -> bool:
    """The admin's next move in the admin's game in play (a heuristic bot's choice, applied
    through the game service as the table's socket would); False when no game waits for it."""
    game = (
        Game.objects.filter(
            table__seats__player=me, table__status=Table.Status.PLAYING, status="active"
        )
        .order_by("-pk")
        .first()
    )
    if game is None:
        return False
    seat = game.players.index(me.pk)
    state = GameState.from_dict(game.state)
    assert acting_seat(state) == seat and engine.legal_actions(state, seat), game.state
    action = HeuristicBot().choose(state, seat, chooser)
    body = {k: v for k, v in action.to_json().items() if k != "seat"}
    game_apply_action(game_id=game.pk, seat=seat, action=body, version=game.version)
    return True


def version_of(tournament: Tournament) -> int:
    return Tournament.objects.values_list("version", flat=True).get(pk=tournament.pk)


def test_a_client_following_live_and_the_event_log_ends_with_the_final_standings(
    eager_jobs: None,
) -> None:
    started = time.monotonic()
    # given the demo's running event, the admin's table waiting for the admin
    tournament, me = the_demos_running_event()
    slug = tournament.slug
    assert tournament.status == Tournament.Status.RUNNING
    reader = Client(headers={"Accept-Language": "en"})  # the test's own reads

    def fresh_live() -> Any:
        answer = reader.get(f"{API}tournaments/{slug}/live/")
        assert answer.status_code == 200
        return answer.json()

    # and a client that starts following it now
    follower = Follower(slug)
    assert follower.poll()
    assert follower.version == version_of(tournament) > 0
    chooser = random.Random(22)
    steps = changed = 0
    # when the admin plays, one move at a time, the client polling after each
    while admins_move(me, chooser):
        steps += 1
        before = follower.version
        now = version_of(tournament)
        # then /live/ answers 200 exactly when the tournament's version moved, 304 otherwise
        assert follower.poll() == (now != before), (steps, before, now)
        changed += now != before
        assert follower.version == now >= before
        # and what the client shows is what a fresh read gives (no stale 304)
        assert follower.live == fresh_live()
        # and a second poll with nothing done is a 304
        assert not follower.poll()
        stage = follower.live["stage"]
        if stage is not None and follower.live["standings"]:
            # the standings it built from the events are /live/'s
            assert follower.stage_rows(stage["order"]) == follower.live["standings"]
        assert steps < 2000, "the admin's games do not end"

    # then the event has finished, with its awards
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    follower.poll()
    assert not follower.poll()
    assert changed >= 2  # the first round's end and the event's end, at least
    assert follower.events[-1] == "tournament_completed"
    assert follower.completed is not None
    # and the client's view is the final standings, payouts and ranks the test reads itself
    final = reader.get(f"{API}tournaments/{slug}/standings/")
    assert final.status_code == 200
    rows = final.json()["rows"]
    assert follower.final == rows
    keys = ("place", "player_id", "points", "payout", "rank")

    def pick(rs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [tuple(r[k] for k in keys) for r in rs]

    assert pick(follower.final) == pick(rows)
    assert pick(follower.live["final_standings"]) == pick(rows)
    assert any(r["payout"] for r in rows) and all(r["player_id"] for r in rows)
    assert [(p["place"], p["player_id"], p["payout"]) for p in follower.payouts] == [
        (r["place"], r["player_id"], r["payout"]) for r in rows if r["payout"] is not None
    ]
    assert {r["player_id"]: r["rank"] for r in rows if r["rank"]} == {
        pid: rank for pid, rank in follower.ranks.items() if rank
    }
    # and the prize pool is the tournament's
    money = reader.get(f"{API}tournaments/{slug}/").json()["money"]
    assert follower.prize_pool == money["prize_pool"]
    # and the stage's standings it built are the REST ones
    stage_rows = reader.get(f"{API}tournaments/{slug}/stages/1/standings/").json()["rows"]
    assert follower.stage_rows(1) == stage_rows
    # and every table's result it holds is the REST round's
    for number in (1, 2):
        round_ = reader.get(f"{API}tournaments/{slug}/stages/1/rounds/{number}/").json()
        for table in round_["tables"]:
            if not table["is_bye"]:
                assert follower.results[table["id"]] == table["result"]
    # and it called nothing but /live/ and the event log
    assert all(path.startswith(FOLLOWED) for path in follower.paths)
    assert follower.answers[304] >= steps and follower.answers[200] == changed + 1
    assert time.monotonic() - started < 30, f"{time.monotonic() - started:.1f} s"
