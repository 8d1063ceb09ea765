"""An event's final places, with the entries that left it (``docs/leaving.md``).

The rule (poker practice for who leaves, FIDE C.04 for what stands):

- an entry that **completed** a stage (took part in it to its end, advancing or not) is placed
  by the stages' orders: those in the last stage first, by its order, then those eliminated in
  the stage before, by that stage's order, and so on;
- an entry **withdrawn** after the start left at the last stage it took part in: it comes below
  every entry that completed that stage and above every entry eliminated in an earlier stage;
  several withdrawn in one stage keep that stage's order among themselves (equal standing, or
  none, shares a place);
- **disqualified** entries share the last place: with ``n`` entries and ``k`` disqualified,
  each is placed ``n - k + 1``.

Places follow competition ranking (1, 2, 2, 4, ...), and every entry given gets exactly one.

>>> field = [
...     Leaving("ann", stage=2), Leaving("bob", stage=2), Leaving("cid", stage=1),
...     Leaving("dan", stage=1, outcome="withdrawn"), Leaving("eve", stage=2, outcome="withdrawn"),
...     Leaving("fay", stage=1, outcome="disqualified"),
... ]
>>> orders = {1: [["ann"], ["bob"], ["dan"], ["eve"], ["cid"], ["fay"]], 2: [["bob"], ["ann"]]}
>>> final_places(field, orders)
[('bob', 1), ('ann', 2), ('eve', 3), ('cid', 4), ('dan', 5), ('fay', 6)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tournaments.scoring.errors import ScoringError

__all__ = ["Leaving", "Outcome", "final_places"]

Outcome = Literal["completed", "withdrawn", "disqualified"]
OUTCOMES: tuple[Outcome, ...] = ("completed", "withdrawn", "disqualified")


@dataclass(frozen=True)
class Leaving:
    """How one entry of the field ended: the last stage it took part in (its order, 1 for the
    first) and whether it completed that stage, withdrew in it, or was disqualified."""

    entry: str
    stage: int
    outcome: Outcome = "completed"

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ScoringError(f"unknown outcome {self.outcome!r}; choose from {OUTCOMES}")


def _ordered(members: set[str], order: Sequence[Sequence[str]]) -> list[list[str]]:
    """``members`` as groups in ``order`` (a stage's order, groups of tied entries best first);
    members the order does not name share one group after the rest, in name order."""
    groups = []
    seen: set[str] = set()
    for group in order:
        fresh = [e for e in group if e in members and e not in seen]
        if fresh:
            groups.append(fresh)
            seen.update(fresh)
    rest = sorted(members - seen)
    if rest:
        groups.append(rest)
    return groups


def final_places(
    field: Sequence[Leaving], orders: Mapping[int, Sequence[Sequence[str]]]
) -> list[tuple[str, int]]:
    """The final place of every entry of ``field``, best first, as ``(entry, place)``.

    ``orders`` maps a stage to its final order (groups of tied entries, best first): the whole
    stage's, withdrawn entries included (their results stand); entries it does not name are
    equal below the ones it names.
    """
    names = [e.entry for e in field]
    if len(set(names)) != len(names):
        raise ScoringError("an entry is listed twice in the field")
    groups: list[list[str]] = []
    for stage in sorted({e.stage for e in field}, reverse=True):
        order = orders.get(stage, ())
        for outcome in ("completed", "withdrawn"):
            members = {e.entry for e in field if e.stage == stage and e.outcome == outcome}
            groups += _ordered(members, order)
    disqualified = sorted(e.entry for e in field if e.outcome == "disqualified")
    if disqualified:
        groups.append(disqualified)
    places = []
    place = 1
    for group in groups:
        places += [(entry, place) for entry in group]
        place += len(group)
    return places
