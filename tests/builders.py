"""Scenes the suites build on: a tournament open for registration, a live table in play, an event
with one of every record the console shows.

The named fixtures of the usual cast (``tests/conftest.py``) use these; a test that needs a
variant (a private tournament, a move clock, other rules) calls them itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import IO, Any

from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.utils import timezone

from durak_site.jobs import registered
from games import services as game_services
from games.models import Game, RefereeEvent
from tests.factories import PlayerFactory
from tournaments import reconcile, services
from tournaments.models import (
    AuditEvent,
    Entry,
    League,
    PairEvidence,
    Payout,
    Player,
    PrizePool,
    RankRecord,
    RatingChange,
    Round,
    Table,
    TableResult,
    Tournament,
)
from tournaments.selectors.fairplay import pairs_flagged
from tournaments.services.audit import audit_record

SWISS_THEN_KNOCKOUT = [
    {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": 8}},
    {"format": "knockout", "table_size": 4, "advance_per_table": 2},
]
TWO_SEATS = [{"format": "swiss", "table_size": 2, "rounds": 1}]
# The seed of the ``game`` fixture: a test may check its commitment, or that it stays secret.
GAME_SEED = "fixed-seed-1"


def make_tournament(
    players: Sequence[Player], stages: list[dict[str, Any]] | None = None, **kw: Any
) -> Tournament:
    """A tournament open for registration with ``players`` registered (no move clock; an entry
    fee of 100 and a 10 % rake unless ``kw`` says otherwise)."""
    tournament = services.tournament_create(
        name=kw.pop("name", "Кубок клуба"),
        stages=stages or SWISS_THEN_KNOCKOUT,
        entry_fee=kw.pop("entry_fee", "100"),
        rake_percent=kw.pop("rake_percent", "10"),
        move_clock_seconds=0,
        **kw,
    )
    services.tournament_open_registration(tournament=tournament)
    for player in players:
        services.entry_register(tournament=tournament, player=player)
    return tournament


def pairs_event(players: Sequence[Player], *, rounds: int = 1, name: str = "Пары") -> Tournament:
    """A team event of pairs open for registration: ``players`` two by two as teams
    ("Пара 0", "Пара 2", ...) registered for a swiss of ``rounds`` at four-seat tables."""
    tournament = services.tournament_create(
        name=name,
        team_size=2,
        move_clock_seconds=0,
        stages=[{"format": "swiss", "table_size": 4, "rounds": rounds}],
    )
    services.tournament_open_registration(tournament=tournament)
    for i in range(0, len(players) - 1, 2):
        team = services.team_create(name=f"Пара {i}", players=list(players[i : i + 2]))
        services.entry_register(tournament=tournament, team=team)
    return tournament


@dataclass
class LiveTable:
    """A started two-seat tournament: its one table and the table's first game."""

    tournament: Tournament
    table: Table
    game: Game
    users: list[User]  # users[s] plays game seat s of the first game
    players: list[Player]  # players[s] likewise

    def user_at(self, seat: int) -> User:
        return self.users[seat]


def start_live_table(
    *,
    is_public: bool = True,
    clock: int = 0,
    referees: Sequence[User] = (),
    **rules: Any,
) -> LiveTable:
    """A running 2-player tournament (one table, one game of a 24-card deck) with human
    players; ``clock``: the move clock in seconds (0: none); ``referees``: assigned to it;
    ``rules``: the game's rules."""
    players = PlayerFactory.create_batch(2)
    tournament = make_tournament(
        players,
        stages=TWO_SEATS,
        rules={"deck_size": 24, **rules},
        is_public=is_public,
        entry_fee="0",
    )
    tournament.referees.set(referees)
    if clock:
        Tournament.objects.filter(pk=tournament.pk).update(move_clock_seconds=clock)
    services.tournament_start(tournament=tournament)
    table = Table.objects.get(round__stage__tournament=tournament)
    game = Game.objects.get(table=table)
    by_id = {p.pk: p for p in players}
    seated = [by_id[pid] for pid in game.players]
    users = []
    for player in seated:
        assert player.user is not None  # PlayerFactory's players are human
        users.append(player.user)
    return LiveTable(tournament, table, game, users, seated)


