"""The fair-play job (issue 24): run after each round of a simulated event with a colluding pair,
it stores one evidence row per finished game and the pairs' scores; counted again from scratch,
without the bots' fields, or twice, it stores the same; the queue's selectors read them."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from games.models import Game, GameAction
from tests.builders import six_bots_with_a_colluding_pair
from tournaments.fairplay import GameRecord, game_evidence
from tournaments.models import (
    FairplayState,
    GameEvidenceRow,
    League,
    PairEvidence,
    Player,
    Tournament,
)
from tournaments.models.fairplay import EVIDENCE_VERSION
from tournaments.selectors.fairplay import (
    league_pairs_flagged,
    pair_games,
    pair_review,
    pairs_flagged,
)
from tournaments.services import fairplay
from tournaments.services.fairplay import fairplay_count

pytestmark = pytest.mark.django_db(transaction=True)

PAIR_FIELDS = (
    "first_id",
    "second_id",
    "z",
    "departure",
    "variance",
    "opportunities",
    "games",
    "first_fool",
    "second_fool",
    "other_fool",
    "no_fool",
    "game_ids",
    "terms",
    "games_counted",
)


def _pairs() -> list[tuple[Any, ...]]:
    return list(PairEvidence.objects.order_by("first_id", "second_id").values_list(*PAIR_FIELDS))


def _games() -> list[tuple[Any, ...]]:
    return list(
        GameEvidenceRow.objects.order_by("game_id").values_list(
            "pk", "game_id", "players", "counts", "fool", "draw", "complete", "moves", "created_at"
        )
    )


def _simulate(tmp_path: Path) -> tuple[Tournament, tuple[int, int]]:
    """Six bots at tables of three over two swiss rounds, then all six at the final; one pair
    colluding at full strength. Returns the event and the pair's player ids."""
    (pair,) = six_bots_with_a_colluding_pair(tmp_path / "pairs.json")["pairs"]
    a, b = sorted(pair["players"])
    return Tournament.objects.get(), (a, b)


def test_the_rounds_jobs_store_each_game_once_and_the_colluding_pair(
    eager_jobs: None, tmp_path: Path
) -> None:
    # given: an event played through its jobs (the fair-play job after each round)
    tournament, (a, b) = _simulate(tmp_path)
    games = Game.objects.filter(table__round__stage__tournament=tournament).order_by("pk")
    assert games.count() == 5
    # then: one evidence row per game, each as the evidence of its log says
    rows = {r.game_id: r for r in GameEvidenceRow.objects.all()}
    assert sorted(rows) == sorted(games.values_list("pk", flat=True))
    for game in games:
        log = list(game.actions.order_by("seq").values_list("action", flat=True))
        ev = game_evidence(GameRecord(game.rules, log, game.seed, game.setup, None, game.players))
        assert rows[game.pk].fool == ev.fool and rows[game.pk].moves == len(log)
        assert sum(c[4] for c in rows[game.pk].counts) == sum(
            t.opportunities for t in ev.counts.values()
        )
    # and the colluding pair has its row: its games together, its terms naming real moves
    shared = [g.pk for g in games if a in g.players and b in g.players]
    assert shared, [g.players for g in games]
    pair = PairEvidence.objects.get(tournament=tournament, first_id=a, second_id=b)
    assert pair.games == len(shared) >= 1 and pair.game_ids == shared
    assert pair.games_counted == 5 == FairplayState.objects.get(tournament=tournament).games_counted
    for other in PairEvidence.objects.all():
        refs = [ref for term in other.terms for ref in term["moves"]]
        assert len(refs) == sum(term["observed"] for term in other.terms)
        for game_id, seq in refs:
            assert game_id in other.game_ids
            assert GameAction.objects.filter(game_id=game_id, seq=seq).exists()
    assert any(term["moves"] for other in PairEvidence.objects.all() for term in other.terms)
    # the squeeze pair never threw in on each other, though it could
    threw = [t for t in pair.terms if t["kind"] == "threw_in"]
    assert all(t["observed"] == 0 for t in threw)
    # every pair that shared a table has its row, lower id first
    met = {(x, y) for g in games for x in g.players for y in g.players if x < y}
    assert set(PairEvidence.objects.values_list("first_id", "second_id")) == met
    assert all(p.first_id < p.second_id for p in PairEvidence.objects.all())
    # and the queue: the pair at a threshold at its score, with its games' evidence
    assert pair in pairs_flagged(tournament, threshold=pair.z)
    assert list(pairs_flagged(tournament, threshold=math.inf)) == []
    assert [r.game_id for r in pair_games(pair)] == shared


