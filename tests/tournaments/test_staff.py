"""An organiser's staff (``services.staff``): invitations by e-mail, accounts made for referees,
removal; each refused outside the actor's own events, audited, and giving nothing beyond the
referee's part."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core import mail
from django.utils import timezone, translation

from durak_site.errors import Forbidden
from tests.builders import make_tournament
from tests.factories import PlayerFactory, UserFactory
from tournaments.errors import ConfigurationError, StateError
from tournaments.models import AuditEvent, RefereeInvitation, Tournament
from tournaments.permissions import can_manage, can_referee, is_organiser, is_referee
from tournaments.selectors.staff import InvitationError, invitation_by_token, open_invitations
from tournaments.selectors.visibility import tournaments_managed_by
from tournaments.services.staff import (
    StaffError,
    invitation_accept,
    invitation_revoke,
    referee_create,
    referee_invite,
    referee_remove,
)

pytestmark = pytest.mark.django_db

LINK = "https://durak.example/accounts/invitation/{}/"


def link_for(token: str) -> str:
    return LINK.format(token)


@pytest.fixture
def x(organiser: User) -> Tournament:
    return make_tournament([], name="Кубок X", created_by=organiser)


@pytest.fixture
def y(other_organiser: User) -> Tournament:
    return make_tournament([], name="Кубок Y", created_by=other_organiser)


def invite(actor: User, *events: Tournament, email: str = "ref@example.com", **kw: Any) -> str:
    """Invite ``email`` and give back the token of the link the e-mail carries."""
    invited = referee_invite(actor=actor, email=email, tournaments=events, link_for=link_for, **kw)
    return invited.link.rstrip("/").rsplit("/", 1)[-1]


def actions(tournament: Tournament) -> list[str]:
    return list(
        AuditEvent.objects.filter(tournament=tournament)
        .order_by("pk")
        .values_list("action", flat=True)
    )


# --- invitations ------------------------------------------------------------------------------


def test_an_organiser_invites_for_its_event_and_the_letter_goes_after_the_commit(
    organiser: User, x: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    # when
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        token = invite(organiser, x)
        # then nothing is sent before the commit
        assert mail.outbox == []
    for callback in callbacks:
        callback()
    # then one letter, with the link; only the token's hash is stored
    assert len(mail.outbox) == 1
    letter = mail.outbox[0]
    assert letter.to == ["ref@example.com"]
    assert link_for(token) in letter.body
    assert "Кубок X" in letter.subject
    invitation = RefereeInvitation.objects.get()
    assert token not in invitation.token_hash and len(invitation.token_hash) == 64
    assert list(invitation.tournaments.all()) == [x]
    row = AuditEvent.objects.get(action=AuditEvent.Action.REFEREE_INVITE)
    assert (row.tournament, row.actor, row.after) == (x, organiser, {"email": "ref@example.com"})


def test_the_letter_is_in_the_language_asked_for(
    organiser: User, x: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True), translation.override("en"):
        invite(organiser, x, language="ru")
        invite(organiser, x, email="two@example.com", language="en")
    russian, english = mail.outbox
    assert "Приглашение" in russian.subject and "судить" in russian.body
    assert english.subject.startswith("Invitation to referee")


def test_an_organiser_cannot_invite_for_an_event_not_its_own(
    organiser: User, x: Tournament, y: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Forbidden):
        invite(organiser, x, y)
    assert not RefereeInvitation.objects.exists()
    assert mail.outbox == []
    assert AuditEvent.objects.filter(action=AuditEvent.Action.REFEREE_INVITE).count() == 0


@pytest.mark.parametrize("who", ["event_referee", "staff_without_group"])
def test_a_referee_or_plain_staff_cannot_invite(
    who: str, x: Tournament, request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(who)
    x.referees.add(request.getfixturevalue("event_referee"))
    with pytest.raises(Forbidden):
        invite(user, x)


def test_the_anonymous_visitor_cannot_invite_nor_make_an_account(x: Tournament) -> None:
    with pytest.raises(Forbidden):
        invite(AnonymousUser(), x)  # type: ignore[arg-type]
    with pytest.raises(Forbidden):
        referee_create(actor=AnonymousUser(), username="sneaky", tournaments=[x])
    assert not User.objects.filter(username="sneaky").exists()


def test_a_bad_address_and_no_event_are_refused_on_their_fields(
    organiser: User, x: Tournament
) -> None:
    with pytest.raises(StaffError) as bad:
        invite(organiser, x, email="not an address")
    assert bad.value.code == "invalid_email" and "email" in bad.value.fields
    with pytest.raises(StaffError) as none:
        invite(organiser)
    assert none.value.code == "no_tournament" and "tournaments" in none.value.fields


def test_no_invitation_for_an_event_that_is_over(organiser: User, x: Tournament) -> None:
    Tournament.objects.filter(pk=x.pk).update(status=Tournament.Status.FINISHED)
    with pytest.raises(StateError):
        invite(organiser, x)


# --- accepting ----------------------------------------------------------------------------------


def test_a_new_account_accepts_and_referees_that_event_and_nothing_else(
    organiser: User, x: Tournament, y: Tournament
) -> None:
    token = invite(organiser, x)
    # when
    user = invitation_accept(token=token, username="new-ref", password="a-Long-pass-9481")
    # then a referee of X: console access, the referee group, no other right
    assert user.check_password("a-Long-pass-9481") and user.email == "ref@example.com"
    assert user.is_staff and not user.is_superuser
    assert is_referee(user) and not is_organiser(user)
    assert list(user.user_permissions.all()) == []
    assert [g.name for g in user.groups.all()] == ["referee"]
    assert can_referee(user, x) and not can_manage(user, x)
    assert not can_referee(user, y)
    assert list(tournaments_managed_by(user)) == [x]
    # audited: the referees' change in the inviter's name, the acceptance in the new account's
    assert actions(x)[-2:] == [AuditEvent.Action.TOURNAMENT_REFEREES, "referee.invite_accept"]
    accepted = AuditEvent.objects.get(action=AuditEvent.Action.REFEREE_INVITE_ACCEPT)
    assert accepted.actor == user
    changed = AuditEvent.objects.filter(action=AuditEvent.Action.TOURNAMENT_REFEREES).last()
    assert changed is not None and changed.actor == organiser
    assert changed.after == {"referees": ["new-ref"]}


def test_the_link_works_once(organiser: User, x: Tournament) -> None:
    token = invite(organiser, x)
    invitation_accept(token=token, username="first", password="a-Long-pass-9481")
    with pytest.raises(InvitationError) as used:
        invitation_accept(token=token, username="second", password="a-Long-pass-9481")
    assert used.value.code == "invitation_used" and used.value.http_status == 410
    assert not User.objects.filter(username="second").exists()


def test_an_expired_link_is_refused(organiser: User, x: Tournament) -> None:
    token = invite(organiser, x)
    RefereeInvitation.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    with pytest.raises(InvitationError) as expired:
        invitation_accept(token=token, username="late", password="a-Long-pass-9481")
    assert expired.value.code == "invitation_expired"
    assert not User.objects.filter(username="late").exists()


def test_an_unknown_link_is_a_404(organiser: User, x: Tournament) -> None:
    invite(organiser, x)
    with pytest.raises(InvitationError) as unknown:
        invitation_by_token("made-up")
    assert unknown.value.code == "invitation_unknown" and unknown.value.http_status == 404


def test_a_refused_account_leaves_the_link_open(organiser: User, x: Tournament) -> None:
    UserFactory.create(username="taken")
    token = invite(organiser, x)
    with pytest.raises(StaffError) as refused:
        invitation_accept(token=token, username="taken", password="short")
    assert set(refused.value.fields) == {"username", "password"}
    # then the link still works
    user = invitation_accept(token=token, username="free", password="a-Long-pass-9481")
    assert can_referee(user, x)


def test_an_existing_account_accepts_without_any_change_to_its_login(
    organiser: User, x: Tournament
) -> None:
    player = PlayerFactory.create()
    user = player.user
    assert user is not None and not user.is_staff
    password, email = user.password, user.email
    token = invite(organiser, x, email="other@example.com")
    # when
    accepted = invitation_accept(token=token, user=user)
    # then the same account referees X; its password and address are its own still
    assert accepted.pk == user.pk
    assert (accepted.password, accepted.email) == (password, email)
    assert can_referee(accepted, x) and accepted.is_staff and not accepted.is_superuser


def test_a_player_of_the_event_cannot_accept(organiser: User) -> None:
    player = PlayerFactory.create()
    x = make_tournament([player], name="Кубок X", created_by=organiser)
    token = invite(organiser, x)
    with pytest.raises(ConfigurationError) as plays:
        invitation_accept(token=token, user=player.user)
    assert plays.value.code == "referee_plays"
    assert RefereeInvitation.objects.get().accepted_at is None


def test_an_invitation_from_a_demoted_organiser_no_longer_holds(
    organiser: User, x: Tournament
) -> None:
    token = invite(organiser, x)
    organiser.groups.clear()
    with pytest.raises(StaffError) as void:
        invitation_accept(token=token, username="new-ref", password="a-Long-pass-9481")
    assert void.value.code == "invitation_void"
    assert not User.objects.filter(username="new-ref").exists()


def test_a_revoked_link_is_refused_and_revoking_is_audited(
    organiser: User, other_organiser: User, x: Tournament
) -> None:
    token = invite(organiser, x)
    invitation = RefereeInvitation.objects.get()
    with pytest.raises(Forbidden):
        invitation_revoke(actor=other_organiser, invitation=invitation)
    # when
    invitation_revoke(actor=organiser, invitation=invitation)
    # then
    assert open_invitations([x]) == []
    with pytest.raises(InvitationError) as revoked:
        invitation_accept(token=token, username="new-ref", password="a-Long-pass-9481")
    assert revoked.value.code == "invitation_revoked"
    assert actions(x)[-1] == AuditEvent.Action.REFEREE_INVITE_REVOKE
    with pytest.raises(StateError):
        invitation_revoke(actor=organiser, invitation=invitation)


# --- accounts made by the organiser ---------------------------------------------------------------


def test_an_organiser_makes_a_referee_account_for_its_event(
    organiser: User, x: Tournament, y: Tournament
) -> None:
    user = referee_create(
        actor=organiser,
        username="hall-ref",
        display_name="Иван Судья",
        password="a-Long-pass-9481",
        tournaments=[x],
    )
    assert user.get_full_name() == "Иван Судья" and user.check_password("a-Long-pass-9481")
    assert user.is_staff and not user.is_superuser and not is_organiser(user)
    assert can_referee(user, x) and not can_referee(user, y) and not can_manage(user, x)
    assert actions(x)[-2:] == [AuditEvent.Action.TOURNAMENT_REFEREES, "referee.create"]


def test_an_account_without_a_password_has_none_usable(organiser: User, x: Tournament) -> None:
    user = referee_create(actor=organiser, username="hall-ref", tournaments=[x])
    assert not user.has_usable_password()


def test_an_organiser_cannot_make_an_account_for_another_s_event(
    organiser: User, x: Tournament, y: Tournament
) -> None:
    with pytest.raises(Forbidden):
        referee_create(actor=organiser, username="hall-ref", tournaments=[x, y])
    assert not User.objects.filter(username="hall-ref").exists()


def test_a_taken_username_or_address_and_a_weak_password_are_refused_together(
    organiser: User, x: Tournament
) -> None:
    UserFactory.create(username="taken", email="taken@example.com")
    with pytest.raises(StaffError) as refused:
        referee_create(
            actor=organiser,
            username="TAKEN",
            email="taken@example.com",
            password="123",
            tournaments=[x],
        )
    assert set(refused.value.fields) == {"username", "email", "password"}


# --- removal ----------------------------------------------------------------------------------


def test_removal_unassigns_from_the_actor_s_events_only(
    organiser: User, other_organiser: User, x: Tournament, y: Tournament
) -> None:
    user = referee_create(actor=organiser, username="shared", tournaments=[x])
    y.referees.add(user)
    # another organiser may not remove it from X
    with pytest.raises(Forbidden):
        referee_remove(actor=other_organiser, user=user, tournaments=[x])
    # when
    referee_remove(actor=organiser, user=user, tournaments=[x])
    # then it referees Y still; the account and its group stay
    assert not can_referee(user, x) and can_referee(user, y)
    user.refresh_from_db()
    assert user.is_active and is_referee(user)
    last = AuditEvent.objects.filter(tournament=x).order_by("pk").last()
    assert last is not None and last.action == AuditEvent.Action.TOURNAMENT_REFEREES
    assert (last.before, last.after) == ({"referees": ["shared"]}, {"referees": []})


def test_removing_one_who_does_not_referee_is_refused(
    organiser: User, event_referee: User, x: Tournament
) -> None:
    with pytest.raises(StaffError) as refused:
        referee_remove(actor=organiser, user=event_referee, tournaments=[x])
    assert refused.value.code == "not_referee"
