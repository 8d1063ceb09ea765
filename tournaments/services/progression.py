"""Progression: starting, completing rounds, advancing between stages, finishing."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.dbretry import atomic_retry
from durak_site.errors import ServiceError, status_name
from durak_site.jobs import enqueue_on_commit
from games.actors import Actor
from tournaments import selectors
from tournaments.errors import (
    StateError,
)
from tournaments.models import (
    AuditEvent,
    AwardsFailure,
    Entry,
    Round,
    Stage,
    StageEntry,
    Table,
    Tournament,
)
from tournaments.pairing import (
    StandingRow,
    group_name,
    top_overall,
    top_per_group,
)
from tournaments.permissions import require_manager
from tournaments.scoring.errors import ScoringError
from tournaments.selectors import facts
from tournaments.selectors.standings import standing_rows
from tournaments.services.audit import audit_record
from tournaments.services.failures import failure_record
from tournaments.services.feed import tournament_changed
from tournaments.services.placing import places_store
from tournaments.services.plans import validate_plan
from tournaments.services.rounds import (
    active_stage_entries,
    round_robin_schedule,
    stage_groups,
)


def _seed_order(entries: Sequence[Entry]) -> list[Entry]:
    """Seeding for the first stage: rating (conservative ordinal) best first, then id."""

    def strength(entry: Entry) -> float:
        if entry.player is not None:
            return entry.player.rating_ordinal
        members = list(entry.team.members.all()) if entry.team else []
        return sum(p.rating_ordinal for p in members) / max(1, len(members))

    return sorted(entries, key=lambda e: (-strength(e), e.pk))


@transaction.atomic
def tournament_start(*, tournament: Tournament, actor: Actor | None = None) -> Tournament:
    """Close registration (withdrawing entries that did not check in, if check-in is required),
    fix the rules, seed the field by rating and request the first round's pairing. ``actor``: a
    person (the organiser; anyone else is refused; audited), None: the system.

    Locks the tournament row; announced on the feed.
    """
    require_manager(actor, tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status != Tournament.Status.REGISTRATION:
        raise StateError(
            gettext("only a tournament in registration can start; it is %(status)s")
            % {"status": status_name(Tournament.Status, tournament.status)}
        )
    if tournament.check_in_required:
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).update(
            status=Entry.Status.WITHDRAWN, status_reason="did not check in"
        )
    entries = list(
        Entry.objects.filter(tournament=tournament, status__in=Entry.ACTIVE).select_related(
            "player", "team"
        )
    )
    if len(entries) < 2:
        raise StateError(
            gettext("a tournament needs at least 2 entries to start, it has %(count)s")
            % {"count": len(entries)}
        )
    validate_plan(tournament, list(tournament.stages.all()), len(entries))
    before = tournament.status
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["status", "started_at"])
    first = tournament.stages.order_by("order").first()
    assert first is not None  # _validate_plan refuses a plan without stages
    _stage_begin(first, [e.pk for e in _seed_order(entries)])
    if actor is not None:
        audit_record(
            actor=actor,
            action=AuditEvent.Action.TOURNAMENT_START,
            tournament=tournament,
            target=tournament,
            before={"status": before},
            after={"status": tournament.status},
        )
    tournament.version = tournament_changed(tournament_id=tournament.pk, event="tournament_started")
    return tournament


def _stage_begin(stage: Stage, seeded_entry_ids: Sequence[int]) -> Round:
    StageEntry.objects.bulk_create(
        StageEntry(stage=stage, entry_id=e, seed=i) for i, e in enumerate(seeded_entry_ids, 1)
    )
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.RUNNING)
    round_ = Round.objects.create(stage=stage, number=1)
    enqueue_on_commit("tournaments.round_pair", round_.pk)
    return round_


@atomic_retry
def round_complete(*, round_id: int) -> Round:
    """Finish a round whose tables have all finished, then pair the next round or move the
    tournament on (the round-completion job's body). Safe to run twice, and a no-op while any
    table still plays. Locks the round row (then, finishing the event, the tournament's), and
    announces the change on the feed last (``round_finished``, then ``stage_finished`` and
    ``tournament_finished`` when it ended them: :func:`_announce_finish`). Run again when
    PostgreSQL aborts it for a deadlock (``durak_site.dbretry``): on two workers it met a
    table's result announcing on the tournament's row (``bench.tournament --workers 2``), and
    only the job that the round's last table sent can finish it."""
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update(no_key=True)
            .select_related("stage__tournament")
            .get(pk=round_id)
        )
        if round_.status != Round.Status.PLAYING:
            return round_
        if round_.tables.exclude(status=Table.Status.FINISHED).exists():
            return round_
        round_.status = Round.Status.FINISHED
        round_.finished_at = timezone.now()
        round_.save(update_fields=["status", "finished_at"])
        stage = round_.stage
        event = _round_finish(round_, stage)
        _announce_finish(round_, stage, event)
        # The fair-play evidence of the round's games (for the last round, the event's): sent
        # after the next round's pairing, so that an in-process run pairs first; the pairs are
        # recomputed in full at a stage's end (``services.fairplay.PAIRS_GROWTH``).
        enqueue_on_commit(
            "tournaments.fairplay_count", stage.tournament_id, event != "round_finished"
        )
        return round_


def _announce_finish(round_: Round, stage: Stage, event: str) -> None:
    """The feed's announcements of a finished round, each with its facts
    (``selectors.facts``), in this order and in the round job's transaction: always
    ``round_finished``; then, when the round ended its stage, ``stage_finished`` (a stage that
    is not the last included, with who goes on); then, when it ended the event,
    ``tournament_finished`` (the final places; the awards follow in ``awards_computed`` and the
    last event, ``tournament_completed``: ``docs/feed.md``). Each bumps the version; the
    tournament's row is locked from the first on (the last statements of the transaction)."""
    tournament_id = stage.tournament_id
    tournament_changed(
        tournament_id=tournament_id, event="round_finished", data=facts.round_facts(round_)
    )
    if event == "round_finished":
        return
    tournament_changed(
        tournament_id=tournament_id,
        event="stage_finished",
        data=facts.stage_facts(stage, round_.number),
    )
    if event == "tournament_finished":
        tournament_changed(
            tournament_id=tournament_id,
            event="tournament_finished",
            data=facts.finished_facts(stage.tournament, stage, round_.number),
        )


def _round_finish(round_: Round, stage: Stage) -> str:
    """After a finished round: pair the next one, or finish the stage (and the event); returns
    the feed's event."""
    later = stage.rounds.filter(number__gt=round_.number)
    if round_.explanation.get("skipped"):
        pass  # too few entries left to play it (``rounds.round_pair``): the stage ends here
    elif stage.format == Stage.Format.KNOCKOUT:
        if later.exists():
            return "round_finished"  # the bracket's later tables are seated by their feeders
    else:
        planned = (
            stage.rounds_planned
            if stage.format == Stage.Format.SWISS
            else len(round_robin_schedule(stage))
        )
        if round_.number < (planned or 0):
            nxt, _created = Round.objects.get_or_create(stage=stage, number=round_.number + 1)
            enqueue_on_commit("tournaments.round_pair", nxt.pk)
            return "round_finished"
    return "tournament_finished" if _stage_finish(stage) else "stage_finished"


def _stage_finish(stage: Stage) -> bool:
    """Finish ``stage`` and begin the next one; True if it was the last (the event finished)."""
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.FINISHED)
    nxt = stage.tournament.stages.filter(order__gt=stage.order).order_by("order").first()
    if nxt is None:
        _tournament_finish(stage.tournament)
        return True
    advancing = _advancing(stage)
    Entry.objects.filter(tournament=stage.tournament, status__in=Entry.ACTIVE).exclude(
        pk__in=advancing
    ).update(status=Entry.Status.ELIMINATED, status_reason=f"did not advance from {stage}")
    if len(advancing) < 2:
        _stages_skip(stage, advancing)
        return True
    _stage_begin(nxt, advancing)
    return False


