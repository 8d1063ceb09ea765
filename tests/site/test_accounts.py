"""Players' accounts: sign up, log in and out (by username or email, in any case), the password
reset by email and the password change, the profile (and its language), and the login
throttling of django-axes on the players' login and the admin's, with its reset."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from tests.factories import PlayerFactory, UserFactory
from tests.site.test_settings import run_python
from tournaments.errors import RegistrationError
from tournaments.models import AuditEvent, Player
from tournaments.services.people import player_sign_up

pytestmark = pytest.mark.django_db

PASSWORD = "Kozyrnaya-Dama-77"
SIGN_UP = {
    "username": "vasya",
    "email": "vasya@example.org",
    "password": PASSWORD,
    "password_again": PASSWORD,
    "display_name": "Вася Пупкин",
    "club": "Клуб «Туз»",
    "city": "Тверь",
    "language": "",
}


def web(language: str = "en", **headers: str) -> Client:
    """A browser that asks for ``language`` (the site's default is Russian)."""
    return Client(headers={"accept-language": language, **headers})


def member(username: str = "masha", *, language: str = "") -> Player:
    """A signed-up player whose password is :data:`PASSWORD`."""
    return player_sign_up(
        username=username,
        email=f"{username}@example.org",
        password=PASSWORD,
        display_name=username.capitalize(),
        language=language,
    )


def field_errors(html: str) -> str:
    return " ".join(re.findall(r'<ul class="errorlist"[^>]*>(.*?)</ul>', html, re.S))


# --- sign up ------------------------------------------------------------------------------------


def test_a_new_player_signs_up_and_is_logged_in_with_a_profile() -> None:
    client = web()
    assert client.get(reverse("signup")).status_code == 200
    response = client.post(reverse("signup"), {**SIGN_UP, "language": "en"})
    assert response.status_code == 302 and response["Location"] == reverse("my-games")
    user = User.objects.get(username="vasya")
    assert user.email == "vasya@example.org" and user.check_password(PASSWORD)
    assert not user.is_staff
    player = Player.objects.get(user=user)
    assert (player.display_name, player.club, player.city, player.language) == (
        "Вася Пупкин",
        "Клуб «Туз»",
        "Тверь",
        "en",
    )
    # logged in, and the chosen language is the site's from now on
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    page = client.get(reverse("my-games")).content.decode()
    assert "Вася Пупкин" in page and "Welcome" in page


def test_sign_up_goes_back_to_where_the_player_came_from() -> None:
    response = web().post(reverse("signup"), {**SIGN_UP, "next": "/tournaments/cup/"})
    assert response["Location"] == "/tournaments/cup/"
    elsewhere = web().post(
        reverse("signup"),
        {
            **SIGN_UP,
            "username": "other",
            "email": "o@example.org",
            "display_name": "Other",
            "next": "https://evil.example/",
        },
    )
    assert elsewhere["Location"] == reverse("my-games")


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"username": ""}, "username", "This field is required"),
        ({"username": "вася пупкин!"}, "username", "Enter a valid username"),
        ({"email": "not-an-address"}, "email", "valid email"),
        ({"display_name": "  "}, "display_name", "This field is required"),
        ({"password": "123", "password_again": "123"}, "password", "too short"),
        ({"password": "password", "password_again": "password"}, "password", "too common"),
        ({"password_again": "something-else-9"}, "password_again", "The two passwords differ"),
        ({"language": "de"}, "language", "Select a valid choice"),
    ],
)
def test_sign_up_shows_what_is_wrong_on_its_field(
    change: dict[str, str], field: str, message: str
) -> None:
    response = web().post(reverse("signup"), {**SIGN_UP, **change})
    assert response.status_code == 200
    html = response.content.decode()
    assert message in field_errors(html), field_errors(html)
    assert f'id="id_{field}_error"' in html or f"id_{field}" in html
    assert not User.objects.filter(username="vasya").exists()
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"username": "MASHA"}, "this username is taken"),
        ({"email": "Masha@Example.ORG"}, "an account with this email address exists"),
        ({"display_name": "masha"}, "a player called masha already exists"),
    ],
)
def test_taken_names_and_addresses_are_refused_in_any_case(
    change: dict[str, str], message: str
) -> None:
    member("masha")
    response = web().post(reverse("signup"), {**SIGN_UP, **change})
    assert message in field_errors(response.content.decode())
    assert User.objects.count() == 1 and Player.objects.count() == 1


