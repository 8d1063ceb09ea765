"""The console's people: players are changed and teams added and changed by organisers (and
superusers), through ``player_update``, ``team_create`` and ``team_update``, each change
audited; referees see them but change nothing; an outsider is sent to the login. The services
refuse a blank or too long name, a user account for a bot or one already taken, and new
members for a team that has played. Whose players and teams an organiser may change (those of
its own events, or that it added) is ``test_people_permissions``'."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import models
from django.test import Client
from django.urls import reverse

from durak_site.errors import ServiceError
from tests.builders import ConsoleEvent
from tests.factories import BotPlayerFactory, PlayerFactory, UserFactory
from tournaments import services
from tournaments.models import AuditEvent, Player, Team, Tournament

pytestmark = pytest.mark.django_db

ENGLISH = {"Accept-Language": "en"}


def url(model: type[models.Model], page: str, *args: Any) -> str:
    return reverse(f"admin:tournaments_{model._meta.model_name}_{page}", args=args)


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def player_form(player: Player, **changes: Any) -> dict[str, Any]:
    """The player's change form as the page posts it, with ``changes``."""
    data = {
        "display_name": player.display_name,
        "club": player.club,
        "city": player.city,
        "user": player.user_id or "",
    }
    return {**data, **changes}


def team_form(name: str, *members: Player) -> dict[str, Any]:
    partners = [m.pk for m in members] + [""] * (3 - len(members))
    return {"name": name, **dict(zip(("first", "second", "third"), partners, strict=True))}


def members(team: Team) -> list[int]:
    return list(team.memberships.order_by("order").values_list("player_id", flat=True))


def team_event(*, started: bool, owner: User | None = None) -> tuple[Tournament, list[Team]]:
    """A pairs event (two teams per four-seat table) of ``owner``'s with four teams registered;
    started, or still open for registration."""
    tournament = services.tournament_create(
        name="Пары",
        team_size=2,
        move_clock_seconds=0,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=owner,
    )
    services.tournament_open_registration(tournament=tournament)
    players = PlayerFactory.create_batch(8)
    teams = [
        services.team_create(name=f"Пара {i}", players=players[i : i + 2]) for i in range(0, 8, 2)
    ]
    for team in teams:
        services.entry_register(tournament=tournament, team=team)
    if started:
        services.tournament_start(tournament=tournament)
    return tournament, teams


def refused(exc: pytest.ExceptionInfo[ServiceError], field: str, words: str) -> bool:
    return field in exc.value.fields and words in exc.value.message


# --- players in the console ------------------------------------------------------------------


def test_an_organiser_changes_its_player_but_not_the_account_it_plays_as(
    organiser: User,
) -> None:
    # given a player the organiser added
    player = PlayerFactory.create(display_name="Иван", club="", created_by=organiser)
    account = UserFactory.create(username="ivan-new")
    linked = player.user_id
    client = logged_in(organiser)
    assert (
        "user" not in client.get(url(Player, "change", player.pk)).context["adminform"].form.fields
    )

    # when
    response = client.post(
        url(Player, "change", player.pk),
        player_form(player, display_name="  Иван Петров ", club="Ферзь", user=account.pk),
    )

    # then the profile changed, the account did not
    assert response.status_code == 302
    player.refresh_from_db()
    assert (player.display_name, player.club, player.user_id) == ("Иван Петров", "Ферзь", linked)
    audit = AuditEvent.objects.get(action=AuditEvent.Action.PLAYER_EDIT)
    assert audit.actor == organiser
    assert audit.after == {"display_name": "Иван Петров", "club": "Ферзь"}


def test_a_superuser_changes_a_player_and_its_account_and_the_change_is_audited(
    superuser: User,
) -> None:
    # given
    user = superuser
    player = PlayerFactory.create(display_name="Иван", club="")
    assert player.user is not None
    player_user_before = player.user.username
    account = UserFactory.create(username="ivan-new")

    # when
    response = logged_in(user).post(
        url(Player, "change", player.pk),
        player_form(player, display_name="  Иван Петров ", club="Ферзь", user=account.pk),
    )

    # then
    assert response.status_code == 302
    player.refresh_from_db()
    assert (player.display_name, player.club, player.user_id) == (
        "Иван Петров",
        "Ферзь",
        account.pk,
    )
    audit = AuditEvent.objects.get(action=AuditEvent.Action.PLAYER_EDIT)
    assert audit.tournament is None and audit.target_id == player.pk and audit.actor == user
    assert audit.after == {"display_name": "Иван Петров", "club": "Ферзь", "user": "ivan-new"}
    assert audit.before == {"display_name": "Иван", "club": "", "user": player_user_before}


