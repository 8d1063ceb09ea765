"""Nobody plays in an event they run, and every write service asks who its actor is.

An event's organiser and its referees see every hand at its tables and decide its disputes:
registration refuses their players (``own_event``), a player of the event is not made its
referee (``referee_plays``). The registration, settings and league services refuse an actor
who may not do that to that object (``Forbidden``), whichever face calls them.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from durak_site.errors import Forbidden, ServiceError
from tests.builders import make_tournament
from tests.factories import PlayerFactory, referee_user
from tournaments import services
from tournaments.errors import ConfigurationError, RegistrationError
from tournaments.models import AuditEvent, Entry, Player, Tournament
from tournaments.services.people import player_enter

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_event(organiser: User) -> Tournament:
    """An open individual event of ``organiser``'s with two players registered."""
    return make_tournament(
        PlayerFactory.create_batch(2),
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        created_by=organiser,
        name="Кубок",
    )


def player_of(user: User) -> Player:
    return PlayerFactory.create(user=user, display_name=f"Игрок {user.username}")


def pairs_event(owner: User) -> Tournament:
    tournament = services.tournament_create(
        name="Пары",
        team_size=2,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=owner,
    )
    return services.tournament_open_registration(tournament=tournament)


# --- registration refuses who runs the event ---------------------------------------------------


def test_the_organiser_cannot_register_its_own_player(
    open_event: Tournament, organiser: User
) -> None:
    mine = player_of(organiser)
    with pytest.raises(RegistrationError) as refused:
        services.entry_register(tournament=open_event, player=mine, actor=organiser)
    assert refused.value.code == "own_event"
    assert "organises Кубок: its organiser cannot play in it" in refused.value.message
    assert not Entry.objects.filter(player=mine).exists()


def test_a_referee_cannot_enter_the_event_it_referees_not_even_itself(
    open_event: Tournament, event_referee: User, organiser: User
) -> None:
    # given a referee of the event with a player of its own
    services.tournament_set_referees(
        tournament=open_event, actor=organiser, referees=[event_referee]
    )
    mine = player_of(event_referee)
    # when the organiser registers it, or it enters itself on the site, then refused
    for actor in (organiser, event_referee):
        with pytest.raises(RegistrationError) as refused:
            services.entry_register(tournament=open_event, player=mine, actor=actor)
        assert refused.value.code == "own_event"
        assert "referees Кубок: its referees cannot play in it" in refused.value.message
    with pytest.raises(RegistrationError) as refused:
        player_enter(player=mine, tournament=open_event, actor=event_referee)
    assert refused.value.code == "own_event"
    assert not Entry.objects.filter(player=mine).exists()


def test_a_team_with_a_member_who_referees_is_refused(organiser: User, event_referee: User) -> None:
    tournament = pairs_event(organiser)
    tournament.referees.add(event_referee)
    team = services.team_create(
        name="Судейская", players=[player_of(event_referee), PlayerFactory.create()]
    )
    with pytest.raises(RegistrationError) as refused:
        services.entry_register(tournament=tournament, team=team, actor=organiser)
    assert refused.value.code == "own_event"


def test_the_refusal_reads_in_russian_on_the_api(open_event: Tournament, organiser: User) -> None:
    mine = player_of(organiser)
    client = Client()
    client.force_login(organiser)
    response = client.post(
        f"/api/v1/tournaments/{open_event.slug}/entries/",
        {"player": mine.pk},
        content_type="application/json",
        headers={"accept-language": "ru"},
    )
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "own_event"
    assert "организатор не может в нём играть" in body["message"]


def test_a_player_of_the_event_cannot_be_made_its_referee(
    open_event: Tournament, organiser: User
) -> None:
    # given a referee-group user whose player is registered
    playing = referee_user("playing-referee")
    services.entry_register(tournament=open_event, player=player_of(playing), actor=organiser)
    # when the organiser assigns it, then refused on the referees field
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_set_referees(tournament=open_event, actor=organiser, referees=[playing])
    assert refused.value.code == "referee_plays"
    assert "playing-referee play in this tournament" in refused.value.fields["referees"][0]
    assert not open_event.referees.exists()
    # and so even after it withdrew: it has seen the event as a player
    entry = Entry.objects.get(player__user=playing)
    services.entry_withdraw(entry=entry, actor=organiser, reason="ушёл")
    with pytest.raises(ConfigurationError):
        services.tournament_set_referees(tournament=open_event, actor=organiser, referees=[playing])


