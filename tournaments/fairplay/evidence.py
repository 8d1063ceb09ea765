"""Per-pair evidence from one game's action log (issue 24): who attacked, threw in on,
transferred onto, beat and took from whom, out of how many chances, and who was the fool.

The game is replayed through the engine from its deal (the seed and the series hooks, as the
replay page does, or a hand-built deal), so every logged move is read in the state it was made
in: who defended, whose cards were on the table, what the mover could have done instead. Each
kind of decision counts, per ordered pair of players (the mover, the other), its
*opportunities* (decisions where the mover could do it to the other) and its *events* (it did),
with the move numbers of the events and of the chances not taken (``missed``: the
opportunities that were not events, where sparing shows), so that every figure links back to
the moves:

``threw_in``
    a thrower's move (a throw or a pass) while it held a card it could throw onto the
    defender; the event: it threw (``cards``: how many cards).
``attacked``
    a bout opened on the defender while a multi-card opening was possible (two or more cards
    of one rank, and the defender able to face them); the event: it opened with several.
``transferred``
    a defender's move while it could transfer onto the next player; the event: it did.
``beat``
    a defender's move facing unbeaten cards of the other's (one opportunity per owner of an
    unbeaten card); the event: it covered a card of the other's.
``took``
    the same moment, when each unbeaten card of the other's had a legal cover; the event: the
    defender took (soft play is taking what it could beat).

Each opportunity carries its stratum, ``"STAGE:SIZE:OFFSET"``: the stage (``stock`` while
the stock lasts, then ``end``), the other's hand size (``1-2``, ``3-4``, ``5+``) and where the
other sits from the mover (1: the next player still in clockwise, the one it attacks; 2: the
one after...); a ``threw_in`` chance adds what the throw would cost (``_throw_cost``), a
``beat`` or ``took`` chance how many covers the other's cards had (``_choice``). Seats decide
most of the play (a player attacks its left neighbour, beats its right neighbour's cards), so
the score (``score.py``) compares a pair's rates with the mover's own rates towards the other
players in the same strata.

Moves the seat did not choose (the clock's, a stand-in bot's) are replayed but not counted:
list their move numbers in ``GameRecord.forced``.

>>> record = GameRecord(
...     rules={"players": 3},
...     deal={"hands": [["6S", "6C"], ["7S", "TD"], ["6H", "8C"]], "stock": [], "trump": "D",
...           "attacker": 0},
...     actions=[{"seat": 0, "type": "attack", "cards": ["6S"]}],
...     players=[10, 11, 12],
... )
>>> ev = game_evidence(record)
>>> ev.tally(10, 11, ATTACKED)
Tally(opportunities=1, events=0, cards=0, moves=(), missed=(1,))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import (
    Action,
    EngineError,
    GameState,
    Rules,
    apply,
    from_deal,
    legal_actions,
    new_game,
    rng_for_seed,
)
from games.engine.actions import ATTACK, DEFEND, PASS, SHOW_TRUMP, TAKE, THROW, TRANSFER
from games.engine.state import TRANSFER_FLAG

__all__ = [
    "ATTACKED",
    "BEAT",
    "KINDS",
    "THREW_IN",
    "TOOK",
    "TRANSFERRED",
    "GameEvidence",
    "GameRecord",
    "PairTogether",
    "Tally",
    "game_evidence",
    "pair_tallies",
    "pairs_together",
]

THREW_IN = "threw_in"
ATTACKED = "attacked"
TRANSFERRED = "transferred"
BEAT = "beat"
TOOK = "took"
KINDS = (THREW_IN, ATTACKED, TRANSFERRED, BEAT, TOOK)

#: (mover, other, kind, stratum "STAGE:SIZE:OFFSET")
Key = tuple[int, int, str, str]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What the log of one game holds: its rules, its deal (``seed`` with the series ``setup``
    hooks, or a ``deal`` as ``from_deal`` takes it), its actions (protocol objects, in order),
    and the player of each seat (``None``: the seat numbers stand for the players)."""

    rules: Mapping[str, Any]
    actions: Sequence[Mapping[str, Any]]
    seed: str | None = None
    setup: Mapping[str, Any] = field(default_factory=dict)
    deal: Mapping[str, Any] | None = None
    players: Sequence[int] | None = None
    forced: frozenset[int] = frozenset()
    game_id: int | None = None

    def first_state(self) -> GameState:
        """The game as dealt."""
        rules = Rules.from_dict(dict(self.rules))
        if self.deal is not None:
            return from_deal(rules, dict(self.deal))
        if self.seed is None:
            raise ValueError("a game record needs a seed or a deal")
        return new_game(rules, rng_for_seed(self.seed), **dict(self.setup))


