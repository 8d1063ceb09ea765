"""Swiss rounds at tables of 2 to 6 seats.

How a round is built (all on rank indices 0..n-1, best first):

1. rank entries by points, first places, rating, seed and a seeded random draw;
2. fill tables from the top: each table starts with the best unseated entry, and each open
   seat takes the first entry within a short window below that conflicts with nobody already
   at the table (earlier opponent, same team, same club) -- so scores stay together and the
   common case costs one set lookup per seat;
3. repair what the greedy pass left: swap a conflicting member with a member of a nearby table
   when that lowers the round's cost (a repeat costs far more than any club clash);
4. if a repeat is still left, search the tables around it exhaustively (branch and bound, with a
   node budget) -- for small fields that is the whole field, so a repeat that survives is a
   proven necessity;
5. seat each table: who attacked first least often gets seat 0, the rest rotate by where they
   sat before.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .errors import ConfigError, PairingError
from .models import (
    Compromise,
    CompromiseKind,
    Entry,
    History,
    Pairing,
    Table,
    balanced_table_sizes,
)

__all__ = ["SwissOptions", "pair_swiss", "rank_entries", "repeat_cost"]

# Cost weights: any repeat outweighs any number of team/club clashes at one table, and a team
# clash outweighs a club clash. Ints keep the search exact.
REPEAT_WEIGHT = 1_000_000
TEAM_WEIGHT = 1_000
CLUB_WEIGHT = 100
# Per point of score difference when a swap moves a player between tables; small, so it only
# breaks ties between otherwise equal swaps and keeps floats short.
SPREAD_WEIGHT = 1


@dataclass(frozen=True, slots=True)
class SwissOptions:
    """Tuning of a swiss round; the defaults suit every field size.

    ``window`` is how far below the best unseated entry the greedy pass looks for a seat;
    ``exact_players`` the size of the neighbourhood searched exhaustively around a repeat;
    ``node_budget`` bounds that search so a round never stalls.

    >>> SwissOptions().avoid_club
    True
    """

    avoid_club: bool = True
    avoid_team: bool = True
    window: int = 24
    exact_players: int = 12
    node_budget: int = 40_000


def rank_entries(entries: Sequence[Entry], rng: random.Random) -> list[Entry]:
    """Entries best first: points, first places, rating, seed rank, then a seeded draw.

    The draw is taken in id order so the result does not depend on the order of ``entries``.

    >>> [e.id for e in rank_entries([Entry(1, 0.0), Entry(2, 3.0)], random.Random(1))]
    [2, 1]
    """
    draw = {e.id: rng.random() for e in sorted(entries, key=lambda e: e.id)}
    return sorted(
        entries,
        key=lambda e: (-e.points, -e.first_places, -e.rating, e.seed or 1 << 30, draw[e.id]),
    )


def repeat_cost(tables: Sequence[Sequence[int]], history: History) -> int:
    """Sum over pairs seated together of how often they met before (0 = no repeat).

    >>> repeat_cost([(1, 2), (3, 4)], History.from_tables([[(1, 2, 3)]]))
    1
    """
    met = history.meetings()
    total = 0
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                total += met.get(frozenset((a, b)), 0)
    return total


class _Field:
    """The round's entries as rank-indexed arrays, with the pair cost."""

    def __init__(self, ranked: list[Entry], history: History, options: SwissOptions) -> None:
        self.ranked = ranked
        self.n = len(ranked)
        index = {e.id: i for i, e in enumerate(ranked)}
        opponents = history.opponents()
        # Only active entries matter; opponents who left the stage are dropped here.
        self.opp: list[dict[int, int]] = [
            {index[o]: t for o, t in opponents.get(e.id, {}).items() if o in index} for e in ranked
        ]
        self.points = [e.points for e in ranked]
        # Clubs and teams as small ints (-1 = none or not avoided): compared on every seat.
        labels: dict[str, int] = {}

        def label(name: str | None, wanted: bool) -> int:
            return labels.setdefault(name, len(labels)) if wanted and name is not None else -1

        self.club = [label(e.club and "c:" + e.club, options.avoid_club) for e in ranked]
        self.team = [label(e.team and "t:" + e.team, options.avoid_team) for e in ranked]

    def pair(self, i: int, j: int) -> int:
        cost = self.opp[i].get(j, 0) * REPEAT_WEIGHT
        if self.team[i] >= 0 and self.team[i] == self.team[j]:
            cost += TEAM_WEIGHT
        if self.club[i] >= 0 and self.club[i] == self.club[j]:
            cost += CLUB_WEIGHT
        return cost

    def against(self, i: int, members: Sequence[int], skip: int = -1) -> int:
        return sum(self.pair(i, m) for m in members if m not in (skip, i))

    def table(self, members: Sequence[int]) -> int:
        return sum(self.pair(a, b) for x, a in enumerate(members) for b in members[x + 1 :])


