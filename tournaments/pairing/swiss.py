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
   node budget) -- for a field of up to ``exact_players`` entries that is the whole field, so a
   repeat that survives there is a proven necessity;
5. in a larger field the swaps and the search above are local, and a repeat can survive them
   although a seating without it exists elsewhere in the field. So if one is left, a tabu
   search over the whole field (`_Shuffle`: swaps between any two tables, small random kicks,
   a budget of candidates looked at) hunts it down, repeats first, then team/club clashes, then
   score spread, and the tables it changed are polished for clashes and spread afterwards. In
   a field of up to ``4 * exact_players`` entries, where a tight history can defeat a local
   search, an exhaustive search for a repeat-free seating (`_cover`, node budget) backs it up;
6. seat each table: who attacked first least often gets seat 0, the rest rotate by where they
   sat before.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, islice, repeat, starmap
from math import isnan
from operator import add, attrgetter, neg

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

__all__ = ["SwissOptions", "pair_swiss", "rank_entries", "repeat_cost", "table_compromises"]

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
    ``node_budget`` bounds that search so a round never stalls; ``search_budget`` bounds the
    whole-field search for a repeat the local passes could not remove (candidate moves looked
    at; a field of n entries gets at most 100 * n * n of them), and also the nodes of the
    exhaustive search that backs it up in small fields.

    >>> SwissOptions().avoid_club
    True
    """

    avoid_club: bool = True
    avoid_team: bool = True
    window: int = 24
    exact_players: int = 12
    node_budget: int = 40_000
    search_budget: int = 200_000


def rank_entries(entries: Sequence[Entry], rng: random.Random) -> list[Entry]:
    """Entries best first: points, first places, rating, seed rank, then a seeded draw.

    The draw is taken in id order so the result does not depend on the order of ``entries``.

    >>> [e.id for e in rank_entries([Entry(1, 0.0), Entry(2, 3.0)], random.Random(1))]
    [2, 1]
    """
    by_id = sorted(entries, key=attrgetter("id"))
    return [by_id[x] for x in _rank_order(by_id, _draw(rng, len(by_id)))]


def _draw(rng: random.Random, n: int) -> list[float]:
    return list(starmap(rng.random, repeat((), n)))


def _rank_order(entries: Sequence[Entry], draws: list[float]) -> list[int]:
    # Positions in ``entries`` (in id order), best first. Two sorts on plain keys, as a
    # stable sort allows: by rating, seed and draw, then by points and first places (as the
    # rank of their pair among the few pairs there are). Tuples of all five were slow to
    # compare, most pairs of entries having the same points and first places.
    n = len(entries)
    ratings = list(map(neg, map(attrgetter("rating"), entries)))
    tail: list[float] | list[tuple[float, int, float]] = ratings
    if len(set(ratings)) < n:  # a rating shared: seed and draw decide between them
        seeds = [s or 1 << 30 for s in map(attrgetter("seed"), entries)]
        tail = list(zip(ratings, seeds, draws, strict=True))
    order = sorted(range(n), key=tail.__getitem__)
    heads = list(
        zip(
            map(neg, map(attrgetter("points"), entries)),
            map(neg, map(attrgetter("first_places"), entries)),
            strict=True,
        )
    )
    level = {head: x for x, head in enumerate(sorted(set(heads)))}
    order.sort(key=list(map(level.__getitem__, heads)).__getitem__)
    return order


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


class _Past:
    """What the history says about each ranked entry: whom it met, how often it attacked first
    (``first``) and where it sat on average (``mean_seat``: seat position scaled to 0..1 so
    tables of different sizes compare; 0.5 for who never sat at a table).

    The history is read a round at a time with whole-list operations (one dict of the round's
    seats, then lists looked up in rank order): a Python step per seat of every earlier round
    was most of the cost of pairing a large field. ``seats[i]`` holds, for each round, the
    number of the table where i sat (numbered across rounds; -1 where i did not play), so two
    entries met once for every number >= 0 they share, and a set of those numbers tells at
    once whether a candidate met anyone at a table. The opponents of an entry as a dict (rank
    -> times met) are built only when asked for (`met`): a round whose greedy pass meets no
    conflict needs none. A history that seats someone twice in one round is read seat by seat
    instead (``seats`` is then None).
    """

    def __init__(self, history: History, ranked: Sequence[Entry]) -> None:
        n = self.n = len(ranked)
        ids = self._ids = list(map(attrgetter("id"), ranked))
        self._rank: dict[int, int] | None = None
        self.first = [0] * n
        self.seats: list[tuple[int, ...]] | None = None
        self._flat: list[int] = []  # the ids at every earlier table, in seat order
        self._starts = [0]  # where each earlier table begins in _flat
        self._met: list[dict[int, int] | None] = [None] * n
        self._all: list[dict[int, int]] | None = None
        seat_sum = [0.0] * n
        played = [0] * n
        by_round: list[list[int]] = []
        for rnd in history.rounds:
            tables = [t for t in rnd.tables if len(t) > 1]
            sizes = list(map(len, tables))
            flat = list(chain.from_iterable(tables))
            place = dict(zip(flat, range(len(flat)), strict=True))
            if len(place) != len(flat):
                self._read_by_seat(history)
                return
            # Where each ranked entry sat in ``flat`` (one past its end: did not play), and
            # by seat of ``flat``: the table's number, the seat's position scaled to 0..1,
            # whether it is seat 0 (each with a last value for who did not play).
            seat = list(map(place.get, ids, repeat(len(flat))))
            number = len(self._starts) - 1
            numbers = range(number, number + len(tables))
            table_at = list(chain.from_iterable(map(repeat, numbers, sizes)))
            table_at.append(-1)
            scaled = {size: tuple(p / (size - 1) for p in range(size)) for size in set(sizes)}
            scaled_at = list(chain.from_iterable(map(scaled.__getitem__, sizes)))
            scaled_at.append(0.0)
            heads = {size: (1,) + (0,) * (size - 1) for size in set(sizes)}
            head_at = list(chain.from_iterable(map(heads.__getitem__, sizes)))
            head_at.append(0)
            tables_of = list(map(table_at.__getitem__, seat))
            by_round.append(tables_of)
            # The same sums, in the same order, as adding seat by seat (x + 0.0 is x).
            seat_sum = list(map(add, seat_sum, map(scaled_at.__getitem__, seat)))
            played = list(map(add, played, map((-1).__lt__, tables_of)))
            self.first = list(map(add, self.first, map(head_at.__getitem__, seat)))
            self._flat.extend(flat)
            self._starts.extend(islice(accumulate(sizes, initial=self._starts[-1]), 1, None))
        self.seats = list(zip(*by_round, strict=True)) if by_round else [()] * n
        self.mean_seat = [s / c if c else 0.5 for s, c in zip(seat_sum, played, strict=True)]

    def _ranks(self) -> dict[int, int]:
        if self._rank is None:
            self._rank = dict(zip(self._ids, range(self.n), strict=True))
        return self._rank

    def _read_by_seat(self, history: History) -> None:
        n, rank = self.n, self._ranks()
        met: list[dict[int, int]] = [{} for _ in range(n)]
        first = [0] * n
        seat_sum = [0.0] * n
        played = [0] * n
        for rnd in history.rounds:
            for table in rnd.tables:
                if len(table) < 2:
                    continue
                ranks = [rank.get(e, -1) for e in table]
                if ranks[0] >= 0:
                    first[ranks[0]] += 1
                for pos, r in enumerate(ranks):
                    if r < 0:
                        continue
                    seat_sum[r] += pos / (len(table) - 1)
                    played[r] += 1
                    mine = met[r]
                    for pos_o, o in enumerate(ranks):
                        if o >= 0 and table[pos_o] != table[pos]:
                            mine[o] = mine.get(o, 0) + 1
        self.first = first
        self.seats = None
        self._all = met
        self._met = list(met)
        self.mean_seat = [s / c if c else 0.5 for s, c in zip(seat_sum, played, strict=True)]

    def met(self, i: int) -> dict[int, int]:
        """The entries i met (ranks) and how often."""
        found = self._met[i]
        if found is None:
            found = {}
            flat, starts, rank, me = self._flat, self._starts, self._ranks(), self._ids[i]
            assert self.seats is not None
            for t in self.seats[i]:
                if t >= 0:
                    for e in flat[starts[t] : starts[t + 1]]:
                        o = rank.get(e)
                        if o is not None and e != me:
                            found[o] = found.get(o, 0) + 1
            self._met[i] = found
        return found

    def every_met(self) -> list[dict[int, int]]:
        """`met` of every entry, by rank (for the whole-field searches)."""
        if self._all is None:
            self._all = [self.met(i) for i in range(self.n)]
        return self._all


class _Field:
    """The round's entries as rank-indexed arrays, with the pair cost."""

    def __init__(self, ranked: list[Entry], past: _Past, options: SwissOptions) -> None:
        self.ranked = ranked
        self.n = len(ranked)
        self.past = past
        self.met = past.met
        self.points = list(map(attrgetter("points"), ranked))
        # Clubs and teams as small ints (-1 = none or not avoided): compared on every seat.
        labels: dict[str, int] = {}

        def label(name: str | None) -> int:
            return -1 if name is None else labels.setdefault(name, len(labels))

        def any_but_none(names: list[str | None]) -> bool:
            return names.count(None) < len(names)

        none = [-1] * self.n
        clubs = list(map(attrgetter("club"), ranked)) if options.avoid_club else []
        teams = list(map(attrgetter("team"), ranked)) if options.avoid_team else []
        self.club = [label(c and "c:" + c) for c in clubs] if any_but_none(clubs) else none
        self.team = [label(t and "t:" + t) for t in teams] if any_but_none(teams) else none
        self.labelled = bool(labels)

    @property
    def opp(self) -> list[dict[int, int]]:
        """Everyone's earlier opponents (`_Past.met`), for the searches over the whole field."""
        return self.past.every_met()

    def pair(self, i: int, j: int) -> int:
        cost = self.met(i).get(j, 0) * REPEAT_WEIGHT
        if self.team[i] >= 0 and self.team[i] == self.team[j]:
            cost += TEAM_WEIGHT
        if self.club[i] >= 0 and self.club[i] == self.club[j]:
            cost += CLUB_WEIGHT
        return cost

    def against(self, i: int, members: Sequence[int], skip: int = -1) -> int:
        """Cost of seating ``i`` with ``members`` (leaving out ``skip`` and i itself)."""
        mine = self.met(i)
        cost = 0
        if mine and not mine.keys().isdisjoint(members):
            cost = REPEAT_WEIGHT * sum(mine.get(m, 0) for m in members if m != skip)
        if self.labelled:
            team, club = self.team, self.club
            ti, ci = team[i], club[i]
            for m in members:
                if m not in (skip, i):
                    if ti >= 0 and team[m] == ti:
                        cost += TEAM_WEIGHT
                    if ci >= 0 and club[m] == ci:
                        cost += CLUB_WEIGHT
        return cost

    def table(self, members: Sequence[int]) -> int:
        """Cost of a table: the sum of its pairs' costs."""
        met = self.met
        repeats = 0
        for x, a in enumerate(members):
            mine = met(a)
            if mine and not mine.keys().isdisjoint(members):
                repeats += sum(mine.get(b, 0) for b in members[x + 1 :])
        cost = repeats * REPEAT_WEIGHT
        if self.labelled:
            team, club = self.team, self.club
            for x, a in enumerate(members):
                ta, ca = team[a], club[a]
                for b in members[x + 1 :]:
                    if ta >= 0 and team[b] == ta:
                        cost += TEAM_WEIGHT
                    if ca >= 0 and club[b] == ca:
                        cost += CLUB_WEIGHT
        return cost


