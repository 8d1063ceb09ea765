from __future__ import annotations

import pytest

from tests.builders import SWISS_THEN_KNOCKOUT
from tournaments import services
from tournaments.errors import RegistrationError, StateError
from tournaments.models import Entry, Player, Tournament


@pytest.mark.django_db
def test_registering_twice_is_refused_and_changes_nothing(open_tournament: Tournament) -> None:
    entry = open_tournament.entries.first()
    assert entry is not None
    player = entry.player
    with pytest.raises(RegistrationError, match="already registered"):
        services.entry_register(tournament=open_tournament, player=player)
    assert open_tournament.entries.filter(player=player).count() == 1


@pytest.mark.django_db
def test_registration_closed_in_draft_and_when_full(bot_players: list[Player]) -> None:
    tournament = services.tournament_create(
        name="Малый", stages=[{"format": "swiss", "table_size": 2, "rounds": 1}], max_entries=2
    )
    with pytest.raises(RegistrationError, match="registration is closed"):
        services.entry_register(tournament=tournament, player=bot_players[0])
    services.tournament_open_registration(tournament=tournament)
    services.entry_register(tournament=tournament, player=bot_players[1])
    services.entry_register(tournament=tournament, player=bot_players[2])
    with pytest.raises(RegistrationError, match="full"):
        services.entry_register(tournament=tournament, player=bot_players[3])
    assert tournament.entries.count() == 2


@pytest.mark.django_db
def test_check_in_withdraw_and_disqualify(bot_players: list[Player]) -> None:
    tournament = services.tournament_create(
        name="С отметкой", stages=SWISS_THEN_KNOCKOUT, check_in_required=True
    )
    services.tournament_open_registration(tournament=tournament)
    entries = [services.entry_register(tournament=tournament, player=p) for p in bot_players]
    for entry in entries[:12]:
        services.entry_check_in(entry=entry)
    services.entry_withdraw(entry=entries[12], reason="уехал")
    with pytest.raises(RegistrationError, match="needs a reason"):
        services.entry_disqualify(entry=entries[13], reason=" ")
    services.entry_disqualify(entry=entries[0], reason="подглядывал")
    with pytest.raises(StateError):
        services.entry_check_in(entry=entries[0])
    # given check-in is required, starting withdraws those who did not check in
    services.tournament_start(tournament=tournament)
    statuses = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "status"))
    assert statuses[entries[0].pk] == Entry.Status.DISQUALIFIED
    assert statuses[entries[12].pk] == Entry.Status.WITHDRAWN
    assert statuses[entries[15].pk] == Entry.Status.WITHDRAWN
    assert list(statuses.values()).count(Entry.Status.CHECKED_IN) == 11


@pytest.mark.django_db
def test_a_team_event_takes_teams_of_its_size(bot_players: list[Player]) -> None:
    tournament = services.tournament_create(
        name="Пары",
        team_size=2,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 2}],
    )
    services.tournament_open_registration(tournament=tournament)
    with pytest.raises(RegistrationError, match="register a team"):
        services.entry_register(tournament=tournament, player=bot_players[0])
    trio = services.team_create(name="Трое", players=bot_players[:3])
    with pytest.raises(RegistrationError, match="2 players"):
        services.entry_register(tournament=tournament, team=trio)
    pair = services.team_create(name="Двое", players=bot_players[3:5])
    services.entry_register(tournament=tournament, team=pair)
    clash = services.team_create(name="Снова", players=[bot_players[4], bot_players[6]])
    with pytest.raises(RegistrationError, match="another team"):
        services.entry_register(tournament=tournament, team=clash)


@pytest.mark.django_db
def test_closing_registration_refuses_entries_until_reopened_and_the_start_still_works(
    bot_players: list[Player],
) -> None:
    # given an open 2-seat event with four entries and a fifth player waiting
    tournament = services.tournament_create(
        name="Закрытие", stages=[{"format": "swiss", "table_size": 2, "rounds": 1}]
    )
    services.tournament_open_registration(tournament=tournament)
    for player in bot_players[:4]:
        services.entry_register(tournament=tournament, player=player)
    # when registration is closed
    services.tournament_close_registration(tournament=tournament)
    # then nobody else gets in, and closing twice is refused
    with pytest.raises(RegistrationError, match="registration is closed"):
        services.entry_register(tournament=tournament, player=bot_players[4])
    with pytest.raises(StateError, match="not open"):
        services.tournament_close_registration(tournament=tournament)
    # when it is reopened, the fifth registers; closed again, the event still starts
    services.tournament_open_registration(tournament=tournament)
    services.entry_register(tournament=tournament, player=bot_players[4])
    services.tournament_close_registration(tournament=tournament)
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.entries.count() == 5


@pytest.mark.django_db
def test_closing_with_check_in_withdraws_who_did_not_check_in(bot_players: list[Player]) -> None:
    tournament = services.tournament_create(
        name="Отметка",
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        check_in_required=True,
    )
    services.tournament_open_registration(tournament=tournament)
    entries = [services.entry_register(tournament=tournament, player=p) for p in bot_players[:3]]
    for entry in entries[:2]:
        services.entry_check_in(entry=entry)
    services.tournament_close_registration(tournament=tournament)
    statuses = dict(tournament.entries.values_list("pk", "status"))
    assert statuses[entries[2].pk] == Entry.Status.WITHDRAWN
    assert {statuses[e.pk] for e in entries[:2]} == {Entry.Status.CHECKED_IN}
