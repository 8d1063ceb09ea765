"""A referee's results: a table played over the board, corrections, the two-person rule.

- :func:`table_result_enter` records a referee's result for a table: the first one (a table
  played over the board; its live game, if any, is voided) or a correction of the result in
  force, with a reason. Under the tournament's two-person rule it is *pending* until another
  referee confirms it (:func:`table_result_confirm`) or rejects it (:func:`table_result_reject`);
  only then does it count. A table has at most one pending result.
- A correction must not silently change what was built on the old result. If the next round of
  the stage has been paired (or a later knockout table seated) from it, the correction is
  refused (``repair_needed``) unless the referee asks to **pair that round again**, which is
  allowed only while none of its games has a move (``round_started``): its tables are removed
  and it is paired anew from the corrected standings. A result of a stage that the next stage
  has been built on, or of a finished tournament, is final (``result_final``).
- Standings are computed from the results in force, so they follow at once; advancing, the
  prize pool and ranks are computed by the jobs from the same rows when their time comes.

Each service checks that ``actor`` referees the tournament, runs in one transaction, locks the
table row first (then the rounds it may re-pair, then games: the order of the play path), and
writes its audit row (before and after, by name).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.errors import Forbidden, status_name
from durak_site.jobs import enqueue_on_commit
from games.actors import Actor, person
from games.engine.cards import RANKS
from games.models import Game
from games.services import game_void
from tournaments import selectors
from tournaments.errors import ResultConflict, ResultError, StateError
from tournaments.models import AuditEvent, Round, Seat, Stage, Table, TableResult, Tournament
from tournaments.permissions import can_referee
from tournaments.services.audit import audit_record
from tournaments.services.results import (
    announce_result,
    check_result,
    feed_knockout,
    tables_fed_by,
)
from tournaments.services.seating import table_started


class RepairNeeded(StateError):
    code = "repair_needed"


class RoundStarted(StateError):
    code = "round_started"


class ResultFinal(StateError):
    code = "result_final"


def _locked_table(table: Table) -> Table:
    """The table's row with its round's, stage's and tournament's, locked ``FOR NO KEY UPDATE``:
    what pairs the next round or writes the event waits for this (and this for it), while the
    foreign-key checks that PostgreSQL defers to a commit (``FOR KEY SHARE`` of each row referred
    to) pass. Locked ``FOR UPDATE``, a job committing rows that refer to this table or its
    stage, having taken the tournament's row for its own check first, deadlocked with this
    (``tests/tournaments/test_incidents_real_stack.py``)."""
    return (
        Table.objects.select_for_update(no_key=True)
        .select_related("round__stage__tournament")
        .get(pk=table.pk)
    )


def _check_referee(actor: Actor, tournament: Tournament) -> None:
    """Refuse who does not referee ``tournament``, with the API's answer (``permission_denied``,
    403): the API leaves this check to the service."""
    if not can_referee(actor, tournament):
        raise Forbidden(
            gettext("only a referee of this tournament can enter or review its results"),
            code="permission_denied",
        )


def _pogony(table: Table, pogony: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A referee's hangings ``{"by": entry, "on": [entries], "rank": "6"}`` with the players
    who sat for those entries (the ranks are players')."""
    seats = {s.entry_id: s.player_id for s in Seat.objects.filter(table=table)}
    out = []
    for hung in pogony:
        if not isinstance(hung, dict) or not {"by", "on", "rank"} <= set(hung):
            raise ResultError(gettext("each pogony is {'by': entry, 'on': [entries], 'rank': '6'}"))
        by, on, rank = hung["by"], list(hung["on"]), str(hung["rank"])
        if by not in seats or not on or any(e not in seats or e == by for e in on):
            raise ResultError(
                gettext("pogony are hung by an entry of the table on other entries of it")
            )
        if rank not in RANKS:
            raise ResultError(
                gettext("a pogony rank is one of %(ranks)s, not '%(rank)s'")
                % {"ranks": " ".join(RANKS), "rank": rank}
            )
        out.append(
            {
                "by": by,
                "on": on,
                "rank": rank,
                "by_player": seats[by],
                "on_players": [seats[e] for e in on],
            }
        )
    return out