def _greedy(f: _Field, sizes: list[int], window: int) -> tuple[list[list[int]], list[int]]:
    """The tables filled from the top, and the cost of each (the sum of its seats' costs)."""
    # A doubly linked list of unseated ranks: removal is O(1) and the scan starts at the best
    # unseated entry, so a full round is O(n * window) at worst and O(n) when nobody clashes.
    n = f.n
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    head = 0
    # A candidate who shares no earlier table (-1 is none) nor club or team with anyone here costs
    # nothing, and set tests say so; costs are summed seat by seat only when nobody in the
    # window is free (to find the cheapest), or for a history read seat by seat.
    seats = f.past.seats
    quick = seats is not None
    seats = seats or []
    labelled, team, club = f.labelled, f.team, f.club
    tables: list[list[int]] = []
    costs: list[int] = []
    for size in sizes:
        members = [head]
        taken = set(seats[head]) if quick else set()
        taken.discard(-1)
        teams = {team[head]} - {-1}
        clubs = {club[head]} - {-1}
        head = nxt[head]
        if head < n:
            prv[head] = -1
        total = 0
        while len(members) < size:
            best, best_cost, cand, seen = -1, -1, head, 0
            if quick:
                while cand < n and seen < window:
                    if taken.isdisjoint(seats[cand]) and (
                        not labelled or (team[cand] not in teams and club[cand] not in clubs)
                    ):
                        best, best_cost = cand, 0
                        break
                    cand, seen = nxt[cand], seen + 1
                else:
                    cand, seen = head, 0
            if best < 0:
                while cand < n and seen < window:
                    cost = f.against(cand, members)
                    if cost == 0:
                        best, best_cost = cand, 0
                        break
                    if best < 0 or cost < best_cost:
                        best, best_cost = cand, cost
                    cand, seen = nxt[cand], seen + 1
            assert best >= 0, "fewer unseated entries than open seats"
            before, after = prv[best], nxt[best]
            if before >= 0:
                nxt[before] = after
            else:
                head = after
            if after < n:
                prv[after] = before
            members.append(best)
            if quick:
                taken.update(seats[best])
                taken.discard(-1)
                if labelled:
                    teams.add(team[best])
                    clubs.add(club[best])
                    teams.discard(-1)
                    clubs.discard(-1)
            total += best_cost
        tables.append(members)
        costs.append(total)
    return tables, costs


