"""A player's own entries and "my games": register for an open tournament (the fee shown),
check in where it is required, withdraw before the start; each refusal comes back as a message
with its code. "My games" shows where the player sits now, their tournaments and their history.
A private tournament does not exist for an outsider (404), and its players see it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.messages import get_messages
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.urls import reverse
from pytest_django import DjangoAssertNumQueries

from games.models import Game
from tests.builders import LiveTable, make_tournament, start_live_table
from tests.factories import BotPlayerFactory, PlayerFactory, UserFactory
from tournaments import services
from tournaments.models import AuditEvent, Entry, Player, Tournament
from tournaments.site.accounts.panel import entry_panel

pytestmark = pytest.mark.django_db


def web(user: User | None = None) -> Client:
    client = Client(headers={"accept-language": "en"})
    if user is not None:
        client.force_login(user)
    return client


def player_user(player: Player) -> User:
    assert player.user is not None
    return player.user


@pytest.fixture
def me() -> Player:
    """A player with an account, entered nowhere."""
    return PlayerFactory.create(display_name="Я")


@pytest.fixture
def cup(bot_players: list[Player]) -> Tournament:
    """A public swiss cup open for registration, with a fee, sixteen bots entered."""
    return make_tournament(bot_players[:15], name="Open cup", entry_fee="250")


def act(client: Client, tournament: Tournament, action: str, **extra: str) -> Any:
    """The panel's button ``action`` pressed (``extra``: more of the form, e.g. ``next``)."""
    return client.post(reverse("entry-action", args=[tournament.slug, action]), extra)


def said(response: Any) -> list[str]:
    """The message this response adds (the test client renders no page between two posts, so
    the earlier ones are still queued before it)."""
    queued = [str(m) for m in get_messages(response.wsgi_request)]
    return queued[-1:]


# --- register, check in, withdraw ---------------------------------------------------------------


def test_a_player_registers_for_an_open_tournament_and_sees_the_fee(
    me: Player, cup: Tournament
) -> None:
    client = web(player_user(me))
    page = client.get(reverse("my-games")).content.decode()
    assert "Open cup" in page and "250.00\u00a0RUB" in page
    response = act(client, cup, "register", next="/me/")
    assert response.status_code == 302 and response["Location"] == "/me/"
    assert said(response) == ["You are registered for Open cup."]
    entry = Entry.objects.get(tournament=cup, player=me)
    assert entry.status == Entry.Status.REGISTERED and entry.paid
    audit = AuditEvent.objects.get(action=AuditEvent.Action.ENTRY_REGISTER, target_id=entry.pk)
    assert audit.actor == me.user and audit.tournament == cup
    # "my games" now lists it with a withdraw button, and no longer offers it
    page = client.get(reverse("my-games")).content.decode()
    assert "You are registered." in page
    assert reverse("entry-action", args=[cup.slug, "withdraw"]) in page
    assert reverse("entry-action", args=[cup.slug, "register"]) not in page


def test_registering_twice_is_refused_with_a_code(me: Player, cup: Tournament) -> None:
    client = web(player_user(me))
    act(client, cup, "register")
    again = act(client, cup, "register")
    assert said(again) == ["you are already registered for Open cup (already_registered)"]
    assert Entry.objects.filter(tournament=cup, player=me).count() == 1


def test_a_closed_registration_refuses_an_entry(me: Player, cup: Tournament) -> None:
    services.tournament_close_registration(tournament=cup)
    response = act(web(player_user(me)), cup, "register")
    assert said(response) == [
        "registration is closed (the tournament starts soon) (registration_refused)"
    ]
    assert response["Location"] == reverse("tournament", args=[cup.slug])
    assert not Entry.objects.filter(player=me).exists()


def test_a_full_tournament_refuses_an_entry(me: Player, bot_players: list[Player]) -> None:
    full = make_tournament(
        bot_players[:2],
        name="Small",
        max_entries=2,
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
    )
    response = act(web(player_user(me)), full, "register")
    assert said(response) == ["the tournament is full (2 entries) (registration_refused)"]


def test_check_in_where_the_tournament_requires_it(me: Player, bot_players: list[Player]) -> None:
    event = make_tournament(bot_players[:15], name="Check-in cup", check_in_required=True)
    client = web(player_user(me))
    act(client, event, "register")
    page = client.get(reverse("my-games")).content.decode()
    assert "Check in before registration closes" in page
    response = act(client, event, "check-in")
    assert said(response) == ["You are checked in for Check-in cup."]
    assert Entry.objects.get(tournament=event, player=me).status == Entry.Status.CHECKED_IN
    assert AuditEvent.objects.filter(action=AuditEvent.Action.ENTRY_CHECK_IN, actor=me.user)
    again = act(client, event, "check-in")
    assert said(again) == ["the entry is checked in; it cannot become checked in (wrong_status)"]