def _stages_skip(stage: Stage, advancing: Sequence[int]) -> None:
    """Too few left to play the stages after ``stage`` (entries left the event: a stage, its
    knockout or its tables need 2): they are skipped, finished without a round, and the event
    finishes (``docs/leaving.md``). The one entry left, if any, joins each of them, so it is
    placed first; with none, the places are those of the entries that left."""
    for later in stage.tournament.stages.filter(order__gt=stage.order).order_by("order"):
        StageEntry.objects.bulk_create(
            StageEntry(stage=later, entry_id=e, seed=i) for i, e in enumerate(advancing, 1)
        )
        Stage.objects.filter(pk=later.pk).update(status=Stage.Status.FINISHED)
    _tournament_finish(stage.tournament)


def _advancing(stage: Stage) -> list[int]:
    """Who goes on, best first (the next stage's seeding): top N overall, or the top K of each
    round-robin group, or the first K out at each table of a swiss stage's last round."""
    rows = standing_rows(stage)
    position = {int(r.entry): r.position for r in rows}
    active = set(active_stage_entries(stage))
    if stage.advance_mode == Stage.AdvanceMode.TOP_N:
        ranked = [StandingRow(int(r.entry), r.position) for r in rows if int(r.entry) in active]
        if not ranked:
            return []  # every entry left: nobody goes on (``_stages_skip``)
        return top_overall(ranked, min(stage.advance_count, len(ranked)))
    if stage.format == Stage.Format.ROUND_ROBIN:
        groups = stage_groups(stage)
        label = {e: group_name(i) for i, group in enumerate(groups) for e in group}
        seen: dict[str, int] = {}
        ranked = []
        for r in rows:
            entry = int(r.entry)
            seen[label[entry]] = seen.get(label[entry], 0) + 1
            ranked.append(StandingRow(entry, r.position, label[entry], seen[label[entry]]))
        return [e for e in top_per_group(ranked, stage.advance_count) if e in active]
    last = stage.rounds.order_by("-number").first()
    chosen: set[int] = set()
    for table in Table.objects.filter(round=last):
        result = selectors.effective_result(table)
        if result is not None:
            chosen.update(result.places[: stage.advance_count])
    return sorted(chosen & active, key=lambda e: position[e])


def _tournament_finish(tournament: Tournament) -> None:
    """Final places (``tournaments.services.placing``: the last stage's order, then those
    eliminated earlier, stage by stage, each stage's withdrawn entries below the ones that
    completed it, the disqualified last); then the three end-of-tournament jobs
    (``tournaments.services.awards``: the prize pool, the ranks with the league's, the ratings),
    after commit.

    Called by the round job holding the last round's row; locks the tournament row before
    writing the entries' places, as the awards' lock order has it (tournament row first, then
    its own rows). The awards jobs never lock a round, so round then tournament here cannot
    meet them in a cycle. (The round job's feed announcement comes after, on the row it holds.)
    """
    Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.FINISHED, finished_at=timezone.now()
    )
    try:
        with transaction.atomic():
            places_store(tournament)
    except (ServiceError, ScoringError) as exc:
        # The event has finished all the same; the failure is shown and can be recomputed.
        failure_record(tournament_id=tournament.pk, job=AwardsFailure.Job.PLACES, exc=exc)
    enqueue_on_commit("tournaments.prize_pool_compute", tournament.pk)
    enqueue_on_commit("tournaments.tournament_ranks_compute", tournament.pk)
    enqueue_on_commit("tournaments.ratings_update", tournament.pk)
