"""Speed of the engine under random legal play.

    python -m bench.engine [--games N] [--seed S] [--[no-]vs-durakgame]

For 2, 4 and 6 players in ``throw_in`` and ``transfer``: full random games per second, where
every step lists the legal actions of every seat (``legal_moves``: the table's in one list) and
applies a random one; then the microseconds per ``legal_actions`` call (one seat) and per
``apply`` call.

Random play terminates: a bout is bounded (each card lands once; a pass is legal once per thrower
between two landed cards, and only when every card is beaten or the defender takes; проездной is
once per game), and each bout either discards cards or hands them to the defender.  Two-player
games are finite (during a run of takes the attacker's hand only shrinks); with more players cards
could in principle circulate, so ``MAX_STEPS`` caps a game and the bench reports capped games.

Then, in the same run, a comparison with the PyPI package ``durakgame`` (a peer 2-player engine,
never a requirement of this project): the per-game medians of both engines on 2-player
``throw_in`` random games, and our speed as a ratio to it.  Its random play enumerates every
combination of cards to throw after a take, so some of its games run for seconds or exhaust
memory; each of its games is played in a worker process (``tools/durakgame_driver.py``, run by
the interpreter named by ``DURAKGAME_PYTHON`` or ``.bench-venv/bin/python``) under a wall-time
limit and an address-space limit, and such blow-ups are counted, not waited for.  A worker
plays an untimed game before its first timed one (a fresh interpreter's first game is about
20 % slower, and a worker is started afresh after each blow-up).  Setup::

    python3 -m venv .bench-venv && .bench-venv/bin/pip install durakgame==1.0.4

The first line says which build of the engine ran (``games/engine/native.py``): the mypyc build
when ``python3 dev.py engine`` made one for these sources, else pure Python;
``DURAK_ENGINE=python`` measures the pure Python engine whatever is built.  ``--against REV``
imports the engine at ``REV`` from its sources (pure Python); compare it with this tree's under
``DURAK_ENGINE=python``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import random
import select
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from games.engine import GameState, Rules, apply, legal_actions, legal_moves, native, new_game

__all__ = [
    "CONFIGS",
    "MAX_STEPS",
    "DurakgameWorker",
    "bench_config",
    "bench_durakgame",
    "bench_ours_per_game",
    "durakgame_python",
    "main",
    "play_random_game",
]

MAX_STEPS = 20_000

CONFIGS = [
    ("throw_in", 2),
    ("throw_in", 4),
    ("throw_in", 6),
    ("transfer", 2),
    ("transfer", 4),
    ("transfer", 6),
]


def _rules(variant: str, players: int) -> Rules:
    if variant == "transfer":
        return Rules(
            variant="transfer",
            players=players,
            transfer_first_bout=True,
            transfer_two_players=players == 2,
        )
    return Rules(variant=variant, players=players)


def play_random_game(rules: Rules, rng: random.Random) -> tuple[GameState, int]:
    """Play one random legal game; return the final state and the number of actions.

    >>> state, steps = play_random_game(Rules(), random.Random(1))
    >>> state.finished and steps > 0
    True
    """
    return _play(new_game, apply, legal_moves, rules, rng)


def _play(
    new_game_: Any, apply_: Any, listed: Any, rules: Any, rng: random.Random
) -> tuple[Any, int]:
    """One random game through an engine's ``new_game``, ``apply`` and table listing."""
    state = new_game_(rules, rng)
    choice = rng.choice
    steps = 0
    while state.result is None and steps < MAX_STEPS:
        state = apply_(state, choice(listed(state)))
        steps += 1
    return state, steps


