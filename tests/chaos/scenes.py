"""Scenes and checks of the fault suite, run as a command on the private services (the test
process itself stays on the suite's own database):

    python -m tests.chaos.scenes league --count 20    # 20 one-table events of a league, seated
    python -m tests.chaos.scenes finish ID...        # their results, in one transaction
    python -m tests.chaos.scenes awards ID...        # what each still lacks, and the checks
    python -m tests.chaos.scenes check NAME          # a simulated tournament, checked whole
    python -m tests.chaos.scenes table               # a live two-player table and API tokens

Each prints one line of JSON. The scenes reuse the suite's builders; their jobs go to the private
Redis and its workers, except the seating, which runs in-process.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from decimal import Decimal
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
django.setup()

from django.contrib.auth.models import User  # noqa: E402 (after django.setup())
from django.db import transaction  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from tests.builders import make_tournament, start_live_table  # noqa: E402
from tests.conftest import jobs_in_process  # noqa: E402
from tests.factories import PlayerFactory, UserFactory  # noqa: E402
from tests.tournaments.test_finishing_race import ONE_TABLE, record_result, seated_table  # noqa: E402
from tournaments.models import (  # noqa: E402
    Entry,
    League,
    Payout,
    PrizePool,
    RankRecord,
    RatingChange,
    Round,
    Seat,
    Table,
    Tournament,
)
from tournaments.reconcile import awards_missing, unfinished_work  # noqa: E402

SEATS = 4


def league(count: int) -> dict[str, Any]:
    """``count`` one-table tournaments of four in one league, each player in two of them,
    started and seated (their games dealt, nobody moving: the players are people)."""
    season = League.objects.create(name="Хаос-лига", slug=f"chaos-{os.getpid()}", season="2026")
    players = PlayerFactory.create_batch(count * SEATS // 2, user=None)
    ids = []
    for t in range(count):
        field = [players[(2 * t + k) % len(players)] for k in range(SEATS)]
        tournament = make_tournament(field, stages=ONE_TABLE, name=f"Хаос {t}", league=season)
        seated_table(tournament)
        ids.append(tournament.pk)
    return {"league": season.pk, "ids": ids}


def finish(ids: list[int]) -> dict[str, Any]:
    """Every table's result in one commit: the round jobs, then the awards, all at once."""
    tables = [Table.objects.get(round__stage__tournament_id=pk) for pk in ids]
    with transaction.atomic():
        for table in tables:
            record_result(table)
    return {"finished": len(tables)}


def awards(ids: list[int]) -> dict[str, Any]:
    """What each tournament lacks, and whether the awards it has add up: the pool paid out
    exactly, each player's ratings applied one tournament after the other, the league's ranks
    folding every tournament's."""
    events = list(Tournament.objects.filter(pk__in=ids))
    missing = {t.pk: awards_missing(t) for t in events}
    missing = {pk: what for pk, what in missing.items() if what}
    pools_exact = all(
        sum(p.amount for p in Payout.objects.filter(tournament=t))
        == PrizePool.objects.get(tournament=t).total
        for t in events
        if PrizePool.objects.filter(tournament=t).exists()
    )
    chained = True
    players = RatingChange.objects.filter(tournament__in=events).values_list("player", flat=True)
    for player in set(players):
        changes = list(RatingChange.objects.filter(player=player).order_by("created_at", "id"))
        chained &= all(b.mu_before == a.mu_after for a, b in itertools.pairwise(changes))
    ranked = set(RankRecord.objects.filter(tournament__in=events).values_list("player", flat=True))
    league_ids = {t.league_id for t in events}
    league_ranked = set(
        RankRecord.objects.filter(league_id__in=league_ids).values_list("player", flat=True)
    )
    return {
        "missing": missing,
        "finished": sum(t.status == Tournament.Status.FINISHED for t in events),
        "pools_exact": pools_exact,
        "ratings_chained": chained,
        "rating_changes": RatingChange.objects.filter(tournament__in=events).count(),
        "league_ranks_fold_all": ranked == league_ranked,
    }


def check(name: str) -> dict[str, Any]:
    """A simulated tournament, checked whole: finished; each round paired once (one set of
    tables numbered 1..n, each of its entries seated once); the payouts summing exactly to the
    pool; ranks and ratings computed, every entry's player rated."""
    tournament = Tournament.objects.get(name=name)
    rounds = Round.objects.filter(stage__tournament=tournament).order_by("stage__order", "number")
    paired_once = []
    for round_ in rounds:
        numbers = sorted(round_.tables.values_list("number", flat=True))
        seated = list(Seat.objects.filter(table__round=round_).values_list("entry_id", flat=True))
        paired_once.append(
            round_.status == Round.Status.FINISHED
            and numbers == list(range(1, len(numbers) + 1))
            and len(seated) == len(set(seated))
        )
    pool = PrizePool.objects.filter(tournament=tournament).first()
    paid = sum((p.amount for p in Payout.objects.filter(tournament=tournament)), Decimal(0))
    entries = Entry.objects.filter(tournament=tournament)
    return {
        "status": tournament.status,
        "stages": tournament.stages.count(),
        "rounds": len(paired_once),
        "rounds_paired_once": all(paired_once),
        "tables": Table.objects.filter(round__stage__tournament=tournament).count(),
        "entries": entries.count(),
        "placed": entries.filter(final_place__isnull=False).count(),
        "pool": str(pool.total) if pool else None,
        "pool_final": bool(pool and pool.final),
        "payouts_sum": str(paid),
        "payouts_exact": bool(pool and paid == pool.total),
        "ranks_computed": tournament.ranks_computed_at is not None,
        "ratings_applied": tournament.ratings_applied_at is not None,
        "rated_players": RatingChange.objects.filter(tournament=tournament).count(),
        "unfinished": unfinished_work(tournament),
    }


def table() -> dict[str, Any]:
    """A started two-player tournament of people (one table, its first game dealt, no move
    clock), and each seat's API token for the sockets: ``tokens[s]`` plays seat ``s``."""
    # Each scene is a new process, whose factories count from 0 again: past the users made.
    UserFactory.reset_sequence(User.objects.count() + 1)  # type: ignore[no-untyped-call]
    with jobs_in_process():  # the pairing that deals the game, here and now
        live = start_live_table()
    return {
        "tournament": live.tournament.pk,
        "slug": live.tournament.slug,
        "table": live.table.pk,
        "game": live.game.pk,
        "tokens": [Token.objects.get_or_create(user=user)[0].key for user in live.users],
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos.scenes")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("league").add_argument("--count", type=int, default=20)
    sub.add_parser("finish").add_argument("ids", type=int, nargs="+")
    sub.add_parser("awards").add_argument("ids", type=int, nargs="+")
    sub.add_parser("check").add_argument("name")
    sub.add_parser("table")
    args = parser.parse_args(argv)
    if args.command == "league":
        answer = league(args.count)
    elif args.command == "finish":
        answer = finish(args.ids)
    elif args.command == "awards":
        answer = awards(args.ids)
    elif args.command == "table":
        answer = table()
    else:
        answer = check(args.name)
    print(json.dumps(answer, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
