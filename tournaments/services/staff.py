"""An organiser's staff: referees invited by e-mail or given an account, and removed.

Every write takes the organiser as ``actor`` and refuses an event it may not manage
(``permissions.require_manager``: a superuser manages all). What an organiser can give is
exactly the referee's part: the ``referee`` group (whose rights are scoped to the events a user
is assigned to), console access (``is_staff``: the admin asks it of every console user) and an
assignment to its own events, through ``plans.tournament_set_referees`` (the same checks and
audit row as the tournament's page: not after the event is over, not to one who plays in it).
Never the superuser flag, the organiser group or any permission; never another user's password
or e-mail address: an existing account is only invited, and its owner accepts.

- :func:`referee_invite`: an e-mail (after the commit) with a link that works once, until it
  expires or is revoked; only the token's SHA-256 is stored.
- :func:`invitation_accept`: the link's page, by a new account (username and password) or the
  account logged in: it becomes a referee of the invitation's events.
- :func:`referee_create`: an account made by the organiser, with a password it chose or none
  yet (the face hands over a set-password link).
- :func:`referee_remove`: unassigned from some of the actor's events; the account and its group
  stay (the group grants nothing without an assignment, and the account may referee another
  organiser's events: no organiser may take that away).
- :func:`invitation_revoke`: the link stops working.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext

from durak_site.errors import Forbidden, status_name
from games.actors import Actor
from tournaments.errors import StateError, TournamentError
from tournaments.models import AuditEvent, RefereeInvitation, Tournament
from tournaments.permissions import REFEREE, require_manager
from tournaments.roles import signed_in
from tournaments.selectors.staff import invitation_refusal, person_name, token_hash
from tournaments.services.audit import audit_record
from tournaments.services.people import USERNAME_MAX, account_errors
from tournaments.services.plans import tournament_set_referees

if TYPE_CHECKING:
    from django.contrib.auth.models import User


#: How long an invitation's link works.
INVITATION_LIFETIME = dt.timedelta(days=7)
OVER = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)


class StaffError(TournamentError):
    code = "staff_refused"
    api = False  # the console's staff pages only: no API operation manages referees


def _refuse(field: str, message: str, code: str) -> StaffError:
    return StaffError(message, code=code, fields={field: [message]})


def _events(actor: Actor | None, tournaments: Iterable[Tournament]) -> list[Tournament]:
    """``tournaments`` (each once, locked, in id order), every one managed by ``actor`` and
    not over; refused otherwise."""
    if not signed_in(actor):
        raise Forbidden(gettext("only an organiser can manage referees"))
    chosen = sorted({t.pk for t in tournaments})
    if not chosen:
        raise _refuse(
            "tournaments", gettext("choose at least one tournament"), code="no_tournament"
        )
    locked = list(Tournament.objects.select_for_update().filter(pk__in=chosen).order_by("pk"))
    for tournament in locked:
        require_manager(actor, tournament)
    over = [t for t in locked if t.status in OVER]
    if over:
        message = gettext("the tournament %(name)s is %(status)s: its referees are fixed") % {
            "name": over[0].name,
            "status": status_name(Tournament.Status, over[0].status),
        }
        raise StateError(message, fields={"tournaments": [message]})
    return locked


def _assign(user: User, tournament: Tournament, *, actor: Actor | None) -> None:
    """Add ``user`` (of the referee group) to ``tournament``'s referees, through the
    tournament's own service (its checks, its audit row)."""
    current = list(tournament.referees.all())
    if any(u.pk == user.pk for u in current):
        return
    tournament_set_referees(tournament=tournament, actor=actor, referees=[*current, user])


def _make_referee(user: User) -> User:
    """``user`` (fetched again: no stale group cache) in the referee group, with console
    access; nothing else of the account changes."""
    fresh = get_user_model().objects.get(pk=user.pk)
    fresh.groups.add(Group.objects.get(name=REFEREE))
    if not fresh.is_staff:
        fresh.is_staff = True
        fresh.save(update_fields=["is_staff"])
    return get_user_model().objects.get(pk=user.pk)


# --- invitations ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Invited:
    invitation: RefereeInvitation
    link: str  # the link the e-mail carries (shown once to the organiser as well)


