"""A game that is over, move by move: the states its replay page steps through.

The engine replays the game from the revealed seed and the action log
(``games.services.fairness.replay_log``, the replay of the fairness check); nothing of a step is
stored.
Every hand is shown: the game is over, so nothing is secret any more. A game in play is never
replayed (its seed is secret and its hands are hidden): :func:`game_replay` refuses it.

Names come through the seating layer (``games.selectors.player_names``, the ``Tables`` hook):
``games`` never imports ``tournaments``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from games import selectors, services
from games.engine import GameState, Rules
from games.errors import SeedSecret
from games.models import Game, GameAction
from games.services.fairness import replay_log

SUIT_SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
RED_SUITS = frozenset("DH")


# --- how a step reads -------------------------------------------------------------------------


@dataclass(frozen=True)
class CardFace:
    """A card as the page draws it: ``TH`` is "10" and "♥", red."""

    code: str
    rank: str
    suit: str
    red: bool

    @property
    def label(self) -> str:
        return self.rank + self.suit


def card_face(code: str) -> CardFace:
    """>>> card_face("TH").label, card_face("TH").red, card_face("6S").red
    ('10♥', True, False)"""
    return CardFace(
        code=code,
        rank="10" if code[0] == "T" else code[0],
        suit=SUIT_SYMBOLS[code[1]],
        red=code[1] in RED_SUITS,
    )


def move_text(action: Mapping[str, Any], name: str, kind: str) -> str:
    """One move in words, as the live table's log writes it ("Anna beats 6♠ with 7♠")."""
    verbs = {
        "attack": gettext("attacks with"),
        "throw": gettext("throws in"),
        "defend": gettext("beats"),
        "transfer": gettext("transfers with"),
        "show_trump": gettext("shows the trump"),
        "take": gettext("takes"),
        "pass": gettext("passes"),
        "redeal": gettext("asks for a redeal"),
    }
    kind_of = str(action.get("type", ""))
    words = [name, verbs.get(kind_of, kind_of)]
    cards = [card_face(str(c)).label for c in action.get("cards") or []]
    if kind_of == "defend" and action.get("target") and cards:
        words += [card_face(str(action["target"])).label, gettext("with"), cards[0]]
    else:
        words += cards
    text = " ".join(words)
    if kind == GameAction.Kind.CLOCK:
        text += f" ({gettext('by the clock')})"
    return text


@dataclass(frozen=True)
class Move:
    """The move that leads to step ``step`` (the deal is step 0)."""

    step: int
    seat: int
    kind: str
    text: str


@dataclass(frozen=True)
class SeatView:
    seat: int
    name: str
    player_id: int | None
    hand: list[CardFace]
    attacker: bool
    defender: bool
    place: int | None  # 1, 2, …: out of the game in that order
    passed: bool


@dataclass(frozen=True)
class Board:
    """Everything on the table at one step: every hand face up (the game is over)."""

    step: int
    seats: list[SeatView]
    table: list[tuple[CardFace, CardFace | None]]
    stock: int
    discard: int
    taking: bool


@dataclass(frozen=True)
class Outcome:
    """The game's result in names: places first out first, the fool, pogony."""

    status: str
    places: list[str]
    fool: str
    draw: bool
    pogony: list[str]


@dataclass(frozen=True)
class Replay:
    game: Game
    names: list[str]  # by game seat
    player_ids: list[int | None]  # by game seat
    trump: CardFace | None  # the face-up trump card (None: the whole deck was dealt)
    trump_suit: str
    trump_red: bool
    moves: list[Move]
    steps: list[dict[str, Any]]  # compact, for the page's script: see ``compact``
    check: dict[str, Any]  # ``services.game_verify_deal``
    complete: bool  # every logged move replayed legally
    outcome: Outcome
    series: list[dict[str, Any]]  # the table's games: id, number, status

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    @property
    def people(self) -> list[tuple[str, int | None]]:
        """``(name, player id)`` by game seat."""
        return list(zip(self.names, self.player_ids, strict=True))

    @property
    def deck(self) -> list[CardFace]:
        """Every card the replay shows at some step (the page's script copies their faces)."""
        codes = {c for step in self.steps for hand in step["h"] for c in hand}
        codes |= {c for step in self.steps for pair in step["t"] for c in pair if c}
        if self.trump is not None:
            codes.add(self.trump.code)
        return [card_face(c) for c in sorted(codes)]

    def board(self, step: int) -> Board:
        """The board at ``step`` (clamped to the game's steps)."""
        step = max(0, min(step, self.last))
        compact = self.steps[step]
        seats = []
        out = compact["o"]
        for seat, cards in enumerate(compact["h"]):
            seats.append(
                SeatView(
                    seat=seat,
                    name=self.names[seat],
                    player_id=self.player_ids[seat],
                    hand=[card_face(c) for c in cards],
                    attacker=seat == compact["a"],
                    defender=seat == compact["f"],
                    place=out.index(seat) + 1 if seat in out else None,
                    passed=seat in compact["p"],
                )
            )
        return Board(
            step=step,
            seats=seats,
            table=[(card_face(a), card_face(d) if d else None) for a, d in compact["t"]],
            stock=compact["s"],
            discard=compact["d"],
            taking=compact["k"],
        )


