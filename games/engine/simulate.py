"""Play many bot games (or series) and print per-bot figures.

    python -m games.engine.simulate --games 1000 --players 2 --variant throw_in \\
        --bots heuristic,random [--seed 1] [--series best_of:3] [--rules '{"deck_size": 52}']

Bots are seated in the order given, repeated to fill the table, and rotated by one seat every
game (every series), so no bot keeps the first seat.  Per bot: seat-games played, fool rate,
first-place rate (first out), pogony hung and received; with ``--series`` also series won and
series lost (the series fool).  Overall: draws, pogony, average actions and bouts per game,
games per second, and games stopped at the step cap (a stopped game ends its series unscored).

>>> report = simulate(Rules(), ["heuristic", "random"], games=4, seed=1)
>>> report.games, sum(b.fools for b in report.bots.values()) + report.draws
(4, 4)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from .bots import BOTS, Bot, make_bot, play_game
from .errors import BadRequest, EngineError
from .game import new_game
from .rules import Rules
from .series import Series, parse_format
from .state import GameState

__all__ = ["BotStats", "Report", "main", "simulate"]

MAX_STEPS = 10_000


@dataclass(slots=True)
class BotStats:
    """Counts for one bot name over every seat it played."""

    seat_games: int = 0
    fools: int = 0
    firsts: int = 0
    pogony_given: int = 0
    pogony_received: int = 0
    series: int = 0
    series_won: int = 0
    series_fool: int = 0

    @property
    def fool_rate(self) -> float:
        """Fool results per seat-game."""
        return self.fools / self.seat_games if self.seat_games else 0.0

    @property
    def first_rate(self) -> float:
        """First places (first out) per seat-game."""
        return self.firsts / self.seat_games if self.seat_games else 0.0


@dataclass(slots=True)
class Report:
    """What :func:`simulate` measured."""

    bots: dict[str, BotStats] = field(default_factory=dict)
    games: int = 0
    series: int = 0
    draws: int = 0
    pogony: int = 0
    capped: int = 0
    actions: int = 0
    bouts: int = 0
    seconds: float = 0.0

    @property
    def games_per_second(self) -> float:
        """Games played per wall-clock second."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def lines(self) -> list[str]:
        """The printed report, one string per line."""
        series = self.series > 0
        head = f"{'bot':<12}{'seat-games':>11}{'fool %':>9}{'first %':>9}{'pog. hung':>10}"
        head += f"{'pog. recv':>10}"
        if series:
            head += f"{'series':>8}{'won %':>8}{'fool %':>8}"
        out = [head]
        for name, b in sorted(self.bots.items()):
            row = (
                f"{name:<12}{b.seat_games:>11}{100 * b.fool_rate:>9.1f}{100 * b.first_rate:>9.1f}"
                f"{b.pogony_given:>10}{b.pogony_received:>10}"
            )
            if series:
                won = 100 * b.series_won / b.series if b.series else 0.0
                lost = 100 * b.series_fool / b.series if b.series else 0.0
                row += f"{b.series:>8}{won:>8.1f}{lost:>8.1f}"
            out.append(row)
        played = max(1, self.games)
        out.append(
            f"games {self.games}"
            + (f" in {self.series} series" if series else "")
            + f", draws {self.draws} ({100 * self.draws / played:.1f}%)"
            f", pogony {self.pogony}, capped {self.capped}"
        )
        out.append(
            f"average {self.actions / played:.1f} actions and {self.bouts / played:.1f} bouts "
            f"per game; {self.games_per_second:.0f} games/s"
        )
        return out


def _record_game(report: Report, state: GameState, actions: int, names: Sequence[str]) -> None:
    """Add one game; ``names[g]`` is the bot at game seat ``g``."""
    report.games += 1
    report.actions += actions
    report.bouts += state.bouts
    for name in names:
        report.bots[name].seat_games += 1
    result = state.result
    if result is None:
        report.capped += 1
        return
    if result.draw:
        report.draws += 1
    if result.fool is not None:
        report.bots[names[result.fool]].fools += 1
    if result.places:
        report.bots[names[result.places[0]]].firsts += 1
    if result.hangings:
        report.pogony += 1
    for hung in result.hangings:  # seed 004's three-player double, then the game-ending one
        report.bots[names[hung.by]].pogony_given += len(hung.on)
        for seat in hung.on:
            report.bots[names[seat]].pogony_received += 1


def simulate(
    rules: Rules,
    bot_names: Sequence[str],
    *,
    games: int,
    seed: int = 1,
    series: str | None = None,
) -> Report:
    """Play ``games`` games (or, with ``series`` like ``"best_of:3"``, that many series).

    >>> r = simulate(Rules(), ["random"], games=2, seed=3, series="best_of:3")
    >>> r.series, r.games >= 4
    (2, True)
    """
    if not bot_names:
        raise BadRequest("at least one bot name")
    fmt = parse_format(series) if series is not None else None
    bots: dict[str, Bot] = {name: make_bot(name) for name in bot_names}
    report = Report(bots={name: BotStats() for name in bot_names})
    rng = random.Random(seed)
    n = rules.players
    start = time.perf_counter()
    for index in range(games):
        names = [bot_names[(seat + index) % len(bot_names)] for seat in range(n)]
        if fmt is None:
            table = {seat: bots[names[seat]] for seat in range(n)}
            state, actions = play_game(new_game(rules, rng), table, rng, MAX_STEPS)
            _record_game(report, state, len(actions), names)
            continue
        report.series += 1
        for name in names:
            report.bots[name].series += 1
        match = Series.start(rules, fmt[0], fmt[1])
        while not match.finished:
            setup = match.next_game_setup()
            game_names = [names[s] for s in setup.seats]
            table = {g: bots[name] for g, name in enumerate(game_names)}
            state, actions = play_game(setup.deal(rng), table, rng, MAX_STEPS)
            _record_game(report, state, len(actions), game_names)
            if state.result is None:
                break
            match = match.record(state.result, trump=state.trump)
        outcome = match.result
        if outcome is not None:
            report.bots[names[outcome.places[0]]].series_won += 1
            if outcome.fool is not None:
                report.bots[names[outcome.fool]].series_fool += 1
    report.seconds = time.perf_counter() - start
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, simulate and print; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m games.engine.simulate", description="Play bot games and print figures."
    )
    parser.add_argument("--games", type=int, default=1000, help="games (or series) to play")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", default="throw_in", help="simple, throw_in or transfer")
    parser.add_argument(
        "--bots", default="heuristic,random", help=f"comma-separated: {', '.join(sorted(BOTS))}"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--series", default=None, help="single, best_of:N, first_to:P or long")
    parser.add_argument("--rules", default="{}", help="more rule options as a JSON object")
    args = parser.parse_args(argv)
    try:
        options = json.loads(args.rules)
        if not isinstance(options, dict):
            raise BadRequest("--rules: expected a JSON object")
        options = {"variant": args.variant, "players": args.players, **options}
        rules = Rules.from_dict(options)
        names = [b.strip() for b in args.bots.split(",") if b.strip()]
        if args.games < 1:
            raise BadRequest("--games: at least 1")
        report = simulate(rules, names, games=args.games, seed=args.seed, series=args.series)
    except (EngineError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"{args.variant}, {args.players} players, bots {','.join(names)}, seed {args.seed}"
        + (f", series {args.series}" if args.series else "")
    )
    for line in report.lines():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
