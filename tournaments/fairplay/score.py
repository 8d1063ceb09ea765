"""A first per-pair score over the evidence (issue 24): how far each player's conduct towards
one other player departs from its conduct towards everybody else at the same tables.

For a pair (a, b) and each kind of decision, in each stratum (stage, b's hand size, where b
sits from a, what the move would cost: ``evidence.py``), a's *expected* rate towards b is a's own
rate towards the other players it met in that stratum, shrunk (``prior`` pseudo-opportunities)
towards the field's rate there times a's *style*: its events over the field's expectation for
them towards everybody but b, per kind and cost (a player who throws in more than most does so
wherever it sits; one who plays at random throws its trumps far more, its low cards less),
itself shrunk towards 1 by how much the styles of this event's players vary (``_spread``).
Summing over strata gives an expected count and a variance: the binomial's (each chance's
``p(1 - p)``, at least ``VARIANCE_FLOOR``), plus the uncertainty of ``p`` itself, read off a's
other chances in each stratum and off its style, one uncertainty for all the strata of a style
class (at a table of four, where b sits is who b is, so a's rates towards b rest on its style
alone); and

    z = sign * (observed - expected) / sqrt(variance)

with ``sign`` +1 where colluders do more (``took``: taking what one could beat) and -1 where they
do less (``threw_in``, ``attacked`` with several cards, ``beat``, ``transferred``); ``beat`` is
listed for context and not scored (``SCORED``). The pair's
score pools the terms of both directions, ``sum(sign * (O - E)) / sqrt(sum(variance))``, so a
term weighs by what it knows (about standard normal for an honest pair, whatever the number of
opportunities; pooling found the injected pairs more often than Stouffer's ``sum(z) /
sqrt(terms)`` in ``bench.fairplay_probe``: median 3.8 against 3.2); every term keeps its
observed and expected counts, its opportunities, the moves of its events and those of the
chances not taken (``Tally.missed``: where sparing shows), so that a referee
sees the rates side by side and each number links to the games. The fool evidence
(``pairs_together``) is kept beside it, not folded in.

>>> from tournaments.fairplay.evidence import GameEvidence, Tally
>>> def game(a_to_b: int) -> GameEvidence:
...     counts = {(1, 2, "threw_in", "stock:5+:1"): Tally(10, a_to_b),
...               (1, 3, "threw_in", "stock:5+:1"): Tally(10, 5)}
...     return GameEvidence(None, (1, 2, 3), counts, None, False, True, 0)
>>> [round(s.z, 1) for s in pair_scores([game(0)] * 4) if (s.first, s.second) == (1, 2)]
[4.6]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.fairplay.evidence import (
    ATTACKED,
    BEAT,
    THREW_IN,
    TOOK,
    TRANSFERRED,
    GameEvidence,
    Tally,
)

__all__ = [
    "SCORED",
    "SIGNS",
    "VARIANCE_FLOOR",
    "PairScore",
    "Term",
    "counts_in_score",
    "pair_scores",
]

#: +1: colluders do it more to each other; -1: less.
SIGNS: Mapping[str, int] = {THREW_IN: -1, ATTACKED: -1, BEAT: -1, TRANSFERRED: -1, TOOK: 1}

#: The kinds the score counts. ``beat`` (which owner's card a defender covers first, when
#: several attackers' cards lie unbeaten) is listed beside them, not scored: honest pairs
#: depart on it as far as colluders, by how differently their attackers play (in the
#: benchmark's club events it made most of the honest pairs flagged and none of the found
#: colluders: ``docs/fairplay.md``, the fourth session).
SCORED: frozenset[str] = frozenset({THREW_IN, ATTACKED, TRANSFERRED, TOOK})

#: The least variance a chance counts with: an expected rate near 0 or 1, read off a few
#: chances, is not that sure (without it, one unexpected throw-in at a 97% rate weighed as
#: five standard deviations).
VARIANCE_FLOOR = 0.09


@dataclass(frozen=True, slots=True)
class Term:
    """One direction and kind of a pair: ``mover``'s ``kind`` towards the other."""

    mover: int
    kind: str
    observed: Tally
    expected: float
    variance: float

    @property
    def z(self) -> float:
        """The signed departure in standard deviations (0 without variance)."""
        if self.variance <= 0:
            return 0.0
        return SIGNS[self.kind] * (self.observed.events - self.expected) / math.sqrt(self.variance)


@dataclass(frozen=True, slots=True)
class PairScore:
    """The score of the pair ``first`` < ``second`` with the terms it rests on."""

    first: int
    second: int
    z: float
    opportunities: int
    terms: tuple[Term, ...]
    """Every term, those under ``min_variance`` too (listed, not scored)."""


