"""A pre-study of the fair-play score (issue 24), on the engine alone: no database, no jobs.

    python -m bench.fairplay_probe [--players 24] [--rounds 30] [--table 4] [--pairs 4]
        [--policy squeeze] [--strength 1,0.5,0.25] [--variant throw_in] [--seed 1]
        [--threshold 3] [--min-variance 0.25] [--by-games SEEDS]

Each round seats the players at random tables of ``--table`` (so a pair meets about
``rounds * (table - 1) / (players - 1)`` times, as in swiss rounds that ignore who met); the
first ``2 * pairs`` players are colluding pairs (``games.engine.bots.ColludingBot``), the
others honest bots in turn (heuristic, pogony, random). Every game is dealt from a seed, played,
logged, and its log counted by ``tournaments.fairplay.game_evidence``; ``pair_scores`` scores
every pair that met. Printed per strength: the colluding pairs that met, their mean games
together, the share of them at or above ``--threshold`` (recall), the share of the other pairs
there (false positives; then among the pairs with no colluder: a colluder's victims depart
from it too), the median score of each, and the time. The real benchmark of the
issue runs ``simulate_tournament`` events through the services; this one says whether the
evidence can tell the pairs apart at all, and how fast it is counted. ``--by-games SEEDS``
pools that many events and prints the recall by games together (1, 2, 3-4, 5+), at
``--threshold`` and at the honest pairs' 99th percentile (the power at 1% of them flagged).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence

from games.engine import Rules, new_game, rng_for_seed
from games.engine.bots import Bot, make_bot, play_game
from tournaments.fairplay import GameEvidence, GameRecord, game_evidence, pairs_together
from tournaments.fairplay.score import pair_scores

HONEST = ("heuristic", "pogony", "random")


def run_event(
    args: argparse.Namespace, strength: float
) -> tuple[list[GameEvidence], set[tuple[int, int]], float, float]:
    """Play one event; its evidence, the colluding pairs, seconds playing and counting."""
    rules = Rules(players=args.table, variant=args.variant)
    rng = random.Random(f"probe:{args.seed}")
    partner = {}
    for i in range(args.pairs):
        partner[2 * i], partner[2 * i + 1] = 2 * i + 1, 2 * i
    kinds = {p: HONEST[p % len(HONEST)] for p in range(args.players)}
    evidence: list[GameEvidence] = []
    played = counted = 0.0
    ids = list(range(args.players))
    for round_ in range(args.rounds):
        rng.shuffle(ids)
        for t in range(args.players // args.table):
            seated = ids[t * args.table : (t + 1) * args.table]
            table: dict[int, Bot] = {}
            for seat, player in enumerate(seated):
                mate = partner.get(player)
                if mate is None:
                    table[seat] = make_bot(kinds[player])
                else:
                    where = str(seated.index(mate)) if mate in seated else "-"
                    table[seat] = make_bot(f"{args.policy}:{strength}:{where}")
            seed = f"{args.seed}:{round_}:{t}"
            start = time.perf_counter()
            _final, actions = play_game(
                new_game(rules, rng_for_seed(seed)), table, random.Random(f"bots:{seed}")
            )
            log = [action.to_json() for action in actions]
            played += time.perf_counter() - start
            start = time.perf_counter()
            record = GameRecord(rules=rules.to_dict(), seed=seed, actions=log, players=seated)
            evidence.append(game_evidence(record))
            counted += time.perf_counter() - start
    pairs = {(a, b) for a, b in partner.items() if a < b}
    return evidence, pairs, played, counted


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fairplay_probe")
    parser.add_argument("--players", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--table", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--policy", default="squeeze")
    parser.add_argument("--strength", default="1,0.5,0.25")
    parser.add_argument("--variant", default="throw_in")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--threshold", type=float, default=3.0)
    parser.add_argument(
        "--by-games",
        type=int,
        default=0,
        metavar="SEEDS",
        help="instead: pool SEEDS events (seeds SEED:0, SEED:1...) and print the recall by games "
        "together, at --threshold and at the honest pairs' 99th percentile",
    )
    parser.add_argument("--min-variance", type=float, default=0.25, help="the score's cut")
    args = parser.parse_args(argv)
    if args.by_games:
        return by_games(args)
    print(
        f"{args.players} players, {args.rounds} rounds at random tables of {args.table} "
        f"({args.variant}), {args.pairs} {args.policy} pairs, seed {args.seed!r}, "
        f"threshold z >= {args.threshold:g}"
    )
    print(
        f"{'strength':>8} {'met':>4} {'games/pair':>10} {'recall':>7} {'honest flagged':>15} "
        f"{'no colluder':>12} "
        f"{'median z (pairs / honest)':>26} {'games':>6} {'play s':>7} {'count s':>8}"
    )
    for text in args.strength.split(","):
        strength = float(text)
        evidence, colluding, played, counted = run_event(args, strength)
        scores = pair_scores(evidence, min_variance=args.min_variance)
        together: dict[tuple[int, int], int] = {}
        for game in evidence:
            seated = sorted(game.players)
            for i, a in enumerate(seated):
                for b in seated[i + 1 :]:
                    together[(a, b)] = together.get((a, b), 0) + 1
        bad = [s for s in scores if (s.first, s.second) in colluding]
        good = [s for s in scores if (s.first, s.second) not in colluding]
        hit = sum(s.z >= args.threshold for s in bad)
        flagged = sum(s.z >= args.threshold for s in good)
        members = {p for pair in colluding for p in pair}
        clean = [s for s in good if s.first not in members and s.second not in members]
        clean_flagged = sum(s.z >= args.threshold for s in clean)
        met = [together.get(p, 0) for p in colluding if together.get(p)]
        print(
            f"{strength:>8g} {len(met):>4} {statistics.mean(met) if met else 0:>10.1f} "
            f"{hit / max(1, len(bad)):>7.0%} {flagged / max(1, len(good)):>15.2%} "
            f"{clean_flagged / max(1, len(clean)):>12.2%} "
            f"{statistics.median(s.z for s in bad) if bad else 0:>13.1f} / "
            f"{statistics.median(s.z for s in good) if good else 0:<10.2f}"
            f"{len(evidence):>6} {played:>7.1f} {counted:>8.1f}"
        )
    return 0


#: Games together → the bucket the recall is printed by.
BUCKETS = {1: "1", 2: "2", 3: "3-4", 4: "3-4", 5: "5+"}


def by_games(args: argparse.Namespace) -> int:
    """The recall of the colluding pairs by how many games they shared (1, 2, 3-4, 5+), pooled over
    ``--by-games`` events, at ``--threshold`` and at the threshold that flags 1% of the honest
    pairs."""
    seed = args.seed
    print(
        f"{args.by_games} events of {args.players} players, {args.rounds} rounds, {args.pairs} "
        f"{args.policy} pairs, score cut {args.min_variance:g}"
    )
    for text in args.strength.split(","):
        strength = float(text)
        colluders: list[tuple[float, str]] = []
        honest: list[float] = []
        for i in range(args.by_games):
            args.seed = f"{seed}:{i}"
            evidence, colluding, _played, _counted = run_event(args, strength)
            scores = {
                (s.first, s.second): s.z
                for s in pair_scores(evidence, min_variance=args.min_variance)
            }
            for pair, met in pairs_together(evidence).items():
                z = scores.get(pair, 0.0)
                if pair in colluding:
                    colluders.append((z, BUCKETS[min(met.games, 5)]))
                else:
                    honest.append(z)
        args.seed = seed
        honest.sort()
        q99 = honest[int(0.99 * len(honest))]
        for label, cut in ((f"z >= {args.threshold:g}", args.threshold), ("honest 99th", q99)):
            flagged = sum(z >= cut for z in honest) / len(honest)
            recall = []
            for bucket in ("1", "2", "3-4", "5+"):
                zs = [z for z, g in colluders if g == bucket]
                recall.append(f"{sum(z >= cut for z in zs)}/{len(zs)}")
            print(
                f"strength {strength:g}, {label} ({cut:.2f}): recall of pairs that met "
                f"1 / 2 / 3-4 / 5+ times {' / '.join(recall)}; honest flagged {flagged:.2%}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