def _greedy(f: _Field, sizes: list[int], window: int) -> list[list[int]]:
    # A doubly linked list of unseated ranks: removal is O(1) and the scan starts at the best
    # unseated entry, so a full round is O(n * window) at worst and O(n) when nobody clashes.
    n = f.n
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    head = 0

    def remove(i: int) -> None:
        nonlocal head
        if prv[i] >= 0:
            nxt[prv[i]] = nxt[i]
        else:
            head = nxt[i]
        if nxt[i] < n:
            prv[nxt[i]] = prv[i]

    tables: list[list[int]] = []
    for size in sizes:
        members = [head]
        remove(head)
        while len(members) < size:
            best, best_cost, cand, seen = -1, -1, head, 0
            while cand < n and seen < window:
                cost = f.against(cand, members)
                if cost == 0:
                    best = cand
                    break
                if best < 0 or cost < best_cost:
                    best, best_cost = cand, cost
                cand, seen = nxt[cand], seen + 1
            assert best >= 0, "fewer unseated entries than open seats"
            remove(best)
            members.append(best)
        tables.append(members)
    return tables


def _repair(f: _Field, tables: list[list[int]], radius_hard: int, radius_soft: int) -> None:
    costs = [f.table(members) for members in tables]
    work = [t for t, c in enumerate(costs) if c > 0]
    budget = 50 * len(work) + 1000  # every accepted swap lowers the cost; this only caps time
    while work and budget > 0:
        budget -= 1
        t = work.pop()
        if costs[t] == 0:
            continue
        hard = costs[t] >= REPEAT_WEIGHT
        touched = _swap_once(f, tables, t, radius_hard if hard else radius_soft)
        if not touched and hard:
            touched = _rotate_three(f, tables, t, radius_hard)
        for x in touched:
            costs[x] = f.table(tables[x])
        work.extend(x for x in touched if costs[x] > 0)


def _near(t: int, radius: int, count: int) -> Iterator[int]:
    """Tables around ``t``, nearest first (so moves keep score groups close)."""
    for dist in range(1, radius + 1):
        for u in (t - dist, t + dist):
            if 0 <= u < count:
                yield u


def _rotate_three(f: _Field, tables: list[list[int]], t: int, radius: int) -> list[int]:
    """When no swap removes a repeat at ``t``: move b from t to u, c from u to w and d from w
    to t, if that lowers the cost. Return the tables changed (none if nothing helps)."""
    members = tables[t]
    for b in sorted(members, key=lambda m: -f.against(m, members)):
        own_b = f.against(b, members)
        if own_b < REPEAT_WEIGHT:
            continue
        for u in _near(t, radius, len(tables)):
            other = tables[u]
            for c in other:
                b_in_u = f.against(b, other, skip=c)
                if b_in_u >= REPEAT_WEIGHT:
                    continue
                own_c = f.against(c, other)
                for w in _near(t, radius, len(tables)):
                    if w == u:
                        continue
                    third = tables[w]
                    for d in third:
                        old = own_b + own_c + f.against(d, third)
                        new = b_in_u + f.against(c, third, skip=d) + f.against(d, members, skip=b)
                        if new < old:
                            members[members.index(b)] = d
                            other[other.index(c)] = b
                            third[third.index(d)] = c
                            return [t, u, w]
    return []


def _swap_once(f: _Field, tables: list[list[int]], t: int, radius: int) -> list[int]:
    """Make the first cost-lowering swap between table ``t`` and a table within ``radius``,
    nearest tables first; return the tables changed (none if no swap helps)."""
    members = tables[t]
    # Worst member first: it is the one most worth moving.
    for b in sorted(members, key=lambda m: -f.against(m, members)):
        own = f.against(b, members)
        if own == 0:
            continue
        for u in _near(t, radius, len(tables)):
            other = tables[u]
            for c in other:
                old = own + f.against(c, other)
                new = f.against(b, other, skip=c) + f.against(c, members, skip=b)
                new += SPREAD_WEIGHT * int(abs(f.points[b] - f.points[c]))
                if new < old:
                    members[members.index(b)] = c
                    other[other.index(c)] = b
                    return [t, u]
    return []


