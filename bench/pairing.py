"""Benchmark of swiss pairing: ``python -m bench.pairing [--sizes 100,1000,10000] [--runs 5]``
(issue 23's million: ``--sizes 1000000 --runs 1``).

For each field size, three rounds are paired with random results to make a history, then the
fourth round is timed several times. "Avoidable" repeats are those made although an
independent check (`tournaments.pairing.repeat_free_seating`) found a seating without any.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence

from tournaments.pairing import balanced_table_sizes, pair_swiss, repeat_free_seating, repeat_pairs
from tournaments.pairing.simulate import simulate_history


def main(sizes: Sequence[int] = (100, 1_000, 10_000), runs: int = 5) -> None:
    """Print median time and repeat counts for each field size."""
    print(f"{'players':>8} {'median s':>9} {'repeats':>8} {'avoidable':>10}")
    for n in sizes:
        entries, history = simulate_history(n, 4, 3, random.Random(n))
        times = []
        pairing = None
        for run in range(runs):
            start = time.perf_counter()
            pairing = pair_swiss(entries, history, table_size=4, rng=random.Random(run))
            times.append(time.perf_counter() - start)
        assert pairing is not None
        repeats = repeat_pairs(pairing, history)
        avoidable = 0
        if repeats:
            free = repeat_free_seating(
                [e.id for e in entries], history, balanced_table_sizes(n, 4), random.Random(0)
            )
            avoidable = repeats if free is not None else 0
        print(f"{n:>8} {statistics.median(times):>9.3f} {repeats:>8} {avoidable:>10}")
    sys.stdout.flush()


def cli(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="entries, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="timed pairings per size (median)")
    args = parser.parse_args(argv)
    main([int(n) for n in args.sizes.split(",")], runs=args.runs)


if __name__ == "__main__":
    cli()