def _invitation_mail(
    *, inviter: str, tournaments: list[Tournament], link: str, expires: dt.datetime
) -> tuple[str, str]:
    names = ", ".join(t.name for t in tournaments)
    subject = gettext("Invitation to referee: %(tournaments)s") % {"tournaments": names}
    lines = [
        gettext("%(inviter)s invites you to referee these tournaments:") % {"inviter": inviter},
        *(f"- {t.name}" for t in tournaments),
        "",
        gettext("To accept, open this link (it works once, until %(expires)s):")
        % {"expires": date_format(timezone.localtime(expires), "DATETIME_FORMAT")},
        link,
        "",
        gettext("If you did not expect this letter, ignore it: nothing happens without you."),
    ]
    return subject, "\n".join(lines) + "\n"


def _send_on_commit(subject: str, body: str, to: str) -> None:
    transaction.on_commit(
        partial(send_mail, subject, body, None, [to], fail_silently=False), robust=True
    )


@transaction.atomic
def referee_invite(
    *,
    actor: Actor | None,
    email: str,
    tournaments: Iterable[Tournament],
    link_for: Callable[[str], str],
    language: str | None = None,
) -> Invited:
    """Invite ``email`` to referee ``tournaments`` (each managed by ``actor``): an invitation
    row, an audit row per event, and the e-mail (in ``language``, the current one by default;
    sent after the commit) with the link ``link_for(token)`` makes. Refused: a malformed
    address, an event ``actor`` does not manage or that is over, an address whose account
    referees every one of them already. Locks the events' rows."""
    email = (email or "").strip()
    try:
        validate_email(email)
    except ValidationError:
        raise _refuse("email", gettext("enter a valid email address"), "invalid_email") from None
    events = _events(actor, tournaments)
    assert signed_in(actor)
    existing = get_user_model().objects.filter(email__iexact=email)
    if existing.exists() and all(
        t.referees.filter(pk__in=existing.values("pk")).exists() for t in events
    ):
        raise _refuse(
            "email",
            gettext("the account with this address referees these tournaments already"),
            "already_referee",
        )
    token = secrets.token_urlsafe(32)
    invitation = RefereeInvitation.objects.create(
        email=email,
        invited_by=actor,
        token_hash=token_hash(token),
        expires_at=timezone.now() + INVITATION_LIFETIME,
    )
    invitation.tournaments.set(events)
    for tournament in events:
        audit_record(
            actor=actor,
            action=AuditEvent.Action.REFEREE_INVITE,
            tournament=tournament,
            target=invitation,
            after={"email": email},
        )
    link = link_for(token)
    with translation.override(language or translation.get_language()):
        subject, body = _invitation_mail(
            inviter=person_name(actor), tournaments=events, link=link, expires=invitation.expires_at
        )
    _send_on_commit(subject, body, email)
    return Invited(invitation=invitation, link=link)


@transaction.atomic
def invitation_revoke(*, actor: Actor | None, invitation: RefereeInvitation) -> RefereeInvitation:
    """Close ``invitation``'s link (every one of its events managed by ``actor``), with an audit
    row per event. Refused once it is accepted, revoked or expired. Locks the invitation."""
    locked = RefereeInvitation.objects.select_for_update().get(pk=invitation.pk)
    if not signed_in(actor):
        raise Forbidden(gettext("only an organiser can manage referees"))
    events = list(locked.tournaments.order_by("pk"))
    for tournament in events:
        require_manager(actor, tournament)
    refusal = invitation_refusal(locked)
    if refusal is not None:
        raise StateError(refusal.message, code=refusal.code)
    locked.revoked_at = timezone.now()
    locked.save(update_fields=["revoked_at"])
    for tournament in events:
        audit_record(
            actor=actor,
            action=AuditEvent.Action.REFEREE_INVITE_REVOKE,
            tournament=tournament,
            target=locked,
            before={"email": locked.email},
        )
    return locked