def _repair(
    f: _Field, tables: list[list[int]], costs: list[int], radius_hard: int, radius_soft: int
) -> bool:
    """Swap players between nearby tables while that lowers the cost; True if a repeat is
    left. ``costs`` (each table's cost) is kept up to date."""
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
    return max(costs, default=0) >= REPEAT_WEIGHT


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
) -> tuple[list[list[int]] | None, bool]:
    """Branch and bound: a partition of ``players`` into ``sizes`` cheaper than ``bound``, and
    whether the search was complete (within its budget, so no cheaper partition exists).

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
    return best, nodes <= budget


def _exact_pass(
    f: _Field, tables: list[list[int]], costs: list[int], options: SwissOptions
) -> bool:
    """Search exhaustively around each repeat; True if the whole field was searched to the
    end, which proves the seating optimal. ``costs`` (each table's cost) is kept up to date."""
    if f.n <= options.exact_players:
        if sum(costs) == 0:
            return True
        found, complete = _search(
            f,
            [m for t in tables for m in t],
            [len(t) for t in tables],
            sum(costs),
            options.node_budget,
        )
        if found is not None:
            tables[:] = found
            costs[:] = [f.table(t) for t in tables]
        return complete
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
        found, _ = _search(
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
                costs[r] = f.table(members)
    return False


def _cover(f: _Field, sizes: list[int], budget: int) -> list[list[int]] | None:
    """A seating of the whole field at tables of ``sizes`` with no repeat, or None if there is
    none or ``budget`` search nodes did not find one.

    Exhaustive: tables are cliques of the graph of players who never met, and the search
    seats the player with the fewest possible tablemates first, trying tablemates nearest in
    rank first. Players are bits of an int, so a field of a few dozen costs little per node.
    """
    n = f.n
    everyone = (1 << n) - 1
    free = []  # free[i]: the players i has not met
    for i in range(n):
        met = 1 << i
        for o in f.opp[i]:
            met |= 1 << o
        free.append(everyone & ~met)
    # Everyone by distance in rank from i: tablemates are tried nearest first.
    near = [[i, *(j for d in range(1, n) for j in (i - d, i + d) if 0 <= j < n)] for i in range(n)]
    smallest = min(sizes)
    tables_left = {s: sizes.count(s) for s in set(sizes)}
    seated: list[list[int]] = []
    nodes = 0

    def solve(unseated: int) -> bool:
        if not unseated:
            return True
        pick, fewest = -1, n
        rest = unseated
        while rest:
            low = rest & -rest
            i = low.bit_length() - 1
            rest ^= low
            options = (free[i] & unseated).bit_count()
            if options < smallest - 1:
                return False  # i cannot fill a table any more
            if options < fewest:
                pick, fewest = i, options
        for size in sorted((s for s, c in tables_left.items() if c), reverse=True):
            if grow([pick], free[pick] & unseated, size, unseated):
                return True
        return False

    def grow(table: list[int], mates: int, size: int, unseated: int) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > budget:
            return False
        if len(table) == size:
            seated.append(table)
            tables_left[size] -= 1
            if solve(unseated & ~sum(1 << m for m in table)):
                return True
            tables_left[size] += 1
            seated.pop()
            return False
        if mates.bit_count() < size - len(table):
            return False
        for j in near[table[0]]:
            if mates >> j & 1:
                mates &= ~(1 << j)  # later branches skip j: each table is tried once
                if grow([*table, j], mates & free[j], size, unseated):
                    return True
                if nodes > budget:
                    return False
        return False

    return seated if solve(everyone) else None


class _Shuffle:
    """The repeat-elimination stage: a tabu search over the whole field, for when the local
    passes leave a repeat that may be avoidable.

    A step takes a player who has a repeat and either swaps it with a player of another table
    or, when tables differ in size, moves it alone from a larger table to a smaller one (the
    sizes stay as they were). Moves compare by (change in repeats, change in team/club clashes,
    change in score spread), so a repeat always outweighs the rest; the spread of a table is the
    sum of its squared point deviations from the table mean. Other tables are scanned nearest
    first in widening rings: an improving move close by is taken at once, otherwise the ring
    grows to the whole field and the best move there is taken even if it improves nothing. A
    player just moved may not go back to the table it left for a few steps (the tabu rule, with
    a random tenure) and one step in twenty is a random swap, so the search walks out of local
    minima instead of cycling. Every candidate looked at counts against a budget, so a forced
    repeat cannot stall a round; the best seating seen is kept, then the tables it changed are
    polished.
    """

    # Players with a repeat weighed in one step (a random few of them when there are more).
    SAMPLE = 16
    # One step in NOISE is a random swap.
    NOISE = 20
    # How far (in tables) polishing looks for a better seat.
    POLISH_REACH = 16

    def __init__(self, f: _Field, tables: list[list[int]], rng: random.Random) -> None:
        self.f = f
        self.tables = tables
        self.rng = rng
        self.evals = 0
        # Each player's team and club as (label, weight) pairs, counted per table below.
        self.tags = [
            tuple((x, w) for x, w in ((t, TEAM_WEIGHT), (c, CLUB_WEIGHT)) if x >= 0)
            for t, c in zip(f.team, f.club, strict=True)
        ]
        self.pos: list[int] = []
        self.conf: list[int] = []  # repeats of each player at its table
        self.clash: list[int] = []  # team/club cost of each player at its table
        self.sums: list[float] = []  # points at each table
        self.tagged: list[dict[int, int]] = []  # team/club labels at each table, with counts
        self.bad: set[int] = set()  # players with a repeat
        self.hard = 0  # repeats of the seating (pairs, weighted by earlier meetings)
        self._load()
        self.home = list(self.pos)
        # The tabu rule: player i may not go back to table left[i] before step until[i].
        self.left = [-1] * f.n
        self.until = [0] * f.n

    def _load(self) -> None:
        n, count = self.f.n, len(self.tables)
        self.pos = [0] * n
        for t, members in enumerate(self.tables):
            for m in members:
                self.pos[m] = t
        self.conf, self.clash, self.bad = [0] * n, [0] * n, set()
        self.sums, self.tagged = [0.0] * count, [{} for _ in range(count)]
        for t in range(count):
            self._update(t)
        self.hard = sum(self.conf) // 2

    def _update(self, t: int) -> None:
        f, tags, members = self.f, self.tags, self.tables[t]
        for m in members:
            mine = f.opp[m]
            self.conf[m] = sum(mine.get(x, 0) for x in members)
            if self.conf[m]:
                self.bad.add(m)
            else:
                self.bad.discard(m)
        self.sums[t] = sum(f.points[m] for m in members)
        if f.labelled:
            tagged: dict[int, int] = {}
            for m in members:
                for x, _ in tags[m]:
                    tagged[x] = tagged.get(x, 0) + 1
            self.tagged[t] = tagged
            for m in members:
                self.clash[m] = sum(w * (tagged[x] - 1) for x, w in tags[m])

    def lower_bound(self) -> int:
        """Repeats no seating avoids: players with fewer new opponents than a table needs."""
        need = min(len(t) for t in self.tables) - 1
        short = sum(max(0, need - (self.f.n - 1 - len(o))) for o in self.f.opp)
        return (short + 1) // 2

    def _best_move(
        self, b: int, step: int, best_hard: int, reach: int
    ) -> tuple[tuple[int, int, float], int, int] | None:
        """The best allowed move of ``b`` within ``reach`` tables: its key, the partner (-1 when
        b moves alone) and the table b goes to. With ``step < 0`` (polishing) only a strict
        improvement counts and the tabu rule is off."""
        f, tables, pos, conf, clash = self.f, self.tables, self.pos, self.conf, self.clash
        left, until, points, tags = self.left, self.until, f.points, self.tags
        t = pos[b]
        members = tables[t]
        opp_b = f.opp[b]
        # What b would meet again at each table, and what anyone would meet again at t.
        b_at: dict[int, int] = {}
        for o, times in opp_b.items():
            b_at[pos[o]] = b_at.get(pos[o], 0) + times
        at_t: dict[int, int] = {}
        for m in members:
            if m != b:
                for o, times in f.opp[m].items():
                    at_t[o] = at_t.get(o, 0) + times
        own_b, clash_b, p_b, tags_b = conf[b], clash[b], points[b], tags[b]
        team_b, club_b = f.team[b], f.club[b]
        # Team and club labels at t without b (only looked at when the field has any).
        tags_t = dict(self.tagged[t])
        for x, _ in tags_b:
            tags_t[x] -= 1
        s_t, len_t = self.sums[t], len(members)
        polish = step < 0
        # A tabu move is still allowed when it beats the best seating found so far.
        b_tabu = left[b] if until[b] > step else -1
        aspire = best_hard - self.hard
        # Polishing wants a strict gain; the search takes the best move, whatever it is.
        best = (0, 0, -1e-9) if polish else (1 << 62, 0, 0.0)
        best_dh = best[0]
        partner, target = -1, -1
        count = len(tables)
        ring = 4
        self.evals += 1
        for dist in range(1, min(count, reach + 1)):
            for u in (t - dist, t + dist):
                if not 0 <= u < count:
                    continue
                other = tables[u]
                b_here = b_at.get(u, 0)
                tags_u = self.tagged[u]
                clash_here = sum(w * tags_u.get(x, 0) for x, w in tags_b)
                s_u, len_u = self.sums[u], len(other)
                self.evals += len_u
                dh = b_here - own_b
                if len_t > len_u and dh <= best_dh and (polish or b_tabu != u or dh < aspire):
                    dv = (
                        s_t * s_t / len_t
                        + s_u * s_u / len_u
                        - (s_t - p_b) ** 2 / (len_t - 1)
                        - (s_u + p_b) ** 2 / (len_u + 1)
                    )
                    key = (dh, clash_here - clash_b, dv)
                    if key < best:
                        best, best_dh, partner, target = key, dh, -1, u
                for c in other:
                    dh = b_here - opp_b.get(c, 0) + at_t.get(c, 0) - own_b - conf[c]
                    if dh > best_dh:
                        continue
                    if (
                        not polish
                        and (b_tabu == u or (left[c] == t and until[c] > step))
                        and dh >= aspire
                    ):
                        continue
                    ds = 0
                    if tags_b or tags[c]:
                        # b's clashes at u bar c, c's at t bar b, less their clashes now.
                        same = sum(w for x, w in tags[c] if x in (team_b, club_b))
                        c_there = sum(w * tags_t.get(x, 0) for x, w in tags[c])
                        ds = clash_here - same + c_there - clash_b - clash[c]
                    d = points[c] - p_b
                    dv = -(2 * s_t * d + d * d) / len_t - (d * d - 2 * s_u * d) / len_u
                    key = (dh, ds, dv)
                    if key < best:
                        best, best_dh, partner, target = key, dh, c, u
            if dist == ring:
                if target >= 0 and (polish or best_dh < 0):
                    break
                ring *= 4
        if target < 0:
            return None
        return best, partner, target

    def _move(self, b: int, c: int, u: int) -> None:
        """Move b to table u, and c (if not -1) to b's table."""
        t = self.pos[b]
        if c < 0:
            self.tables[t].remove(b)
            self.tables[u].append(b)
        else:
            self.tables[t][self.tables[t].index(b)] = c
            self.tables[u][self.tables[u].index(c)] = b
            self.pos[c] = t
        self.pos[b] = u
        # The same players as before the move sit at t and u: compare their repeats.
        before = sum(self.conf[m] for m in self.tables[t] + self.tables[u])
        self._update(t)
        self._update(u)
        after = sum(self.conf[m] for m in self.tables[t] + self.tables[u])
        self.hard += (after - before) // 2

    def run(self, budget: int) -> None:
        """Search until no repeat is left, the lower bound is reached or ``budget`` candidates
        were looked at; keep the seating with the fewest repeats, then polish it."""
        count = len(self.tables)
        if count < 2:
            return
        rng = self.rng
        lower = self.lower_bound()
        best_hard = self.hard
        # The best seating is copied only when the search is about to leave it.
        best_tables: list[list[int]] = []
        step = 0
        while self.hard > lower and self.evals < budget:
            step += 1
            bad = sorted(self.bad)
            if rng.randrange(self.NOISE) == 0:
                # A random kick: b swaps with anyone at any other table.
                b = rng.choice(bad)
                u = rng.randrange(count - 1)
                u += u >= self.pos[b]
                c, dh = rng.choice(self.tables[u]), 1  # dh: it may well make things worse
                self.evals += len(self.tables[u])
            else:
                chosen: tuple[tuple[int, float], int, int, int] | None = None
                for b in rng.sample(bad, min(len(bad), self.SAMPLE)):
                    if self.evals >= budget:
                        break
                    found = self._best_move(b, step, best_hard, count)
                    if found is not None:
                        # Ties between players go by lot: the search needs the variety.
                        rank = (found[0][0], rng.random())
                        if chosen is None or rank < chosen[0]:
                            chosen = (rank, b, found[1], found[2])
                        if rank[0] < 0:
                            break  # an improvement: take it without weighing the others
                if chosen is None:
                    continue
                (dh, _), b, c, u = chosen
                tenure = step + int(0.6 * len(self.bad)) + rng.randrange(10)
                self.left[b], self.until[b] = self.pos[b], tenure
                if c >= 0:
                    self.left[c], self.until[c] = u, tenure
            if dh > 0 and self.hard == best_hard:
                best_tables = [list(t) for t in self.tables]
            self._move(b, c, u)
            best_hard = min(best_hard, self.hard)
        if self.hard > best_hard:
            self.tables[:] = best_tables
            self._load()
        self._polish(self.evals + budget // 4)

    def seat_anew(self, tables: list[list[int]], budget: int) -> None:
        """Take ``tables`` as the seating and polish all of it."""
        self.tables[:] = tables
        self._load()
        self.home = [-1] * self.f.n  # as if everyone had moved
        self._polish(self.evals + budget)

    def _polish(self, limit: int) -> None:
        """Strictly better moves (fewer clashes, then tighter scores, never a repeat more) for
        everyone at a table the search changed; the rest of the field stays as it was."""
        changed = True
        while changed and self.evals < limit:
            changed = False
            moved = [i for i in range(self.f.n) if self.pos[i] != self.home[i]]
            touched = sorted({self.pos[i] for i in moved} | {self.home[i] for i in moved} - {-1})
            for b in [m for t in touched for m in self.tables[t]]:
                if self.evals >= limit:
                    return
                found = self._best_move(b, -1, self.hard, self.POLISH_REACH)
                if found is not None:
                    self._move(b, found[1], found[2])
                    changed = True


def _remove_repeats(
    f: _Field, tables: list[list[int]], rng: random.Random, options: SwissOptions
) -> None:
    """Stage 5: the whole-field search for the repeats the local passes left."""
    # A small field needs fewer steps: about 100 per player, each looking at the whole field.
    budget = min(options.search_budget, 100 * f.n * f.n)
    shuffle = _Shuffle(f, tables, rng)
    shuffle.run(budget)
    if shuffle.hard and f.n <= 4 * options.exact_players:
        # A tight field can defeat a local search; there an exhaustive one (within its node
        # budget) looks for a seating without repeats, and polishes it if there is one.
        found = _cover(f, [len(t) for t in tables], options.search_budget)
        if found is not None:
            shuffle.seat_anew(found, budget // 4)
    tables.sort(key=min)


def _table_compromises(
    seated: Sequence[Entry],
    keys: Sequence[int],
    met: Sequence[dict[int, int]],
    options: SwissOptions,
) -> list[Compromise]:
    # met[x]: the earlier opponents of seated[x], keyed the way keys[y] names seated[y] (by id
    # for a referee's check, by rank inside pair_swiss).
    found: list[Compromise] = []
    for x, a in enumerate(seated):
        mine = met[x]
        for y in range(x + 1, len(seated)):
            b = seated[y]
            pair = (min(a.id, b.id), max(a.id, b.id))
            times = mine.get(keys[y], 0)
            if times:
                found.append(Compromise(CompromiseKind.REPEAT, pair, times=times))
            if options.avoid_team and a.team is not None and a.team == b.team:
                found.append(Compromise(CompromiseKind.SAME_TEAM, pair, value=a.team))
            if options.avoid_club and a.club is not None and a.club == b.club:
                found.append(Compromise(CompromiseKind.SAME_CLUB, pair, value=a.club))
    return found


def table_compromises(
    seated: Sequence[Entry], history: History, options: SwissOptions | None = None
) -> list[Compromise]:
    """What a table seated as ``seated`` gives up against ``history``: repeat meetings, shared
    clubs or teams (the checks a pairing makes; a referee's seat swap is re-validated by them).

    >>> table_compromises([Entry(1, club="A"), Entry(2, club="A")], History())[0].describe()
    "entries 1 and 2 share the club 'A'"
    """
    opp = history.opponents()
    return _table_compromises(
        seated,
        [e.id for e in seated],
        [opp.get(e.id, {}) for e in seated],
        options or SwissOptions(),
    )


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
    # The ranking's draws, then the seat draws, both in id order (as rank_entries takes them).
    by_id = sorted(entries, key=attrgetter("id"))
    draws = _draw(rng, len(by_id))
    seat_draws = _draw(rng, len(by_id))
    order = _rank_order(by_id, draws)
    ranked = [by_id[x] for x in order]
    seat_draw = [seat_draws[x] for x in order]  # by rank

    byes: list[Entry] = []
    if len(ranked) == 1 or (table_size == 2 and len(ranked) % 2 == 1):
        had = history.byes()
        # Lowest-ranked among those with the fewest byes: the standard swiss choice.
        fewest = min(had.get(e.id, 0) for e in ranked)
        out_at = max(x for x, e in enumerate(ranked) if had.get(e.id, 0) == fewest)
        byes.append(ranked.pop(out_at))
        del seat_draw[out_at]

    sizes = balanced_table_sizes(len(ranked), table_size)
    past = _Past(history, ranked)
    f = _Field(ranked, past, options)
    tables, costs = _greedy(f, sizes, options.window) if ranked else ([], [])
    n_tables = len(tables)
    small = f.n <= 4 * options.exact_players
    hard_radius = n_tables if small else min(n_tables, 50)
    soft_radius = n_tables if small else 2
    _repair(f, tables, costs, hard_radius, soft_radius)
    proven = _exact_pass(f, tables, costs, options)
    repeats_left = _repair(f, tables, costs, hard_radius, soft_radius)
    if repeats_left and not proven:
        # A repeat survived the local passes: search the whole field, with an rng of its own
        # (one draw from ``rng``, so the result stays a function of the seed).
        _remove_repeats(f, tables, random.Random(rng.getrandbits(64)), options)
        costs = [f.table(t) for t in tables]

    # Seat 0 attacks first: it goes to whoever did so least often; ties to whoever sat furthest
    # from the first seat on average. The others follow in that same order, which rotates seat
    # order over the rounds instead of repeating it.
    first, met, points = past.first, past.met, f.points
    later = [(-m, d) for m, d in zip(past.mean_seat, seat_draw, strict=True)]
    rank_ids = list(map(attrgetter("id"), ranked))
    fair_first = len(history.rounds) // table_size
    out: list[Table] = []
    for number, (members, cost) in enumerate(zip(tables, costs, strict=True), start=1):
        # In that order, seat 0 is the first of those who attacked first least often (the
        # sort is stable, so ties stay in table order as a min() over the table would have it).
        seat = sorted(members, key=later.__getitem__)
        firsts = list(map(first.__getitem__, seat))
        fewest = min(firsts)
        if firsts[0] != fewest:
            seat.insert(0, seat.pop(firsts.index(fewest)))
        head = seat[0]
        found: tuple[Compromise, ...] = ()
        if cost:  # a table that costs nothing has no repeat, no shared club or team to report
            found = tuple(
                _table_compromises([ranked[m] for m in seat], seat, [met(m) for m in seat], options)
            )
        if fewest > fair_first:
            imbalance = Compromise(CompromiseKind.SEAT_IMBALANCE, (rank_ids[head],), times=fewest)
            found = (*found, imbalance)
        scores = list(map(points.__getitem__, seat))
        group = max(scores)
        seated = tuple(map(rank_ids.__getitem__, seat))
        floats: tuple[int, ...] = ()
        if scores.count(group) < len(scores) or isnan(group):  # (count() matches NaN by identity)
            floats = tuple([e for e, p in zip(seated, scores, strict=True) if p != group])
        out.append(Table(number, seated, group, found, floats))
    bye_notes = tuple(
        Compromise(CompromiseKind.BYE, (e.id,), times=history.byes().get(e.id, 0)) for e in byes
    )
    return Pairing(tables=tuple(out), byes=tuple(e.id for e in byes), bye_compromises=bye_notes)