def test_a_blank_name_is_shown_on_the_form_and_nothing_changes(organiser: User) -> None:
    player = PlayerFactory.create(display_name="Иван", created_by=organiser)
    response = logged_in(organiser).post(
        url(Player, "change", player.pk), player_form(player, display_name="   "), headers=ENGLISH
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["display_name"]
    player.refresh_from_db()
    assert player.display_name == "Иван"
    assert not AuditEvent.objects.exists()


def test_a_bots_user_account_is_not_on_its_form(superuser: User) -> None:
    bot = BotPlayerFactory.create()
    account = UserFactory.create()
    client = logged_in(superuser)
    page = client.get(url(Player, "change", bot.pk))
    assert "user" not in page.context["adminform"].form.fields
    response = client.post(
        url(Player, "change", bot.pk), player_form(bot, club="Боты", user=account.pk)
    )
    assert response.status_code == 302
    bot.refresh_from_db()
    assert (bot.club, bot.user_id) == ("Боты", None)


def test_a_referee_sees_a_player_but_cannot_change_it(
    event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    player = console_events[0].entries[0].player
    assert player is not None
    Player.objects.filter(pk=player.pk).update(display_name="Иван")
    player.refresh_from_db()
    client = logged_in(event_referee)
    page = client.get(url(Player, "change", player.pk))
    assert page.status_code == 200 and not page.context["has_change_permission"]
    response = client.post(
        url(Player, "change", player.pk), player_form(player, display_name="Пётр")
    )
    assert response.status_code == 403
    player.refresh_from_db()
    assert player.display_name == "Иван"


def test_an_outsider_is_sent_to_the_login(outsider: User) -> None:
    player = PlayerFactory.create()
    team = services.team_create(name="Пара", players=PlayerFactory.create_batch(2))
    client = logged_in(outsider)
    for address, data in (
        (url(Player, "change", player.pk), player_form(player, display_name="Пётр")),
        (url(Team, "add"), team_form("Новая", *PlayerFactory.create_batch(2))),
        (url(Team, "change", team.pk), team_form("Другая", *team.members.all())),
    ):
        for response in (client.get(address), client.post(address, data)):
            assert response.status_code == 302
            assert response["Location"].startswith(reverse("admin:login"))
    assert Team.objects.count() == 1 and not AuditEvent.objects.exists()


# --- player_update --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"display_name": "  "}, "display_name", "needs a display name"),
        ({"display_name": "я" * 81}, "display_name", "at most 80"),
        ({"club": "к" * 81}, "club", "at most 80"),
        ({"rating_mu": 40.0}, "rating_mu", "not a player's field"),
    ],
)
def test_player_update_refuses_a_bad_field(
    changes: dict[str, Any], field: str, words: str, organiser: User
) -> None:
    player = PlayerFactory.create(display_name="Иван", created_by=organiser)
    with pytest.raises(ServiceError) as exc:
        services.player_update(player=player, actor=organiser, **changes)
    assert refused(exc, field, words)
    player.refresh_from_db()
    assert player.display_name == "Иван" and player.rating_mu == 25.0


def test_player_update_links_no_bot_and_no_account_twice(superuser: User) -> None:
    bot = BotPlayerFactory.create()
    account = UserFactory.create()
    with pytest.raises(ServiceError) as exc:
        services.player_update(player=bot, actor=superuser, user=account)
    assert refused(exc, "user", "a bot cannot have a user account")
    first, second = PlayerFactory.create_batch(2)
    with pytest.raises(ServiceError) as exc:
        services.player_update(player=second, actor=superuser, user=first.user)
    assert refused(exc, "user", f"already plays as {first}")
    # and unlinking is a change like any other
    services.player_update(player=first, actor=superuser, user=None)
    first.refresh_from_db()
    assert first.user_id is None


