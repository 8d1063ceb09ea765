"""An event's dashboard in the console (``console.dashboard`` over ``selectors.dashboard``): its
state in words, the next step as one button that moves the event on through the console's own
actions, what is missing or late with links to where it is put right; its organiser and its
referees see it (a referee without the organiser's buttons), anyone else gets a 404. And the
console around it: the tournament list opens it, the menu follows the workflow, events of the
same name are told apart in the filters, and the plan form sent twice creates one event."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from games.models import Game, GameAction
from games.services import game_pause
from tests.builders import ConsoleEvent, console_event, make_tournament, run_jobs
from tests.factories import BotPlayerFactory, PlayerFactory
from tests.site.test_awards_failures import broken_event
from tests.site.test_console_plan import SWISS, plan_data, save
from tournaments import services
from tournaments.console.filters import distinct_labels
from tournaments.models import (
    AuditEvent,
    Entry,
    IdempotentRequest,
    Round,
    Table,
    Tournament,
)
from tournaments.selectors.dashboard import Step, dashboard_facts, next_step
from tournaments.services.corrections import table_result_enter

pytestmark = pytest.mark.django_db

ENGLISH = {"Accept-Language": "en"}


def dashboard_url(tournament: Tournament) -> str:
    return reverse("admin:tournaments_tournament_dashboard", args=[tournament.pk])


def client_of(user: User) -> Client:
    client = Client(headers=ENGLISH)
    client.force_login(user)
    return client


def page(user: User, tournament: Tournament) -> str:
    response = client_of(user).get(dashboard_url(tournament))
    assert response.status_code == 200
    return response.content.decode()


def step_of(page_text: str) -> str:
    match = re.search(r'id="next-step" class="next" data-step="([a-z_]+)"', page_text)
    assert match is not None
    return match.group(1)


def take(user: User, tournament: Tournament, step: str) -> tuple[int, list[str]]:
    response = client_of(user).post(dashboard_url(tournament), {"step": step})
    if response.status_code == 302:
        assert response["Location"] == dashboard_url(tournament)
    return response.status_code, [str(m) for m in get_messages(response.wsgi_request)]


def draft(owner: User, referee: User) -> Tournament:
    tournament = services.tournament_create(
        name="Кубок клуба",
        stages=[{"format": "swiss", "table_size": 2, "rounds": 2}],
        created_by=owner,
    )
    tournament.referees.set([referee])
    return tournament


# --- the facts and the next step, state by state ----------------------------------------------


def test_before_the_start_the_steps_are_open_close_start(
    organiser: User, event_referee: User
) -> None:
    tournament = draft(organiser, event_referee)
    assert next_step(dashboard_facts(tournament, user=organiser)) == Step.OPEN_REGISTRATION
    services.tournament_open_registration(tournament=tournament)
    players = PlayerFactory.create_batch(3)
    entries = [services.entry_register(tournament=tournament, player=p) for p in players]
    services.entry_check_in(entry=entries[0])
    services.entry_withdraw(entry=entries[2], reason="ill")
    facts = dashboard_facts(tournament, user=organiser)
    assert facts.registration_open and next_step(facts) == Step.CLOSE_REGISTRATION
    assert (facts.entries.registered, facts.entries.checked_in, facts.entries.withdrawn) == (
        1,
        1,
        1,
    )
    assert facts.stage == "" and facts.round == ""
    services.tournament_close_registration(tournament=tournament)
    tournament.refresh_from_db()
    facts = dashboard_facts(tournament, user=organiser)
    assert not facts.registration_open and next_step(facts) == Step.START


def test_a_started_event_waits_for_its_pairing_then_plays_then_pairs_again(
    console_events: tuple[ConsoleEvent, ConsoleEvent], organiser: User
) -> None:
    event = console_events[0]
    # round 1 in play (a result at table 1, table 2 playing), round 2 created and waiting
    facts = dashboard_facts(event.tournament, user=organiser)
    assert next_step(facts) == Step.PLAYING
    assert (facts.stage, facts.round) == ("Swiss", "Round 1")
    assert (facts.tables.finished, facts.tables.playing, facts.tables.waiting) == (1, 1, 0)
    # when round 1 is done, round 2 waits for its pairing
    Table.objects.filter(round=event.round).update(status=Table.Status.FINISHED)
    Round.objects.filter(pk=event.round.pk).update(status=Round.Status.FINISHED)
    facts = dashboard_facts(event.tournament, user=organiser)
    assert next_step(facts) == Step.PAIR
    assert (facts.tables.finished, facts.tables.playing) == (2, 0)


def test_a_result_waiting_for_a_second_referee_is_the_next_step_and_listed(
    console_events: tuple[ConsoleEvent, ConsoleEvent], organiser: User, event_referee: User
) -> None:
    event = console_events[0]
    Tournament.objects.filter(pk=event.tournament.pk).update(two_person_rule=True)
    event.tournament.refresh_from_db()
    table = Table.objects.get(round=event.round, number=2)
    seated = list(table.seats.order_by("position").values_list("entry_id", flat=True))
    table_result_enter(table=table, actor=event_referee, places=seated, fool=seated[-1])
    facts = dashboard_facts(event.tournament, user=organiser)
    assert next_step(facts) == Step.CONFIRM
    assert [(p.table.table_id, p.entered_by) for p in facts.pending_results] == [
        (table.pk, event_referee.username)
    ]
    # the button opens that table's result page, where the second referee reads and confirms
    text = page(organiser, event.tournament)
    result_page = reverse("admin:tournaments_table_result", args=[table.pk])
    assert f'id="next-button" href="{result_page}"' in text
    assert f'<a href="{result_page}">Round 1, table 2</a>' in text


def test_a_finished_event_is_over_unless_its_awards_failed(
    organiser: User, event_referee: User
) -> None:
    tournament = make_tournament(
        BotPlayerFactory.create_batch(4),
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        created_by=organiser,
    )
    services.tournament_start(tournament=tournament)
    run_jobs(tournament)
    tournament.refresh_from_db()
    assert next_step(dashboard_facts(tournament, user=organiser)) == Step.FINISHED
    broken = broken_event(organiser, event_referee)
    facts = dashboard_facts(broken, user=event_referee)
    assert next_step(facts) == Step.RECOMPUTE
    assert [f.job for f in facts.failures] == ["prize_pool"]
    # the referee may recompute: the button posts it and comes back with what came of it
    text = page(event_referee, broken)
    assert 'name="step" value="recompute"' in text and "awards-failures" in text
    status, said = take(event_referee, broken, "recompute")
    assert status == 302 and said == ["Recomputed; still failing: Prize pool and payouts."]
    assert AuditEvent.objects.filter(action=AuditEvent.Action.AWARDS_RECOMPUTE).count() == 1


def test_stalled_paused_and_absent_tables_are_listed_with_links_to_their_tables(
    console_events: tuple[ConsoleEvent, ConsoleEvent], organiser: User
) -> None:
    event = console_events[0]
    # table 2 (table 1 has its result) has not moved for an hour
    quiet = Table.objects.get(round=event.round, number=2)
    hour_ago = timezone.now() - dt.timedelta(hours=1)
    Game.objects.filter(table=quiet).update(created_at=hour_ago)
    GameAction.objects.filter(game__table=quiet).update(created_at=hour_ago)
    facts = dashboard_facts(event.tournament, user=organiser)
    assert [(t.table.table_id, t.not_started) for t in facts.late] == [(quiet.pk, False)]
    assert facts.paused == []
    # nobody is connected: the two people at the table in play are absent
    names = sorted(s.player.display_name for s in quiet.seats.select_related("player"))
    assert sorted(a.name for a in facts.absent) == names
    text = page(organiser, event.tournament)
    live = reverse("table", args=[quiet.pk])
    assert f'<a href="{live}">Round 1, table 2</a>' in text
    assert "late-tables" in text and "absent-players" in text
    # a referee pauses it: it waits for a ruling, and is no longer stalled
    game_pause(game_id=Game.objects.get(table=quiet).pk, reason="a dispute", referee=organiser)
    facts = dashboard_facts(event.tournament, user=organiser)
    assert [p.table.table_id for p in facts.paused] == [quiet.pk]
    assert facts.late == [] and facts.absent == []
    assert "paused-tables" in page(organiser, event.tournament)


def test_a_table_without_a_game_long_after_the_pairing_is_late(
    console_events: tuple[ConsoleEvent, ConsoleEvent], organiser: User
) -> None:
    event = console_events[0]
    quiet = Table.objects.get(round=event.round, number=2)
    Game.objects.filter(table=quiet).delete()
    facts = dashboard_facts(event.tournament, user=organiser)
    assert facts.late == []  # just paired: the deal may still come
    Round.objects.filter(pk=event.round.pk).update(
        paired_at=timezone.now() - dt.timedelta(minutes=30)
    )
    facts = dashboard_facts(event.tournament, user=organiser)
    assert [(t.table.table_id, t.not_started) for t in facts.late] == [(quiet.pk, True)]


# --- who sees it, who acts --------------------------------------------------------------------


def test_the_organiser_advances_the_event_by_its_button(
    organiser: User, event_referee: User
) -> None:
    tournament = draft(organiser, event_referee)
    assert step_of(page(organiser, tournament)) == "open_registration"
    status, said = take(organiser, tournament, "open_registration")
    assert (status, said) == (302, ["Registration opened for 1 tournament."])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION
    for player in PlayerFactory.create_batch(2):
        services.entry_register(tournament=tournament, player=player)
    text = page(organiser, tournament)
    assert step_of(text) == "close_registration"
    assert "2 registered, 0 checked in, 0 withdrawn" in text
    assert take(organiser, tournament, "close_registration")[0] == 302
    assert take(organiser, tournament, "start") == (302, ["1 tournament started."])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    # round 1 waits for its pairing (no job runs here): the next step is to pair it
    assert step_of(page(organiser, tournament)) == "pair_next_round"


def test_a_second_click_changes_nothing_and_says_the_event_moved_on(
    organiser: User, event_referee: User
) -> None:
    tournament = draft(organiser, event_referee)
    assert take(organiser, tournament, "open_registration")[0] == 302
    status, said = take(organiser, tournament, "open_registration")
    assert (status, said) == (302, ["The tournament has moved on: its next step is shown below."])
    assert AuditEvent.objects.filter(action=AuditEvent.Action.TOURNAMENT_OPEN).count() == 1


def test_a_referee_sees_the_state_but_only_takes_the_steps_of_a_referee(
    organiser: User, event_referee: User
) -> None:
    tournament = draft(organiser, event_referee)
    text = page(event_referee, tournament)
    assert "Only the tournament&#x27;s organiser can take this step." in text
    assert 'name="step"' not in text
    status, _said = take(event_referee, tournament, "open_registration")
    assert status == 403
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.DRAFT
    # once started, pairing is a referee's step: the referee's button requests it (audited)
    services.tournament_open_registration(tournament=tournament)
    for player in PlayerFactory.create_batch(2):
        services.entry_register(tournament=tournament, player=player)
    services.tournament_start(tournament=tournament)
    text = page(event_referee, tournament)
    assert 'name="step" value="pair_next_round"' in text
    status, said = take(event_referee, tournament, "pair_next_round")
    assert (status, said) == (302, ["Pairing requested for 1 tournament."])
    audit = AuditEvent.objects.get(action=AuditEvent.Action.ROUND_PAIR)
    assert audit.actor == event_referee


def test_outsiders_get_a_404_and_a_visitor_the_login(
    console_events: tuple[ConsoleEvent, ConsoleEvent],
    other_organiser: User,
    other_referee: User,
    staff_without_group: User,
    superuser: User,
) -> None:
    tournament = console_events[0].tournament
    for user in (other_organiser, other_referee, staff_without_group):
        assert client_of(user).get(dashboard_url(tournament)).status_code == 404
        assert client_of(user).post(dashboard_url(tournament), {"step": "x"}).status_code == 404
    assert client_of(superuser).get(dashboard_url(tournament)).status_code == 200
    anonymous = Client().get(dashboard_url(tournament))
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    missing = reverse("admin:tournaments_tournament_dashboard", args=[999999])
    assert client_of(superuser).get(missing).status_code == 404


def test_the_page_links_the_events_other_pages_in_russian(
    console_events: tuple[ConsoleEvent, ConsoleEvent], organiser: User
) -> None:
    tournament = console_events[0].tournament
    client = Client()
    client.force_login(organiser)
    text = client.get(dashboard_url(tournament)).content.decode()
    pk = tournament.pk
    for label, url in [
        ("Настройки", reverse("admin:tournaments_tournament_change", args=[pk])),
        ("Ход турнира", reverse("admin:tournaments_tournament_progress", args=[pk])),
        (
            "Участники",
            reverse("admin:tournaments_entry_changelist") + f"?tournament__id__exact={pk}",
        ),
        (
            "Туры",
            reverse("admin:tournaments_round_changelist") + f"?stage__tournament__id__exact={pk}",
        ),
        (
            "Журнал",
            reverse("admin:tournaments_auditevent_changelist") + f"?tournament__id__exact={pk}",
        ),
        ("Публичная страница", reverse("tournament", args=[tournament.slug])),
    ]:
        assert f'<a href="{url}">{label}</a>' in text, label
    assert "Следующий шаг" in text and "Идёт тур" in text
    assert "Тур 1: 1 стол доиграл, в игре: 1, не начаты: 0" in text


def test_while_registration_is_open_its_organiser_is_linked_to_the_import_of_a_file(
    organiser: User, event_referee: User
) -> None:
    tournament = draft(organiser, event_referee)
    url = reverse("admin:tournaments_tournament_import_players", args=[tournament.pk])
    link = f'<a href="{url}?from=dashboard">Import players from CSV</a>'
    assert link not in page(organiser, tournament)  # a draft takes nobody yet
    services.tournament_open_registration(tournament=tournament)
    assert link in page(organiser, tournament)
    assert url not in page(event_referee, tournament)  # a referee does not register players
    for player in PlayerFactory.create_batch(2):
        services.entry_register(tournament=tournament, player=player)
    services.tournament_close_registration(tournament=tournament)
    tournament.refresh_from_db()
    assert link not in page(organiser, tournament)


def test_the_entries_line_counts_the_eliminated_once_there_are_any(
    organiser: User, event_referee: User
) -> None:
    tournament = draft(organiser, event_referee)
    services.tournament_open_registration(tournament=tournament)
    for player in PlayerFactory.create_batch(3):
        services.entry_register(tournament=tournament, player=player)
    assert "eliminated" not in page(organiser, tournament)
    # a stage played: one entry went no further
    Entry.objects.filter(pk=Entry.objects.filter(tournament=tournament)[0].pk).update(
        status=Entry.Status.ELIMINATED
    )
    assert "2 registered, 0 checked in, 0 withdrawn, 1 eliminated" in page(organiser, tournament)
    with translation.override("ru"):
        ru = Client()
        ru.force_login(organiser)
        text = ru.get(dashboard_url(tournament)).content.decode()
    assert "заявлено: 2, подтвердили участие: 0, снялись: 0, выбыли: 1" in text


# --- the console around it ----------------------------------------------------------------------


def test_the_tournament_list_opens_the_dashboard(
    console_events: tuple[ConsoleEvent, ConsoleEvent], organiser: User
) -> None:
    tournament = console_events[0].tournament
    text = client_of(organiser).get(reverse("admin:tournaments_tournament_changelist"))
    html = text.content.decode()
    assert f'<a href="{dashboard_url(tournament)}">{tournament.name}</a>' in html
    change = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
    assert f'href="{change}"' not in html  # the settings are one click further, on the dashboard


def test_the_menu_follows_the_workflow(superuser: User) -> None:
    response = client_of(superuser).get(reverse("admin:index"))
    apps = response.context["app_list"]
    assert [app["app_label"] for app in apps][:2] == ["tournaments", "games"]
    models = [m["object_name"] for m in apps[0]["models"]]
    assert models[:8] == [
        "Tournament",
        "League",
        "Player",
        "Team",
        "Entry",
        "Round",
        "Table",
        "TableResult",
    ]
    assert models[-3:] == ["AuditEvent", "Webhook", "WebhookDelivery"]
    assert [m["object_name"] for m in apps[1]["models"]] == ["Game", "RefereeEvent"]
    # an app's own page keeps the order too
    app_page = client_of(superuser).get(reverse("admin:app_list", args=["tournaments"]))
    assert [m["object_name"] for m in app_page.context["app_list"][0]["models"]] == models


def test_events_of_the_same_name_are_told_apart_in_the_filters(organiser: User) -> None:
    players = PlayerFactory.create_batch(2)
    spring = make_tournament(players, name="Кубок", created_by=organiser)
    autumn = make_tournament(players, name="Кубок", created_by=organiser)
    other = make_tournament(players[:1], name="Лето", created_by=organiser)
    Tournament.objects.filter(pk=spring.pk).update(
        starts_at=dt.datetime(2026, 3, 12, 10, tzinfo=dt.UTC)
    )
    Tournament.objects.filter(pk=autumn.pk).update(
        starts_at=dt.datetime(2026, 9, 5, 10, tzinfo=dt.UTC)
    )
    with translation.override("ru"):
        labels = distinct_labels(Tournament.objects.all())
    assert labels[spring.pk] == "Кубок (12.03.2026)" and labels[autumn.pk] == "Кубок (05.09.2026)"
    assert labels[other.pk] == "Лето"
    entries = Client()
    entries.force_login(organiser)
    html = entries.get(reverse("admin:tournaments_entry_changelist")).content.decode()
    assert "Кубок (12.03.2026)" in html and "Кубок (05.09.2026)" in html
    # without planned dates (or on the same day) the slugs tell them apart
    Tournament.objects.filter(pk=autumn.pk).update(starts_at=None)
    labels = distinct_labels(Tournament.objects.filter(name="Кубок"))
    assert labels == {spring.pk: f"Кубок ({spring.slug})", autumn.pk: f"Кубок ({autumn.slug})"}


def test_the_plan_form_sent_twice_creates_one_tournament(client: Client, organiser: User) -> None:
    client.force_login(organiser)
    form = client.get(reverse("admin:tournaments_tournament_add")).content.decode()
    token = re.search(r'name="_once" value="([A-Za-z0-9_-]+)"', form)
    assert token is not None
    data = {**plan_data(SWISS), "_once": token.group(1)}
    first = save(client, data)
    tournament = Tournament.objects.get()
    assert first.status_code == 302 and first["Location"] == dashboard_url(tournament)
    again = save(client, data)
    assert again.status_code == 302 and again["Location"] == dashboard_url(tournament)
    assert Tournament.objects.count() == 1
    assert [str(m) for m in get_messages(again.wsgi_request)][-1] == (
        "Эта форма уже отправлена: показан турнир, созданный по ней."
    )
    assert IdempotentRequest.objects.get().response == {"pk": tournament.pk}
    # a new form (a new token) creates another
    assert save(client, {**plan_data(SWISS), "_once": "b" * 32}).status_code == 302
    assert Tournament.objects.count() == 2


def test_a_refused_plan_keeps_its_token_and_creates_once_corrected(
    client: Client, organiser: User
) -> None:
    client.force_login(organiser)
    data = {**plan_data(SWISS), "_once": "a" * 32, "rake_percent": "120"}
    refused = save(client, data)
    assert refused.status_code == 200 and 'value="' + "a" * 32 + '"' in refused.content.decode()
    assert not Tournament.objects.exists() and not IdempotentRequest.objects.exists()
    assert save(client, {**data, "rake_percent": "10"}).status_code == 302
    assert Tournament.objects.count() == 1


def test_running_events_of_the_same_name_are_told_apart_on_the_live_tables_page(
    organiser: User,
) -> None:
    first = console_event(owner=organiser, referees=[], name="Кубок").tournament
    second = console_event(owner=organiser, referees=[], name="Кубок").tournament
    assert first.slug != second.slug
    html = client_of(organiser).get(reverse("admin:tournaments_tournament_live_tables"))
    text = html.content.decode()
    assert f">Кубок ({first.slug})</option>" in text
    assert f">Кубок ({second.slug})</option>" in text


def test_the_facts_take_as_many_queries_for_many_tables_as_for_few(organiser: User) -> None:
    def running(players: int) -> Tournament:
        tournament = make_tournament(
            PlayerFactory.create_batch(players),
            stages=[{"format": "swiss", "table_size": 2, "rounds": 2}],
            created_by=organiser,
        )
        services.tournament_start(tournament=tournament)
        services.round_pair(round_id=Round.objects.get(stage__tournament=tournament).pk)
        return tournament

    def queries(tournament: Tournament) -> int:
        with CaptureQueriesContext(connection) as captured:
            facts = dashboard_facts(tournament, user=organiser)
        assert facts.tables.playing * 2 == len(facts.absent)  # every seat is a person away
        return len(captured)

    assert queries(running(4)) == queries(running(12))