def _later_round(table: Table) -> Round | None:
    """The stage's round after the table's, locked (a re-pair and the pairing job meet here)."""
    return (
        Round.objects.select_for_update()
        .filter(stage_id=table.round.stage_id, number=table.round.number + 1)
        .first()
    )


def _started(tables: Sequence[Table]) -> Table | None:
    """The first of ``tables`` where play has begun."""
    return next((table for table in tables if table_started(table)), None)


def _dependants(table: Table) -> list[Table]:
    """What was built on the table's result: the later knockout tables seated from it, or the
    next round's tables once it is paired. Refuses a result the next stage was built on."""
    stage = table.round.stage
    if stage.tournament.status != Tournament.Status.RUNNING:
        raise ResultFinal(
            gettext("the tournament is %(status)s: its results are final")
            % {"status": status_name(Tournament.Status, stage.tournament.status)}
        )
    if stage.status == Stage.Status.FINISHED:
        raise ResultFinal(
            gettext(
                "%(stage)s is finished and the next stage has begun from its standings: "
                "its results are final"
            )
            % {"stage": stage}
        )
    if stage.format == Stage.Format.KNOCKOUT:
        # A walkover or void table (a bye table of the knockout) fed the tables after it at
        # once: what they were seated with is built on this result too.
        found: list[Table] = []
        todo = [table]
        while todo:
            for fed in tables_fed_by(todo.pop()):
                if fed.status != Table.Status.WAITING and fed not in found:
                    found.append(fed)
                    if fed.is_bye:
                        todo.append(fed)
        return found
    later = _later_round(table)
    if later is None or later.status == Round.Status.PENDING:
        return []
    return list(later.tables.all())


def _repair(table: Table, dependants: list[Table], actor: Actor, reason: str) -> None:
    """Undo what was built on the old result (:func:`_impact` has checked that nothing of it
    has started): unseat the later knockout tables (they are seated again by
    :func:`feed_knockout`) or remove the next round's tables and pair it again."""
    stage = table.round.stage
    before = [
        {"table": t.number, "players": [s.player.display_name for s in t.seats.all()]}
        for t in dependants
    ]
    if stage.format == Stage.Format.KNOCKOUT:
        for later_table in dependants:
            Game.objects.filter(table=later_table).delete()
            later_table.seats.all().delete()
            if later_table.is_bye:  # a walkover or void table: decided again when seated
                TableResult.objects.filter(table=later_table).delete()
                Round.objects.filter(pk=later_table.round_id, status=Round.Status.FINISHED).update(
                    status=Round.Status.PLAYING, finished_at=None
                )
            later_table.status, later_table.series_state = Table.Status.WAITING, {}
            later_table.is_bye, later_table.finished_at = False, None
            later_table.save(update_fields=["status", "series_state", "is_bye", "finished_at"])
        round_ = dependants[0].round
    else:
        round_ = dependants[0].round
        Game.objects.filter(table__round=round_).delete()
        round_.tables.all().delete()
        round_.status, round_.explanation, round_.paired_at = Round.Status.PENDING, {}, None
        round_.save(update_fields=["status", "explanation", "paired_at"])
        enqueue_on_commit("tournaments.round_pair", round_.pk)
    audit_record(
        actor=actor,
        action=AuditEvent.Action.ROUND_REPAIR,
        tournament=stage.tournament,
        target=round_,
        reason=reason,
        before=before,
        after=None,
    )


