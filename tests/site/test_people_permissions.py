"""Whose players and teams a console user may see and change (``tournaments.permissions``:
``players_for``, ``can_change_player``, ``teams_for``, ``can_change_team``), on every face.

The defect this guards: an organiser with no part in another organiser's event opened the
change page of a player seated there, set the account it plays as to its own, and so took the
player's seat, hand and moves. Now a player (team) out of a console user's scope is a 404 like
every other object out of scope; one in scope but not wholly its own is read-only (403 on a
post); the services refuse the same actors; and only a superuser changes the account a player
plays as.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from durak_site.errors import Forbidden
from tests.builders import ConsoleEvent, make_tournament
from tests.factories import PlayerFactory, UserFactory
from tournaments import services
from tournaments.models import AuditEvent, Player, Team
from tournaments.permissions import can_change_player, can_change_team, players_for, teams_for
from tournaments.services.people import player_profile_update

pytestmark = pytest.mark.django_db

Events = tuple[ConsoleEvent, ConsoleEvent]


def change_url(model: type[Player] | type[Team], pk: int) -> str:
    return reverse(f"admin:tournaments_{model._meta.model_name}_change", args=[pk])


def list_url(model: type[Player] | type[Team]) -> str:
    return reverse(f"admin:tournaments_{model._meta.model_name}_changelist")


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def player_form(player: Player, **changes: Any) -> dict[str, Any]:
    data = {
        "display_name": player.display_name,
        "club": player.club,
        "city": player.city,
        "user": player.user_id or "",
    }
    return {**data, **changes}


def seated_player(event: ConsoleEvent) -> Player:
    """A player of ``event`` seated at its table still playing (round 1's second table)."""
    entry = event.entries[-1]
    assert entry.player is not None
    return entry.player


def pairs_team(owner: User | None, players: list[Player] | None = None) -> Team:
    """A team registered for a pairs event of ``owner``'s that takes entries."""
    team = services.team_create(name="Пара", players=players or PlayerFactory.create_batch(2))
    tournament = services.tournament_create(
        name=f"Пары {owner}",
        team_size=2,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=owner,
    )
    services.tournament_open_registration(tournament=tournament)
    services.entry_register(tournament=tournament, team=team)
    return team


# --- the reproduction: another organiser's player -------------------------------------------


def test_an_outside_organiser_cannot_open_nor_relink_a_player_of_anothers_event(
    console_events: Events, other_organiser: User
) -> None:
    # given a player seated in event A, and B's organiser, who has no part in A
    player = seated_player(console_events[0])
    owner = player.user
    client = logged_in(other_organiser)

    # when B's organiser opens the player's page and posts it with its own account
    page = client.get(change_url(Player, player.pk))
    posted = client.post(
        change_url(Player, player.pk),
        player_form(player, display_name="Захвачен", user=other_organiser.pk),
    )

    # then both are a 404, and nothing changed nor was audited
    assert (page.status_code, posted.status_code) == (404, 404)
    player.refresh_from_db()
    assert player.user == owner and player.display_name != "Захвачен"
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.PLAYER_EDIT).exists()
    # nor does the player show in B's organiser's list
    listing = client.get(list_url(Player))
    assert player not in listing.context["cl"].result_list


def test_the_services_refuse_an_outside_organiser_too(
    console_events: Events, other_organiser: User, other_referee: User
) -> None:
    player = seated_player(console_events[0])
    for actor in (other_organiser, other_referee):
        for changes in ({"user": other_organiser}, {"display_name": "Захвачен"}, {"user": None}):
            with pytest.raises(Forbidden):
                services.player_update(player=player, actor=actor, **changes)
    player.refresh_from_db()
    assert player.user is not None and player.display_name != "Захвачен"
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.PLAYER_EDIT).exists()