@dataclass(frozen=True, slots=True)
class Tally:
    """Opportunities, events (with the cards they moved) and the move numbers (1 up) of the
    events (``moves``) and of the chances not taken (``missed``: the other opportunities)."""

    opportunities: int = 0
    events: int = 0
    cards: int = 0
    moves: tuple[int, ...] = ()
    missed: tuple[int, ...] = ()

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.opportunities + other.opportunities,
            self.events + other.events,
            self.cards + other.cards,
            self.moves + other.moves,
            self.missed + other.missed,
        )

    @property
    def rate(self) -> float:
        """Events per opportunity (0 without any)."""
        return self.events / self.opportunities if self.opportunities else 0.0


@dataclass(slots=True)
class _Counter:
    opportunities: int = 0
    events: int = 0
    cards: int = 0
    moves: list[int] = field(default_factory=list)
    missed: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class GameEvidence:
    """The counts of one game, by (mover, other, kind, stratum), players as ids."""

    game_id: int | None
    players: tuple[int, ...]
    counts: Mapping[Key, Tally]
    fool: int | None
    draw: bool
    complete: bool
    moves: int

    def tally(self, mover: int, other: int, kind: str) -> Tally:
        """``mover``'s tally towards ``other`` in this game, over every stratum."""
        total = Tally()
        for (a, b, k, _stratum), tally in self.counts.items():
            if a == mover and b == other and k == kind:
                total += tally
        return total


def _bucket(size: int) -> str:
    return "1-2" if size <= 2 else "3-4" if size <= 4 else "5+"


def _choice(covers: int) -> str:
    """The stratum's cover part for ``beat`` and ``took``: how many legal covers the other's
    unbeaten cards have (``:c1``, ``:c2-3``, ``:c4+``). A defender with one way to cover takes
    far more often than one with many, whoever it is facing."""
    return ":c1" if covers <= 1 else ":c2-3" if covers <= 3 else ":c4+"


#: The rank index of the ten (``cards.RANKS``): plain cards up to it are cheap to throw.
_TEN = 8


def _throw_cost(cards: Sequence[int], trump: int) -> str:
    """The stratum's cost part for ``threw_in``: the cheapest card the thrower could throw
    (``:lo`` a plain card up to the ten, ``:hi`` a plain picture or ace, ``:tr`` trumps only)
    and whether it had one card to throw or several (``:1``, ``:n``). Whether a player throws
    in depends most on what it would give up, and on how much it could.

    >>> from games.engine.cards import parse_card
    >>> _throw_cost([parse_card("7S"), parse_card("KS")], trump=1), _throw_cost([1], trump=1)
    (':lo:n', ':tr:1')
    """
    plain = [card >> 2 for card in cards if card & 3 != trump]
    cost = ":tr" if not plain else ":lo" if min(plain) <= _TEN else ":hi"
    return cost + (":1" if len(cards) == 1 else ":n")


def _offset(state: GameState, mover: int, other: int) -> int:
    """Steps clockwise from ``mover`` to ``other``, over the seats still in (and ``other``)."""
    n = state.setup.n
    steps = 0
    for step in range(1, n):
        seat = (mover + step) % n
        if seat == other:
            return steps + 1
        if not state.out >> seat & 1:
            steps += 1
    return 0


def _owner(by: int) -> int:
    return by - TRANSFER_FLAG if by >= TRANSFER_FLAG else by


