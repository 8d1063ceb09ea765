"""The first per-pair score (issue 24): departures from a player's own conduct towards the
others, pooled over the kinds and both directions, with the terms it rests on."""

from __future__ import annotations

import doctest
import importlib
import math
import random

import pytest

from games.engine import Rules
from games.engine.bots import Bot, HeuristicBot, make_bot
from tournaments.fairplay import (
    BEAT,
    THREW_IN,
    TOOK,
    GameEvidence,
    GameRecord,
    Tally,
    game_evidence,
)
from tournaments.fairplay.pairs import counts_to_json, evidence_from_json, pair_rows
from tournaments.fairplay.score import pair_scores

from .test_fairplay_evidence import logged_game


def evidence(counts: dict[tuple[int, int, str], Tally]) -> GameEvidence:
    """One game's counts, all in one stratum."""
    keyed = {(a, b, kind, "stock:5+:1"): tally for (a, b, kind), tally in counts.items()}
    return GameEvidence(None, (1, 2, 3), keyed, None, False, True, 0)


def test_conduct_alike_towards_everybody_scores_zero() -> None:
    game = evidence(
        {
            (1, 2, THREW_IN): Tally(20, 10),
            (1, 3, THREW_IN): Tally(20, 10),
            (2, 1, THREW_IN): Tally(20, 6),
            (2, 3, THREW_IN): Tally(20, 6),
        }
    )
    scores = {(s.first, s.second): s for s in pair_scores([game])}
    assert scores[(1, 2)].z == pytest.approx(0.0, abs=0.2)
    assert scores[(1, 2)].opportunities == 40


def test_sparing_and_soft_play_raise_the_score_and_piling_lowers_it() -> None:
    # given: 1 never throws in on 2 though it does on 3 half the time (on 4 a quarter); 2
    # takes 1's cards
    game = evidence(
        {
            (1, 2, THREW_IN): Tally(20, 0),
            (1, 3, THREW_IN): Tally(40, 20),
            (1, 4, THREW_IN): Tally(40, 10),
            (2, 1, TOOK): Tally(10, 9, 12, (5, 9)),
            (2, 3, TOOK): Tally(10, 1),
            (2, 1, BEAT): Tally(10, 1),
            (2, 3, BEAT): Tally(10, 9),
        }
    )
    # when
    scores = {(s.first, s.second): s for s in pair_scores([game])}
    # then
    assert scores[(1, 2)].z > 5
    assert scores[(1, 3)].z < -2  # 1 throws more on 3 than on the others
    terms = {(t.mover, t.kind): t for t in scores[(1, 2)].terms}
    assert terms[(2, TOOK)].observed.moves == (5, 9)
    # each scored term: observed against expected, pooled as sum(sign * (O - E)) / sqrt(sum
    # var); beat is listed beside them, not scored
    scored = [terms[(1, THREW_IN)], terms[(2, TOOK)]]
    pooled = (
        -(terms[(1, THREW_IN)].observed.events - terms[(1, THREW_IN)].expected)
        + (terms[(2, TOOK)].observed.events - terms[(2, TOOK)].expected)
    ) / math.sqrt(sum(t.variance for t in scored))
    assert scores[(1, 2)].z == pytest.approx(pooled)
    assert terms[(2, BEAT)].observed == Tally(10, 1)
    (row,) = [r for r in pair_rows([game]) if (r.first, r.second) == (1, 2)]
    assert {t["kind"]: t["scored"] for t in row.terms} == {THREW_IN: True, TOOK: True, BEAT: False}


def test_a_single_games_sparing_counts_and_a_term_under_the_cut_is_listed_not_scored() -> None:
    # given: one game where 1 had four chances to throw in on 2 and took none, though it
    # throws in on 3 half the time (variance about 1: the binomial's 0.9 and the rate's own)
    game = evidence(
        {
            (1, 2, THREW_IN): Tally(4, 0),
            (1, 3, THREW_IN): Tally(40, 20),
            (2, 1, TOOK): Tally(1, 0),
            (2, 3, TOOK): Tally(20, 1),
        }
    )
    scores = {(s.first, s.second): s for s in pair_scores([game])}
    terms = {(t.mover, t.kind): t for t in scores[(1, 2)].terms}
    threw, took = terms[(1, THREW_IN)], terms[(2, TOOK)]
    assert 0.25 <= threw.variance < 1.5 and took.variance < 0.25
    # then: the sparing is scored (it is most of what a pair who met once shows), the rare
    # kind with a single chance is listed and not scored
    assert scores[(1, 2)].z == pytest.approx(threw.z) and threw.z > 1.5
    (row,) = [r for r in pair_rows([game]) if (r.first, r.second) == (1, 2)]
    assert [(t["mover"], t["kind"], t["scored"]) for t in row.terms] == [
        (1, THREW_IN, True),
        (2, TOOK, False),
    ]
    # with a cut above its variance nothing of it is scored
    cut = {(s.first, s.second): s for s in pair_scores([game], min_variance=threw.variance + 0.1)}
    assert cut[(1, 2)].z == 0.0