def bench_config(variant: str, players: int, games: int, seed: int) -> dict[str, float]:
    """Time ``games`` random games; return games/s, steps/game and µs per call."""
    rules = _rules(variant, players)
    rng = random.Random(seed)
    capped = 0
    total_steps = 0
    start = time.perf_counter()
    for _ in range(games):
        state, steps = play_random_game(rules, rng)
        total_steps += steps
        capped += state.result is None
    elapsed = time.perf_counter() - start

    # Per-call timings: a second pass that times each call on its own.
    rng = random.Random(seed)
    clock = time.perf_counter
    t_legal = t_apply = 0.0
    n_legal = n_apply = 0
    for _ in range(max(1, games // 4)):
        state = new_game(rules, rng)
        steps = 0
        while state.result is None and steps < MAX_STEPS:
            moves = []
            for seat in range(players):
                t0 = clock()
                found = legal_actions(state, seat)
                t_legal += clock() - t0
                moves += found
            n_legal += players
            action = rng.choice(moves)
            t0 = clock()
            state = apply(state, action)
            t_apply += clock() - t0
            n_apply += 1
            steps += 1
    return {
        "games_per_s": games / elapsed,
        "steps_per_game": total_steps / games,
        "us_legal": 1e6 * t_legal / max(1, n_legal),
        "us_apply": 1e6 * t_apply / max(1, n_apply),
        "capped": capped,
    }


# --- comparison with the PyPI package `durakgame` ---------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tools" / "durakgame_driver.py"
"""The worker script, run by the durakgame interpreter (it never imports this package)."""
READY_S = 60.0
"""Wall time a new worker has to start, import the package and warm up."""
GRACE_S = 2.0
"""Extra wall time granted to a worker past a game's limit before it is killed."""


def durakgame_python() -> str | None:
    """Return the interpreter that has ``durakgame`` installed, or None.

    ``$DURAKGAME_PYTHON`` if set, else ``.bench-venv/bin/python`` at the project root if present.
    """
    env = os.environ.get("DURAKGAME_PYTHON")
    if env:
        return env
    local = ROOT / ".bench-venv" / "bin" / "python"
    return str(local) if local.exists() else None


class DurakgameWorker:
    """One ``tools/durakgame_driver.py`` process, reused across games, restarted after a blow-up."""

    def __init__(self, python: str, mem_mb: int) -> None:
        self.python = python
        self.mem_mb = mem_mb
        self.proc: subprocess.Popen[str] | None = None
        self.starts = 0
        self.warmups: list[int] = []
        """Per start: the warm-up games the worker played before it answered ready (a fresh
        interpreter's first game is about 20 % slower: the worker's docstring)."""

    def _start(self) -> subprocess.Popen[str]:
        self.starts += 1
        proc = subprocess.Popen(
            [self.python, str(DRIVER), "--mem-mb", str(self.mem_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], READY_S)
        line = proc.stdout.readline() if ready else ""
        answer = json.loads(line) if line.startswith("{") else {}
        if not answer.get("ready"):
            self.proc = proc
            self.close()
            raise RuntimeError(f"the durakgame worker did not warm up in {READY_S:g} s: {line!r}")
        self.warmups.append(int(answer["warmup"]))
        return proc

    def play(self, seed: int, limit: float) -> tuple[str, float]:
        """Play one game; return (status, seconds).

        Status ``ok``, ``timeout`` (over ``limit``), ``memory`` (over the address-space limit, or
        the worker died) or ``error`` (the package failed).  After anything but ``ok`` the worker
        is stopped and the next game starts a fresh one.
        """
        proc = self.proc
        if proc is None or proc.poll() is not None:
            proc = self.proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        answer: dict[str, Any] | None = None
        try:
            proc.stdin.write(json.dumps({"seed": seed, "limit": limit}) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], limit + GRACE_S)
            if ready:
                line = proc.stdout.readline()
                answer = json.loads(line) if line else None
        except (BrokenPipeError, ValueError):
            answer = None
        if answer is None:  # no answer in time (stuck outside Python code) or the worker died
            status = "memory" if proc.poll() is not None else "timeout"
            seconds = limit
        else:
            status = str(answer["status"])
            seconds = float(answer["seconds"])
            if status == "ok" and seconds > limit:
                status = "timeout"
        if status != "ok":
            self.close()
        return status, seconds

    def close(self) -> None:
        """Stop the worker process (if any)."""
        proc = self.proc
        self.proc = None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()


def bench_ours_per_game(games: int, seed: int) -> tuple[list[float], int]:
    """Wall seconds of each of ``games`` random 2-player ``throw_in`` games; and the capped count.

    The same loop as :func:`bench_config`: every step lists the legal actions of both seats.
    """
    rules = _rules("throw_in", 2)
    rng = random.Random(seed)
    clock = time.perf_counter
    times = []
    capped = 0
    for _ in range(games):
        t0 = clock()
        state, _steps = play_random_game(rules, rng)
        times.append(clock() - t0)
        capped += state.result is None
    return times, capped


def bench_durakgame(
    python: str, games: int, seed: int, limit: float, mem_mb: int, *, first: int = 0
) -> dict[str, Any]:
    """Play ``games`` random games of ``durakgame``, each under ``limit`` s and ``mem_mb`` MiB
    (games ``first`` .. ``first + games - 1`` of ``seed``'s sequence).

    Returns the per-game ``times`` (a blow-up counts as ``inf``: its time is unknown, only
    above the limit), the ``counts`` per status, the number of worker ``starts`` and the
    untimed ``warmup`` games they played.
    """
    worker = DurakgameWorker(python, mem_mb)
    times: list[float] = []
    counts = {"ok": 0, "timeout": 0, "memory": 0, "error": 0}
    try:
        for i in range(first, first + games):
            status, seconds = worker.play(seed * 1_000_003 + i, limit)
            counts[status] = counts.get(status, 0) + 1
            times.append(seconds if status == "ok" else float("inf"))
    finally:
        worker.close()
    return {
        "times": times,
        "counts": counts,
        "starts": worker.starts,
        "warmup": sum(worker.warmups),
    }


def _us(seconds: float) -> str:
    return "   > limit" if seconds == float("inf") else f"{1e6 * seconds:>10.0f}"


def _tail(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return statistics.median(ordered), p90, ordered[-1]


def compare_durakgame(
    python: str, games: int, seed: int, limit: float, mem_mb: int, *, passes: int = 3
) -> None:
    """Print the per-game medians of both engines, the speed ratio and the blow-ups.

    Our ``games`` games take a tenth of a second, durakgame's half a minute (its blow-ups are
    waited for up to the limit), so a burst of load on a shared host can slow every game of
    ours and almost none of theirs.  Ours are therefore played in ``passes`` passes (the same
    games each time), one before each ``passes``-th part of theirs, and our median is the median
    of the passes' medians.
    """
    try:
        probe = subprocess.run(
            [python, "-c", "import durakgame"], capture_output=True, text=True, timeout=60
        )
        problem = probe.stderr.strip().splitlines()[-1:] if probe.returncode else []
    except OSError as exc:
        problem = [str(exc)]
    if problem:
        print(f"durakgame: {python} cannot import durakgame ({problem[0]}); {_SETUP}")
        return
    runs: list[list[float]] = []
    capped = 0
    theirs: dict[str, Any] = {"times": [], "counts": {}, "starts": 0, "warmup": 0}
    for p in range(passes):
        ours, capped = bench_ours_per_game(games, seed)
        runs.append(ours)
        first, last = games * p // passes, games * (p + 1) // passes
        part = bench_durakgame(python, last - first, seed, limit, mem_mb, first=first)
        theirs["times"] += part["times"]
        theirs["starts"] += part["starts"]
        theirs["warmup"] += part["warmup"]
        for status, count in part["counts"].items():
            theirs["counts"][status] = theirs["counts"].get(status, 0) + count
    pooled = [t for run in runs for t in run]
    our_blowups = capped + sum(t > limit for t in runs[0])
    counts = theirs["counts"]
    blowups = counts["timeout"] + counts["memory"] + counts["error"]
    print()
    print(
        f"vs durakgame: {games} random 2-player throw_in games each (ours {passes} times, between"
        f" parts of theirs); per game limit {limit:g} s and {mem_mb} MiB for durakgame (worker"
        f" started {theirs['starts']}x, each warmed up first: {theirs['warmup']} untimed games)"
    )
    print(f"{'engine':<14}{'median µs':>10}{'p90 µs':>10}{'max µs':>10}  blow-ups")
    medians = [statistics.median(run) for run in runs]
    o_med = statistics.median(medians)
    _o, o_p90, o_max = _tail(pooled)
    t_med, t_p90, t_max = _tail(theirs["times"])
    print(
        f"{'ours':<14}{_us(o_med)}{_us(o_p90)}{_us(o_max)}  {our_blowups}"
        f" (over {limit:g} s or capped); the passes' medians"
        f" {', '.join(f'{1e6 * m:.0f}' for m in medians)} µs"
    )
    print(
        f"{'durakgame':<14}{_us(t_med)}{_us(t_p90)}{_us(t_max)}  {blowups}"
        f" ({counts.get('timeout', 0)} over {limit:g} s, {counts.get('memory', 0)} out of memory,"
        f" {counts.get('error', 0)} errors)"
    )
    if t_med == float("inf"):
        print("speed ratio: durakgame's median game is a blow-up; no ratio")
    else:
        print(f"speed ratio (durakgame median / ours, games/s): {t_med / o_med:.2f}x")


def engine_at(rev: str, into: Path) -> ModuleType:
    """Import ``games/engine`` as it was at git revision ``rev``, as package ``engine_at_rev``
    under ``into`` (the engine imports only itself, relatively, and the standard library)."""
    archive = subprocess.run(
        ["git", "archive", rev, "games/engine"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                name = Path(member.name).relative_to("games/engine")
                target = into / "engine_at_rev" / name
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                target.write_bytes(source.read())
    _forget_engine_at()
    sys.path.insert(0, str(into))
    # Its own sources, never a build: a revision's engine runs as pure Python (and one with
    # native.py must not refuse to load under this process's DURAK_ENGINE=compiled).
    mode = os.environ.get("DURAK_ENGINE")
    os.environ["DURAK_ENGINE"] = "python"
    try:
        return importlib.import_module("engine_at_rev")
    finally:
        sys.path.remove(str(into))
        if mode is None:
            del os.environ["DURAK_ENGINE"]
        else:
            os.environ["DURAK_ENGINE"] = mode


def _forget_engine_at() -> None:
    """Drop an earlier revision's modules, so the next import reads the files it is given."""
    for name in [m for m in sys.modules if m == "engine_at_rev" or m.startswith("engine_at_rev.")]:
        del sys.modules[name]


def _cpu_per_game(engine: Any, games: int, seed: int) -> float:
    """Median CPU seconds of ``games`` random 2-player ``throw_in`` games of ``engine``.

    :func:`play_random_game`'s loop, with the engine's own ``legal_moves`` where it has one (an
    engine from before it lists seat by seat).
    """
    rules = engine.Rules(variant="throw_in", players=2)
    rng = random.Random(seed)
    listed = getattr(engine, "legal_moves", None)
    if listed is None:
        per_seat = engine.legal_actions
        seats = range(2)

        def listed(state: Any) -> list[Any]:  # the bench's loop before legal_moves
            moves: list[Any] = []
            for seat in seats:
                moves += per_seat(state, seat)
            return moves

    clock = time.process_time
    times = []
    for _ in range(games):
        t0 = clock()
        _play(engine.new_game, engine.apply, listed, rules, rng)
        times.append(clock() - t0)
    return statistics.median(times)


def compare_engines(rev: str, games: int, rounds: int, seed: int) -> None:
    """Alternate the engine at ``rev`` and this tree's in one process, ``rounds`` times on the
    same ``games`` random games, and print each round's medians (CPU µs per game) and the
    median ratio: the steadiest figure for an engine change on a shared machine (the old and
    the new see the same moments of it)."""
    with tempfile.TemporaryDirectory() as tmp:
        old = engine_at(rev, Path(tmp))
        new = sys.modules["games.engine"]
        olds, news = [], []
        try:
            for _ in range(rounds):
                olds.append(_cpu_per_game(old, games, seed))
                news.append(_cpu_per_game(new, games, seed))
        finally:
            _forget_engine_at()
    print(
        f"engine at {rev} (pure Python) against this tree ({native.STATUS}): {games} random"
        f" 2-player throw_in games, {rounds} rounds alternated, CPU µs per game (median)"
    )
    print(f"{'at ' + rev:<14}" + " ".join(f"{1e6 * t:6.0f}" for t in olds))
    print(f"{'this tree':<14}" + " ".join(f"{1e6 * t:6.0f}" for t in news))
    ratio = statistics.median(olds) / statistics.median(news)
    print(f"speed ratio (median at {rev} / median of this tree): {ratio:.3f}x")


_SETUP = (
    "to compare with durakgame: python3 -m venv .bench-venv && "
    ".bench-venv/bin/pip install durakgame==1.0.4 (or set DURAKGAME_PYTHON)"
)


def main(argv: list[str] | None = None) -> None:
    """Print one line per configuration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="per configuration (default 2000; 300 with --against)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--vs-durakgame",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="compare with the PyPI package durakgame (default: if its interpreter is found)",
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="instead of the tables: alternate the engine at git revision REV and this tree's",
    )
    parser.add_argument("--rounds", type=int, default=7, help="rounds of --against")
    parser.add_argument("--durakgame-games", type=int, default=200)
    parser.add_argument(
        "--passes", type=int, default=3, help="passes of our games, one before each part of theirs"
    )
    parser.add_argument("--durakgame-limit", type=float, default=0.5, help="seconds per game")
    parser.add_argument("--durakgame-mem-mb", type=int, default=1024, help="MiB per worker")
    args = parser.parse_args(argv)
    if args.against:
        compare_engines(args.against, args.games or 300, max(1, args.rounds), args.seed)
        return
    args.games = args.games or 2000
    print(f"engine: {native.STATUS}")
    print(f"{'config':<14}{'games/s':>10}{'steps/game':>12}{'µs legal':>10}{'µs apply':>10}")
    for variant, players in CONFIGS:
        games = args.games if players == 2 else max(1, args.games // 2)
        r = bench_config(variant, players, games, args.seed)
        capped = f"  ({r['capped']:.0f} capped at {MAX_STEPS} steps)" if r["capped"] else ""
        print(
            f"{variant + ' ' + str(players) + 'p':<14}{r['games_per_s']:>10.0f}"
            f"{r['steps_per_game']:>12.1f}{r['us_legal']:>10.2f}{r['us_apply']:>10.2f}{capped}"
        )
    if args.vs_durakgame is False:
        return
    python = durakgame_python()
    if python is None:
        print(f"\ndurakgame comparison skipped: {_SETUP}")
        return
    compare_durakgame(
        python,
        args.durakgame_games,
        args.seed,
        args.durakgame_limit,
        args.durakgame_mem_mb,
        passes=max(1, args.passes),
    )


if __name__ == "__main__":
    main()