# --- the services ask who acts ------------------------------------------------------------------


def test_registration_services_refuse_an_actor_of_another_event(
    open_event: Tournament, other_organiser: User, other_referee: User, outsider: User
) -> None:
    newcomer = PlayerFactory.create()
    entry = Entry.objects.filter(tournament=open_event).first()
    assert entry is not None
    for actor in (other_organiser, other_referee, outsider):
        with pytest.raises(Forbidden):
            services.entry_register(tournament=open_event, player=newcomer, actor=actor)
        with pytest.raises(Forbidden):
            services.entry_check_in(entry=entry, actor=actor)
        with pytest.raises(Forbidden):
            services.entry_withdraw(entry=entry, actor=actor, reason="чужой")
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED
    assert not Entry.objects.filter(player=newcomer).exists()
    assert (
        not AuditEvent.objects.filter(tournament=open_event)
        .exclude(
            action=AuditEvent.Action.TOURNAMENT_CREATE  # by its organiser, in the fixture
        )
        .exists()
    )


def test_a_player_acts_on_its_own_entry_only(open_event: Tournament) -> None:
    mine, theirs = Entry.objects.filter(tournament=open_event).order_by("pk")
    assert mine.player is not None and mine.player.user is not None
    me = mine.player.user
    with pytest.raises(Forbidden):
        services.entry_withdraw(entry=theirs, actor=me, reason="не моя")
    services.entry_check_in(entry=mine, actor=me)
    services.entry_withdraw(entry=mine, actor=me, reason="заболел")
    mine.refresh_from_db()
    assert mine.status == Entry.Status.WITHDRAWN


def test_settings_referees_and_leagues_are_their_organisers(
    open_event: Tournament, organiser: User, other_organiser: User, event_referee: User
) -> None:
    for actor in (other_organiser, event_referee):
        with pytest.raises(Forbidden):
            services.tournament_update(tournament=open_event, actor=actor, name="Чужой")
        with pytest.raises(Forbidden):
            services.tournament_set_referees(
                tournament=open_event, actor=actor, referees=[event_referee]
            )
    league = services.league_create(name="Лига", season="2027", actor=organiser)
    with pytest.raises(Forbidden):
        services.league_update(league=league, actor=other_organiser, name="Чужая")
    with pytest.raises(ServiceError):
        services.league_create(name="Лига судьи", season="2027", actor=event_referee)
    open_event.refresh_from_db()
    league.refresh_from_db()
    assert (open_event.name, league.name) == ("Кубок", "Лига")
    assert not open_event.referees.exists()


def test_status_services_refuse_who_does_not_run_the_event(
    open_event: Tournament, other_organiser: User, event_referee: User, organiser: User
) -> None:
    entry = Entry.objects.filter(tournament=open_event).first()
    assert entry is not None
    for actor in (other_organiser, event_referee):
        for change in (
            services.tournament_close_registration,
            services.tournament_start,
            services.tournament_cancel,
        ):
            with pytest.raises(Forbidden):
                change(tournament=open_event, actor=actor)
        with pytest.raises(Forbidden):
            services.entry_reenter(entry=entry, actor=actor)
    with pytest.raises(Forbidden):
        services.entry_disqualify(entry=entry, reason="чужой", actor=other_organiser)
    open_event.refresh_from_db()
    entry.refresh_from_db()
    assert open_event.status == Tournament.Status.REGISTRATION
    assert entry.status == Entry.Status.REGISTERED
    # its organiser may
    services.tournament_close_registration(tournament=open_event, actor=organiser)
    services.tournament_open_registration(tournament=open_event, actor=organiser)
    services.entry_disqualify(entry=entry, reason="неспортивно", actor=organiser)


def test_a_tournament_joins_only_a_league_its_organiser_manages(
    open_event: Tournament, organiser: User, other_organiser: User
) -> None:
    theirs = services.league_create(name="Чужая лига", season="2027", actor=other_organiser)
    mine = services.league_create(name="Моя лига", season="2027", actor=organiser)
    with pytest.raises(Forbidden):
        services.tournament_create(
            name="В чужую лигу",
            stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
            league=theirs,
            created_by=organiser,
        )
    with pytest.raises(Forbidden):
        services.tournament_update(tournament=open_event, actor=organiser, league=theirs)
    assert not theirs.tournaments.exists()
    services.tournament_update(tournament=open_event, actor=organiser, league=mine)
    assert list(mine.tournaments.all()) == [open_event]
