"""The referees pages of the console and the invitation's page on the site, as an organiser who
is not a superuser uses them: invite by e-mail, accept through the link, make an account,
remove, revoke; and what the new referee may open afterwards."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.builders import ConsoleEvent
from tournaments.models import AuditEvent, RefereeInvitation, Tournament
from tournaments.permissions import can_referee

pytestmark = pytest.mark.django_db

RU = {"Accept-Language": "ru"}
PASSWORD = "a-Long-pass-9481"


def staff_url() -> str:
    return reverse("admin:tournaments_tournament_staff")


def referees_url(tournament: Tournament) -> str:
    return reverse("admin:tournaments_tournament_referees", args=[tournament.pk])


def as_user(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def invite(client: Client, address: str, email: str, *events: Tournament) -> Any:
    data: dict[str, Any] = {
        "action": "invite",
        "invite-email": email,
        "invite-language": "ru",
        "invite-tournaments": [t.pk for t in events],
    }
    return client.post(address, data, headers=RU)


def link_in(body: Any) -> str:
    found = re.search(r"https?://\S+/accounts/invitation/\S+/", str(body))
    assert found is not None, body
    return found.group(0)


@pytest.fixture
def events(console_events: tuple[ConsoleEvent, ConsoleEvent]) -> tuple[Tournament, Tournament]:
    return console_events[0].tournament, console_events[1].tournament


# --- the pages, as whom ----------------------------------------------------------------------


def test_an_organiser_sees_its_own_referees_only(
    organiser: User, events: tuple[Tournament, Tournament]
) -> None:
    response = as_user(organiser).get(staff_url(), headers=RU)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-user="event-referee"' in page and "other-referee" not in page
    assert "Судьи" in page and "Пригласить судью по электронной почте" in page
    # the form offers its own events only
    offered = list(response.context["invite"].fields["tournaments"].queryset)
    assert offered == [events[0]]


def test_a_superuser_sees_every_referee(
    superuser: User, events: tuple[Tournament, Tournament]
) -> None:
    page = as_user(superuser).get(staff_url()).content.decode()
    assert 'data-user="event-referee"' in page and 'data-user="other-referee"' in page


def test_the_event_page_is_its_organiser_s(
    organiser: User,
    other_organiser: User,
    event_referee: User,
    staff_without_group: User,
    events: tuple[Tournament, Tournament],
) -> None:
    a = events[0]
    assert as_user(organiser).get(referees_url(a)).status_code == 200
    assert as_user(event_referee).get(referees_url(a)).status_code == 403  # sees A, not its staff
    assert as_user(other_organiser).get(referees_url(a)).status_code == 404
    assert as_user(staff_without_group).get(referees_url(a)).status_code == 404
    assert as_user(event_referee).get(staff_url()).status_code == 403
    # its page links the referees page; the referee's view of it does not
    change = reverse("admin:tournaments_tournament_change", args=[a.pk])
    assert referees_url(a) in as_user(organiser).get(change).content.decode()
    assert referees_url(a) not in as_user(event_referee).get(change).content.decode()


# --- invitation, end to end ------------------------------------------------------------------


def test_invite_accept_and_referee_that_event_only(
    organiser: User,
    events: tuple[Tournament, Tournament],
    django_capture_on_commit_callbacks: Any,
) -> None:
    a, b = events
    # given an organiser (not a superuser) inviting from its event's page
    assert not organiser.is_superuser
    with django_capture_on_commit_callbacks(execute=True):
        response = invite(as_user(organiser), referees_url(a), "new.ref@example.com", a)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Приглашение отправлено на new.ref@example.com" in page
    assert 'data-email="new.ref@example.com"' in page  # among the open invitations
    # the letter, in Russian, with the link
    (letter,) = mail.outbox
    assert letter.to == ["new.ref@example.com"]
    assert letter.subject == "Приглашение судить: Кубок А"
    link = link_in(letter.body)
    assert link in page  # shown once to the organiser as well
    # when the person opens the link
    visitor = Client()
    opened = visitor.get(link, headers=RU)
    assert opened.status_code == 200
    assert "organiser приглашает вас судить эти турниры" in opened.content.decode()
    # and makes an account there
    answer = visitor.post(
        link,
        {"username": "new-ref", "password": PASSWORD, "password_again": PASSWORD},
        headers=RU,
    )
    # then logged in, to the console's list of its events
    assert answer.status_code == 302
    assert answer["Location"] == reverse("admin:tournaments_tournament_changelist")
    listing = visitor.get(answer["Location"], headers=RU)
    assert listing.status_code == 200
    assert [t.pk for t in listing.context["cl"].result_list] == [a.pk]
    user = User.objects.get(username="new-ref")
    assert can_referee(user, a) and not can_referee(user, b)
    # A's console pages open, B's look missing; nothing of an organiser's or a superuser's
    progress = "admin:tournaments_tournament_progress"
    assert visitor.get(reverse(progress, args=[a.pk])).status_code == 200
    assert visitor.get(reverse(progress, args=[b.pk])).status_code == 404
    assert visitor.get(reverse("admin:tournaments_tournament_add")).status_code == 403
    assert visitor.get(reverse("admin:auth_user_add")).status_code == 403
    assert visitor.get(referees_url(a)).status_code == 403
    # the link works once
    again = Client().get(link, headers=RU)
    assert again.status_code == 410
    assert "Это приглашение уже принято." in again.content.decode()


def test_a_logged_in_account_accepts_with_one_click(
    organiser: User, events: tuple[Tournament, Tournament], django_capture_on_commit_callbacks: Any
) -> None:
    a = events[0]
    existing = User.objects.create_user("club-member", "member@example.com", PASSWORD)
    with django_capture_on_commit_callbacks(execute=True):
        invite(as_user(organiser), staff_url(), "member@example.com", a)
    link = link_in(mail.outbox[0].body)
    client = as_user(existing)
    page = client.get(link, headers=RU).content.decode()
    assert "Вы вошли как club-member" in page
    assert client.post(link, {}, headers=RU).status_code == 302
    assert can_referee(existing, a)


def test_an_invitation_for_an_event_not_one_s_own_is_refused_on_the_form(
    organiser: User, events: tuple[Tournament, Tournament], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = events
    with django_capture_on_commit_callbacks(execute=True):
        response = invite(as_user(organiser), staff_url(), "x@example.com", a, b)
    assert response.status_code == 200
    assert response.context["invite"].errors["tournaments"]
    assert mail.outbox == [] and not RefereeInvitation.objects.exists()


SPOILT = {
    "expired": ({"expires_at": timezone.now() - dt.timedelta(minutes=1)}, "Срок приглашения истёк"),
    "revoked": ({"revoked_at": timezone.now()}, "Организатор отозвал это приглашение"),
}


@pytest.mark.parametrize("how", sorted(SPOILT))
def test_a_spoilt_link_says_why(
    organiser: User,
    events: tuple[Tournament, Tournament],
    django_capture_on_commit_callbacks: Any,
    how: str,
) -> None:
    spoil, words = SPOILT[how]
    with django_capture_on_commit_callbacks(execute=True):
        invite(as_user(organiser), staff_url(), "late@example.com", events[0])
    link = link_in(mail.outbox[0].body)
    RefereeInvitation.objects.update(**spoil)
    for response in (Client().get(link, headers=RU), Client().post(link, {}, headers=RU)):
        assert response.status_code == 410
        assert words in response.content.decode()
    unknown = Client().get(link.replace("/invitation/", "/invitation/x"), headers=RU)
    assert unknown.status_code == 404
    assert "Такой ссылки-приглашения нет" in unknown.content.decode()


def test_the_new_account_s_errors_show_on_their_fields(
    organiser: User, events: tuple[Tournament, Tournament], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        invite(as_user(organiser), staff_url(), "ref@example.com", events[0])
    link = link_in(mail.outbox[0].body)
    response = Client().post(
        link, {"username": "organiser", "password": "1", "password_again": "1"}, headers=RU
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert set(errors) == {"username", "password"}
    assert RefereeInvitation.objects.get().accepted_at is None


def test_an_address_with_an_account_already_is_told_to_log_in(
    organiser: User, events: tuple[Tournament, Tournament], django_capture_on_commit_callbacks: Any
) -> None:
    User.objects.create_user("has-account", "ref@example.com", PASSWORD)
    with django_capture_on_commit_callbacks(execute=True):
        invite(as_user(organiser), staff_url(), "ref@example.com", events[0])
    link = link_in(mail.outbox[0].body)
    response = Client().post(
        link, {"username": "has-account", "password": "1", "password_again": "1"}, headers=RU
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert set(form.errors) == {"username", "password", "__all__"}
    assert "учётная запись с этим адресом" in " ".join(form.non_field_errors()).lower()


# --- an account made by the organiser, removal, revocation ---------------------------------


def test_an_account_made_without_a_password_gets_a_set_password_link(
    organiser: User, events: tuple[Tournament, Tournament]
) -> None:
    a = events[0]
    response = as_user(organiser).post(
        referees_url(a),
        {
            "action": "create",
            "create-username": "hall-ref",
            "create-display_name": "Пётр Судья",
            "create-tournaments": [a.pk],
        },
        headers=RU,
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Учётная запись hall-ref создана" in page
    link = response.context["handed"]["link"]
    assert "/accounts/password-reset/" in link
    # the referee sets its password through the link, then logs in and sees A
    referee = Client()
    form = referee.get(link, follow=True)
    assert form.status_code == 200 and form.context["validlink"]
    done = referee.post(
        form.redirect_chain[-1][0], {"new_password1": PASSWORD, "new_password2": PASSWORD}
    )
    assert done.status_code == 302
    logged_in = referee.post(reverse("login"), {"username": "hall-ref", "password": PASSWORD})
    assert logged_in.status_code == 302
    assert (
        referee.get(reverse("admin:tournaments_tournament_progress", args=[a.pk])).status_code
        == 200
    )
    user = User.objects.get(username="hall-ref")
    assert user.get_full_name() == "Пётр Судья" and can_referee(user, a)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.REFEREE_CREATE).count() == 1


def test_remove_asks_then_unassigns(
    organiser: User, event_referee: User, events: tuple[Tournament, Tournament]
) -> None:
    a = events[0]
    client = as_user(organiser)
    asked = client.get(referees_url(a) + f"?remove={event_referee.pk}", headers=RU)
    assert "Снять event-referee с судейства этих турниров?" in asked.content.decode()
    assert can_referee(event_referee, a)  # asking changes nothing
    done = client.post(referees_url(a), {"action": "remove", "user": event_referee.pk})
    assert done.status_code == 302
    assert not a.referees.filter(pk=event_referee.pk).exists()
    event_referee.refresh_from_db()
    assert event_referee.is_active and event_referee.groups.filter(name="referee").exists()


def test_another_organiser_s_referee_cannot_be_removed(
    organiser: User, other_referee: User, events: tuple[Tournament, Tournament]
) -> None:
    response = as_user(organiser).post(staff_url(), {"action": "remove", "user": other_referee.pk})
    assert response.status_code == 404
    assert events[1].referees.filter(pk=other_referee.pk).exists()


def test_revoke_from_the_list(
    organiser: User, events: tuple[Tournament, Tournament], django_capture_on_commit_callbacks: Any
) -> None:
    client = as_user(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        invite(client, staff_url(), "ref@example.com", events[0])
    invitation = RefereeInvitation.objects.get()
    done = client.post(staff_url(), {"action": "revoke", "invitation": invitation.pk})
    assert done.status_code == 302
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    assert 'data-email="ref@example.com"' not in client.get(staff_url()).content.decode()
