"""Table results as plain values, and corrections as results that supersede older ones.

A result speaks of *entries* (players, or teams when the entries are teams), never of seats: the DB
layer maps a table's seats to its entries before calling in. A result is validated when it is built,
so a result that exists can be scored.

Corrections (tournaments.md: "a referee's correction is a new result with a reason"): the stored
results are never edited. A correction is a new result whose ``supersedes`` names the result it
replaces and whose ``reason`` says why; :func:`effective_results` follows the chains and keeps the
newest result of each.

>>> old = TableResult(id="r1", places=("ann", "bob", "cid"), fool="cid")
>>> fix = TableResult(id="r2", places=("bob", "ann", "cid"), fool="cid",
...                   supersedes="r1", reason="places swapped by mistake")
>>> [r.id for r in effective_results([old, fix])]
['r2']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from tournaments.scoring.errors import ScoringError

__all__ = ["Correctable", "Pogony", "TableResult", "effective_results"]


@dataclass(frozen=True)
class Pogony:
    """Pogony (погоны) hung by ``by`` on ``on`` with cards of rank ``rank`` (rules.md, "Pogony").

    ``on`` is the fool, or the fool's whole team in team play; in a three-player game the seeds
    allow one player to hang pogony on both opponents at once, so ``on`` may hold two players.

    >>> Pogony(by="ann", on=("cid",), rank="6").on
    ('cid',)
    """

    by: str
    on: tuple[str, ...]
    rank: str = ""

    def __post_init__(self) -> None:
        if not self.on:
            raise ScoringError("pogony must be hung on at least one player")
        if len(set(self.on)) != len(self.on):
            raise ScoringError(f"pogony hung twice on the same player in one hanging: {self.on}")
        if self.by in self.on:
            raise ScoringError(f"{self.by!r} cannot hang pogony on itself")


@dataclass(frozen=True)
class TableResult:
    """The result of one table (one game, or a whole series reduced to its final places).

    - ``places``: entries in finishing order, first out first. A one-entry result is a **bye**.
    - ``fool``: the entry left holding cards (the last place), or ``None`` on a draw or a bye.
    - ``drawn``: on a draw (ничья), the entries that share the last places; they must be the tail
      of ``places``. Empty when there is no draw.
    - ``pogony``: the pogony of the game, if any; ``pogony.on`` must include the fool.
    - ``team_lost``: in team play with individual entries, the entries of the losing team (the
      fool's team); the winners share the top places and the losers the bottom ones.
    - ``supersedes``/``reason``: a correction names the result it replaces and says why.

    >>> TableResult(id="r1", places=("ann", "bob"), fool="bob").is_bye
    False
    >>> TableResult(id="r2", places=("ann",)).is_bye
    True
    """

    id: str
    places: tuple[str, ...]
    fool: str | None = None
    drawn: tuple[str, ...] = ()
    pogony: Pogony | None = None
    team_lost: tuple[str, ...] = ()
    supersedes: str | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        # Sequences from the DB layer may come as lists; freeze them so the value is hashable.
        # (The selectors' come as tuples: 7,500 a big stage, checked without a loop.)
        if not (type(self.places) is type(self.drawn) is type(self.team_lost) is tuple):
            for name in ("places", "drawn", "team_lost"):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        self._validate()

    @property
    def is_bye(self) -> bool:
        """A one-entry table: a bye, scored by the stage's bye score."""
        return len(self.places) == 1

    @property
    def is_draw(self) -> bool:
        """The game ended in a draw; the drawn entries share the last places."""
        return bool(self.drawn)

    def _validate(self) -> None:
        if len(set(self.places)) != len(self.places) or not self.places:
            self._validate_places()
        if len(self.places) == 1:  # a bye
            if self.fool is not None or self.drawn or self.pogony or self.team_lost:
                raise ScoringError(f"{self._where}: a bye has no fool, draw, pogony or team result")
            return
        if self.drawn:
            if self.fool is not None:
                raise ScoringError(f"{self._where}: a draw has no fool")
            if len(self.drawn) < 2 or set(self.drawn) != set(self.places[-len(self.drawn) :]):
                raise ScoringError(
                    f"{self._where}: the drawn entries {self.drawn} must be the last places "
                    f"(at least two) of {self.places}"
                )
            if self.pogony is not None or self.team_lost:
                raise ScoringError(f"{self._where}: a draw has no pogony and no losing team")
            return
        if self.fool is None:
            raise ScoringError(f"{self._where}: a game that is not a draw has a fool")
        if self.team_lost:
            self._validate_team()
        elif self.fool != self.places[-1]:
            raise ScoringError(f"{self._where}: the fool {self.fool!r} must be the last place")
        if self.pogony is not None:
            on = set(self.pogony.on)
            if self.pogony.by not in self.places or not on <= set(self.places):
                raise ScoringError(f"{self._where}: pogony name entries that are not at the table")
            if self.fool not in on:
                raise ScoringError(f"{self._where}: pogony must be hung on the fool {self.fool!r}")

    @property
    def _where(self) -> str:
        return f"result {self.id!r}"

    def _validate_places(self) -> None:
        if not self.places:
            raise ScoringError(f"{self._where}: a result needs at least one entry")
        raise ScoringError(f"{self._where}: an entry appears twice in places {self.places}")

    def _validate_team(self) -> None:
        lost = set(self.team_lost)
        if len(lost) != len(self.team_lost) or not lost <= set(self.places):
            raise ScoringError(
                f"{self._where}: team_lost {self.team_lost} must be entries at the table"
            )
        if self.fool not in lost:
            raise ScoringError(f"{self._where}: the fool {self.fool!r} must be on the losing team")
        if len(lost) == len(self.places):
            raise ScoringError(f"{self._where}: somebody must win a team game")
        if self.fool != self.places[-1]:
            raise ScoringError(f"{self._where}: the fool {self.fool!r} must be the last place")


class Correctable(Protocol):
    """Anything with an id that may supersede an older record with a reason."""

    @property
    def id(self) -> str: ...

    @property
    def supersedes(self) -> str | None: ...

    @property
    def reason(self) -> str: ...


C = TypeVar("C", bound=Correctable)


def effective_results(results: Sequence[C]) -> list[C]:
    """The results in force: every superseded result is dropped, following chains of corrections.

    The newest result of each chain is kept, at its own position in ``results`` (so passing results
    in the order they were played keeps that order). Refused with :class:`ScoringError`: duplicate
    ids, a correction of an unknown result, a correction without a reason, two corrections of the
    same result (which one is right is the referee's call, not ours), and cycles.

    >>> a = TableResult(id="a", places=("x", "y"), fool="y")
    >>> b = TableResult(id="b", places=("y", "x"), fool="x", supersedes="a", reason="typo")
    >>> c = TableResult(id="c", places=("x", "y"), fool="y", supersedes="b", reason="video")
    >>> [r.id for r in effective_results([a, b, c])]
    ['c']
    """
    by_id: dict[str, C] = {}
    for result in results:
        if result.id in by_id:
            raise ScoringError(f"two results share the id {result.id!r}")
        by_id[result.id] = result
    superseded_by: dict[str, str] = {}
    for result in results:
        old = result.supersedes
        if old is None:
            continue
        if not result.reason.strip():
            raise ScoringError(f"correction {result.id!r} must give a reason")
        if old not in by_id:
            raise ScoringError(f"correction {result.id!r} supersedes unknown result {old!r}")
        if old in superseded_by:
            raise ScoringError(
                f"result {old!r} is superseded twice ({superseded_by[old]!r} and {result.id!r})"
            )
        superseded_by[old] = result.id
    # A cycle (a -> b -> a) has no newest result; every member is superseded, so look for one.
    # Each result is superseded at most once, so chains are simple paths; walk each once.
    finished: set[str] = set()
    for start in superseded_by:
        walk: set[str] = set()
        current: str | None = start
        while current is not None and current not in finished:
            if current in walk:
                raise ScoringError(f"corrections form a cycle through {current!r}")
            walk.add(current)
            current = superseded_by.get(current)
        finished |= walk
    return [result for result in results if result.id not in superseded_by]
