"""The fair-play score's measured power (issue 24): simulated events with injected colluding
pairs, the fair-play job run, and the queue read against the answer key.

    python -m bench.fairplay [--players 256 1024] [--strength 1 0.5 0.25] [--policy squeeze]
        [--pairs N] [--seed S] [--seating anywhere|group] [--plan PLAN] [--series single]
        [--bots heuristic,random]
        [--threshold 3.0] [--database /tmp/fairplay.sqlite3]

Each (players, strength) is one ``simulate_tournament`` event through the live services, its jobs
in-process (SQLite, the embedded defaults; ``DATABASE_URL`` for PostgreSQL), with ``--pairs``
colluding pairs (``--collusion-pairs/-policy/-strength/-seed``; default one pair per 8 players)
drawn by the same seed at every strength, so that the curve compares the same pairs in the same
field. The fair-play job ran after each round as in production (``tournaments.fairplay_count``);
the queue is ``selectors.fairplay.pairs_flagged`` at ``--threshold`` (the queue's default).
The answer key (``--collusion-out``) says which pairs were injected: the job never reads it.

Printed per event: the injected pairs, how many met (shared a table) and their mean games
together; how many were found, the recall over every injected pair and over those that met;
the honest pairs (every
other pair that met) flagged, count and share; the median z of the injected pairs that met and
of the honest pairs, and the honest pairs' 99th percentile (the threshold that would flag 1%
of them); the event's wall time and the fair-play job's (counting the games,
recomputing the pairs, and how many times it did).

The plan defaults to a multi-stage money event (:func:`money_plan`; at 1,024 players
``bench.tournament``'s, ``swiss:4:3:top=256,swiss:4:2:top=64,knockout:4:2``): swiss rounds
avoid repeat meetings, so partners drawn at random in a large field rarely share a table.
``--seating group`` draws both partners of each pair from one group of a first round-robin
stage (friends who entered one group; ``simulate_tournament --collusion-seating group``), and
the plan then defaults to a club event (:func:`club_plan`: groups of 4, one table each, playing
a ``best_of:5`` match, the winners on to a knockout of tables of 4), where partners share the
3 to 5 games of their group's match: the event in which the pairing lets them meet. ``--plan``
with other round-robin groups (``rr:4:G``) and ``--series`` seat them otherwise. Timings are the
machine's (noisy when shared). The seed fixes the pairs drawn and the pairings' draws, not the
deals: each game's seed is a fresh secret (its commitment is published before play), so two runs
of one seed play other games and their figures differ a little (which pairs met, their z);
``bench.fairplay_probe`` (engine only) is deterministic.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

__all__ = ["Power", "club_plan", "main", "money_plan", "power", "run_event"]


@dataclass(frozen=True, slots=True)
class Power:
    """What the queue found in one event against its answer key."""

    injected: int
    met: int
    games_together: float
    """Mean games together of the injected pairs that met."""
    found: int
    """Injected pairs at or above the threshold."""
    honest: int
    """Every other pair that met."""
    honest_flagged: int
    median_injected: float
    median_honest: float
    honest_q99: float
    """The honest pairs' 99th percentile: a threshold flagging 1% of them."""

    @property
    def recall(self) -> float:
        return self.found / self.injected if self.injected else 0.0

    @property
    def recall_met(self) -> float:
        return self.found / self.met if self.met else 0.0

    @property
    def false_positives(self) -> float:
        return self.honest_flagged / self.honest if self.honest else 0.0