def took_by_style(rates: list[float], lone: Tally) -> float:
    """The score of (1, 2) where 1's chances to take all faced 2's cards (``lone`` in each of
    nine strata), beside a field of 20 players each taking at its own rate from two others."""
    strata = [f"stock:5+:{seat}:{covers}" for seat in (1, 2, 3) for covers in ("c1", "c2-3", "c4+")]
    counts = {}
    for i, rate in enumerate(rates):
        for step in (1, 2):
            other = 10 + (i + step) % len(rates)
            for stratum in strata:
                counts[(10 + i, other, TOOK, stratum)] = Tally(10, round(10 * rate))
    for stratum in strata:
        counts[(1, 2, TOOK, stratum)] = lone
    game = GameEvidence(None, (1, 2), counts, None, False, True, 0)
    return {(s.first, s.second): s.z for s in pair_scores([game])}[(1, 2)]


def test_a_style_read_off_one_other_player_weighs_by_how_much_the_fields_styles_vary() -> None:
    # given: 1 took 2 of 3 of 2's cards in each of nine strata (18 of 27), and never faced
    # anybody else's: what 1 would do against others is its style, which only the field tells
    alike = took_by_style([0.3] * 20, Tally(3, 2))
    mixed = took_by_style([0.6, 0.0] * 10, Tally(3, 2))  # the same mean, styles far apart
    # then: a departure of 10 takes over 8 expected is not proof where nothing else is seen
    # (the style's one uncertainty, +-70% at least, counts once for the nine strata), and less
    # where the field's players differ as much as a random player from a careful one
    assert 1.0 < mixed < alike < 2.5
    # and a real departure still shows: 1 took every one of 2's 27 cards it could have beaten
    assert took_by_style([0.3] * 20, Tally(3, 3)) > 2.5


def test_a_colluding_pair_tops_the_scores_of_a_bot_series() -> None:
    # given: 20 four-player games of five players seated at random, 100 and 102 a squeezing
    # pair at half strength (at fixed seats, 0 and 2 of four hardly meet in a bout)
    rules = Rules(players=4)
    games = []
    for i in range(20):
        order = random.Random(f"seats-{i}").sample([100, 101, 102, 103, 104], 4)
        table: dict[int, Bot] = {s: HeuristicBot() for s in range(4)}
        for me, mate in ((100, 102), (102, 100)):
            if me in order:
                where = order.index(mate) if mate in order else "-"
                table[order.index(me)] = make_bot(f"squeeze:0.5:{where}")
        seed = f"score-{i}"
        record = GameRecord(
            rules=rules.to_dict(), seed=seed, actions=logged_game(rules, seed, table), players=order
        )
        games.append(game_evidence(record))
    # when
    scores = pair_scores(games)
    # then: the pair first, well apart; recomputed, the same
    assert (scores[0].first, scores[0].second) == (100, 102)
    assert scores[0].z > 3 > scores[1].z
    assert pair_scores(games) == scores