def _impact(table: Table, repair: bool) -> list[Table]:
    dependants = _dependants(table)
    if dependants and not repair:
        what = dependants[0].round
        raise RepairNeeded(
            gettext(
                "%(round)s has already been seated from this table's result. Choose to pair "
                "it again (possible while none of its games has a move), or leave the result "
                "as it is"
            )
            % {"round": what}
        )
    if dependants:
        started = _started(dependants)
        if started is not None:
            raise RoundStarted(
                gettext(
                    "%(table)s has started: the correction cannot pair it again; "
                    "void or adjudicate its games first, or leave the result as it is"
                )
                % {"table": started}
            )
    return dependants


def _described(result: TableResult | None) -> dict[str, Any] | None:
    """A result as the audit log shows it: names in place order, the fool, pogony."""
    if result is None:
        return None
    names = selectors.entry_names(selectors.result_entry_ids(result))
    named = selectors.named_result(result, names)
    return {"places": named.places, "fool": named.fool or None, "pogony": named.pogony}


def over_the_board() -> str:
    """The reason of a referee's result given without one (its audit row, its table's games),
    in the language of the request that enters it, like the console's other audit reasons."""
    return gettext("played over the board")


def _take_effect(
    table: Table, result: TableResult, actor: Actor, reason: str, dependants: list[Table]
) -> None:
    """A confirmed referee's result: end the table's live games, finish it, re-pair what was
    built on the old result (``dependants``: :func:`_impact`'s answer, which is empty unless
    the referee chose to), seat the knockout tables it feeds."""
    if dependants:
        _repair(table, dependants, actor, reason)
    for game in table.games.exclude(status__in=Game.OVER):
        game_void(
            game_id=game.pk, reason=f"result entered by a referee: {reason}"[:300], referee=actor
        )
    if table.status != Table.Status.FINISHED:
        table.status, table.finished_at = Table.Status.FINISHED, timezone.now()
        table.save(update_fields=["status", "finished_at"])
    if table.round.stage.format == Stage.Format.KNOCKOUT:
        feed_knockout(table)
    enqueue_on_commit("tournaments.round_complete", table.round_id)


def table_result_enter(
    *,
    table: Table,
    actor: Actor,
    places: Sequence[int],
    fool: int | None,
    drawn: Sequence[int] = (),
    pogony: Sequence[dict[str, Any]] = (),
    reason: str = "",
    repair: bool = False,
) -> TableResult:
    """A referee's result for ``table``: entries from the first out to the last (the fool last;
    on a draw the drawn entries last and no fool), with pogony hung in the table's games.

    The table's first result (played over the board) or a correction of the result in force,
    which needs a ``reason``. ``repair``: if the next round was paired (or a knockout table
    seated) from the old result, pair it again. Under the two-person rule the result is pending
    until another referee confirms it; otherwise it counts at once. Locks the table row (and
    what a re-pair or the knockout feed needs); a result in force is announced on the feed last.
    """
    with transaction.atomic():
        table = _locked_table(table)
        tournament = table.round.stage.tournament
        _check_referee(actor, tournament)
        if table.is_bye:
            raise ResultError(gettext("a bye has no result to enter"))
        if table.status == Table.Status.WAITING:
            raise ResultConflict(
                gettext("%(table)s is waiting for its players: nothing has been played")
                % {"table": table}
            )
        check_result(table, places=places, fool=fool, drawn=drawn, pogony=(), team_lost=())
        hangings = _pogony(table, pogony)
        if table.results.filter(status=TableResult.Status.PENDING).exists():
            raise StateError(
                gettext(
                    "a result of %(table)s is waiting for a second referee: confirm or reject "
                    "it first"
                )
                % {"table": table}
            )
        current = selectors.effective_result(table)
        if current is not None and not reason.strip():
            raise ResultError(
                gettext("a correction needs a reason"), fields={"reason": [gettext("required")]}
            )
        dependants: list[Table] = []
        if current is not None:
            dependants = _impact(table, repair)  # refuse now rather than at the confirmation
        elif tournament.status != Tournament.Status.RUNNING:
            raise ResultFinal(
                gettext("the tournament is %(status)s")
                % {"status": status_name(Tournament.Status, tournament.status)}
            )
        pending = tournament.two_person_rule
        result = TableResult.objects.create(
            table=table,
            places=list(places),
            fool_entry_id=fool,
            drawn=list(drawn),
            pogony=hangings,
            source=TableResult.Source.REFEREE,
            reason=reason.strip()[:300],
            supersedes=current,
            entered_by=person(actor),
            status=TableResult.Status.PENDING if pending else TableResult.Status.CONFIRMED,
            repairs=repair,
        )
        audit_record(
            actor=actor,
            action=(
                AuditEvent.Action.RESULT_CORRECT if current else AuditEvent.Action.RESULT_ENTER
            ),
            tournament=tournament,
            target=table,
            reason=reason or over_the_board(),
            before=_described(current),
            after={**(_described(result) or {}), "status": result.status},
        )
        if not pending:
            _take_effect(table, result, actor, reason or over_the_board(), dependants)
            announce_result(table, "result_corrected" if current else "table_finished", result)
        return result