def test_recounted_from_scratch_without_the_bots_fields_the_scores_are_the_same(
    eager_jobs: None, tmp_path: Path
) -> None:
    tournament, _pair = _simulate(tmp_path)
    incremental = _pairs()
    assert incremental
    # given: the stored evidence gone, and the colluders' tags (the answer key) blanked
    GameEvidenceRow.objects.all().delete()
    PairEvidence.objects.all().delete()
    Player.objects.update(bot_kind="")
    Game.objects.update(bot_seats={})
    # when: the job counts the event from its logs
    assert fairplay_count(tournament_id=tournament.pk) == 5
    # then: the same pairs, the same scores, the same moves
    assert _pairs() == incremental
    # run again: nothing to count, the same rows (games and pairs untouched)
    games, pks = _games(), list(PairEvidence.objects.order_by("pk").values_list("pk", flat=True))
    assert fairplay_count(tournament_id=tournament.pk) == 0
    assert _games() == games and _pairs() == incremental
    assert list(PairEvidence.objects.order_by("pk").values_list("pk", flat=True)) == pks
    # one game's row lost: only that game is counted again
    lost = GameEvidenceRow.objects.order_by("game_id").last()
    assert lost is not None
    kept = [g for g in games if g[1] != lost.game_id]
    lost.delete()
    assert fairplay_count(tournament_id=tournament.pk) == 1
    assert [g for g in _games() if g[1] != lost.game_id] == kept
    assert _pairs() == incremental


def test_a_round_recomputes_the_pairs_only_once_the_games_grew_a_stage_end_always(
    eager_jobs: None, tmp_path: Path
) -> None:
    tournament, _pair = _simulate(tmp_path)
    state = FairplayState.objects.get(tournament=tournament)
    assert state.games_counted == 5
    final = _pairs()
    # given: the pairs as the first four games gave them, the last game's row lost
    last = GameEvidenceRow.objects.order_by("game_id").last()
    assert last is not None
    last.delete()
    fairplay.pairs_recompute(tournament_id=tournament.pk)
    four = _pairs()
    assert four != final and not fairplay.pairs_due(tournament.pk)
    # when: a round's job (not its stage's end) counts the fifth game: 5 < 1.5 * 4
    assert fairplay_count(tournament_id=tournament.pk, full=False) == 1
    # then: the game is counted, the pairs wait (stale, as the reconciler would see)
    assert GameEvidenceRow.objects.count() == 5
    assert _pairs() == four and fairplay.pairs_due(tournament.pk)
    assert not fairplay.pairs_due(tournament.pk, growth=fairplay.PAIRS_GROWTH)
    # a stage's end (full) recomputes them: the same as counted round by round
    assert fairplay_count(tournament_id=tournament.pk) == 0
    assert _pairs() == final and not fairplay.pairs_due(tournament.pk)
    # and from two games to five the pairs grew enough: a round's job recomputes them
    GameEvidenceRow.objects.filter(game_id__in=[r[1] for r in _games()[2:]]).delete()
    fairplay.pairs_recompute(tournament_id=tournament.pk)
    assert fairplay_count(tournament_id=tournament.pk, full=False) == 3
    assert _pairs() == final


def test_a_clock_move_is_replayed_not_counted(eager_jobs: None, tmp_path: Path) -> None:
    tournament, _pair = _simulate(tmp_path)
    game = Game.objects.filter(table__round__stage__tournament=tournament).order_by("pk").first()
    assert game is not None
    before = GameEvidenceRow.objects.get(game=game)
    counted = {tuple(c[:4]): c for c in before.counts}
    # given: every move of the game the clock's
    game.actions.update(kind=GameAction.Kind.CLOCK)
    GameEvidenceRow.objects.filter(game=game).delete()
    fairplay_count(tournament_id=tournament.pk)
    after = GameEvidenceRow.objects.get(game=game)
    # then: replayed to the end (same fool, same moves), nothing counted
    assert counted and after.counts == []
    assert (after.fool, after.moves, after.complete) == (before.fool, before.moves, True)