@transaction.atomic
def invitation_accept(
    *,
    token: str,
    user: Actor | None = None,
    username: str = "",
    password: str = "",
    display_name: str = "",
) -> User:
    """Accept the invitation whose link carries ``token``: as ``user`` (logged in), or as a
    new account ``username``/``password`` (its e-mail address the invitation's). The account
    joins the referee group, gets console access and becomes a referee of the invitation's
    events, assigned in the inviter's name (who must still manage them), with an audit row per
    event in its own. The link is claimed with a conditional update (two accepts: one wins);
    a refusal rolls everything back and leaves the link open."""
    now = timezone.now()
    digest = token_hash(token)
    claimed = RefereeInvitation.objects.filter(
        token_hash=digest, accepted_at=None, revoked_at=None, expires_at__gt=now
    ).update(accepted_at=now)
    invitation = RefereeInvitation.objects.select_related("invited_by").filter(token_hash=digest)
    found = invitation.first()
    if not claimed:
        refusal = invitation_refusal(found)
        assert refusal is not None
        raise refusal
    assert found is not None
    if signed_in(user):
        account = user
    else:
        account = _new_account(
            username=username, email=found.email, password=password, display_name=display_name
        )
    account = _make_referee(account)
    events = list(Tournament.objects.select_for_update().filter(referee_invitations=found))
    for tournament in sorted(events, key=lambda t: t.pk):
        try:
            _assign(account, tournament, actor=found.invited_by)
        except Forbidden:
            raise StaffError(
                gettext("this invitation no longer holds: its sender no longer runs %(name)s")
                % {"name": tournament.name},
                code="invitation_void",
            ) from None
        audit_record(
            actor=account,
            action=AuditEvent.Action.REFEREE_INVITE_ACCEPT,
            tournament=tournament,
            target=found,
            after={"username": account.get_username()},
        )
    found.accepted_by = account
    found.save(update_fields=["accepted_by"])
    return account


def _new_account(*, username: str, email: str, password: str | None, display_name: str) -> User:
    """A new account (not yet a referee), refused with every field at fault at once."""
    username, display_name = username.strip(), display_name.strip()
    errors = account_errors(username=username, email=email, password=password, email_required=False)
    if len(display_name) > USERNAME_MAX:
        errors["display_name"] = [
            ngettext(
                "a name has at most %(count)s character",
                "a name has at most %(count)s characters",
                USERNAME_MAX,
            )
            % {"count": USERNAME_MAX}
        ]
    if errors:
        first = next(iter(errors.values()))[0]
        raise StaffError(first, code="invalid_account", fields=errors)
    user: User = get_user_model().objects.create_user(
        username=username, email=email, password=password, first_name=display_name
    )
    return user


# --- accounts made by the organiser and removal ------------------------------------------------


@transaction.atomic
def referee_create(
    *,
    actor: Actor | None,
    username: str,
    tournaments: Iterable[Tournament],
    display_name: str = "",
    email: str = "",
    password: str | None = None,
) -> User:
    """A referee account made by ``actor`` for ``tournaments`` (each managed by it and not
    over): a new user of the referee group with console access, assigned to them, with an
    audit row per event. ``password`` None: none yet (its owner sets one through a
    set-password link the face hands over). Refused with every field at fault at once.
    Locks the events' rows."""
    events = _events(actor, tournaments)
    user = _new_account(
        username=username, email=(email or "").strip(), password=password, display_name=display_name
    )
    user = _make_referee(user)
    for tournament in events:
        _assign(user, tournament, actor=actor)
        audit_record(
            actor=actor,
            action=AuditEvent.Action.REFEREE_CREATE,
            tournament=tournament,
            target=user,
            after={"username": user.get_username(), "email": user.email},
        )
    return user


@transaction.atomic
def referee_remove(
    *, actor: Actor | None, user: User, tournaments: Iterable[Tournament]
) -> list[Tournament]:
    """Unassign ``user`` from ``tournaments`` (each managed by ``actor`` and not over), each
    with the tournament's "referees changed" audit row; the account, its group and its other
    events stay as they are. Refused for an event ``user`` does not referee. Locks the
    events' rows."""
    events = _events(actor, tournaments)
    for tournament in events:
        current = list(tournament.referees.all())
        if not any(u.pk == user.pk for u in current):
            raise StaffError(
                gettext("%(user)s does not referee %(name)s")
                % {"user": person_name(user), "name": tournament.name},
                code="not_referee",
            )
        tournament_set_referees(
            tournament=tournament,
            actor=actor,
            referees=[u for u in current if u.pk != user.pk],
        )
    return events