def test_the_api_has_no_way_to_change_a_player(
    console_events: Events, other_organiser: User
) -> None:
    player = seated_player(console_events[0])
    client = logged_in(other_organiser)
    address = reverse("api:player-detail", args=[player.pk])
    for method in (client.put, client.patch, client.post, client.delete):
        response = method(address, {"user": other_organiser.pk}, content_type="application/json")
        assert response.status_code == 405, method  # a read-only endpoint: no write method at all
    player.refresh_from_db()
    assert player.user is not None and player.user != other_organiser


def test_the_organiser_of_the_players_event_changes_its_profile_but_not_its_account(
    console_events: Events, organiser: User
) -> None:
    # given a player of the organiser's own event A
    player = seated_player(console_events[0])
    owner = player.user
    client = logged_in(organiser)

    # when it renames the player and posts another account
    page = client.get(change_url(Player, player.pk))
    response = client.post(
        change_url(Player, player.pk),
        player_form(player, display_name="Иван Петров", user=organiser.pk),
    )

    # then the account is read-only there, the name changed, the account did not
    assert page.status_code == 200 and page.context["has_change_permission"]
    assert "user" not in page.context["adminform"].form.fields
    assert response.status_code == 302
    player.refresh_from_db()
    assert (player.display_name, player.user) == ("Иван Петров", owner)
    # and the service refuses a relink or an unlink to it
    for account in (organiser, None):
        with pytest.raises(Forbidden) as refused:
            services.player_update(player=player, actor=organiser, user=account)
        assert refused.value.code == "account_link"
    player.refresh_from_db()
    assert player.user == owner


def test_a_superuser_may_relink_a_player(console_events: Events, superuser: User) -> None:
    player = seated_player(console_events[0])
    account = UserFactory.create(username="new-account")
    page = logged_in(superuser).get(change_url(Player, player.pk))
    assert "user" in page.context["adminform"].form.fields
    services.player_update(player=player, actor=superuser, user=account)
    player.refresh_from_db()
    assert player.user == account


def test_a_player_in_two_organisers_events_is_changed_by_neither(
    console_events: Events, organiser: User, other_organiser: User, superuser: User
) -> None:
    # given a player of A who also enters an event of B's organiser
    player = seated_player(console_events[0])
    make_tournament([player], created_by=other_organiser, name="Кубок В")

    # then either organiser sees it (it plays in an event of each) but may change it not
    for user in (organiser, other_organiser):
        assert players_for(user).filter(pk=player.pk).exists()
        assert not can_change_player(user, player)
        client = logged_in(user)
        assert not client.get(change_url(Player, player.pk)).context["has_change_permission"]
        response = client.post(change_url(Player, player.pk), player_form(player, city="Тула"))
        assert response.status_code == 403
        with pytest.raises(Forbidden):
            services.player_update(player=player, actor=user, city="Тула")
    # the player themselves and a superuser may
    assert player.user is not None
    player_profile_update(player=player, actor=player.user, city="Тула")
    services.player_update(player=player, actor=superuser, club="Ферзь")
    player.refresh_from_db()
    assert (player.city, player.club) == ("Тула", "Ферзь")


def test_a_player_in_no_event_is_its_adders(organiser: User, other_organiser: User) -> None:
    # given a player the organiser added on the console, and one who signed up alone
    response = logged_in(organiser).post(
        reverse("admin:tournaments_player_add"), {"display_name": "Новичок", "club": "", "city": ""}
    )
    assert response.status_code == 302
    added = Player.objects.get(display_name="Новичок")
    signed_up = PlayerFactory.create(display_name="Сам")

    # then the adder changes its own; nobody else sees it, nor the one who signed up
    assert added.created_by == organiser
    assert can_change_player(organiser, added)
    assert logged_in(organiser).get(change_url(Player, signed_up.pk)).status_code == 404
    assert logged_in(other_organiser).get(change_url(Player, added.pk)).status_code == 404
    for player in (added, signed_up):
        assert not can_change_player(other_organiser, player)
    assert not can_change_player(organiser, signed_up)


