"""The fair-play benchmark (``bench.fairplay``, issue 24): its recall and false positives are
read from the stored pairs against the simulation's answer key, never assumed; a bounded event
(64 players, strength 1) through the same machinery as the 256- and 1,024-player runs."""

from __future__ import annotations

import doctest
import math

import pytest

from bench import fairplay as bench
from tournaments.models import PairEvidence, Player, Tournament
from tournaments.selectors.fairplay import THRESHOLD


def test_power_counts_recall_over_all_and_met_pairs_and_honest_flags() -> None:
    # given: three injected pairs (one never met), four honest pairs
    key = [[2, 1], [3, 4], [9, 8]]
    pairs = [
        (1, 2, 5.0, 3),
        (3, 4, 1.0, 1),
        (1, 3, 3.5, 1),
        (1, 4, -1.0, 1),
        (2, 3, 0.0, 2),
        (5, 6, 2.9, 1),
    ]
    p = bench.power(key, pairs, 3.0)
    # then
    assert (p.injected, p.met, p.found) == (3, 2, 1)
    assert p.recall == pytest.approx(1 / 3) and p.recall_met == 0.5
    assert p.games_together == 2.0
    assert (p.honest, p.honest_flagged, p.false_positives) == (4, 1, 0.25)
    assert (p.median_injected, p.median_honest) == (3.0, 1.45)
    assert p.honest_q99 == 3.5
    # nothing met: no division by zero
    assert bench.power(key, [], 3.0).recall_met == 0.0


def test_the_docstring_examples_hold() -> None:
    failed, _ = doctest.testmod(bench, optionflags=doctest.ELLIPSIS)
    assert failed == 0


@pytest.mark.django_db(transaction=True)
def test_a_bounded_event_is_read_against_its_key(eager_jobs: None) -> None:
    # when: 64 players, 8 squeeze pairs at full strength, through simulate_tournament
    event = bench.run_event(
        players=64,
        strength=1.0,
        policy="squeeze",
        pairs=8,
        seed="bench-test",
        plan=bench.money_plan(64),
    )
    # then: the key, read back independently from the colluders' bot kinds (the pair's tag)
    tournament = Tournament.objects.get()
    tags: dict[str, list[int]] = {}
    for pk, kind in Player.objects.filter(bot_kind__contains=":#").values_list("pk", "bot_kind"):
        tags.setdefault(kind.rsplit("#", 1)[1], []).append(pk)
    injected = {(min(p), max(p)) for p in tags.values()}
    assert len(injected) == 8 and all(len(p) == 2 for p in tags.values())
    rows = {
        (a, b): (z, games)
        for a, b, z, games in PairEvidence.objects.filter(tournament=tournament).values_list(
            "first_id", "second_id", "z", "games"
        )
    }
    met = [rows[p] for p in injected if p in rows]
    honest = [z for p, (z, _g) in rows.items() if p not in injected]
    p = event.power
    assert (p.injected, p.met, p.honest) == (8, len(met), len(honest))
    assert p.found == sum(z >= THRESHOLD for z, _g in met)
    assert p.honest_flagged == sum(z >= THRESHOLD for z in honest)
    assert p.honest > 100 and 0 <= p.false_positives <= 1
    assert event.games > 30 and event.recomputed >= 2
    assert event.count_seconds > 0 and event.pairs_seconds > 0
    assert not math.isnan(p.median_honest)
    # and the table's row names them
    assert f"| 64 | 1 | {event.games} | {p.met} of 8 " in bench.row(event)


@pytest.mark.django_db(transaction=True)
def test_a_club_event_seats_each_pair_together_and_finds_most_of_them(eager_jobs: None) -> None:
    # when: 64 players in groups of 4 playing a five-game match, 8 squeeze pairs drawn by group
    event = bench.run_event(
        players=64,
        strength=1.0,
        policy="squeeze",
        pairs=8,
        seed="bench-club",
        plan=bench.club_plan(64),
        series="best_of:5",
        seating="group",
    )
    # then: every pair shared its group's table for the match, and the queue found most of
    # them (about 9 in 10 at full strength: 4 of 8 is far below that)
    p = event.power
    assert (p.injected, p.met) == (8, 8)
    assert p.games_together >= 3
    assert p.found >= 4, bench.row(event)
    assert p.false_positives <= 0.05, bench.row(event)