def power(
    key: Iterable[Sequence[int]],
    pairs: Iterable[tuple[int, int, float, int]],
    threshold: float,
) -> Power:
    """Recall and false positives of the pairs ``(first, second, z, games)`` at ``threshold``
    against the injected pairs ``key`` (player ids, any order)."""
    injected = {(min(p), max(p)) for p in key}
    scores = {(a, b): (z, games) for a, b, z, games in pairs}
    met = [scores[p] for p in sorted(injected) if p in scores]
    honest = [z for p, (z, _games) in scores.items() if p not in injected]
    return Power(
        injected=len(injected),
        met=len(met),
        games_together=statistics.fmean(g for _z, g in met) if met else 0.0,
        found=sum(z >= threshold for z, _g in met),
        honest=len(honest),
        honest_flagged=sum(z >= threshold for z in honest),
        median_injected=statistics.median(z for z, _g in met) if met else 0.0,
        median_honest=statistics.median(honest) if honest else 0.0,
        honest_q99=sorted(honest)[int(0.99 * len(honest))] if honest else 0.0,
    )


@dataclass(frozen=True, slots=True)
class Event:
    players: int
    strength: float
    power: Power
    games: int
    seconds: float
    count_seconds: float
    """The fair-play job's: counting the games, recomputing the pairs (how many times)."""
    pairs_seconds: float
    recomputed: int