def _cells(games: Iterable[GameEvidence]) -> dict[tuple[int, int, str, str], list[Any]]:
    """Every game's tallies summed per (mover, other, kind, stratum), in first-seen order, as
    mutable ``[opportunities, events, cards, moves, missed]`` (no tally built per addition: the job
    sums every game of a 1,024-player event)."""
    cells: dict[tuple[int, int, str, str], list[Any]] = {}
    for game in games:
        for key, tally in game.counts.items():
            cell = cells.get(key)
            if cell is None:
                cells[key] = [
                    tally.opportunities,
                    tally.events,
                    tally.cards,
                    list(tally.moves),
                    list(tally.missed),
                ]
            else:
                cell[0] += tally.opportunities
                cell[1] += tally.events
                cell[2] += tally.cards
                cell[3].extend(tally.moves)
                cell[4].extend(tally.missed)
    return cells


def _rates(
    cells: Mapping[tuple[int, int, str, str], Sequence[Any]],
) -> tuple[dict[tuple[int, str, str], list[int]], dict[tuple[str, str], list[int]]]:
    """Each mover's ``[opportunities, events]`` per (kind, stratum) over every other player,
    and the field's."""
    movers: dict[tuple[int, str, str], list[int]] = {}
    fields: dict[tuple[str, str], list[int]] = {}
    for (a, _b, kind, stratum), cell in cells.items():
        for sums in (
            movers.setdefault((a, kind, stratum), [0, 0]),
            fields.setdefault((kind, stratum), [0, 0]),
        ):
            sums[0] += cell[0]
            sums[1] += cell[1]
    return movers, fields


#: The least spread of styles a score assumes: a style (a player's events over the field's
#: expectation for them) is known to about +-70% (a variance of 0.5 around 1) before any of its
#: events is seen; an event's field that varies more than that (random bots' taking, beside
#: heuristic ones) widens it (:func:`_spread`).
STYLE_SPREAD = 0.5


def _rate(sums: Sequence[int]) -> float:
    return sums[1] / sums[0] if sums[0] else 0.0


def _style_class(kind: str, stratum: str) -> str:
    """The part of a stratum a style is kept for: the kind with what the chance would cost (a
    throw's cheapest card, a defence's covers; nothing for the other kinds). A player who throws
    in its low cards as often as most may throw its trumps far more (a random player does)."""
    parts = stratum.split(":", 4)
    return f"{kind}:{parts[3]}" if len(parts) > 3 else kind


#: [events, the events the field's rates would give, their binomial variance]
StyleSums = list[float]


def _styles(
    cells: Mapping[tuple[int, int, str, str], Sequence[Any]],
    field_rates: Mapping[tuple[str, str], float],
    classes: Mapping[tuple[str, str], str],
) -> tuple[dict[tuple[int, str], StyleSums], dict[tuple[int, int, str], StyleSums]]:
    """Per mover and style class (``classes``: :func:`_style_class` of each (kind, stratum)),
    and per mover, other and class: [events, the events the field's rates in the same strata
    would give, their binomial variance]. The events over the due are the mover's style there
    (it throws in more, takes less... than the field, wherever it sits)."""
    own: dict[tuple[int, str], StyleSums] = {}
    towards: dict[tuple[int, int, str], StyleSums] = {}
    for (a, b, kind, stratum), cell in cells.items():
        rate = field_rates[(kind, stratum)]
        due = cell[0] * rate
        noise = due * (1 - rate)
        style_class = classes[(kind, stratum)]
        for sums in (
            own.setdefault((a, style_class), [0, 0.0, 0.0]),
            towards.setdefault((a, b, style_class), [0, 0.0, 0.0]),
        ):
            sums[0] += cell[1]
            sums[1] += due
            sums[2] += noise
    return own, towards


def _spread(own: Mapping[tuple[int, str], StyleSums]) -> dict[str, float]:
    """Per kind, how much the players' styles vary in this field beyond their binomial noise
    (the mean squared departure of each style from 1, less the mean noise; movers with at least
    one event due, ten of them at least), and never less than ``STYLE_SPREAD``."""
    rows: dict[str, list[tuple[float, float]]] = {}
    for (_a, style_class), (seen, due, noise) in own.items():
        if due >= 1:
            kind = style_class.split(":", 1)[0]
            rows.setdefault(kind, []).append((seen / due - 1, noise / (due * due)))
    spread: dict[str, float] = {}
    for kind, found in rows.items():
        if len(found) >= 10:
            excess = sum(d * d - n for d, n in found) / len(found)
            spread[kind] = max(STYLE_SPREAD, excess)
    return spread


def _style(sums: Sequence[float], pair: Sequence[float], spread: float) -> tuple[float, float]:
    """The mover's style towards everybody but the other (``sums`` less ``pair``) and its
    variance: the observed ratio shrunk towards 1 by its noise against the field's ``spread``
    (with nothing due, the field's: 1, ``spread``)."""
    due = sums[1] - pair[1]
    if due <= 1e-9:
        return 1.0, spread
    noise = max(sums[2] - pair[2], 1e-9) / (due * due)
    weight = spread / (spread + noise)
    ratio = 1 + weight * ((sums[0] - pair[0]) / due - 1)
    return max(ratio, 0.0), spread * noise / (spread + noise)


