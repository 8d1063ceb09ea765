"""The services behind the console's edit pages: a tournament's settings and referees, leagues.
Each validates as creation does, refuses with the fields it is about, and audits what changed."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.errors import ConfigurationError, StateError
from tournaments.models import AuditEvent, League, Tournament
from tournaments.services import plans

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_event(organiser: User) -> Tournament:
    """Registration open, three players registered, organiser's."""
    return make_tournament(
        PlayerFactory.create_batch(3),
        stages=[{"format": "swiss", "table_size": 2, "rounds": 2}],
        created_by=organiser,
    )


def edits(tournament: Tournament) -> list[AuditEvent]:
    return list(
        AuditEvent.objects.filter(tournament=tournament, action=AuditEvent.Action.TOURNAMENT_EDIT)
    )


def test_an_update_changes_only_what_differs_and_audits_it(
    open_event: Tournament, organiser: User
) -> None:
    updated = services.tournament_update(
        tournament=open_event,
        actor=organiser,
        name=" Кубок города ",
        entry_fee="100",  # unchanged
        guarantee=Decimal("5000"),
        is_public=False,
    )
    assert (updated.name, updated.guarantee, updated.is_public) == (
        "Кубок города",
        Decimal(5000),
        False,
    )
    [row] = edits(open_event)
    assert row.before == {"name": "Кубок клуба", "guarantee": "0.000", "is_public": True}
    assert row.after == {"name": "Кубок города", "guarantee": "5000.000", "is_public": False}
    services.tournament_update(tournament=open_event, actor=organiser, guarantee="5000")
    assert len(edits(open_event)) == 1  # no change, no row


def test_an_update_is_validated_like_a_plan(open_event: Tournament, organiser: User) -> None:
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_update(tournament=open_event, actor=organiser, entry_fee="-5")
    assert "entry_fee" in refused.value.fields
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_update(
            tournament=open_event, actor=organiser, payout_structure=["70", "20"]
        )
    assert "payout_structure" in refused.value.fields
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_update(tournament=open_event, actor=organiser, max_entries=2)
    assert "max_entries" in refused.value.fields  # three are registered
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_update(tournament=open_event, actor=organiser, seed="x")
    assert "seed" in refused.value.fields  # not a setting to change
    assert not edits(open_event)


def test_the_rules_are_fixed_once_registration_opens_and_the_money_once_it_runs(
    open_event: Tournament, organiser: User
) -> None:
    with pytest.raises(StateError) as refused:
        services.tournament_update(tournament=open_event, actor=organiser, rules={"deck_size": 52})
    assert "rules" in refused.value.fields
    draft = services.tournament_create(
        name="Черновик", stages=[{"format": "swiss", "rounds": 2}], created_by=organiser
    )
    services.tournament_update(tournament=draft, actor=organiser, rules={"variant": "transfer"})
    assert Tournament.objects.get(pk=draft.pk).rules == {"variant": "transfer"}
    with pytest.raises(ConfigurationError) as engine_refused:
        services.tournament_update(tournament=draft, actor=organiser, rules={"deck_size": 35})
    assert "rules" in engine_refused.value.fields

    services.tournament_start(tournament=open_event)
    with pytest.raises(StateError) as running:
        services.tournament_update(tournament=open_event, actor=organiser, entry_fee="1")
    assert running.value.fields == {
        "entry_fee": [
            "Cannot be changed once the tournament starts: the fees are collected and the "
            "prize split was announced to those who paid."
        ]
    }
    with pytest.raises(StateError) as running:
        services.tournament_update(
            tournament=open_event, actor=organiser, payout_structure=["100"], max_entries=8
        )
    assert set(running.value.fields) == {"payout_structure", "max_entries"}
    assert not edits(open_event)


def test_what_changes_nothing_played_stays_editable_while_it_runs_and_is_audited(
    open_event: Tournament, organiser: User
) -> None:
    # given a running tournament
    services.tournament_start(tournament=open_event)
    # when its refereeing, its clock, its name and its visibility change
    services.tournament_update(
        tournament=open_event,
        actor=organiser,
        two_person_rule=True,
        dropout_rule=Tournament.DropoutRule.REFEREE,
        move_clock_seconds=30,
        name="Кубок клуба 2026",
        is_public=False,
    )
    # then they are stored, with one audit row of before and after
    stored = Tournament.objects.get(pk=open_event.pk)
    assert (stored.two_person_rule, stored.move_clock_seconds, stored.name) == (
        True,
        30,
        "Кубок клуба 2026",
    )
    [row] = edits(open_event)
    assert (row.before, row.after) == (
        {
            "two_person_rule": False,
            "dropout_rule": "clock",
            "move_clock_seconds": 0,
            "name": "Кубок клуба",
            "is_public": True,
        },
        {
            "two_person_rule": True,
            "dropout_rule": "referee",
            "move_clock_seconds": 30,
            "name": "Кубок клуба 2026",
            "is_public": False,
        },
    )
    assert plans.tournament_editable_fields(stored) == (
        "name",
        "is_public",
        "move_clock_seconds",
        "two_person_rule",
        "dropout_rule",
        "absent_bots",
        "absent_bots_seconds",
    )