@pytest.mark.parametrize("spelling", ["ВАСЯ ПУПКИН", "вася пупкин", "Вася пупкин"])
def test_a_cyrillic_name_is_taken_in_its_usual_spellings(spelling: str) -> None:
    PlayerFactory.create(display_name="Вася Пупкин")
    response = web().post(reverse("signup"), {**SIGN_UP, "display_name": spelling})
    assert "already exists" in field_errors(response.content.decode())
    assert not User.objects.filter(username="vasya").exists()


def test_the_sign_up_service_names_every_field_at_fault_at_once() -> None:
    member("masha")
    with pytest.raises(RegistrationError) as refused:
        player_sign_up(username="Masha", email="bad", password="1", display_name="", language="xx")
    assert refused.value.code == "registration_refused"
    assert set(refused.value.fields) == {
        "username",
        "email",
        "display_name",
        "password",
        "language",
    }
    assert User.objects.count() == 1


def test_a_logged_in_player_is_sent_on_from_the_sign_up() -> None:
    client = web()
    client.force_login(member().user)  # type: ignore[arg-type]
    assert client.get(reverse("signup"))["Location"] == reverse("my-games")


# --- log in and out -----------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["masha", "MaSha", "masha@example.org", "MASHA@EXAMPLE.ORG"])
def test_a_player_logs_in_by_username_or_email_in_any_case(typed: str) -> None:
    player = member("masha")
    client = web()
    response = client.post(reverse("login"), {"username": typed, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("my-games")
    assert client.get(reverse("my-games")).context["user"] == player.user


def test_a_player_who_is_not_staff_can_log_in_and_the_admin_still_refuses_them() -> None:
    player = member("masha")
    client = web()
    page = client.get(reverse("login")).content.decode()
    assert 'name="username"' in page and "Forgot your password?" in page
    client.post(reverse("login"), {"username": "masha", "password": PASSWORD})
    assert client.get(reverse("profile")).status_code == 200
    # the console is still staff only: the admin sends them to its own login
    admin = client.get(reverse("admin:index"))
    assert admin.status_code == 302 and admin["Location"].startswith(reverse("admin:login"))
    assert player.user is not None and not player.user.is_staff


def test_a_wrong_password_is_refused_with_a_message() -> None:
    member("masha")
    client = web()
    response = client.post(reverse("login"), {"username": "masha", "password": "wrong"})
    assert response.status_code == 200
    assert "Please enter a correct" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_login_follows_next_only_to_this_site() -> None:
    member("masha")
    ok = web().post(reverse("login"), {"username": "masha", "password": PASSWORD, "next": "/me/"})
    assert ok["Location"] == "/me/"
    evil = web().post(
        reverse("login"),
        {"username": "masha", "password": PASSWORD, "next": "https://evil.example/x"},
    )
    assert evil["Location"] == reverse("my-games")


def test_the_player_s_language_becomes_the_site_s_when_they_log_in() -> None:
    member("masha", language="en")
    client = web("ru")
    response = client.post(reverse("login"), {"username": "masha", "password": PASSWORD})
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    page = client.get(reverse("my-games")).content.decode()
    assert "My games" in page and "Мои игры" not in page


def test_log_out_is_a_post() -> None:
    player = member("masha")
    client = web()
    client.force_login(player.user)  # type: ignore[arg-type]
    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))
    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert "_auth_user_id" not in client.session
    assert client.get(reverse("my-games"))["Location"].startswith(reverse("login"))


def test_the_header_offers_log_in_and_sign_up_or_the_player_s_own_pages() -> None:
    anonymous = web().get(reverse("home")).content.decode()
    assert f'href="{reverse("signup")}"' in anonymous and reverse("login") in anonymous
    assert reverse("logout") not in anonymous
    client = web()
    client.force_login(member().user)  # type: ignore[arg-type]
    logged_in = client.get(reverse("home")).content.decode()
    for name in ("my-games", "profile", "logout"):
        assert reverse(name) in logged_in
    assert f'href="{reverse("signup")}"' not in logged_in


def test_the_account_pages_are_russian_by_default() -> None:
    assert "Войти" in Client().get(reverse("login")).content.decode()


# --- password reset and change ---------------------------------------------------------------