def counts_in_score(term: Term, min_variance: float) -> bool:
    """Whether ``term`` enters its pair's score: a scored kind, with enough variance."""
    return term.kind in SCORED and term.variance >= min_variance


def _pooled(terms: Sequence[Term]) -> float:
    """The signed departures of ``terms`` pooled: sum(sign * (O - E)) / sqrt(sum(variance))."""
    variance = sum(t.variance for t in terms)
    if variance <= 0:
        return 0.0
    return sum(SIGNS[t.kind] * (t.observed.events - t.expected) for t in terms) / math.sqrt(
        variance
    )


def pair_scores(
    games: Iterable[GameEvidence], *, prior: float = 4.0, min_variance: float = 0.25
) -> list[PairScore]:
    """The score of every pair of players who had opportunities towards each other, highest
    first; a term enters the score when its kind is scored and its variance reaches
    ``min_variance``, and stays listed either way. 0.25 by default: a term of a single game (a
    partner's three or four chances to throw in) has a variance under 1, and dropping those
    (1.0, the first default) dropped most of the evidence of a pair who met once or twice; at
    the same share of honest pairs flagged (1%), 0.25 found 33% / 42% / 64% of the
    full-strength pairs that met 1 / 2 / 3+ times, against 4% / 35% / 36%
    (``docs/fairplay.md``: the score's cut)."""
    cells = _cells(games)
    movers, fields = _rates(cells)
    field_rates = {key: _rate(sums) for key, sums in fields.items()}
    classes = {key: _style_class(*key) for key in fields}
    own, towards = _styles(cells, field_rates, classes)
    spreads = _spread(own)
    styles: dict[tuple[int, int, str], tuple[float, float]] = {}
    sums: dict[tuple[int, int, str], list[Any]] = {}
    for (a, b, kind, stratum), cell in cells.items():
        opportunities = cell[0]
        if kind not in SIGNS or not opportunities:
            continue
        mover = movers[(a, kind, stratum)]
        # the mover's style: its events against the field's rates, towards everybody but b
        style_class = classes[(kind, stratum)]
        style = styles.get((a, b, style_class))
        if style is None:
            style = styles[(a, b, style_class)] = _style(
                own[(a, style_class)],
                towards[(a, b, style_class)],
                spreads.get(kind, STYLE_SPREAD),
            )
        ratio, ratio_var = style
        field_rate = field_rates[(kind, stratum)]
        base = min(0.99, field_rate * ratio)
        # a's conduct towards everybody but b in this stratum, shrunk towards its style
        rest_n = mover[0] - opportunities
        rest_e = mover[1] - cell[1]
        p = (rest_e + prior * base) / (rest_n + prior)
        acc = sums.get((a, b, kind))
        if acc is None:
            acc = sums[(a, b, kind)] = [0, 0, 0, [], [], 0.0, 0.0, {}]
        acc[0] += opportunities
        acc[1] += cell[1]
        acc[2] += cell[2]
        acc[3].extend(cell[3])
        acc[4].extend(cell[4])
        acc[5] += opportunities * p
        # the binomial's variance, each chance's at least VARIANCE_FLOOR
        spread = max(p * (1 - p), VARIANCE_FLOOR)
        # and p's own: it is uncertain: read off a's rest_n other chances here, each stratum's
        # apart, and, through the prior, off its style (a player who sat only beside b, as at a
        # group's one table, has little style to go by: the field's spread of styles), one
        # uncertainty for all the strata of a style class: summed before it is squared
        acc[6] += opportunities * spread + (opportunities / (rest_n + prior)) ** 2 * rest_n * spread
        leaning = acc[7].setdefault(style_class, [0.0, ratio_var])
        leaning[0] += opportunities * prior / (rest_n + prior) * field_rate
    by_pair: dict[tuple[int, int], list[Term]] = {}
    for (a, b, kind), (o, e, c, moves, missed, expected, chance_var, leanings) in sums.items():
        variance = chance_var + sum(r_var * due * due for due, r_var in leanings.values())
        pair = (a, b) if a < b else (b, a)
        term = Term(a, kind, Tally(o, e, c, tuple(moves), tuple(missed)), expected, variance)
        by_pair.setdefault(pair, []).append(term)
    scores = []
    for (first, second), terms in by_pair.items():
        z = _pooled([t for t in terms if counts_in_score(t, min_variance)])
        chances = sum(t.observed.opportunities for t in terms)
        ordered = tuple(sorted(terms, key=lambda t: (t.mover, t.kind)))
        scores.append(PairScore(first, second, z, chances, ordered))
    scores.sort(key=lambda s: (-s.z, s.first, s.second))
    return scores