def run_event(
    *,
    players: int,
    strength: float,
    policy: str,
    pairs: int,
    seed: str,
    plan: str,
    series: str = "single",
    bots: str = "heuristic,random",
    threshold: float | None = None,
    seating: str = "anywhere",
) -> Event:
    """One simulated event with its colluding pairs, read against its key (needs Django set up
    and jobs in-process)."""
    from django.core.management import call_command  # noqa: PLC0415 (after django.setup)

    from games.models import Game  # noqa: PLC0415
    from tournaments.models import PairEvidence, Tournament  # noqa: PLC0415
    from tournaments.selectors.fairplay import THRESHOLD  # noqa: PLC0415
    from tournaments.services import fairplay  # noqa: PLC0415

    spent = {"count": 0.0, "pairs": 0.0, "recomputed": 0.0}
    originals = (fairplay.games_count, fairplay.pairs_recompute)

    def timed(func: Any, part: str) -> Any:
        def wrapper(**kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return func(**kwargs)
            finally:
                spent[part] += time.perf_counter() - started
                spent["recomputed"] += part == "pairs"

        return wrapper

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "pairs.json"
        fairplay.games_count = timed(originals[0], "count")
        fairplay.pairs_recompute = timed(originals[1], "pairs")
        started = time.perf_counter()
        try:
            call_command(
                "simulate_tournament",
                players=players,
                plan=plan,
                series=series,
                bots=bots,
                seed=f"{seed}:{players}",
                collusion_pairs=pairs,
                collusion_policy=policy,
                collusion_strength=strength,
                collusion_seed=f"{seed}:{players}",
                collusion_seating=seating,
                collusion_out=str(out),
                no_progress=True,
                timeout=7200,
                stdout=StringIO(),
            )
        finally:
            fairplay.games_count, fairplay.pairs_recompute = originals
        seconds = time.perf_counter() - started
        key = [p["players"] for p in json.loads(out.read_text())["pairs"]]
    tournament = Tournament.objects.order_by("-pk").first()
    assert tournament is not None
    rows = PairEvidence.objects.filter(tournament=tournament).values_list(
        "first_id", "second_id", "z", "games"
    )
    return Event(
        players=players,
        strength=strength,
        power=power(key, rows, THRESHOLD if threshold is None else threshold),
        games=Game.objects.filter(table__round__stage__tournament=tournament).count(),
        seconds=seconds,
        count_seconds=spent["count"],
        pairs_seconds=spent["pairs"],
        recomputed=int(spent["recomputed"]),
    )


HEADER = (
    "| players | strength | games | pairs met (games together) | recall: all / met "
    "| honest pairs flagged | median z: injected met / honest | honest 99th pct | event s "
    "| job s: count + pairs (times) |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def row(event: Event) -> str:
    p = event.power
    return (
        f"| {event.players} | {event.strength:g} | {event.games} "
        f"| {p.met} of {p.injected} ({p.games_together:.1f}) "
        f"| {p.found} found: {p.recall:.0%} / {p.recall_met:.0%} "
        f"| {p.honest_flagged} of {p.honest} ({p.false_positives:.2%}) "
        f"| {p.median_injected:.1f} / {p.median_honest:.1f} | {p.honest_q99:.2f} "
        f"| {event.seconds:.0f} "
        f"| {event.count_seconds:.1f} + {event.pairs_seconds:.1f} ({event.recomputed}) |"
    )


def money_plan(players: int) -> str:
    """A multi-stage money event's plan: three swiss rounds, a quarter goes on to two more (a
    sixteenth of the field, at least 16, goes on), then a knockout of tables of 4; at 1,024 it
    is ``bench.tournament``'s plan.

    >>> money_plan(1024)
    'swiss:4:3:top=256,swiss:4:2:top=64,knockout:4:2'
    >>> money_plan(64)
    'swiss:4:3:top=16,knockout:4:2'
    """
    first = players // 4 - players // 4 % 4
    second = max(16, players // 16 - players // 16 % 4)
    if second >= first:
        return f"swiss:4:3:top={first},knockout:4:2"
    return f"swiss:4:3:top={first},swiss:4:2:top={second},knockout:4:2"


def club_plan(players: int) -> str:
    """A club event's plan: round-robin groups of 4 (one table each, its match the stage), the
    winner of each on to a knockout of tables of 4, one going on from each.

    >>> club_plan(256)
    'rr:4:64:per_table=1,knockout:4:1'
    """
    return f"rr:4:{players // 4}:per_table=1,knockout:4:1"


SEATINGS = {"anywhere": (money_plan, "single"), "group": (club_plan, "best_of:5")}
"""Per seating, the default plan and series."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[256, 1024])
    parser.add_argument(
        "--strength", type=float, nargs="+", action="extend", help="default 1 0.5 0.25"
    )
    parser.add_argument("--policy", default="squeeze", help="collude, soft or squeeze")
    parser.add_argument("--pairs", type=int, default=0, help="colluding pairs (default players/8)")
    parser.add_argument("--seed", default="fairplay")
    parser.add_argument(
        "--seating",
        choices=sorted(SEATINGS),
        default="anywhere",
        help="group: both partners from one group of a first round-robin stage",
    )
    parser.add_argument("--plan", default="", help="default: money_plan, or club_plan (group)")
    parser.add_argument("--series", default="", help="default: single, or best_of:5 (group)")
    parser.add_argument("--bots", default="heuristic,random", help="the honest field's bots")
    parser.add_argument("--threshold", type=float, default=None, help="default: the queue's")
    parser.add_argument("--database", default="", help="SQLite file (default: a temporary one)")
    args = parser.parse_args(argv)
    strengths = args.strength or [1.0, 0.5, 0.25]
    default_plan, default_series = SEATINGS[args.seating]
    series = args.series or default_series
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
        os.environ["DURAK_SQLITE_PATH"] = args.database or str(Path(tmp) / "fairplay.sqlite3")
        os.environ.pop("REDIS_URL", None)  # the jobs in-process
        import django  # noqa: PLC0415
        from django.core.management import call_command  # noqa: PLC0415

        django.setup()
        call_command("migrate", "--noinput", verbosity=0)
        print(
            f"policy {args.policy}, seed {args.seed!r}, bots {args.bots}, series {series}, "
            f"seating {args.seating}",
            flush=True,
        )
        print(HEADER, flush=True)
        for players in args.players:
            plan = args.plan or default_plan(players)
            for strength in strengths:
                event = run_event(
                    players=players,
                    strength=strength,
                    policy=args.policy,
                    pairs=args.pairs or max(1, players // 8),
                    seed=args.seed,
                    plan=plan,
                    series=series,
                    bots=args.bots,
                    threshold=args.threshold,
                    seating=args.seating,
                )
                print(row(event), flush=True)
            print(f"plan ({players} players): {plan}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