def test_a_forgotten_password_is_reset_through_the_emailed_link(settings: Settings) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    member("masha")
    client = web()
    response = client.post(reverse("password_reset"), {"email": "MASHA@example.org"})
    assert response["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["masha@example.org"] and "masha" in message.body
    link = re.search(r"http://testserver(/accounts/password-reset/\S+/)", str(message.body))
    assert link is not None, message.body
    # Django swaps the token for a session-held one, then asks for the new password twice
    form = client.get(link.group(1), follow=True)
    assert form.context["validlink"]
    new = "Novyi-Parol-2027"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done["Location"] == reverse("password_reset_complete")
    assert web().post(reverse("login"), {"username": "masha", "password": new}).status_code == 302
    # the link works once
    again = client.get(link.group(1), follow=True)
    assert not again.context["validlink"]


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_the_same(
    settings: Settings,
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    response = web().post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


def test_a_player_changes_their_password() -> None:
    player = member("masha")
    client = web()
    client.force_login(player.user)  # type: ignore[arg-type]
    new = "Drugoi-Parol-42"
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response["Location"] == reverse("profile")
    assert client.get(reverse("profile")).status_code == 200  # still logged in
    assert User.objects.get(username="masha").check_password(new)


def test_email_is_printed_unless_an_smtp_host_is_set() -> None:
    probe = (
        "import django, json; django.setup(); from django.conf import settings as s;"
        "print(json.dumps([s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS,"
        " s.EMAIL_USE_SSL, s.DEFAULT_FROM_EMAIL]))"
    )
    plain = run_python(probe)
    assert plain.returncode == 0, plain.stderr
    assert '"django.core.mail.backends.console.EmailBackend"' in plain.stdout
    smtp = run_python(
        probe,
        EMAIL_HOST="smtp.example.org",
        EMAIL_USE_SSL="1",
        DEFAULT_FROM_EMAIL="cup@example.org",
    )
    assert smtp.returncode == 0, smtp.stderr
    assert smtp.stdout.strip() == (
        '["django.core.mail.backends.smtp.EmailBackend", "smtp.example.org", 465, false, true,'
        ' "cup@example.org"]'
    )
    both = run_python(probe, EMAIL_USE_SSL="1", EMAIL_USE_TLS="1")
    assert both.returncode != 0 and "EMAIL_USE_TLS and EMAIL_USE_SSL" in both.stderr


# --- the profile ------------------------------------------------------------------------------


def test_a_player_edits_their_profile_and_the_change_is_audited() -> None:
    player = member("masha")
    client = web()
    client.force_login(player.user)  # type: ignore[arg-type]
    page = client.get(reverse("profile")).content.decode()
    assert 'value="Masha"' in page and "masha@example.org" in page
    response = client.post(
        reverse("profile"),
        {"display_name": "Мария", "club": "Туз", "city": "Псков", "language": "ru"},
    )
    assert response["Location"] == reverse("profile")
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ru"
    player.refresh_from_db()
    assert (player.display_name, player.club, player.city, player.language) == (
        "Мария",
        "Туз",
        "Псков",
        "ru",
    )
    audit = AuditEvent.objects.get(action=AuditEvent.Action.PLAYER_EDIT)
    assert audit.actor == player.user
    assert audit.before == {"display_name": "Masha", "club": "", "city": "", "language": ""}
    # the browser's choice again: the cookie goes
    cleared = client.post(reverse("profile"), {"display_name": "Мария", "language": ""})
    assert cleared.cookies[settings.LANGUAGE_COOKIE_NAME].value == ""


def test_a_profile_cannot_take_another_player_s_name() -> None:
    member("masha")
    player = member("dasha")
    client = web()
    client.force_login(player.user)  # type: ignore[arg-type]
    response = client.post(reverse("profile"), {"display_name": "MASHA", "language": ""})
    assert "a player called MASHA already exists" in field_errors(response.content.decode())
    player.refresh_from_db()
    assert player.display_name == "Dasha"


def test_a_user_without_a_player_makes_one_on_the_profile_page() -> None:
    user = UserFactory.create(username="organiser-who-plays")
    client = web()
    client.force_login(user)
    assert "no player profile yet" in client.get(reverse("profile")).content.decode()
    client.post(reverse("profile"), {"display_name": "Орг", "city": "Омск", "language": "en"})
    player = Player.objects.get(user=user)
    assert (player.display_name, player.city, player.language) == ("Орг", "Омск", "en")


def test_the_account_pages_need_a_login() -> None:
    for name in ("profile", "my-games", "password_change"):
        response = web().get(reverse(name))
        assert response.status_code == 302
        assert response["Location"].startswith(f"{reverse('login')}?next=")


# --- login throttling (django-axes) ------------------------------------------------------------

LIMIT = 5


@pytest.fixture
def throttled(settings: Settings) -> None:
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)


def fail(client: Client, url: str, username: str, times: int) -> list[int]:
    return [
        client.post(url, {"username": username, "password": "wrong"}).status_code
        for _ in range(times)
    ]


@pytest.mark.usefixtures("throttled")
def test_the_players_login_locks_a_name_out_after_repeated_failures() -> None:
    member("masha")
    client = web()
    codes = fail(client, reverse("login"), "masha", LIMIT)
    assert codes == [200] * (LIMIT - 1) + [429]
    # the right password now is refused too, with a page that says why and when
    locked = client.post(reverse("login"), {"username": "masha", "password": PASSWORD})
    assert locked.status_code == 429 and locked["Retry-After"] == "900"
    html = locked.content.decode()
    assert "login_locked_out" in html and "try again in 15 minutes" in html
    assert "_auth_user_id" not in client.session
    # the name in another case, or the email address, is the same account: locked too
    for typed in ("MASHA", "masha@example.org"):
        again = client.post(reverse("login"), {"username": typed, "password": PASSWORD})
        assert again.status_code == 429


def visible_text(html: str) -> str:
    """What a reader of ``html`` sees: its text without tags (attributes included) or the head."""
    body = html[html.index("<body") :]
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


@pytest.mark.usefixtures("throttled")
@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "Too many failed logins with this name from your address: try again in 15 minutes"),
        ("ru", "Слишком много неудачных попыток входа под этим именем с вашего адреса"),
    ],
)
def test_the_lockout_page_says_it_in_words_not_in_a_code(language: str, sentence: str) -> None:
    # given a name locked out after repeated failures
    member("masha")
    client = web(language)
    fail(client, reverse("login"), "masha", LIMIT)
    # when its owner tries again
    locked = client.post(reverse("login"), {"username": "masha", "password": PASSWORD})
    # then the page says what happened in a sentence of the reader's language, and no raw code
    assert locked.status_code == 429
    text = visible_text(locked.content.decode())
    assert sentence in text
    assert "login_locked_out" not in text and "locked_out" not in text
    # (the code stays for scripts: in the alert's data-code, and in the JSON answer)
    assert 'data-code="login_locked_out"' in locked.content.decode()