def test_a_referee_sees_its_events_players_and_changes_none(
    console_events: Events, event_referee: User
) -> None:
    mine, theirs = seated_player(console_events[0]), seated_player(console_events[1])
    client = logged_in(event_referee)
    assert client.get(change_url(Player, theirs.pk)).status_code == 404
    page = client.get(change_url(Player, mine.pk))
    assert page.status_code == 200 and not page.context["has_change_permission"]
    with pytest.raises(Forbidden):
        services.player_update(player=mine, actor=event_referee, display_name="Пётр")


def test_registering_still_finds_any_player_by_name_but_not_by_account(
    console_events: Events, other_organiser: User
) -> None:
    # a player of A is out of B's organiser's scope, but its name is public: B's organiser can
    # still find it to register it for B (as the entry form's search does)
    player = seated_player(console_events[0])
    assert player.user is not None
    client = logged_in(other_organiser)
    query = {"app_label": "tournaments", "model_name": "entry", "field_name": "player"}
    found = client.get(reverse("admin:autocomplete"), {**query, "term": player.display_name})
    assert [r["id"] for r in found.json()["results"]] == [str(player.pk)]
    by_account = client.get(reverse("admin:autocomplete"), {**query, "term": player.user.username})
    assert by_account.json()["results"] == []


# --- teams ---------------------------------------------------------------------------------


def test_an_outside_organiser_cannot_open_nor_change_a_team_of_anothers_event(
    console_events: Events, organiser: User, other_organiser: User
) -> None:
    # given a team in an event of A's organiser
    team = pairs_team(organiser)
    members = list(team.memberships.order_by("order").values_list("player_id", flat=True))
    newcomer = PlayerFactory.create()
    client = logged_in(other_organiser)
    form = {"name": "Захвачена", "first": newcomer.pk, "second": members[1], "third": ""}

    # then B's organiser gets a 404 on its page and its post, and the service refuses it
    assert client.get(change_url(Team, team.pk)).status_code == 404
    assert client.post(change_url(Team, team.pk), form).status_code == 404
    with pytest.raises(Forbidden):
        services.team_update(team=team, actor=other_organiser, name="Захвачена")
    team.refresh_from_db()
    assert team.name == "Пара"
    assert list(team.memberships.order_by("order").values_list("player_id", flat=True)) == members
    assert not teams_for(other_organiser).filter(pk=team.pk).exists()

    # while its own organiser changes it
    response = logged_in(organiser).post(change_url(Team, team.pk), form)
    assert response.status_code == 302
    team.refresh_from_db()
    assert team.name == "Захвачена"


def test_a_team_in_two_organisers_events_is_changed_by_neither(
    organiser: User, other_organiser: User, superuser: User
) -> None:
    team = pairs_team(organiser)
    tournament = services.tournament_create(
        name="Пары Б",
        team_size=2,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=other_organiser,
    )
    services.tournament_open_registration(tournament=tournament)
    services.entry_register(tournament=tournament, team=team)
    for user in (organiser, other_organiser):
        assert teams_for(user).filter(pk=team.pk).exists()
        assert not can_change_team(user, team)
        with pytest.raises(Forbidden):
            services.team_update(team=team, actor=user, name="Другая")
    services.team_update(team=team, actor=superuser, name="Другая")
    team.refresh_from_db()
    assert team.name == "Другая"


def test_a_team_in_no_event_is_its_makers(organiser: User, other_organiser: User) -> None:
    team = services.team_create(name="Пара", players=PlayerFactory.create_batch(2), actor=organiser)
    assert team.created_by == organiser and can_change_team(organiser, team)
    assert logged_in(other_organiser).get(change_url(Team, team.pk)).status_code == 404
    with pytest.raises(Forbidden):
        services.team_update(team=team, actor=other_organiser, name="Чужая")
    # a referee adds no team, even through the service
    referee = UserFactory.create(username="plain")
    with pytest.raises(Forbidden):
        services.team_create(name="Ещё", players=PlayerFactory.create_batch(2), actor=referee)