def _pending(result: TableResult, actor: Actor) -> tuple[Table, TableResult]:
    table = _locked_table(result.table)
    _check_referee(actor, table.round.stage.tournament)
    result = TableResult.objects.get(pk=result.pk)
    if result.status != TableResult.Status.PENDING:
        raise StateError(
            gettext("the result is %(status)s: nothing to review")
            % {"status": status_name(TableResult.Status, result.status)}
        )
    if result.entered_by_id is not None and result.entered_by_id == getattr(actor, "pk", None):
        raise Forbidden(
            gettext("the two-person rule: another referee must review the result you entered")
        )
    return table, result


def table_result_confirm(*, result: TableResult, actor: Actor) -> TableResult:
    """The second referee confirms a pending result: it counts from now (with the re-pair its
    enterer asked for, checked again now). Locks the table row; announced on the feed last."""
    with transaction.atomic():
        table, result = _pending(result, actor)
        # Checked again: the round may have been seated or begun since the result was entered.
        dependants = _impact(table, result.repairs) if result.supersedes_id is not None else []
        result.status = TableResult.Status.CONFIRMED
        result.reviewed_by, result.reviewed_at = person(actor), timezone.now()
        result.save(update_fields=["status", "reviewed_by", "reviewed_at"])
        audit_record(
            actor=actor,
            action=AuditEvent.Action.RESULT_CONFIRM,
            tournament=table.round.stage.tournament,
            target=table,
            reason=result.reason,
            before={"status": TableResult.Status.PENDING},
            after={**(_described(result) or {}), "status": result.status},
        )
        _take_effect(table, result, actor, result.reason or over_the_board(), dependants)
        announce_result(
            table, "result_corrected" if result.supersedes_id else "table_finished", result
        )
        return result


def table_result_reject(*, result: TableResult, actor: Actor, note: str) -> TableResult:
    """The second referee rejects a pending result (with a reason): it never counts; the table
    keeps the result it had, and a new one may be entered. Locks the table row."""
    if not note.strip():
        raise ResultError(
            gettext("a rejection needs a reason"), fields={"note": [gettext("required")]}
        )
    with transaction.atomic():
        table, result = _pending(result, actor)
        result.status = TableResult.Status.REJECTED
        result.reviewed_by, result.reviewed_at = person(actor), timezone.now()
        result.review_note = note.strip()[:300]
        result.save(update_fields=["status", "reviewed_by", "reviewed_at", "review_note"])
        audit_record(
            actor=actor,
            action=AuditEvent.Action.RESULT_REJECT,
            tournament=table.round.stage.tournament,
            target=table,
            reason=note,
            before={**(_described(result) or {}), "status": TableResult.Status.PENDING},
            after={"status": result.status},
        )
        return result