@pytest.mark.usefixtures("throttled")
def test_the_admin_login_is_throttled_the_same_way(referee: User) -> None:
    client = web()
    url = reverse("admin:login")
    assert fail(client, url, referee.username, LIMIT)[-1] == 429
    locked = client.post(url, {"username": referee.username, "password": "pw-for-tests-only"})
    assert locked.status_code == 429 and "login_locked_out" in locked.content.decode()


@pytest.mark.usefixtures("throttled")
def test_a_script_is_told_in_json() -> None:
    member("masha")
    client = web(accept="application/json")
    fail(client, reverse("login"), "masha", LIMIT)
    locked = client.post(reverse("login"), {"username": "masha", "password": PASSWORD})
    assert locked.status_code == 429 and locked["Content-Type"] == "application/json"
    body = locked.json()
    assert body["code"] == "login_locked_out" and body["retry_after"] == 900
    assert "try again in 15 minutes" in body["message"]


@pytest.mark.usefixtures("throttled")
def test_the_lock_is_per_name_and_address() -> None:
    member("masha")
    member("dasha")
    fail(web(), reverse("login"), "masha", LIMIT)
    # another player at the same address (a club's room) still logs in
    assert (
        web().post(reverse("login"), {"username": "dasha", "password": PASSWORD}).status_code == 302
    )
    # and so does masha from another address
    elsewhere = Client(REMOTE_ADDR="10.1.2.3", headers={"accept-language": "en"})
    assert (
        elsewhere.post(reverse("login"), {"username": "masha", "password": PASSWORD}).status_code
        == 302
    )


@pytest.mark.usefixtures("throttled")
def test_a_success_clears_the_count_of_failures() -> None:
    member("masha")
    client = web()
    fail(client, reverse("login"), "masha", LIMIT - 1)
    assert (
        client.post(reverse("login"), {"username": "masha", "password": PASSWORD}).status_code
        == 302
    )
    client.post(reverse("logout"))
    assert fail(client, reverse("login"), "masha", LIMIT - 1) == [200] * (LIMIT - 1)


@pytest.mark.usefixtures("throttled")
def test_the_lock_ends_after_the_cool_off() -> None:
    member("masha")
    fail(web(), reverse("login"), "masha", LIMIT)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    ok = web().post(reverse("login"), {"username": "masha", "password": PASSWORD})
    assert ok.status_code == 302


@pytest.mark.usefixtures("throttled")
@pytest.mark.parametrize(
    "command", [("axes_reset",), ("axes_reset_username", "masha")], ids=lambda c: c[0]
)
def test_an_administrator_lifts_a_lock(command: tuple[str, ...]) -> None:
    member("masha")
    fail(web(), reverse("login"), "masha", LIMIT)
    assert (
        web().post(reverse("login"), {"username": "masha", "password": PASSWORD}).status_code == 429
    )
    call_command(*command, verbosity=0)
    assert (
        web().post(reverse("login"), {"username": "masha", "password": PASSWORD}).status_code == 302
    )
