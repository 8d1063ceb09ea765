"""Registration: the tournament's status until it starts, and its entries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from durak_site.dbretry import run_atomic
from durak_site.errors import Forbidden, status_name
from durak_site.jobs import enqueue_on_commit
from games.actors import Actor
from games.models import Game
from games.services import game_pause
from tournaments.errors import (
    RegistrationConflict,
    RegistrationError,
    StateError,
)
from tournaments.models import (
    AuditEvent,
    Entry,
    Payout,
    Player,
    PrizePool,
    Round,
    Stage,
    StageEntry,
    Table,
    Team,
    Tournament,
)
from tournaments.permissions import can_manage, can_referee, require_manager, require_referee
from tournaments.services.audit import audit_record
from tournaments.services.feed import tournament_changed
from tournaments.services.placing import places_store
from tournaments.services.plans import validate_plan


def _set_status(tournament: Tournament, allowed: Sequence[str], new: str) -> Tournament:
    """Move ``tournament`` to ``new`` if its status is in ``allowed`` (a conditional UPDATE)."""
    changed = Tournament.objects.filter(pk=tournament.pk, status__in=allowed).update(status=new)
    if not changed:
        tournament.refresh_from_db(fields=["status"])
        raise StateError(
            gettext("the tournament is %(status)s; cannot move it to %(new)s")
            % {
                "status": status_name(Tournament.Status, tournament.status),
                "new": status_name(Tournament.Status, new),
            }
        )
    tournament.status = new
    return tournament


def _audit_tournament_status(
    actor: Actor | None, action: str, tournament: Tournament, before: str, reason: str = ""
) -> None:
    """The audit row of a person's change of a tournament's status (none for the system's)."""
    if actor is not None:
        audit_record(
            actor=actor,
            action=action,
            tournament=tournament,
            target=tournament,
            reason=reason,
            before={"status": before},
            after={"status": tournament.status},
        )


@transaction.atomic
def tournament_open_registration(
    *, tournament: Tournament, actor: Actor | None = None
) -> Tournament:
    """Open registration of a draft, or reopen a registration that was closed before the start
    (a conditional UPDATE: a second call refuses). Announced on the feed. ``actor``: a person
    (the organiser; anyone else is refused; audited), None: the system."""
    require_manager(actor, tournament)
    before = tournament.status
    reopened = Tournament.objects.filter(
        pk=tournament.pk,
        status=Tournament.Status.REGISTRATION,
        registration_closed_at__isnull=False,
    ).update(registration_closed_at=None)
    if reopened:
        tournament.registration_closed_at = None
        tournament.status = Tournament.Status.REGISTRATION
    else:
        _set_status(tournament, [Tournament.Status.DRAFT], Tournament.Status.REGISTRATION)
    _audit_tournament_status(actor, AuditEvent.Action.TOURNAMENT_OPEN, tournament, before)
    tournament.version = tournament_changed(
        tournament_id=tournament.pk, event="registration_opened"
    )
    return tournament


@transaction.atomic
def tournament_cancel(
    *, tournament: Tournament, actor: Actor | None = None, reason: str = ""
) -> Tournament:
    """Cancel a tournament that has not finished (a conditional UPDATE). Announced on the
    feed. ``actor``: a person (the organiser; anyone else is refused; audited with
    ``reason``), None: the system."""
    require_manager(actor, tournament)
    before = tournament.status
    _set_status(
        tournament,
        [Tournament.Status.DRAFT, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING],
        Tournament.Status.CANCELLED,
    )
    _audit_tournament_status(actor, AuditEvent.Action.TOURNAMENT_CANCEL, tournament, before, reason)
    tournament.version = tournament_changed(
        tournament_id=tournament.pk, event="tournament_cancelled"
    )
    return tournament


def registration_check_open(tournament: Tournament) -> None:
    """Refuse (``RegistrationError``) unless ``tournament`` takes entries now: registration open
    and not closed, or late registration during the first rounds."""
    if tournament.status == Tournament.Status.REGISTRATION:
        if tournament.registration_closed_at is None:
            return
        raise RegistrationConflict(gettext("registration is closed (the tournament starts soon)"))
    if tournament.status == Tournament.Status.RUNNING and tournament.late_registration_rounds:
        # Open until the given round of the first (swiss) stage has been paired.
        paired = Round.objects.filter(
            stage__tournament=tournament, stage__order=1, stage__format=Stage.Format.SWISS
        ).exclude(status=Round.Status.PENDING)
        if (
            paired.count() < tournament.late_registration_rounds
            and not tournament.stages.filter(order=1).exclude(format=Stage.Format.SWISS).exists()
        ):
            return
    raise RegistrationConflict(
        gettext("registration is closed (the tournament is %(status)s)")
        % {"status": status_name(Tournament.Status, tournament.status)}
    )


@transaction.atomic
def entry_register(
    *,
    tournament: Tournament,
    player: Player | None = None,
    team: Team | None = None,
    paid: bool = True,
    actor: Actor | None = None,
    reason: str = "",
    note: dict[str, Any] | None = None,
) -> Entry:
    """Register a player (individual event) or a team (team event). A person's registration
    (``actor``: the event's organiser, or the player themselves; anyone else is refused with
    ``Forbidden``) is audited, with ``reason`` and ``note`` (more of the audit row's ``after``,
    e.g. the line of an imported file). Nobody plays in an event they run: a player (a team
    member) whose account organises or referees the tournament is refused (``own_event``).

    Locks the tournament row so that concurrent registrations respect ``max_entries``.
    """
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    own = player is not None and actor is not None and player.user_id == actor.pk
    if actor is not None and not own and not can_manage(actor, tournament):
        raise Forbidden(gettext("only the tournament's organiser can register its entries"))
    registration_check_open(tournament)
    _refuse_who_runs_it(tournament, player=player, team=team)
    if tournament.is_team_event:
        if team is None or player is not None:
            raise RegistrationError(gettext("this is a team event: register a team"))
        if team.memberships.count() != tournament.team_size:
            raise RegistrationError(
                ngettext(
                    "teams of this event have %(count)s player",
                    "teams of this event have %(count)s players",
                    tournament.team_size,
                )
                % {"count": tournament.team_size}
            )
        members = list(team.members.values_list("pk", flat=True))
        clash = Entry.objects.filter(
            tournament=tournament, team__members__in=members, status__in=Entry.ACTIVE
        ).exists()
        if clash:
            raise RegistrationConflict(
                gettext("a member of this team is already registered in another team")
            )
    elif player is None or team is not None:
        raise RegistrationError(gettext("this is an individual event: register a player"))
    if tournament.max_entries is not None:
        active = Entry.objects.filter(tournament=tournament, status__in=Entry.ACTIVE).count()
        if active >= tournament.max_entries:
            raise RegistrationConflict(
                ngettext(
                    "the tournament is full (%(count)s entry)",
                    "the tournament is full (%(count)s entries)",
                    tournament.max_entries,
                )
                % {"count": tournament.max_entries}
            )
    try:
        with transaction.atomic():
            entry = Entry.objects.create(tournament=tournament, player=player, team=team, paid=paid)
    except IntegrityError:
        raise RegistrationConflict(
            gettext("%(name)s is already registered") % {"name": player or team}
        ) from None
    if tournament.status == Tournament.Status.RUNNING:
        # Late registration: the entry joins the first stage and is seated from the next round.
        first = tournament.stages.order_by("order").first()
        assert first is not None
        last_seed = first.stage_entries.order_by("-seed").values_list("seed", flat=True).first()
        StageEntry.objects.create(stage=first, entry=entry, seed=(last_seed or 0) + 1)
    if actor is not None:
        audit_record(
            actor=actor,
            action=AuditEvent.Action.ENTRY_REGISTER,
            tournament=tournament,
            target=entry,
            reason=reason,
            after={"status": entry.status, "paid": entry.paid, **(note or {})},
        )
    _entries_changed(entry, "registered")
    return entry


def _refuse_who_runs_it(
    tournament: Tournament, *, player: Player | None, team: Team | None
) -> None:
    """Refuse (``own_event``) an entry played by the tournament's organiser or one of its
    referees: they see every hand at its tables and decide its disputes."""
    if player is not None:
        people = [player] if player.user_id is not None else []
    elif team is not None:
        people = list(team.members.filter(user__isnull=False))
    else:
        return
    referees = set(tournament.referees.values_list("pk", flat=True))
    for person in people:
        if person.user_id == tournament.created_by_id:
            message = gettext(
                "%(player)s organises %(tournament)s: its organiser cannot play in it"
            )
        elif person.user_id in referees:
            message = gettext("%(player)s referees %(tournament)s: its referees cannot play in it")
        else:
            continue
        raise RegistrationConflict(
            message % {"player": person, "tournament": tournament}, code="own_event"
        )


def _check_entry_actor(actor: Actor | None, entry: Entry, what: str) -> None:
    """A person who changes ``entry``'s status is a referee of its tournament (its organiser
    too) or plays in the entry (``what``: the refusal)."""
    if actor is None or can_referee(actor, entry.tournament):
        return
    own = Q(player__user=actor) | Q(team__members__user=actor)
    if not getattr(actor, "is_authenticated", False) or not (
        Entry.objects.filter(own, pk=entry.pk).exists()
    ):
        raise Forbidden(what)


def _audit_entry_status(
    actor: Actor | None, action: str, entry: Entry, before: str, reason: str = ""
) -> None:
    """The audit row of a person's change of an entry's status (none for the system's)."""
    if actor is not None:
        audit_record(
            actor=actor,
            action=action,
            tournament=entry.tournament,
            target=entry,
            reason=reason,
            before={"status": before},
            after={"status": entry.status},
        )


def _entries_changed(entry: Entry, change: str) -> None:
    """Announce a change of ``entry`` on the feed: the last statement of its service's
    transaction (lock order: ``tournaments.services.feed``)."""
    tournament_changed(
        tournament_id=entry.tournament_id,
        event="entries_changed",
        data={"entry": entry.pk, "change": change},
    )


def entry_reenter(*, entry: Entry, actor: Actor | None = None) -> Entry:
    """A re-entry: the entry pays the re-entry fee again (the prize pool counts it).
    ``actor``: a person (the organiser; anyone else is refused; audited), None: the system."""
    tournament = entry.tournament
    require_manager(actor, tournament)
    if not tournament.reentry_fee:
        raise RegistrationError(gettext("this tournament has no re-entries"))
    registration_check_open(tournament)
    with transaction.atomic():
        Entry.objects.filter(pk=entry.pk).update(reentries=F("reentries") + 1)
        entry.refresh_from_db()
        if actor is not None:
            audit_record(
                actor=actor,
                action=AuditEvent.Action.ENTRY_REENTER,
                tournament=tournament,
                target=entry,
                after={"reentries": entry.reentries},
            )
        _entries_changed(entry, "re-entered")
    return entry


def _entry_set_status(entry: Entry, allowed: Sequence[str], new: str, reason: str = "") -> Entry:
    """Move ``entry`` to ``new`` if its status is in ``allowed`` (a conditional UPDATE). The
    caller announces it (:func:`_entries_changed`) last in its transaction."""
    changed = Entry.objects.filter(pk=entry.pk, status__in=allowed).update(
        status=new, status_reason=reason[:300]
    )
    if not changed:
        entry.refresh_from_db()
        raise StateError(
            gettext("the entry is %(status)s; it cannot become %(new)s")
            % {
                "status": status_name(Entry.Status, entry.status),
                "new": status_name(Entry.Status, new),
            }
        )
    entry.refresh_from_db()
    return entry


def entry_check_in(*, entry: Entry, actor: Actor | None = None, reason: str = "") -> Entry:
    """A registered entry is present. Audited when a person (``actor``: a referee of its
    tournament, or who plays in it; anyone else is refused) checks it in."""
    _check_entry_actor(actor, entry, gettext("only a referee of this tournament can check in"))
    if entry.tournament.status not in (Tournament.Status.REGISTRATION, Tournament.Status.RUNNING):
        raise StateError(gettext("check-in is open only during registration"))
    with transaction.atomic():
        before = entry.status
        entry = _entry_set_status(entry, [Entry.Status.REGISTERED], Entry.Status.CHECKED_IN)
        _audit_entry_status(actor, AuditEvent.Action.ENTRY_CHECK_IN, entry, before, reason)
        _entries_changed(entry, "checked in")
        return entry


def entry_withdraw(*, entry: Entry, reason: str = "", actor: Actor | None = None) -> Entry:
    """Withdraw an entry: it keeps its played results and is not seated again (the next round
    is paired without it). If it drops out of a running event while it plays, its games follow
    the tournament's dropout rule (:func:`_drop_out`). Audited when a person (``actor``: a
    referee of its tournament, or who plays in it; anyone else is refused) withdraws it.

    Before the start it leaves the field (no place; its fee leaves the pool). After the start
    it is eliminated at the stage it left: placed below every entry that completed that stage
    and above those eliminated earlier, its fee staying in the pool (``docs/leaving.md``,
    ``tournaments.services.placing``). Refused once the tournament has finished."""
    _check_entry_actor(
        actor, entry, gettext("only a referee of this tournament can withdraw an entry")
    )
    if entry.tournament.status == Tournament.Status.FINISHED:
        raise StateError(gettext("the tournament has finished: its entries no longer withdraw"))

    def withdraw() -> Entry:
        entry.refresh_from_db()  # as stored: a rerun starts from the rolled-back state
        before = entry.status
        _entry_set_status(entry, Entry.ACTIVE, Entry.Status.WITHDRAWN, reason)
        # Read again under the entry's lock: the event may have finished (its places written
        # with this entry as having completed) while this waited for it.
        if Tournament.objects.filter(
            pk=entry.tournament_id, status=Tournament.Status.FINISHED
        ).exists():
            raise StateError(gettext("the tournament has finished: its entries no longer withdraw"))
        if entry.tournament.status == Tournament.Status.RUNNING:
            _drop_out(entry, reason, actor)
        _audit_entry_status(actor, AuditEvent.Action.ENTRY_WITHDRAW, entry, before, reason)
        _entries_changed(entry, "withdrew")
        return entry

    # The entry's row is locked before the tournament's (announced last), the places job takes
    # them the other way round: PostgreSQL breaks such a meeting by aborting one, run again.
    return run_atomic(withdraw, label="entry_withdraw")


def _drop_out(entry: Entry, reason: str, actor: Actor | None) -> None:
    """The running games of a withdrawn entry, by the tournament's dropout rule:

    - ``clock``: nothing is done to them; the move clock acts for the absent player at each of
      its moves (``games.services.automation.clock_actions``) to the end of the table's series;
    - ``referee``, or ``clock`` without a move clock (nothing would ever move for them): each is
      paused, flagged on the live tables page, for a referee to adjudicate or void.
    """
    tournament = entry.tournament
    clock = tournament.move_clock_seconds > 0
    if tournament.dropout_rule == Tournament.DropoutRule.CLOCK and clock:
        return
    running = Game.objects.filter(
        table__seats__entry=entry,
        table__status=Table.Status.PLAYING,
        status=Game.Status.ACTIVE,
    ).distinct()
    why = f"{entry.name} withdrew ({reason or 'no reason given'}): a referee adjudicates"
    for game in running:
        game_pause(game_id=game.pk, reason=why[:300], referee=actor)


def entry_disqualify(*, entry: Entry, reason: str, actor: Actor | None = None) -> Entry:
    """Disqualify an entry, with a reason, at any time (an entry that withdrew after the start,
    or was eliminated, too): its played results stand for the others, it is not seated again,
    and it shares the last place with the other disqualified entries, paid nothing and scoring
    no league points; its fee stays in the pool (``docs/leaving.md``). Once the tournament has
    finished, its final places are written again and the prize pool recomputed (after commit).
    Locks the tournament row first when it has finished (the places are written under it).
    ``actor``: a person (a referee of the event; anyone else is refused; audited), None: the
    system."""
    if not reason.strip():
        raise RegistrationError(gettext("a disqualification needs a reason"))
    require_referee(actor, entry.tournament)
    allowed = [*Entry.ACTIVE, Entry.Status.ELIMINATED]
    if entry.stage_entries.exists():  # withdrawn after the start: still in the field
        allowed.append(Entry.Status.WITHDRAWN)

    def disqualify() -> Entry:
        entry.refresh_from_db()  # as stored: a rerun starts from the rolled-back state
        finished = Tournament.objects.filter(
            pk=entry.tournament_id, status=Tournament.Status.FINISHED
        )
        # After the end nothing else changes entries but this (withdrawals are refused), and
        # the places are written under the tournament's row: lock it before the entry's.
        tournament = finished.select_for_update(no_key=True).first()
        before = entry.status
        _entry_set_status(entry, allowed, Entry.Status.DISQUALIFIED, reason)
        if tournament is None:
            # The event may have ended while this waited for the entry's row (its places were
            # written with the entries' rows locked, this one still counted as playing): read
            # its status again, under the entry's lock, and place the field again if so.
            tournament = finished.select_for_update(no_key=True).first()
        _audit_entry_status(actor, AuditEvent.Action.ENTRY_DISQUALIFY, entry, before, reason)
        if tournament is not None:
            places_store(tournament)
            # The payouts were the old places': gone until the job pays the new ones (the
            # reconciler sends it again, should it be lost: the pool is not final any more).
            Payout.objects.filter(tournament=tournament).delete()
            PrizePool.objects.filter(tournament=tournament).update(final=False)
            enqueue_on_commit("tournaments.prize_pool_compute", tournament.pk)
        _entries_changed(entry, "disqualified")
        return entry

    # Before the end the entry's row comes first and the tournament's last, as for a
    # withdrawal: a meeting with the places job is broken by PostgreSQL, and run again.
    return run_atomic(disqualify, label="entry_disqualify")


def tournament_close_registration(
    *, tournament: Tournament, actor: Actor | None = None
) -> Tournament:
    """Close registration before the start: no new entries (late registration, where the plan
    allows it, opens again once the event runs). With check-in required, the entries that did
    not check in are withdrawn now. The plan must still fit the entries left. Locks the
    tournament row; the organiser may reopen (:func:`tournament_open_registration`).
    ``actor``: a person (the organiser; anyone else is refused; audited), None: the system."""
    require_manager(actor, tournament)
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status != Tournament.Status.REGISTRATION or locked.registration_closed_at:
            if locked.registration_closed_at:
                raise StateError(gettext("registration is not open (it is closed)"))
            raise StateError(
                gettext("registration is not open (the tournament is %(status)s)")
                % {"status": status_name(Tournament.Status, locked.status)}
            )
        if locked.check_in_required:
            Entry.objects.filter(tournament=locked, status=Entry.Status.REGISTERED).update(
                status=Entry.Status.WITHDRAWN, status_reason="did not check in"
            )
        entries = Entry.objects.filter(tournament=locked, status__in=Entry.ACTIVE).count()
        validate_plan(locked, list(locked.stages.all()), entries)
        locked.registration_closed_at = timezone.now()
        locked.save(update_fields=["registration_closed_at"])
        _audit_tournament_status(actor, AuditEvent.Action.TOURNAMENT_CLOSE, locked, locked.status)
        locked.version = tournament_changed(tournament_id=locked.pk, event="registration_closed")
    return locked