def test_check_in_is_refused_where_it_is_not_needed_or_closed(
    me: Player, cup: Tournament, bot_players: list[Player]
) -> None:
    client = web(player_user(me))
    act(client, cup, "register")
    assert said(act(client, cup, "check-in")) == [
        "this tournament needs no check-in (check_in_not_required)"
    ]
    event = make_tournament(bot_players[:15], name="Late", check_in_required=True)
    act(client, event, "register")
    Tournament.objects.filter(pk=event.pk).update(registration_closed_at="2026-01-01T00:00Z")
    assert said(act(client, event, "check-in")) == [
        "check-in is closed: registration is over (check_in_closed)"
    ]


def test_a_player_withdraws_before_the_start_and_cannot_simply_come_back(
    me: Player, cup: Tournament
) -> None:
    client = web(player_user(me))
    act(client, cup, "register")
    response = act(client, cup, "withdraw")
    assert said(response) == ["You have withdrawn from Open cup."]
    entry = Entry.objects.get(tournament=cup, player=me)
    assert entry.status == Entry.Status.WITHDRAWN
    assert entry.status_reason == "withdrawn by the player"
    audit = AuditEvent.objects.get(action=AuditEvent.Action.ENTRY_WITHDRAW)
    assert audit.actor == me.user and audit.before == {"status": "registered"}
    assert said(act(client, cup, "register")) == [
        "your entry is withdrawn: only the organiser can register you again (entry_closed)"
    ]
    assert said(act(client, cup, "withdraw")) == [
        "the entry is withdrawn; it cannot become withdrawn (wrong_status)"
    ]


def test_no_withdrawal_once_the_tournament_has_started(
    eager_jobs: None, me: Player, cup: Tournament
) -> None:
    client = web(player_user(me))
    act(client, cup, "register")
    services.tournament_start(tournament=cup)
    response = act(client, cup, "withdraw")
    assert said(response) == [
        "the tournament is running: a player withdraws only before it starts (tournament_started)"
    ]
    assert Entry.objects.get(tournament=cup, player=me).status == Entry.Status.REGISTERED
    assert said(act(client, cup, "register")) == [
        "you are already registered for Open cup (already_registered)"
    ]


def test_a_started_tournament_takes_no_new_entry(
    eager_jobs: None, me: Player, cup: Tournament, bot_players: list[Player]
) -> None:
    services.entry_register(tournament=cup, player=bot_players[15])
    services.tournament_start(tournament=cup)
    response = act(web(player_user(me)), cup, "register")
    assert said(response) == [
        "registration is closed (the tournament is running) (registration_refused)"
    ]


def test_a_team_event_is_registered_by_its_organiser(me: Player) -> None:
    event = make_tournament(
        [], name="Pairs", team_size=2, stages=[{"format": "swiss", "table_size": 4, "rounds": 1}]
    )
    client = web(player_user(me))
    assert said(act(client, event, "register")) == [
        "this is a team event: its organiser registers the teams (team_event)"
    ]
    # a member of an entered team sees the team's entry, without buttons
    partner = PlayerFactory.create()
    team = services.team_create(name="Тузы", players=[me, partner])
    services.entry_register(tournament=event, team=team)
    page = client.get(reverse("my-games")).content.decode()
    assert "Your team Тузы:" in page and "You are registered." in page
    assert reverse("entry-action", args=[event.slug, "withdraw"]) not in page


def test_a_user_without_a_player_is_sent_to_make_one(cup: Tournament) -> None:
    user = UserFactory.create()
    response = act(web(user), cup, "register")
    assert response["Location"] == reverse("profile")
    assert said(response) == [
        "Make your player profile first: then you can enter tournaments. (no_player)"
    ]


