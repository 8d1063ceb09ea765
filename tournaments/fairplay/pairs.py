"""What the fair-play job stores (issue 24), as plain values: one game's evidence as a compact
JSON list and back, and each pair's score over many games with every number's games and moves.

A game's counts are stored with the moves of their events and of the chances not taken as the
log's sequence numbers (``GameAction.seq``), so that once loaded back a tally's moves name the
rows of the log; a pair's terms then name ``[game, seq]`` for each event (``moves``) and each
chance not taken (``missed``). A row of the first version (no missed moves) still loads, with
none.

>>> from tournaments.fairplay.evidence import GameEvidence, Tally
>>> counts = {(1, 2, "threw_in", "stock:5+:1"): Tally(3, 1, 2, (4,), (2, 6))}
>>> ev = GameEvidence(7, (1, 2, 3), counts, 3, False, True, 9)
>>> stored = counts_to_json(ev, seqs=list(range(11, 20)))
>>> stored
[[1, 2, 'threw_in', 'stock:5+:1', 3, 1, 2, [14], [12, 16]]]
>>> back = evidence_from_json(7, [1, 2, 3], stored, fool=3, draw=False, complete=True, moves=9)
>>> back.counts[(1, 2, "threw_in", "stock:5+:1")]
Tally(opportunities=3, events=1, cards=2, moves=(14,), missed=(12, 16))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.fairplay.evidence import GameEvidence, Tally, pairs_together
from tournaments.fairplay.score import SIGNS, PairScore, counts_in_score, pair_scores

__all__ = ["PairRow", "counts_to_json", "evidence_from_json", "pair_rows"]


def counts_to_json(evidence: GameEvidence, *, seqs: Sequence[int]) -> list[list[Any]]:
    """``evidence``'s counts as ``[mover, other, kind, stratum, opportunities, events, cards,
    [seq, ...], [missed seq, ...]]``, sorted; ``seqs[i]`` is the log's number of move ``i + 1``."""
    return sorted(
        [
            a,
            b,
            kind,
            stratum,
            t.opportunities,
            t.events,
            t.cards,
            [seqs[m - 1] for m in t.moves],
            [seqs[m - 1] for m in t.missed],
        ]
        for (a, b, kind, stratum), t in evidence.counts.items()
    )


def evidence_from_json(
    game_id: int,
    players: Sequence[int],
    counts: Iterable[Sequence[Any]],
    *,
    fool: int | None,
    draw: bool,
    complete: bool,
    moves: int,
) -> GameEvidence:
    """A stored game's evidence back (the tallies' moves are the log's seqs). A row of the
    first version has no missed moves: it loads with none (the job counts it again)."""
    tallies = {}
    for a, b, kind, stratum, o, e, c, ms, *missed in counts:
        tallies[(int(a), int(b), str(kind), str(stratum))] = Tally(
            int(o), int(e), int(c), tuple(ms), tuple(missed[0]) if missed else ()
        )
    return GameEvidence(game_id, tuple(players), tallies, fool, draw, complete, moves)


@dataclass(frozen=True, slots=True)
class PairRow:
    """A pair's score over some games, ready to store: ``departure / sqrt(variance)`` is ``z``
    (over the scored terms, so that events add up: a season pools its events' departures and
    variances), the shared games and their fools, and each term with ``[game, seq]`` of its
    events (``moves``) and of its chances not taken (``missed``)."""

    first: int
    second: int
    z: float
    departure: float
    variance: float
    opportunities: int
    games: int
    first_fool: int
    second_fool: int
    other_fool: int
    no_fool: int
    game_ids: tuple[int, ...]
    terms: tuple[dict[str, Any], ...]


def _move_refs(
    games: Sequence[GameEvidence], moves: Callable[[Tally], tuple[int, ...]]
) -> dict[tuple[int, int, str], list[list[int]]]:
    """``[game, seq]`` of the ``moves`` of each (mover, other, kind)'s tallies, sorted."""
    out: dict[tuple[int, int, str], list[list[int]]] = {}
    for game in games:
        if game.game_id is None:
            continue
        for (a, b, kind, _stratum), tally in game.counts.items():
            seqs = moves(tally)
            if seqs:
                out.setdefault((a, b, kind), []).extend([game.game_id, m] for m in seqs)
    for refs in out.values():
        refs.sort()
    return out


def pair_rows(
    games: Iterable[GameEvidence], *, prior: float = 4.0, min_variance: float = 0.25
) -> list[PairRow]:
    """Every pair who shared a table in ``games``: its score (``score.pair_scores``, same
    arguments; 0 without a chance towards each other) and its table overlap
    (``pairs_together``), the scored pairs first, highest first. The same games in the same
    order give the same rows."""
    games = list(games)
    together = pairs_together(games)
    moves = _move_refs(games, lambda t: t.moves)
    missed = _move_refs(games, lambda t: t.missed)
    scores = pair_scores(games, prior=prior, min_variance=min_variance)
    scored = {(s.first, s.second) for s in scores}
    # a pair who shared a table without a chance towards each other: its overlap, z 0
    scores += [PairScore(a, b, 0.0, 0, ()) for a, b in sorted(together) if (a, b) not in scored]
    rows = []
    for score in scores:
        a, b = score.first, score.second
        met = together.get((a, b))
        used = [t for t in score.terms if counts_in_score(t, min_variance)]
        other = {a: b, b: a}
        terms = tuple(
            {
                "mover": t.mover,
                "kind": t.kind,
                "opportunities": t.observed.opportunities,
                "observed": t.observed.events,
                "expected": round(t.expected, 6),
                "variance": round(t.variance, 6),
                "scored": counts_in_score(t, min_variance),
                "moves": moves.get((t.mover, other[t.mover], t.kind), []),
                "missed": missed.get((t.mover, other[t.mover], t.kind), []),
            }
            for t in score.terms
        )
        rows.append(
            PairRow(
                first=a,
                second=b,
                z=score.z,
                departure=sum(SIGNS[t.kind] * (t.observed.events - t.expected) for t in used),
                variance=sum(t.variance for t in used),
                opportunities=score.opportunities,
                games=met.games if met else 0,
                first_fool=met.first_fool if met else 0,
                second_fool=met.second_fool if met else 0,
                other_fool=met.other_fool if met else 0,
                no_fool=met.no_fool if met else 0,
                game_ids=tuple(g for g in met.game_ids if g is not None) if met else (),
                terms=terms,
            )
        )
    return rows