def compact(state: GameState) -> dict[str, Any]:
    """One step for the page's script, small (a long game has a few hundred): hands ``h``,
    table ``t`` as ``[attack, defence|null]``, stock ``s`` and discard ``d`` counts, attacker
    ``a``, defender ``f``, taking ``k``, seats out ``o`` (in order) and passed ``p``."""
    public = state.public_json()
    return {
        "h": [state.hand(s) for s in range(state.setup.n)],
        "t": [[pair["attack"], pair["defense"]] for pair in public["table"]],
        "s": public["stock"],
        "d": public["discard"],
        "a": public["attacker"],
        "f": public["defender"],
        "k": bool(public["taking"]),
        "o": public["out"],
        "p": public["passed"],
    }


def outcome(game: Game, names: Sequence[str]) -> Outcome:
    result = game.result if isinstance(game.result, dict) else {}

    def name(seat: Any) -> str:
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"

    hangings = result.get("hangings") or ([result["pogony"]] if result.get("pogony") else [])
    pogony = []
    for hung in hangings:
        if isinstance(hung, dict):
            rank = "10" if hung.get("rank") == "T" else str(hung.get("rank", ""))
            pogony.append(
                gettext("%(by)s on %(on)s (%(rank)s)")
                % {
                    "by": name(hung.get("by")),
                    "on": ", ".join(name(s) for s in hung.get("on", [])),
                    "rank": rank,
                }
            )
    fool = result.get("fool")
    return Outcome(
        status=game.status,
        places=[name(s) for s in result.get("places", [])],
        fool=name(fool) if fool is not None else "",
        draw=bool(result.get("draw")),
        pogony=pogony,
    )


def game_replay(game: Game) -> Replay:
    """``game`` (over, its seed revealed) step by step, with its fairness check; ``SeedSecret``
    for a game in play. A fixed number of queries however long the game: the log, the names,
    the check's own read of the log, the table's games."""
    if not (game.is_over and game.seed_revealed):
        raise SeedSecret(gettext("the seed is revealed when the game ends"))
    rules = Rules.from_dict(game.rules)
    logged = list(game.actions.order_by("seq").values_list("seat", "action", "kind"))
    states, complete = replay_log(rules, game.seed, game.setup, (a for _, a, _ in logged))
    ids = [p if isinstance(p, int) else None for p in game.players]
    known = selectors.player_names([p for p in ids if p is not None])
    names = [
        known.get(p, gettext("seat %(seat)s") % {"seat": s + 1}) if p is not None else "?"
        for s, p in enumerate(ids)
    ]
    moves = [
        Move(
            step=i,
            seat=seat,
            kind=kind,
            text=move_text(action, names[seat] if 0 <= seat < len(names) else "?", kind),
        )
        for i, (seat, action, kind) in enumerate(logged[: len(states) - 1], 1)
    ]
    first = states[0].public_json()
    series: list[dict[str, Any]] = []
    if game.table_id is not None:
        rows = Game.objects.filter(table_id=game.table_id).order_by("number", "pk")
        series = [dict(row) for row in rows.values("id", "number", "status")]
    return Replay(
        game=game,
        names=names,
        player_ids=ids,
        trump=card_face(first["trump_card"]) if first["trump_card"] else None,
        trump_suit=SUIT_SYMBOLS[first["trump"]],
        trump_red=first["trump"] in RED_SUITS,
        moves=moves,
        steps=[compact(s) for s in states],
        check=services.game_verify_deal(game=game),
        complete=complete,
        outcome=outcome(game, names),
        series=series,
    )