def test_player_update_writes_nothing_when_nothing_changes(organiser: User) -> None:
    player = PlayerFactory.create(display_name="Иван", club="Ферзь", created_by=organiser)
    services.player_update(player=player, actor=organiser, display_name=" Иван ", club="Ферзь")
    assert not AuditEvent.objects.exists()


# --- teams in the console --------------------------------------------------------------------


@pytest.mark.parametrize("who", ["organiser", "superuser"])
def test_an_organiser_adds_a_team_with_its_partners_in_order(
    who: str, request: pytest.FixtureRequest
) -> None:
    user: User = request.getfixturevalue(who)
    a, b, c = PlayerFactory.create_batch(3, club="Ферзь")
    response = logged_in(user).post(url(Team, "add"), team_form("Трое", c, a, b))
    assert response.status_code == 302
    team = Team.objects.get()
    assert (team.name, members(team)) == ("Трое", [c.pk, a.pk, b.pk])
    audit = AuditEvent.objects.get(action=AuditEvent.Action.TEAM_CREATE)
    assert audit.target_id == team.pk and audit.actor == user
    assert audit.after == {"name": "Трое", "members": [str(c), str(a), str(b)]}
    # the list shows its members and their club
    listing = logged_in(user).get(url(Team, "changelist")).content.decode()
    assert f"{c}, {a}, {b}" in listing and "Ферзь" in listing


def test_the_partners_are_found_with_the_players_search(organiser: User) -> None:
    wanted = PlayerFactory.create(display_name="Зоя Соколова")
    PlayerFactory.create(display_name="Иван")
    client = logged_in(organiser)
    page = client.get(url(Team, "add")).content.decode()
    assert 'data-model-name="teammember"' in page and 'data-field-name="player"' in page
    found = client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": "tournaments",
            "model_name": "teammember",
            "field_name": "player",
            "term": "Зоя",
        },
    )
    assert found.status_code == 200
    assert [r["id"] for r in found.json()["results"]] == [str(wanted.pk)]


def test_a_team_without_a_name_takes_its_partners_names(organiser: User) -> None:
    a, b = PlayerFactory.create_batch(2)
    response = logged_in(organiser).post(url(Team, "add"), team_form("", a, b))
    assert response.status_code == 302
    assert Team.objects.get().name == f"{a} & {b}"


def test_a_player_twice_in_a_team_is_refused_on_the_form(organiser: User) -> None:
    a = PlayerFactory.create()
    response = logged_in(organiser).post(url(Team, "add"), team_form("Пара", a, a))
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert "игрок не может быть в команде дважды" in errors  # the console's language
    assert not Team.objects.exists()


def test_an_organiser_renames_a_team_and_changes_its_members(organiser: User) -> None:
    a, b, c = PlayerFactory.create_batch(3)
    team = services.team_create(name="Пара", players=[a, b], actor=organiser)
    AuditEvent.objects.all().delete()
    client = logged_in(organiser)
    page = client.get(url(Team, "change", team.pk))
    assert page.context["adminform"].form.initial["first"] == a.pk
    response = client.post(url(Team, "change", team.pk), team_form("Новая пара", b, c))
    assert response.status_code == 302
    team.refresh_from_db()
    assert (team.name, members(team)) == ("Новая пара", [b.pk, c.pk])
    audit = AuditEvent.objects.get(action=AuditEvent.Action.TEAM_EDIT)
    assert audit.before == {"members": [str(a), str(b)], "name": "Пара"}
    assert audit.after == {"members": [str(b), str(c)], "name": "Новая пара"}


def test_a_referee_sees_a_team_but_neither_adds_nor_changes_one(event_referee: User) -> None:
    a, b = PlayerFactory.create_batch(2)
    team = services.team_create(name="Пара", players=[a, b])
    tournament = services.tournament_create(
        name="Пары", team_size=2, stages=[{"format": "swiss", "table_size": 4, "rounds": 1}]
    )
    tournament.referees.add(event_referee)
    services.tournament_open_registration(tournament=tournament)
    services.entry_register(tournament=tournament, team=team)
    client = logged_in(event_referee)
    assert client.get(url(Team, "changelist")).status_code == 200
    page = client.get(url(Team, "change", team.pk), headers=ENGLISH)
    assert page.status_code == 200 and not page.context["has_change_permission"]
    assert f"{a}, {b}" in page.content.decode()
    assert client.get(url(Team, "add")).status_code == 403
    assert client.post(url(Team, "add"), team_form("Другая", a, b)).status_code == 403
    response = client.post(url(Team, "change", team.pk), team_form("Другая", b, a))
    assert response.status_code == 403
    team.refresh_from_db()
    assert (team.name, members(team)) == ("Пара", [a.pk, b.pk])
    assert Team.objects.count() == 1