def session_cookie(user: User) -> str:
    """The ``Cookie`` header of a session logged in as ``user``."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


@dataclass
class ConsoleEvent:
    """A running event with one of every record the console shows (``console_event``)."""

    tournament: Tournament
    league: League
    entries: list[Entry]
    round: Round  # round 1, playing
    pending_round: Round  # round 2, waiting to be paired
    table: Table  # round 1's first table: finished by a referee's result
    game: Game  # its game, paused by a referee
    result: TableResult
    referee_event: RefereeEvent
    audit_event: AuditEvent
    payout: Payout
    prize_pool: PrizePool
    rank: RankRecord
    rating_change: RatingChange


def console_event(*, owner: User, referees: Sequence[User], name: str) -> ConsoleEvent:
    """A running two-round swiss event of four human players owned by ``owner`` (an organiser)
    with ``referees`` assigned, in a league of ``owner``'s: round 1 paired (two tables, seats,
    games), a referee's pause and result at its first table, round 2 pending; an audit row, a
    provisional payout, a prize pool, a rank and a rating change. No job runs (nothing is
    committed in a test's transaction), so it stays as built."""
    players = PlayerFactory.create_batch(4)
    league = services.league_create(name=f"Лига {name}", season="2026", actor=owner)
    tournament = make_tournament(
        players,
        stages=[{"format": "swiss", "table_size": 2, "rounds": 2}],
        name=name,
        league=league,
        created_by=owner,
    )
    tournament.referees.set(referees)
    services.tournament_start(tournament=tournament)
    first = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=first.pk)
    pending = Round.objects.create(stage=first.stage, number=2)
    table = Table.objects.filter(round=first).order_by("number")[0]
    game = Game.objects.get(table=table)
    game_services.game_pause(game_id=game.pk, reason="a phone rang", referee=owner)
    seated = list(table.seats.order_by("position").values_list("entry_id", flat=True))
    result = services.table_record_result(
        table=table,
        places=seated,
        fool=seated[-1],
        source=TableResult.Source.REFEREE,
        reason="adjudicated at the table",
        entered_by=owner,
    )
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk"))
    with transaction.atomic():
        audit = audit_record(
            actor=owner,
            action=AuditEvent.Action.TOURNAMENT_START,
            tournament=tournament,
            target=tournament,
            before={"status": "registration"},
            after={"status": "running"},
        )
    pool = services.prize_pool_compute(tournament_id=tournament.pk)
    payout = Payout.objects.create(
        tournament=tournament, entry=entries[0], place=1, amount=Decimal("360")
    )
    player = entries[-1].player
    assert player is not None
    rank = RankRecord.objects.create(
        player=player, tournament=tournament, rank="сержант", pogony_received=1
    )
    rating = RatingChange.objects.create(
        player=player,
        tournament=tournament,
        mu_before=25.0,
        sigma_before=8.3,
        mu_after=24.0,
        sigma_after=8.0,
    )
    return ConsoleEvent(
        tournament=Tournament.objects.get(pk=tournament.pk),
        league=league,
        entries=entries,
        round=first,
        pending_round=pending,
        table=table,
        game=game,
        result=result,
        referee_event=RefereeEvent.objects.get(game=game),
        audit_event=audit,
        payout=payout,
        prize_pool=pool,
        rank=rank,
        rating_change=rating,
    )


def run_jobs(
    tournament: Tournament, *, until: Callable[[], bool] | None = None, batches: int = 20_000
) -> None:
    """Work ``tournament`` as a worker would, in this process, job by job: every batch runs the
    jobs the reconciler finds due for it (bots' moves, finished games, rounds to complete and to
    pair, the awards), until ``until()`` holds or nothing is due. For a test that must act in the
    middle of an event (``@pytest.mark.django_db`` without eager jobs: nothing runs on commit,
    so the event moves only here)."""
    for _ in range(batches):
        if until is not None and until():
            return
        due = reconcile.due_jobs(
            now=timezone.now() + timedelta(seconds=1),
            grace=timedelta(0),
            tournament_id=tournament.pk,
        )
        if not due:
            if until is not None:
                raise AssertionError(f"nothing is due and {until} does not hold")
            return
        for item in due:
            registered(item.task)(*item.args)
    raise AssertionError("the jobs did not settle")  # pragma: no cover - a bug in the services


def six_bots_with_a_colluding_pair(
    key_file: Path,
    *,
    policy: str = "squeeze",
    seed: str = "fair2-1",
    collusion_seed: str = "pair-2",
    stdout: IO[str] | None = None,
) -> dict[str, Any]:
    """``simulate_tournament``: six bots at tables of three over two swiss rounds, then all six at
    the final, one pair colluding by ``policy`` at full strength. Returns the answer key (also
    written to ``key_file``). Run where the jobs run (eagerly, or in process)."""
    call_command(
        "simulate_tournament",
        players=6,
        plan="swiss:3:2:top=6,knockout:6:1",
        bots="heuristic",
        collusion_pairs=1,
        collusion_policy=policy,
        collusion_strength=1.0,
        seed=seed,
        collusion_seed=collusion_seed,
        collusion_out=str(key_file),
        no_progress=True,
        timeout=300,
        stdout=stdout or StringIO(),
    )
    key: dict[str, Any] = json.loads(key_file.read_text())
    return key


def pair_with_moves(tournament: Tournament) -> PairEvidence:
    """The highest-scoring pair of ``tournament`` whose evidence links moves both ways: a term
    with events (a throw-in among them) and a term with chances not taken. In an event as short
    as :func:`six_bots_with_a_colluding_pair`'s, the top pair may have had too few chances
    together for either (its deals are drawn afresh each run)."""
    for pair in pairs_flagged(tournament, threshold=0):
        kinds_with_events = {t["kind"] for t in pair.terms if t["moves"]}
        if "threw_in" in kinds_with_events and any(t.get("missed") for t in pair.terms):
            return pair
    raise AssertionError("no pair of the event has moves both ways")
