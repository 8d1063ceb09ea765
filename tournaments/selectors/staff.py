"""Reads of an organiser's staff: the referees of a set of events, the invitations still open,
and an invitation by the token of its link (``services.staff`` writes them)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from tournaments.errors import TournamentError
from tournaments.models import RefereeInvitation, Tournament

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class InvitationError(TournamentError):
    """An invitation link that no longer opens anything: ``unknown``, ``expired``,
    ``accepted`` (used once already) or ``revoked``. ``http_status``: the page's answer."""

    code = "invitation_unknown"
    api = False  # the invitation page's: no API operation opens a link


def token_hash(token: str) -> str:
    """What is kept of a link's token (SHA-256, hex): the token itself is never stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_refusal(invitation: RefereeInvitation | None) -> InvitationError | None:
    """Why ``invitation``'s link no longer works, or None while it is open."""
    if invitation is None:
        error = InvitationError(
            gettext("This invitation link is unknown: check that it was copied whole."),
            code="invitation_unknown",
        )
        error.http_status = 404
        return error
    if invitation.accepted_at is not None:
        message, code = gettext("This invitation has been accepted already."), "invitation_used"
    elif invitation.revoked_at is not None:
        message, code = (
            gettext("This invitation was revoked by the organiser."),
            "invitation_revoked",
        )
    elif invitation.expires_at <= timezone.now():
        message = gettext("This invitation has expired: ask the organiser for a new one.")
        code = "invitation_expired"
    else:
        return None
    error = InvitationError(message, code=code)
    error.http_status = 410
    return error


def invitation_by_token(token: str) -> RefereeInvitation:
    """The open invitation whose link carries ``token`` (with its inviter and events), or the
    :class:`InvitationError` that says why it does not open."""
    invitation = (
        RefereeInvitation.objects.select_related("invited_by")
        .prefetch_related(Prefetch("tournaments", Tournament.objects.order_by("name", "pk")))
        .filter(token_hash=token_hash(token))
        .first()
    )
    refusal = invitation_refusal(invitation)
    if refusal is not None:
        raise refusal
    assert invitation is not None
    return invitation


def person_name(user: User) -> str:
    """How a console user is named to others: the name given, else the username."""
    return user.get_full_name() or user.get_username()


@dataclass(frozen=True)
class RefereeLine:
    """A referee of some of the events in view, with which."""

    user: User
    name: str
    tournaments: list[Tournament]


@dataclass(frozen=True)
class InvitationLine:
    """An open invitation to some of the events in view."""

    invitation: RefereeInvitation
    tournaments: list[Tournament]


def referees_of(events: QuerySet[Tournament]) -> list[RefereeLine]:
    """The referees of ``events``, by name, each with the ones of ``events`` it referees."""
    lines: dict[int, tuple[User, list[Tournament]]] = {}
    for tournament in events.prefetch_related("referees").order_by("name", "pk"):
        for user in tournament.referees.all():
            lines.setdefault(user.pk, (user, []))[1].append(tournament)
    rows = [RefereeLine(user=u, name=person_name(u), tournaments=ts) for u, ts in lines.values()]
    return sorted(rows, key=lambda row: (row.name.casefold(), row.user.pk))


def open_invitations(events: Iterable[Tournament]) -> list[InvitationLine]:
    """The invitations still open to any of ``events``, newest first, each with the ones of
    ``events`` it names."""
    wanted = {t.pk for t in events}
    invitations = (
        RefereeInvitation.objects.filter(
            tournaments__in=wanted,
            accepted_at=None,
            revoked_at=None,
            expires_at__gt=timezone.now(),
        )
        .distinct()
        .prefetch_related(Prefetch("tournaments", Tournament.objects.order_by("name", "pk")))
        .order_by("-created_at", "-pk")
    )
    return [
        InvitationLine(
            invitation=invitation,
            tournaments=[t for t in invitation.tournaments.all() if t.pk in wanted],
        )
        for invitation in invitations
    ]