def test_every_locked_setting_says_why(open_event: Tournament) -> None:
    locked = plans.tournament_locked_fields(open_event)
    assert set(locked) == {"team_size", "seed", "rules"}
    assert "registered for these rules" in locked["rules"]
    open_event.status = Tournament.Status.FINISHED
    assert set(plans.tournament_locked_fields(open_event)) == set(plans.SETTING_WINDOWS)
    assert "is over" in plans.tournament_locked_fields(open_event)["two_person_rule"]


def test_every_problem_of_a_change_is_found_in_one_pass(
    open_event: Tournament, organiser: User
) -> None:
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_update(
            tournament=open_event,
            actor=organiser,
            entry_fee="-5",  # the schema
            max_entries=2,  # three are registered
            payout_structure=["70", "20"],  # the pool's check
        )
    assert set(refused.value.fields) == {"entry_fee", "max_entries", "payout_structure"}
    assert not edits(open_event)


def test_referees_come_from_the_referee_group_and_are_audited(
    open_event: Tournament, organiser: User, event_referee: User, other_referee: User
) -> None:
    with pytest.raises(ConfigurationError) as refused:
        services.tournament_set_referees(
            tournament=open_event, actor=organiser, referees=[event_referee, organiser]
        )
    assert refused.value.fields == {"referees": ["not in the referee group: organiser"]}

    services.tournament_set_referees(
        tournament=open_event, actor=organiser, referees=[event_referee, other_referee]
    )
    services.tournament_set_referees(
        tournament=open_event, actor=organiser, referees=[other_referee, event_referee]
    )
    assert set(open_event.referees.all()) == {event_referee, other_referee}
    [row] = AuditEvent.objects.filter(action=AuditEvent.Action.TOURNAMENT_REFEREES)
    assert (row.before, row.after) == (
        {"referees": []},
        {"referees": ["event-referee", "other-referee"]},
    )
    services.tournament_cancel(tournament=open_event)
    with pytest.raises(StateError):
        services.tournament_set_referees(tournament=open_event, actor=organiser, referees=[])


def test_a_league_is_its_creators_and_audited(organiser: User) -> None:
    league = services.league_create(
        name=" Лига Тулы ", season="2027", actor=organiser, points_scale=[25, "18", "1/2"]
    )
    twin = services.league_create(name="Лига Тулы", season="2027", actor=organiser)
    assert (league.name, league.slug, league.created_by) == ("Лига Тулы", "liga-tuly", organiser)
    assert twin.slug == "liga-tuly-2"
    assert league.points_scale == [25, "18", "1/2"]
    [created] = AuditEvent.objects.filter(league=league, action=AuditEvent.Action.LEAGUE_CREATE)
    assert created.tournament is None and created.after == {
        "slug": "liga-tuly",
        "name": "Лига Тулы",
        "season": "2027",
        "points_scale": [25, "18", "1/2"],
        "rank_ladder": [],
    }

    services.league_update(league=league, actor=organiser, rank_ladder=["сержант", "старшина"])
    [edit] = AuditEvent.objects.filter(league=league, action=AuditEvent.Action.LEAGUE_EDIT)
    assert (edit.before, edit.after) == (
        {"rank_ladder": []},
        {"rank_ladder": ["сержант", "старшина"]},
    )
    assert League.objects.get(pk=league.pk).slug == "liga-tuly"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": " "}, "name"),
        ({"season": "x" * 41}, "season"),
        ({"points_scale": [10, 20]}, "points_scale"),
        ({"points_scale": [1.5]}, "points_scale"),
        ({"rank_ladder": ["сержант", "сержант"]}, "rank_ladder"),
        ({"rank_ladder": "сержант"}, "rank_ladder"),
        ({"slug": "other"}, "slug"),
    ],
)
def test_league_settings_are_refused_on_their_field(
    organiser: User, changes: dict[str, object], field: str
) -> None:
    league = services.league_create(name="Лига", season="2027", actor=organiser)
    with pytest.raises(ConfigurationError) as refused:
        services.league_update(league=league, actor=organiser, **changes)
    assert list(refused.value.fields) == [field]


def test_a_season_that_has_the_slug_already_is_refused(organiser: User) -> None:
    services.league_create(name="Лига", season="2027", actor=organiser)
    other = services.league_create(name="Лига", season="2028", actor=organiser)
    with pytest.raises(ConfigurationError) as refused:
        services.league_update(league=other, actor=organiser, season="2027")
    assert list(refused.value.fields) == ["season"]
