"""Final places: who finished where, the entries that left included (``docs/leaving.md``).

The field of an event is every entry that started: every entry with a stage of its own
(``StageEntry``; the start gives one to each entry still registered, late registration to each
late entry). An entry withdrawn before the start has none: it is not part of the field, has no
place and its fee is not in the pool. The stage an entry left is the last stage it has: an
entry withdrawn in a stage is never given the next one, and one withdrawn between two stages
has already been given the next (it completed the one before). The pure rule is
``tournaments.scoring.places``; this module reads the stages' orders and writes the places.
"""

from __future__ import annotations

from django.db.models import Max
from django.db.models.functions import Coalesce
from django.utils.translation import gettext

from durak_site.dbretry import atomic_retry
from durak_site.jobs import enqueue_on_commit
from tournaments import selectors
from tournaments.errors import StateError
from tournaments.models import Entry, Payout, PrizePool, Stage, StageEntry, Tournament
from tournaments.scoring.places import Leaving, Outcome, final_places
from tournaments.selectors.standings import standing_rows
from tournaments.services.bulk import rows_update


def stage_final_order(stage: Stage) -> list[list[int]]:
    """The stage's final order as groups of tied entries, best first: its standings (swiss,
    round robin), or for a knockout the entries by the last round they played, then by their
    place at its table. Every entry with a result or a standing is in it, withdrawn and
    disqualified ones included (their results stand)."""
    if stage.format != Stage.Format.KNOCKOUT:
        return [[int(row.entry)] for row in standing_rows(stage)]
    groups: list[list[int]] = []
    seen: set[int] = set()
    for round_ in stage.rounds.order_by("-number"):
        by_place: dict[int, list[int]] = {}
        # A knockout's bye tables are its walkovers (the one entry left goes on: first there)
        # and void tables (no result).
        for table in round_.tables.all():
            result = selectors.effective_result(table)
            if result is None:
                continue
            drawn = set(result.drawn)
            shared = len(result.places) - len(drawn) + 1  # drawn entries share their first place
            for place, entry in enumerate(result.places, start=1):
                if entry not in seen:
                    by_place.setdefault(shared if entry in drawn else place, []).append(entry)
        for place in sorted(by_place):
            fresh = [e for e in by_place[place] if e not in seen]
            if fresh:
                groups.append(fresh)
                seen.update(fresh)
    return groups


_OUTCOME: dict[str, Outcome] = {
    Entry.Status.WITHDRAWN: "withdrawn",
    Entry.Status.DISQUALIFIED: "disqualified",
}


def leavings(tournament: Tournament) -> list[Leaving]:
    """How each entry of the field ended: the last stage it took part in and its outcome."""
    rows = (
        StageEntry.objects.filter(stage__tournament=tournament)
        .values("entry_id", "entry__status")
        .annotate(last=Coalesce(Max("stage__order"), 0))
        .order_by("entry_id")
    )
    return [
        Leaving(
            str(row["entry_id"]),
            stage=int(row["last"]),
            outcome=_OUTCOME.get(row["entry__status"], "completed"),
        )
        for row in rows
    ]


def places_of(tournament: Tournament) -> list[tuple[int, int]]:
    """The final places of ``tournament``'s field, best first, as ``(entry id, place)``."""
    field = leavings(tournament)
    orders = {
        stage.order: [[str(e) for e in group] for group in stage_final_order(stage)]
        for stage in tournament.stages.filter(order__in={f.stage for f in field})
    }
    return [(int(entry), place) for entry, place in final_places(field, orders)]


def places_store(tournament: Tournament) -> list[tuple[int, int]]:
    """Write the final places (an entry outside the field has none); the caller holds the
    tournament row. Returns them, best first.

    Locks the entries' rows (primary-key order) before it reads their statuses: an entry
    leaving at that moment either committed first (and is placed as having left) or waits for
    these places and is then refused (``entry_withdraw`` re-reads the status)."""
    current = dict(
        Entry.objects.filter(tournament=tournament)
        .select_for_update(no_key=True)
        .order_by("pk")
        .values_list("pk", "final_place")
    )
    places = places_of(tournament)
    wanted: dict[int, int | None] = dict.fromkeys(current)
    wanted.update(places)
    # Only the entries whose place changes, in a few statements (a place per UPDATE was ten
    # thousand statements at the end of a 10,000-entry event: ``docs/performance.md``).
    changed = {entry: (place,) for entry, place in wanted.items() if current.get(entry) != place}
    rows_update(Entry, ["final_place"], changed)
    return places


@atomic_retry
def tournament_places_compute(*, tournament_id: int) -> int:
    """Write a finished tournament's final places again (the end of the event writes them
    first; the console's recompute and the reconciler run this after a failure); returns how
    many entries changed place. The prize pool follows, after commit, if any did.

    Locks the tournament row (step 1 of the awards' lock order), then writes the entries.
    """
    tournament = Tournament.objects.select_for_update(no_key=True).get(pk=tournament_id)
    if tournament.status != Tournament.Status.FINISHED:
        raise StateError(gettext("final places are written when the tournament has finished"))
    before = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "final_place"))
    places = places_store(tournament)
    changed = sum(before.get(entry) != place for entry, place in places)
    changed += sum(
        1 for entry, place in before.items() if place is not None and entry not in dict(places)
    )
    if changed:  # the payouts were the old places': the pool is not final until paid again
        Payout.objects.filter(tournament=tournament).delete()
        PrizePool.objects.filter(tournament=tournament).update(final=False)
        enqueue_on_commit("tournaments.prize_pool_compute", tournament.pk)
    return changed