def test_a_season_pools_its_events(eager_jobs: None, tmp_path: Path) -> None:
    tournament, (a, b) = _simulate(tmp_path)
    league = League.objects.create(name="Fair", slug="fair", season="2026")
    Tournament.objects.filter(pk=tournament.pk).update(league=league)
    pair = PairEvidence.objects.get(first_id=a, second_id=b)
    # one event: the season's score is the event's
    season = {(p.first, p.second): p for p in league_pairs_flagged(league, threshold=-math.inf)}
    assert len(season) == PairEvidence.objects.count()
    assert season[(a, b)].z == pytest.approx(pair.z)
    assert season[(a, b)].pairs == (pair,)
    # a second event with the same pair's departures doubles the evidence: z grows by sqrt(2)
    other = Tournament.objects.create(name="Second", slug="second", league=league)
    PairEvidence.objects.create(
        tournament=other,
        first_id=a,
        second_id=b,
        z=pair.z,
        departure=pair.departure,
        variance=pair.variance,
    )
    season = {(p.first, p.second): p for p in league_pairs_flagged(league, threshold=-math.inf)}
    assert season[(a, b)].z == pytest.approx(pair.z * math.sqrt(2))
    assert [p.tournament_id for p in season[(a, b)].pairs] == [tournament.pk, other.pk]
    threshold = season[(a, b)].z
    above = league_pairs_flagged(league, threshold=threshold)
    assert (a, b) in [(p.first, p.second) for p in above]
    assert [p.z for p in above] == sorted(
        (p.z for p in season.values() if p.z >= threshold), reverse=True
    )


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="a race of two workers needs PostgreSQL")
def test_two_workers_counting_at_once_store_the_same_rows(
    eager_jobs: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament, _pair = _simulate(tmp_path)
    incremental = _pairs()
    GameEvidenceRow.objects.all().delete()
    PairEvidence.objects.all().delete()
    # given: two jobs that both found the same five games due before either wrote
    barrier = threading.Barrier(2)
    count_batch = fairplay._count_batch

    def together(tournament_id: int, game_ids: Sequence[int]) -> None:
        barrier.wait(timeout=30)
        count_batch(tournament_id, game_ids)

    monkeypatch.setattr(fairplay, "_count_batch", together)
    counted: list[int] = []
    errors: list[BaseException] = []

    def job() -> None:
        try:
            counted.append(fairplay_count(tournament_id=tournament.pk))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=job) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    # then: both counted the five games, one row each, and the pairs are the incremental ones
    assert errors == [] and counted == [5, 5]
    assert GameEvidenceRow.objects.count() == 5
    assert _pairs() == incremental


def test_rows_of_the_first_version_load_and_are_counted_again(
    eager_jobs: None, tmp_path: Path
) -> None:
    tournament, _pair = _simulate(tmp_path)
    current_games, current_pairs = _games(), _pairs()
    assert any(count[8] for row in current_games for count in row[3])  # chances not taken kept
    # given: every row as version 1 stored it (no missed seqs), and the pairs computed then
    for row in GameEvidenceRow.objects.all():
        row.version, row.counts = 1, [count[:8] for count in row.counts]
        row.save(update_fields=["version", "counts"])
    for pair in PairEvidence.objects.all():
        pair.terms = [{k: v for k, v in t.items() if k != "missed"} for t in pair.terms]
        pair.save(update_fields=["terms"])
    # then: an old pair with moves (the top one may have none: its deals are drawn afresh each
    # run, and a pair that only spared each other has chances not taken alone) reads with no
    # chance not taken, and the old rows' pairs compute
    old = next(
        pair
        for pair in PairEvidence.objects.filter(tournament=tournament).order_by("-z")
        if any(t["moves"] for t in pair.terms)
    )
    review = pair_review(old)
    assert review.terms and all(t.missed == () for t in review.terms)
    assert any(t.moves for t in review.terms)
    fairplay.pairs_recompute(tournament_id=tournament.pk)
    assert all(t["missed"] == [] for p in PairEvidence.objects.all() for t in p.terms)
    # when: the job runs again, it counts every old row again: as a fresh count
    assert fairplay_count(tournament_id=tournament.pk) == len(current_games)
    assert set(GameEvidenceRow.objects.values_list("version", flat=True)) == {EVIDENCE_VERSION}
    assert [row[:8] for row in _games()] == [row[:8] for row in current_games]
    assert _pairs() == current_pairs