def test_the_entry_actions_are_posts_for_logged_in_players(me: Player, cup: Tournament) -> None:
    url = reverse("entry-action", args=[cup.slug, "register"])
    assert web(player_user(me)).get(url).status_code == 405
    anonymous = web().post(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
    unknown = reverse("entry-action", args=[cup.slug, "pay"])
    assert web(player_user(me)).post(unknown).status_code == 404
    missing = reverse("entry-action", args=["no-such-cup", "register"])
    assert web(player_user(me)).post(missing).status_code == 404
    assert not Entry.objects.filter(player=me).exists()


# --- a private tournament ------------------------------------------------------------------------


def test_a_private_tournament_does_not_exist_for_an_outsider(
    me: Player, bot_players: list[Player]
) -> None:
    private = make_tournament(bot_players[:15], name="Closed club night", is_public=False)
    client = web(player_user(me))
    assert act(client, private, "register").status_code == 404
    assert not Entry.objects.filter(player=me).exists()
    assert "Closed club night" not in client.get(reverse("my-games")).content.decode()
    assert client.get(reverse("tournament", args=[private.slug])).status_code == 404
    # its own player sees it, in "my games" and on its page, and may withdraw
    member = PlayerFactory.create()
    services.entry_register(tournament=private, player=member)
    insider = web(player_user(member))
    assert "Closed club night" in insider.get(reverse("my-games")).content.decode()
    assert insider.get(reverse("tournament", args=[private.slug])).status_code == 200
    assert said(act(insider, private, "withdraw")) == ["You have withdrawn from Closed club night."]


# --- my games ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # jobs start after commit
def test_my_games_links_to_the_table_where_i_sit(live_table: LiveTable) -> None:
    user = live_table.user_at(0)
    page = web(user).get(reverse("my-games")).content.decode()
    href = reverse("table", args=[live_table.table.pk])
    assert f'href="{href}"' in page and "Go to table 1" in page
    assert live_table.players[1].display_name in page  # the opponent
    assert live_table.tournament.name in page
    # the other player, not seated anywhere else, sees only their own table
    outsider = PlayerFactory.create()
    assert href not in web(player_user(outsider)).get(reverse("my-games")).content.decode()


@pytest.mark.django_db(transaction=True)  # jobs start after commit
def test_my_history_shows_the_finished_tournament_place_and_games(
    eager_jobs: None, referee: User
) -> None:
    live = start_live_table(referees=[referee])
    services.seats_hand_to_bots(seats=list(live.table.seats.all()), actor=referee, reason="тест")
    tournament = Tournament.objects.get(pk=live.tournament.pk)
    assert tournament.status == Tournament.Status.FINISHED
    user = live.user_at(0)
    entry = Entry.objects.get(tournament=tournament, player=live.players[0])
    page = web(user).get(reverse("my-games")).content.decode()
    assert "You are not seated at a table now." in page
    history = page[page.index("My history") :]
    assert tournament.name in history
    assert f"<td>{entry.final_place}</td>" in history
    games = Game.objects.filter(table=live.table)
    assert games.exists()
    for game in games:
        # named the one way (``wording``), linking to the game's replay
        assert f"Table 1 · game {game.number}</a>" in history
        assert f'href="/games/{game.pk}/replay/"' in history
        # the player's own outcome of each game: the fool, or their place out of the game
        assert game.result is not None
        seat = game.players.index(live.players[0].pk)
        if game.result["fool"] == seat:
            assert "fool (дурак)" in history
        elif not game.result["draw"]:
            assert f"place {game.result['places'].index(seat) + 1}" in history


def test_my_games_without_a_player_offers_to_make_one() -> None:
    page = web(UserFactory.create()).get(reverse("my-games")).content.decode()
    assert "You have no player profile yet." in page and reverse("profile") in page


@pytest.mark.django_db(transaction=True)  # jobs start after commit
def test_my_games_runs_a_bounded_number_of_queries(
    django_assert_max_num_queries: DjangoAssertNumQueries, eager_jobs: None
) -> None:
    live = start_live_table()
    user = live.user_at(0)
    bots = BotPlayerFactory.create_batch(15)
    for n in range(5):  # open tournaments to enter, and ones entered
        event = make_tournament(bots, name=f"Cup {n}")
        if n % 2:
            services.entry_register(tournament=event, player=live.players[0])
    client = web(user)
    with django_assert_max_num_queries(40):
        assert client.get(reverse("my-games")).status_code == 200


# --- the panel on the tournament page ---------------------------------------------------------


def panel_for(user: Any, tournament: Tournament) -> Any:
    request = RequestFactory().get(f"/tournaments/{tournament.slug}/")
    request.user = user
    return entry_panel(request, tournament)["entry_panel"]


def test_the_panel_tells_each_reader_what_they_can_do(me: Player, cup: Tournament) -> None:
    anonymous = panel_for(AnonymousUser(), cup)
    assert anonymous.reader == "anonymous" and anonymous.is_open and not anonymous.can_register
    html = render_to_string("accounts/entry_panel.html", {"entry_panel": anonymous})
    assert "Log in to register" in html and "next=/tournaments/" in html and "250" in html
    mine = panel_for(me.user, cup)
    assert mine.reader == "player" and mine.can_register and not mine.can_withdraw
    services.entry_register(tournament=cup, player=me)
    entered = panel_for(me.user, cup)
    assert entered.entry is not None and entered.can_withdraw and not entered.can_register
    assert panel_for(UserFactory.create(), cup).reader == "no_player"


def test_the_tournament_page_carries_the_panel_while_it_matters(
    me: Player, cup: Tournament
) -> None:
    # given an open cup: a visitor is asked to log in, a player may register from the page
    url = reverse("tournament", args=[cup.slug])
    visitor = web().get(url).content.decode()
    assert 'class="entry-panel' in visitor and "Log in to register" in visitor
    client = web(player_user(me))
    assert "Register (250.00\u00a0RUB)" in client.get(url).content.decode()
    # when the player registers there, the button comes back to the page
    response = act(client, cup, "register", next=url)
    assert response.status_code == 302 and response["Location"] == url
    assert "You are registered." in client.get(url).content.decode()
    # and once the cup runs, an outsider sees no panel while the player still sees theirs
    services.tournament_close_registration(tournament=cup)
    services.tournament_start(tournament=cup)
    assert 'class="entry-panel' not in web().get(url).content.decode()
    assert 'class="entry-panel' in client.get(url).content.decode()