def test_a_team_that_has_played_keeps_its_members_but_may_be_renamed(organiser: User) -> None:
    # given a team entered in an event that has started
    _, teams = team_event(started=True, owner=organiser)
    team = teams[0]
    before = members(team)
    newcomer = PlayerFactory.create()
    client = logged_in(organiser)

    # when the organiser changes its members, then the form says why not
    response = client.post(
        url(Team, "change", team.pk),
        team_form(team.name, *Player.objects.filter(pk=before[0]), newcomer),
        headers=ENGLISH,
    )
    assert response.status_code == 200
    errors = " ".join(response.context["adminform"].form.non_field_errors())
    assert "which has started: its members cannot change" in errors
    assert members(team) == before

    # but a new name is fine
    partners = sorted(Player.objects.filter(pk__in=before), key=lambda p: before.index(p.pk))
    response = client.post(url(Team, "change", team.pk), team_form("Чемпионы", *partners))
    assert response.status_code == 302
    team.refresh_from_db()
    assert (team.name, members(team)) == ("Чемпионы", before)


# --- team_create and team_update --------------------------------------------------------------


def test_team_update_refuses_new_members_once_the_event_has_started(organiser: User) -> None:
    tournament, teams = team_event(started=True, owner=organiser)
    newcomer = PlayerFactory.create()
    first = teams[0].memberships.get(order=0).player
    with pytest.raises(ServiceError) as exc:
        services.team_update(team=teams[0], actor=organiser, players=[first, newcomer])
    assert refused(exc, "members", f"has an entry in {tournament}, which has started")
    # a cancelled event that had started counts as started
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.CANCELLED)
    with pytest.raises(ServiceError):
        services.team_update(team=teams[0], actor=organiser, players=[first, newcomer])
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.TEAM_EDIT).exists()


def test_team_update_keeps_a_registered_team_fit_for_its_event(organiser: User) -> None:
    # given teams registered for a pairs event that has not started
    _, teams = team_event(started=False, owner=organiser)
    mine, theirs = teams[0], teams[1]
    a, b = (m.player for m in mine.memberships.order_by("order"))
    taken = theirs.memberships.get(order=0).player
    newcomer = PlayerFactory.create()
    # a third partner does not fit a pairs event
    with pytest.raises(ServiceError) as exc:
        services.team_update(team=mine, actor=organiser, players=[a, b, newcomer])
    assert refused(exc, "members", "whose teams have 2 players")
    # nor a partner already registered in another team
    with pytest.raises(ServiceError) as exc:
        services.team_update(team=mine, actor=organiser, players=[a, taken])
    assert refused(exc, "members", "already registered for")
    # a newcomer does
    services.team_update(team=mine, actor=organiser, players=[newcomer, a])
    assert members(mine) == [newcomer.pk, a.pk]


def test_team_services_refuse_a_wrong_number_of_partners(organiser: User) -> None:
    a, b, c, d = PlayerFactory.create_batch(4)
    for players in ([a], [a, b, c, d]):
        with pytest.raises(ServiceError) as exc:
            services.team_create(name="Ошибка", players=players)
        assert refused(exc, "members", "a team has 2 or 3 players")
    team = services.team_create(name="Пара", players=[a, b], actor=organiser)
    with pytest.raises(ServiceError) as exc:
        services.team_update(team=team, actor=organiser, players=[a])
    assert refused(exc, "members", "a team has 2 or 3 players, not 1")
    assert members(team) == [a.pk, b.pk]


def test_team_update_writes_nothing_when_nothing_changes(organiser: User) -> None:
    a, b = PlayerFactory.create_batch(2)
    team = services.team_create(name="Пара", players=[a, b], actor=organiser)
    services.team_update(team=team, actor=organiser, name=" Пара ", players=[a, b])
    assert not AuditEvent.objects.exclude(action=AuditEvent.Action.TEAM_CREATE).exists()
