"""Colluding bots (issue 24): they spare the partner, pile onto the others, replay exactly."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from games.engine import Action, GameState, Rules, apply, new_game
from games.engine.actions import ATTACK, DEFEND, THROW, TRANSFER
from games.engine.bots import (
    Bot,
    ColludingBot,
    HeuristicBot,
    bind_partners,
    make_bot,
    play_game,
    play_step,
)
from games.engine.errors import BadRequest

from .helpers import deal, play

RULES = [
    Rules(players=3),
    Rules(players=4),
    Rules(players=4, variant="transfer"),
    Rules(players=5, variant="transfer", transfer_first_bout=True),
    Rules(players=6, throw_in_by="neighbours"),
]


def _ids(rules: Rules) -> str:
    return f"{rules.players}-{rules.variant}-{rules.throw_in_by}"


def _table(rules: Rules, policy: str, strength: float, pair: tuple[int, int]) -> dict[int, Bot]:
    a, b = pair
    table: dict[int, Bot] = {s: HeuristicBot() for s in range(rules.players)}
    table[a] = make_bot(f"{policy}:{strength}:{b}")
    table[b] = make_bot(f"{policy}:{strength}:{a}")
    return table


def _replay(rules: Rules, seed: int, table: Mapping[int, Bot]) -> list[tuple[GameState, Action]]:
    """Every (state before, action) of one game played by ``table``."""
    rng = random.Random(seed)
    state = new_game(rules, rng)
    moves: list[tuple[GameState, Action]] = []
    while not state.finished and len(moves) < 5_000:
        action = play_step(state, table, rng)
        assert action is not None
        moves.append((state, action))
        state = apply(state, action)
    return moves


@pytest.mark.parametrize("rules", RULES, ids=_ids)
@pytest.mark.parametrize("policy", ["collude", "soft", "squeeze"])
def test_full_strength_colluders_never_play_onto_each_other(rules: Rules, policy: str) -> None:
    spared = piled = transferred = 0
    for seed in range(12):
        pair = (seed % rules.players, (seed + 1 + seed % 2) % rules.players)
        partner = {pair[0]: pair[1], pair[1]: pair[0]}
        for before, action in _replay(rules, seed, _table(rules, policy, 1.0, pair)):
            if action.seat not in partner:
                continue
            mate = partner[action.seat]
            if action.type == THROW:
                # given a colluder throws in, then never onto its partner
                assert before.defender != mate, (seed, str(action))
                piled += 1
            if action.type == ATTACK and before.defender == mate:
                assert len(action.cards) == 1, (seed, str(action))
                spared += 1
            if action.type == TRANSFER:
                after = apply(before, action)
                assert after.defender != mate, (seed, str(action))
                transferred += 1
            if action.type == DEFEND and before.attacker == mate and policy != "squeeze":
                # soft play: the partner's attack is taken (or passed on), never beaten
                pytest.fail(f"seed {seed}: {action} beats the partner's attack")
    assert spared and piled  # the situations arose
    if policy != "soft":
        assert transferred or rules.variant != "transfer"


@pytest.mark.parametrize("rules", RULES, ids=_ids)
def test_zero_strength_or_no_partner_plays_as_the_heuristic(rules: Rules) -> None:
    for seed in range(6):
        honest = _replay(rules, seed, dict.fromkeys(range(rules.players), HeuristicBot()))
        weak = _replay(rules, seed, _table(rules, "collude", 0.0, (0, 2)))
        alone: dict[int, Bot] = {s: HeuristicBot() for s in range(rules.players)}
        alone[1] = make_bot("collude:1:-")
        assert [a for _, a in weak] == [a for _, a in honest]
        assert [a for _, a in _replay(rules, seed, alone)] == [a for _, a in honest]


@pytest.mark.parametrize("strength", [0.25, 0.5, 1.0])
def test_same_seed_same_game(strength: float) -> None:
    rules = Rules(players=4, variant="transfer")
    first = _replay(rules, 11, _table(rules, "collude", strength, (0, 2)))
    again = _replay(rules, 11, _table(rules, "collude", strength, (0, 2)))
    assert [a for _, a in first] == [a for _, a in again]


def test_strength_is_the_share_of_colluding_decisions() -> None:
    # given the decisions where colluding changes the move, at full strength
    rules = Rules(players=4, variant="transfer")
    full = ColludingBot("collude", 1.0, 2)
    half = ColludingBot("collude", 0.5, 2)
    quarter = ColludingBot("collude", 0.25, 2)
    honest = HeuristicBot()
    rng = random.Random(0)
    counts = {0.5: 0, 0.25: 0}
    differ = 0
    for seed in range(80):
        for before, action in _replay(rules, seed, _table(rules, "collude", 0.5, (0, 2))):
            if action.seat != 0:
                continue
            plain = honest.choose(before, 0, rng)
            if full.choose(before, 0, rng) == plain:
                continue
            differ += 1
            h, q = half.choose(before, 0, rng) != plain, quarter.choose(before, 0, rng) != plain
            counts[0.5] += h
            counts[0.25] += q
            assert h or not q  # a weaker colluder colludes on a subset of the decisions
    # then the weaker ones collude in about their share of them
    assert differ > 200, differ
    assert 0.4 < counts[0.5] / differ < 0.6, counts
    assert 0.15 < counts[0.25] / differ < 0.35, counts


def _fools(rules: Rules, policy: str, games: int) -> list[int]:
    """How often each seat was the fool, with seats 0 and 1 a pair of ``policy`` (or honest)."""
    fools = [0] * rules.players
    for seed in range(games):
        table: dict[int, Bot] = {s: HeuristicBot() for s in range(rules.players)}
        if policy:
            table = _table(rules, policy, 1.0, (0, 1))
        rng = random.Random(seed)
        final, _ = play_game(new_game(rules, rng), table, rng)
        if final.result is not None and final.result.fool is not None:
            fools[final.result.fool] += 1
    return fools


def test_squeezing_pair_makes_the_third_player_the_fool() -> None:
    honest, squeezed = _fools(Rules(players=3), "", 200), _fools(Rules(players=3), "squeeze", 200)
    assert squeezed[2] > 1.25 * honest[2], (honest, squeezed)


def test_soft_play_dumps_the_taker_and_saves_the_partner() -> None:
    honest, soft = _fools(Rules(players=3), "", 200), _fools(Rules(players=3), "soft", 200)
    assert soft[0] < honest[0] / 2 and soft[1] > 2 * honest[1], (honest, soft)


def test_soft_play_takes_the_partners_attack() -> None:
    # seat 1 could beat 6S with 7S, but its partner (seat 0) attacked
    state = deal([["6S", "9C"], ["7S", "8C"], ["TS", "JC"]])
    bot = make_bot("soft:1:0")
    state = play(state, "0 attack 6S")
    assert str(bot.choose(state, 1, random.Random(0))) == "1 take"
    assert str(HeuristicBot().choose(state, 1, random.Random(0))) == "1 defend 7S 6S"


STOCK = ["6D", "7D", "8D", "TD", "JD", "QD"]


def test_squeeze_piles_onto_the_victim() -> None:
    # seat 0 attacks seat 1 (the victim) with a king; seat 2, seat 0's partner, holds a king
    state = deal([["KS", "6H"], ["AS", "7H", "8H"], ["KC", "9C"]], stock=STOCK, trump="D")
    state = play(state, "0 attack KS", "1 defend AS KS")
    # the heuristic keeps its king while the stock is long; the colluder throws it in
    assert str(HeuristicBot().choose(state, 2, random.Random(0))) == "2 pass"
    assert str(make_bot("squeeze:1:0").choose(state, 2, random.Random(0))) == "2 throw KC"
    assert str(make_bot("soft:1:0").choose(state, 2, random.Random(0))) == "2 pass"


def test_colluders_spare_the_partner() -> None:
    # seat 1 attacks seat 2, seat 0's partner; seat 0 could throw in its six
    state = deal([["6C", "9C"], ["6S", "8H"], ["7S", "TC"]], stock=STOCK, trump="D", attacker=1)
    state = play(state, "1 attack 6S", "2 defend 7S 6S")
    assert str(HeuristicBot().choose(state, 0, random.Random(0))) == "0 throw 6C"
    for policy in ("collude", "soft", "squeeze"):
        assert str(make_bot(f"{policy}:1:2").choose(state, 0, random.Random(0))) == "0 pass"
    assert str(make_bot("collude:1:1").choose(state, 0, random.Random(0))) == "0 throw 6C"


def test_bot_names_and_binding() -> None:
    assert make_bot("collude:1:2").name == "collude:1:2"
    assert make_bot("soft:0.25:-").name == "soft:0.25:-"
    for bad in ("collude:2:1", "collude:x:1", "collude:1:#3", "steal:1:2", "collude:1"):
        with pytest.raises(BadRequest):
            make_bot(bad)
    assert bind_partners(["", "soft:1:#a", "collude:1:#b", "soft:1:#a"]) == [
        "",
        "soft:1:3",
        "collude:1:-",
        "soft:1:1",
    ]
    with pytest.raises(BadRequest):
        bind_partners(["soft:1:#a"] * 3)