class _Game:
    """The replay of one record, counting as it goes."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.counts: dict[Key, _Counter] = {}

    def count(
        self,
        state: GameState,
        mover: int,
        other: int,
        kind: str,
        *,
        event: bool,
        cards: int,
        move: int,
        choice: str = "",
    ) -> None:
        stage = "stock" if state.stock else "end"
        size = _bucket(state.hands[other].bit_count())
        key = (mover, other, kind, f"{stage}:{size}:{_offset(state, mover, other)}{choice}")
        counter = self.counts.get(key)
        if counter is None:
            counter = self.counts[key] = _Counter()
        counter.opportunities += 1
        if event:
            counter.events += 1
            counter.cards += cards
            counter.moves.append(move)
        else:
            counter.missed.append(move)

    def decision(self, state: GameState, action: Action, move: int) -> None:
        """Count the opportunities ``action`` (move number ``move``) answered, in ``state``."""
        seat = action.seat
        kind = action.type
        legal = legal_actions(state, seat)
        defender = state.defender
        if kind in (THROW, PASS):
            throws = [a.cards[0] for a in legal if a.type == THROW]
            if throws:
                thrown = len(action.cards) if kind == THROW else 0
                self.count(
                    state,
                    seat,
                    defender,
                    THREW_IN,
                    event=kind == THROW,
                    cards=thrown,
                    move=move,
                    choice=_throw_cost(throws, state.setup.trump),
                )
        elif kind == ATTACK:
            if self._multi_open_possible(state, seat):
                many = len(action.cards) > 1
                self.count(
                    state, seat, defender, ATTACKED, event=many, cards=len(action.cards), move=move
                )
        elif seat == defender and kind in (DEFEND, TAKE, TRANSFER, SHOW_TRUMP):
            self._defence(state, action, legal, move)

    @staticmethod
    def _multi_open_possible(state: GameState, seat: int) -> bool:
        if state.hands[state.defender].bit_count() < 2:
            return False
        hand = state.hands[seat]
        return any((hand >> (4 * rank) & 15).bit_count() >= 2 for rank in range(13))

    def _defence(self, state: GameState, action: Action, legal: list[Action], move: int) -> None:
        seat = action.seat
        kind = action.type
        transfers = [a for a in legal if a.type in (TRANSFER, SHOW_TRUMP)]
        if transfers:
            target = apply(state, transfers[0]).defender
            moved = kind in (TRANSFER, SHOW_TRUMP)
            self.count(
                state, seat, target, TRANSFERRED, event=moved, cards=len(action.cards), move=move
            )
        covers: dict[int, int] = {}  # unbeaten attack card -> how many legal covers
        for a in legal:
            if a.type == DEFEND and a.target is not None:
                covers[a.target] = covers.get(a.target, 0) + 1
        owners: dict[int, list[int]] = {}  # owner -> its unbeaten cards
        for card, cover, by in zip(state.t_att, state.t_def, state.t_by, strict=True):
            if cover < 0:
                owners.setdefault(_owner(by), []).append(card)
        beaten = action.target if kind == DEFEND else None
        for owner, cards in owners.items():
            if owner == seat:
                continue  # its own transferred cards came back to it
            hit = beaten in cards
            choice = _choice(sum(covers.get(card, 0) for card in cards))
            self.count(
                state, seat, owner, BEAT, event=hit, cards=int(hit), move=move, choice=choice
            )
            if all(covers.get(card) for card in cards):
                took = kind == TAKE
                self.count(
                    state,
                    seat,
                    owner,
                    TOOK,
                    event=took,
                    cards=len(cards) * took,
                    move=move,
                    choice=choice,
                )

    def run(self) -> GameEvidence:
        record = self.record
        state = record.first_state()
        n = state.setup.n
        players = tuple(record.players) if record.players is not None else tuple(range(n))
        if len(players) != n:
            raise ValueError(f"{len(players)} players for a table of {n}")
        complete = True
        played = 0
        for move, obj in enumerate(record.actions, 1):
            try:
                action = Action.from_json(dict(obj))
                if move not in record.forced:
                    self.decision(state, action, move)
                state = apply(state, action)
            except EngineError:
                complete = False
                break
            played = move
        result = state.result
        fool = None if result is None or result.fool is None else players[result.fool]
        counts = {
            (players[a], players[b], k, stratum): Tally(
                c.opportunities, c.events, c.cards, tuple(c.moves), tuple(c.missed)
            )
            for (a, b, k, stratum), c in self.counts.items()
        }
        return GameEvidence(
            game_id=record.game_id,
            players=players,
            counts=counts,
            fool=fool,
            draw=result is not None and result.draw,
            complete=complete and result is not None,
            moves=played,
        )


def game_evidence(record: GameRecord) -> GameEvidence:
    """Replay ``record`` and count, per ordered pair of its players, each kind's opportunities
    and events (see the module's docstring); an action the engine refuses stops the count there
    (``complete`` False)."""
    return _Game(record).run()


def pair_tallies(games: Iterable[GameEvidence]) -> dict[tuple[int, int, str], Tally]:
    """The tallies of many games summed over strata: (mover, other, kind) -> tally."""
    out: dict[tuple[int, int, str], Tally] = {}
    for game in games:
        for (a, b, kind, _stratum), tally in game.counts.items():
            key = (a, b, kind)
            out[key] = out.get(key, Tally()) + tally
    return out


@dataclass(frozen=True, slots=True)
class PairTogether:
    """Two players' games at one table: how many, and who was the fool in them."""

    games: int = 0
    first_fool: int = 0
    second_fool: int = 0
    other_fool: int = 0
    no_fool: int = 0
    game_ids: tuple[int | None, ...] = ()


def pairs_together(games: Iterable[GameEvidence]) -> dict[tuple[int, int], PairTogether]:
    """For each pair of players (lower id first) who sat at one table: their games together
    (the table overlap) and who became the fool there: the first, the second, another player,
    or nobody (a draw, an unfinished game)."""
    out: dict[tuple[int, int], PairTogether] = {}
    for game in games:
        seated = sorted(set(game.players))
        for i, a in enumerate(seated):
            for b in seated[i + 1 :]:
                old = out.get((a, b), PairTogether())
                fool = game.fool
                out[(a, b)] = PairTogether(
                    old.games + 1,
                    old.first_fool + (fool == a),
                    old.second_fool + (fool == b),
                    old.other_fool + (fool is not None and fool not in (a, b)),
                    old.no_fool + (fool is None),
                    (*old.game_ids, game.game_id),
                )
    return out
