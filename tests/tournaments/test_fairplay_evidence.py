"""Fair-play evidence from one game's log (issue 24): hand-built games with known counts, and
bot games whose colluders show in the counts, the same on every replay."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine import Action, Rules, new_game, rng_for_seed
from games.engine.bots import Bot, HeuristicBot, make_bot, play_game
from tournaments.fairplay import (
    ATTACKED,
    BEAT,
    THREW_IN,
    TOOK,
    TRANSFERRED,
    GameRecord,
    Tally,
    game_evidence,
    pair_tallies,
    pairs_together,
)


def record(hands: list[list[str]], moves: list[str], **rules: Any) -> GameRecord:
    """A hand-built game: seat s is player 10 + s."""
    return GameRecord(
        rules={"players": len(hands), **rules},
        deal={"hands": hands, "stock": [], "trump": "D", "attacker": 0},
        actions=[Action.parse(m).to_json() for m in moves],
        players=[10 + s for s in range(len(hands))],
    )


def test_throw_ins_beats_and_takes_are_counted_against_their_chances() -> None:
    # given: 0 attacks 1; 1 beats; 2 throws in a seven; 1 takes what it could beat; both pass
    game = record(
        [["6S", "9C", "KD"], ["7S", "8H", "TC", "JC"], ["7H", "6H", "QS"]],
        ["0 attack 6S", "1 defend 7S 6S", "2 throw 7H", "1 take", "0 pass", "2 pass"],
    )
    # when
    ev = game_evidence(game)
    # then: seat 0 had no pair to open with, nor a card to throw
    assert ev.tally(10, 11, ATTACKED) == Tally()
    assert ev.tally(10, 11, THREW_IN) == Tally()
    # 1 beat 0's six (move 2), when it could also have taken (a chance to take not taken)
    assert ev.tally(11, 10, BEAT) == Tally(1, 1, 1, (2,))
    assert ev.tally(11, 10, TOOK) == Tally(1, 0, 0, (), (2,))
    # 2 threw in once (move 3) and passed once (move 6), holding a six it could throw
    assert ev.tally(12, 11, THREW_IN) == Tally(2, 1, 1, (3,), (6,))
    # 1 took 2's seven (move 4), which its eight of hearts could beat (a beat not taken)
    assert ev.tally(11, 12, BEAT) == Tally(1, 0, 0, (), (4,))
    assert ev.tally(11, 12, TOOK) == Tally(1, 1, 1, (4,))
    assert not ev.complete and ev.fool is None and ev.moves == 6


def test_transfers_and_multi_card_openings() -> None:
    # given: 0 opens with two sixes, 1 transfers them onto 2 with a third, 2 covers one
    game = record(
        [["6S", "6C", "KD"], ["6H", "9C", "TC"], ["7S", "8S", "AC"]],
        ["0 attack 6S 6C", "1 transfer 6H", "2 defend 7S 6S"],
        variant="transfer",
        transfer_first_bout=True,
    )
    ev = game_evidence(game)
    assert ev.tally(10, 11, ATTACKED) == Tally(1, 1, 2, (1,))
    assert ev.tally(11, 12, TRANSFERRED) == Tally(1, 1, 1, (2,))
    assert ev.tally(11, 10, BEAT) == Tally(1, 0, 0, (), (2,))  # it transferred instead
    assert ev.tally(11, 10, TOOK) == Tally()  # nothing to cover the six of spades with
    # 2 faces 0's sixes and 1's: beats one of 0's; it could cover 0's cards, not 1's heart
    assert ev.tally(12, 10, BEAT) == Tally(1, 1, 1, (3,))
    assert ev.tally(12, 11, BEAT) == Tally(1, 0, 0, (), (3,))
    assert ev.tally(12, 10, TOOK) == Tally(1, 0, 0, (), (3,))
    assert ev.tally(12, 11, TOOK) == Tally()
    assert ev.tally(12, 10, TRANSFERRED) == Tally()  # no six to pass on


def test_forced_moves_are_replayed_but_not_counted() -> None:
    moves = ["0 attack 6S", "1 defend 7S 6S", "2 throw 7H", "1 take", "0 pass", "2 pass"]
    hands = [["6S", "9C", "KD"], ["7S", "8H", "TC", "JC"], ["7H", "6H", "QS"]]
    game = record(hands, moves)
    clocked = GameRecord(**{**_fields(game), "forced": frozenset({6})})  # the clock's pass
    # not a chance not taken either: 2 did not choose to pass
    assert game_evidence(clocked).tally(12, 11, THREW_IN) == Tally(1, 1, 1, (3,))


def _fields(game: GameRecord) -> dict[str, Any]:
    return {name: getattr(game, name) for name in GameRecord.__slots__}


def test_the_fool_and_the_games_together() -> None:
    # given: two finished games; 12 is the fool of the first, 11 of the second
    first = record([["6S"], ["7S"], ["6C", "9C"]], ["0 attack 6S", "1 defend 7S 6S", "2 pass"])
    moves = ["0 attack 6S", "1 defend 7S 6S", "2 throw 7C", "1 take"]
    second = GameRecord(
        **{**_fields(record([["6S"], ["7S", "9H"], ["7C"]], moves)), "players": [10, 11, 13]}
    )
    evs = [game_evidence(first), game_evidence(second)]
    assert [e.fool for e in evs] == [12, 11]
    assert all(e.complete for e in evs)
    # when
    together = pairs_together(evs)
    # then
    assert together[(10, 11)].games == 2
    assert together[(10, 11)].second_fool == 1 and together[(10, 11)].other_fool == 1
    assert together[(11, 12)].second_fool == 1 and together[(11, 12)].games == 1
    assert together[(11, 13)].first_fool == 1
    assert (12, 13) not in together


def logged_game(rules: Rules, seed: str, table: dict[int, Bot]) -> list[dict[str, Any]]:
    """A bot game dealt from ``seed`` as the service deals it; its log."""
    _final, actions = play_game(
        new_game(rules, rng_for_seed(seed)), table, random.Random(f"bots:{seed}")
    )
    return [action.to_json() for action in actions]


@pytest.mark.parametrize("policy", ["squeeze", "soft"])
def test_colluders_show_in_the_counts_and_replays_agree(policy: str) -> None:
    # given: four-player games, seats 0 and 2 a full-strength pair (players 100 and 102)
    rules = Rules(players=4, variant="transfer")
    evidence = []
    for i in range(12):
        table: dict[int, Bot] = {s: HeuristicBot() for s in range(4)}
        table[0], table[2] = make_bot(f"{policy}:1:2"), make_bot(f"{policy}:1:0")
        seed = f"fair-{i}"
        game = GameRecord(
            rules=rules.to_dict(),
            seed=seed,
            actions=logged_game(rules, seed, table),
            players=[100, 101, 102, 103],
            game_id=i,
        )
        # when: counted twice from the log
        ev = game_evidence(game)
        assert ev == game_evidence(game) and ev.complete
        evidence.append(ev)
    totals = pair_tallies(evidence)
    # then: the pair never threw in on each other, though it could; the others did
    for a, b in ((100, 102), (102, 100)):
        assert totals[(a, b, THREW_IN)].opportunities > 10
        assert totals[(a, b, THREW_IN)].events == 0
        # every one of those chances is a move a referee can open
        assert len(totals[(a, b, THREW_IN)].missed) == totals[(a, b, THREW_IN)].opportunities
    assert totals[(101, 103, THREW_IN)].rate > 0.3
    if policy == "soft":  # and took what they could beat from each other, never covering it
        assert totals[(100, 102, BEAT)].events == totals[(102, 100, BEAT)].events == 0
        assert totals[(100, 102, TOOK)].rate == 1.0
    assert pairs_together(evidence)[(100, 102)].games == 12


def test_the_chances_not_taken_are_the_opportunities_without_an_event() -> None:
    # given: four-player bot games
    rules = Rules(players=4, variant="transfer")
    for i in range(4):
        seed = f"missed-{i}"
        log = logged_game(rules, seed, {s: HeuristicBot() for s in range(4)})
        players = [200, 201, 202, 203]
        game = GameRecord(rules=rules.to_dict(), seed=seed, actions=log, players=players)
        # when
        ev = game_evidence(game)
        # then: per count, the events' moves and the others make up the opportunities, once each,
        # and every one of them is a move of the mover
        assert ev.complete and ev.counts
        for (mover, _other, _kind, _stratum), tally in ev.counts.items():
            assert len(tally.moves) == tally.events
            assert len(tally.missed) == tally.opportunities - tally.events
            assert not set(tally.moves) & set(tally.missed)
            assert len(set(tally.missed)) == len(tally.missed)
            for move in tally.moves + tally.missed:
                assert players[log[move - 1]["seat"]] == mover