def test_stored_rows_keep_the_score_and_name_each_events_game_and_move() -> None:
    # given: two bot games of a full-strength squeeze pair (seats 0 and 1) and a third player,
    # stored as the job stores them (the log's seqs 101, 102, ... for moves 1, 2, ...)
    rules = Rules(players=3)
    games = []
    for game_id, seed in ((7, "s1"), (8, "s2")):
        table: dict[int, Bot] = {0: make_bot("squeeze:1:1"), 1: make_bot("squeeze:1:0")}
        table[2] = HeuristicBot()
        log = logged_game(rules, seed, table)
        ev = game_evidence(GameRecord(rules.to_dict(), log, seed, players=[10, 11, 12]))
        stored = counts_to_json(ev, seqs=list(range(101, 101 + len(log))))
        games.append(
            evidence_from_json(
                game_id,
                list(ev.players),
                stored,
                fool=ev.fool,
                draw=ev.draw,
                complete=ev.complete,
                moves=ev.moves,
            )
        )
        assert counts_to_json(games[-1], seqs=list(range(1, 200))) == stored
        # each count's chances not taken, as the log's seqs of its moves
        for a, b, kind, stratum, *_numbers, moves, missed in stored:
            tally = ev.counts[(a, b, kind, stratum)]
            assert (moves, missed) == (
                [100 + m for m in tally.moves],
                [100 + m for m in tally.missed],
            )
    rows = pair_rows(games)
    # then: the scores are pair_scores', pooled from the departure and the variance
    assert [(r.first, r.second, r.z) for r in rows] == [
        (s.first, s.second, s.z) for s in pair_scores(games)
    ]
    for row in rows:
        assert row.games == 2 and row.game_ids == (7, 8)
        if row.variance > 0:
            assert row.z == pytest.approx(row.departure / row.variance**0.5)
        for term in row.terms:
            assert len(term["moves"]) == term["observed"]
            assert all(g in (7, 8) and s > 100 for g, s in term["moves"])
            assert len(term["missed"]) == term["opportunities"] - term["observed"]
            assert all(g in (7, 8) and s > 100 for g, s in term["missed"])
            assert not {tuple(m) for m in term["moves"]} & {tuple(m) for m in term["missed"]}
    assert pair_rows(games) == rows


def test_a_term_keeps_the_moves_of_its_events_and_of_its_chances_not_taken() -> None:
    # given: 1's throw-ins on 2 over two games (a chance not taken at moves 2 and 6, then 3)
    first = evidence({(1, 2, THREW_IN): Tally(3, 1, 1, (4,), (2, 6))})
    second = evidence({(1, 2, THREW_IN): Tally(1, 0, 0, (), (3,))})
    # when
    (score,) = [s for s in pair_scores([first, second]) if (s.first, s.second) == (1, 2)]
    # then: the pooled term keeps both beside each other
    (term,) = score.terms
    assert (term.observed.moves, term.observed.missed) == ((4,), (2, 6, 3))
    # and a stored pair row names them by game and seq
    rows = pair_rows(
        [
            GameEvidence(g, ev.players, ev.counts, None, False, True, 9)
            for g, ev in ((5, first), (6, second))
        ]
    )
    (row,) = [r for r in rows if (r.first, r.second) == (1, 2)]
    assert row.terms[0]["moves"] == [[5, 4]]
    assert row.terms[0]["missed"] == [[5, 2], [5, 6], [6, 3]]


def test_a_stored_row_of_the_first_version_loads_without_missed_moves() -> None:
    # given: a version-1 row, without the missed seqs
    old = [[1, 2, THREW_IN, "stock:5+:1", 3, 1, 1, [14]], [2, 1, TOOK, "end:1-2:2", 2, 0, 0, []]]
    # when
    ev = evidence_from_json(7, [1, 2, 3], old, fool=None, draw=False, complete=True, moves=20)
    # then: its counts as stored, no chance not taken named; the pairs compute
    assert ev.counts[(1, 2, THREW_IN, "stock:5+:1")] == Tally(3, 1, 1, (14,), ())
    assert ev.counts[(2, 1, TOOK, "end:1-2:2")] == Tally(2, 0, 0, (), ())
    (row,) = [r for r in pair_rows([ev]) if (r.first, r.second) == (1, 2)]
    assert {t["kind"]: (t["moves"], t["missed"]) for t in row.terms} == {
        THREW_IN: ([[7, 14]], []),
        TOOK: ([], []),
    }


def test_a_pair_without_a_chance_towards_each_other_keeps_its_overlap() -> None:
    game = evidence({(1, 2, THREW_IN): Tally(10, 5), (1, 3, THREW_IN): Tally(10, 5)})
    rows = {(r.first, r.second): r for r in pair_rows([game, game])}
    assert sorted(rows) == [(1, 2), (1, 3), (2, 3)]
    assert (rows[(2, 3)].z, rows[(2, 3)].opportunities, rows[(2, 3)].terms) == (0.0, 0, ())
    assert rows[(2, 3)].games == 2


@pytest.mark.parametrize(
    "name",
    [
        "tournaments.fairplay.evidence",
        "tournaments.fairplay.pairs",
        "tournaments.fairplay.score",
        "tournaments.simulation.collusion",
    ],
)
def test_docstring_examples_hold(name: str) -> None:
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0