def _search(
    f: _Field, players: list[int], sizes: list[int], bound: int, budget: int
) -> list[list[int]] | None:
    """Branch and bound: a partition of ``players`` into ``sizes`` cheaper than ``bound``.

    Tables are filled one after another, each opened by the best unplaced player, members taken
    in rank order -- so the first solutions found keep scores together, and a later one only
    replaces them when strictly cheaper.
    """
    players = sorted(players)
    best: list[list[int]] | None = None
    best_cost = bound
    nodes = 0
    used = [False] * len(players)
    current: list[list[int]] = []

    def open_table(remaining: list[int], cost: int) -> None:
        nonlocal best, best_cost
        if not remaining:
            if cost < best_cost:
                best, best_cost = [list(t) for t in current], cost
            return
        anchor = used.index(False)
        for size in sorted(set(remaining), reverse=True):
            rest = list(remaining)
            rest.remove(size)
            used[anchor] = True
            current.append([players[anchor]])
            fill(anchor + 1, size, rest, cost)
            current.pop()
            used[anchor] = False

    def fill(start: int, size: int, remaining: list[int], cost: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > budget or cost >= best_cost:
            return
        table = current[-1]
        if len(table) == size:
            open_table(remaining, cost)
            return
        # Leave enough players for the seats still open at this table.
        for x in range(start, len(players) - (size - len(table)) + 1):
            if used[x]:
                continue
            add = f.against(players[x], table)
            if cost + add >= best_cost:
                continue
            used[x] = True
            table.append(players[x])
            fill(x + 1, size, remaining, cost + add)
            table.pop()
            used[x] = False
            if nodes > budget:
                return

    open_table(sorted(sizes, reverse=True), 0)
    return best


def _exact_pass(f: _Field, tables: list[list[int]], options: SwissOptions) -> None:
    costs = [f.table(t) for t in tables]
    if f.n <= options.exact_players:
        if sum(costs) > 0:
            found = _search(
                f,
                [m for t in tables for m in t],
                [len(t) for t in tables],
                sum(costs),
                options.node_budget,
            )
            if found is not None:
                tables[:] = found
        return
    for t in range(len(tables)):
        if costs[t] < REPEAT_WEIGHT:
            continue
        # The region: the clashing table and its neighbours, nearest first, up to the limit.
        region = [t]
        dist = 1
        while dist < len(tables):
            added = False
            for u in (t - dist, t + dist):
                if (
                    0 <= u < len(tables)
                    and sum(len(tables[r]) for r in region) + len(tables[u])
                    <= options.exact_players
                ):
                    region.append(u)
                    added = True
            if not added:
                break
            dist += 1
        old = sum(costs[r] for r in region)
        found = _search(
            f,
            [m for r in region for m in tables[r]],
            [len(tables[r]) for r in region],
            old,
            options.node_budget,
        )
        if found is not None:
            # Keep table order by best member so score groups stay in order.
            for r, members in zip(sorted(region), sorted(found, key=min), strict=True):
                tables[r] = members
            costs = [f.table(x) for x in tables]


def _seat(
    members: list[Entry], first: dict[int, int], mean_seat: dict[int, float], draw: dict[int, float]
) -> list[Entry]:
    # Seat 0 attacks first: it goes to whoever did so least often; ties to whoever sat furthest
    # from the first seat on average. The others follow in that same order, which rotates seat
    # order over the rounds instead of repeating it.
    def key(e: Entry) -> tuple[int, float, float]:
        return (first.get(e.id, 0), -mean_seat.get(e.id, 0.5), draw[e.id])

    head = min(members, key=key)
    rest = sorted((e for e in members if e is not head), key=lambda e: key(e)[1:])
    return [head, *rest]


def _mean_seats(history: History) -> dict[int, float]:
    # Seat position scaled to 0..1 so tables of different sizes compare.
    total: dict[int, float] = {}
    count: dict[int, int] = {}
    for rnd in history.rounds:
        for table in rnd.tables:
            if len(table) < 2:
                continue
            for pos, e in enumerate(table):
                total[e] = total.get(e, 0.0) + pos / (len(table) - 1)
                count[e] = count.get(e, 0) + 1
    return {e: total[e] / count[e] for e in total}


def _table_compromises(
    seated: list[Entry], opp: dict[int, dict[int, int]], options: SwissOptions
) -> list[Compromise]:
    found: list[Compromise] = []
    for x, a in enumerate(seated):
        for b in seated[x + 1 :]:
            pair = (min(a.id, b.id), max(a.id, b.id))
            times = opp.get(a.id, {}).get(b.id, 0)
            if times:
                found.append(Compromise(CompromiseKind.REPEAT, pair, times=times))
            if options.avoid_team and a.team is not None and a.team == b.team:
                found.append(Compromise(CompromiseKind.SAME_TEAM, pair, value=a.team))
            if options.avoid_club and a.club is not None and a.club == b.club:
                found.append(Compromise(CompromiseKind.SAME_CLUB, pair, value=a.club))
    return found


def pair_swiss(
    entries: Sequence[Entry],
    history: History,
    *,
    table_size: int,
    rng: random.Random,
    options: SwissOptions | None = None,
) -> Pairing:
    """Seat one swiss round.

    ``entries`` are the active entries (withdrawn ones left out by the caller) with their
    current points; ``history`` every earlier round that counts for repeat meetings and seat
    balance. Tables hold ``table_size`` or one seat fewer (never fewer than 2); a bye happens
    only when nobody can be seated otherwise (one entry, or an odd count at 2-seat tables) and
    goes to the lowest-ranked entry with the fewest byes; the caller scores it.

    Everything is decided by ``rng``: the same inputs and seed give the same pairing.

    >>> players = [Entry(i, points=float(i % 3)) for i in range(1, 11)]
    >>> p = pair_swiss(players, History(), table_size=4, rng=random.Random(7))
    >>> [t.size for t in p.tables], p.byes
    ([4, 3, 3], ())
    """
    if not 2 <= table_size <= 6:
        raise ConfigError(f"table size must be 2 to 6, not {table_size}")
    options = options or SwissOptions()
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise PairingError(f"entries listed more than once: {dup}")
    ranked = rank_entries(entries, rng)
    seat_draw = {e.id: rng.random() for e in sorted(entries, key=lambda e: e.id)}

    byes: list[Entry] = []
    if len(ranked) == 1 or (table_size == 2 and len(ranked) % 2 == 1):
        had = history.byes()
        # Lowest-ranked among those with the fewest byes: the standard swiss choice.
        fewest = min(had.get(e.id, 0) for e in ranked)
        bye = next(e for e in reversed(ranked) if had.get(e.id, 0) == fewest)
        byes.append(bye)
        ranked = [e for e in ranked if e is not bye]

    sizes = balanced_table_sizes(len(ranked), table_size)
    f = _Field(ranked, history, options)
    tables = _greedy(f, sizes, options.window) if ranked else []
    n_tables = len(tables)
    small = f.n <= 4 * options.exact_players
    _repair(f, tables, n_tables if small else min(n_tables, 50), n_tables if small else 2)
    _exact_pass(f, tables, options)
    _repair(f, tables, n_tables if small else min(n_tables, 50), n_tables if small else 2)

    first = history.first_seats()
    mean_seat = _mean_seats(history)
    opp = history.opponents()
    fair_first = len(history.rounds) // table_size
    out: list[Table] = []
    for number, members in enumerate(tables, start=1):
        seated = _seat([ranked[m] for m in members], first, mean_seat, seat_draw)
        found = _table_compromises(seated, opp, options)
        head_first = first.get(seated[0].id, 0)
        if head_first > fair_first:
            found.append(
                Compromise(CompromiseKind.SEAT_IMBALANCE, (seated[0].id,), times=head_first)
            )
        group = max(e.points for e in seated)
        out.append(
            Table(
                number=number,
                entries=tuple(e.id for e in seated),
                score_group=group,
                compromises=tuple(found),
                floats=tuple(e.id for e in seated if e.points != group),
            )
        )
    bye_notes = tuple(
        Compromise(CompromiseKind.BYE, (e.id,), times=history.byes().get(e.id, 0)) for e in byes
    )
    return Pairing(tables=tuple(out), byes=tuple(e.id for e in byes), bye_compromises=bye_notes)
