"""A round's paper for the hall (pairing lists, result slips with QR codes, the projector:
``tournaments.console.paper``) and the result grid (``tournaments.console.grid``), as each role."""

from __future__ import annotations

import doctest
from typing import Any

import pytest
import segno
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.builders import ConsoleEvent, make_tournament
from tests.factories import PlayerFactory
from tournaments import selectors, services
from tournaments.console.paper import qr_svg
from tournaments.models import AuditEvent, Round, Table, TableResult, Tournament
from tournaments.selectors import paper

pytestmark = pytest.mark.django_db

PAGES = ("pairings", "slips", "projector", "results")


def url(round_: Round, page: str) -> str:
    return reverse(f"admin:tournaments_round_{page}", args=[round_.pk])


def login(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "access",
    [
        ("event_referee", 200),
        ("organiser", 200),
        ("superuser", 200),
        ("other_referee", 404),
        ("other_organiser", 404),
        ("staff_without_group", 404),
    ],
)
@pytest.mark.parametrize("page", PAGES)
def test_the_round_s_paper_is_for_the_event_s_people(
    client: Client,
    request: pytest.FixtureRequest,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
    access: tuple[str, int],
    page: str,
) -> None:
    persona, status = access
    user = request.getfixturevalue(persona)
    assert not (persona == "event_referee" and user.is_superuser)
    login(client, user)
    response = client.get(url(console_events[0].round, page))
    assert response.status_code == status


def test_the_outsider_is_sent_to_the_login(
    client: Client, outsider: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    login(client, outsider)
    response = client.get(url(console_events[0].round, "slips"))
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]


def test_the_printed_pages_are_read_only(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    login(client, event_referee)
    for page in ("pairings", "slips", "projector"):
        assert client.post(url(console_events[0].round, page)).status_code == 405


def test_the_pairing_list_by_table_and_by_name(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    # given round 1 of event A: two tables of two
    event = console_events[0]
    login(client, event_referee)
    # when
    page = client.get(url(event.round, "pairings")).content.decode()
    # then every seated player is on both lists, the by-name list alphabetical
    seats = list(
        event.round.tables.values_list("number", "seats__position", "seats__player__display_name")
    )
    by_table, by_name = page.split('id="by-name"')
    rows = {
        int(part.split('"', 1)[0]): part.split("</tr>", 1)[0]
        for part in by_table.split('data-table="')[1:]
    }
    for number, position, name in seats:
        assert f"{position + 1}.</span> <strong>{name}</strong>" in rows[number]
        assert name in by_name
    order = sorted(seats, key=lambda s: s[2].casefold())
    found = [by_name.index(name) for _, _, name in order]
    assert found == sorted(found)
    assert "Рассадка по столам" in by_table and "Рассадка по фамилиям" in by_name
    assert "print.css" in page and "nav-sidebar" not in page  # no console chrome


def test_each_slip_carries_the_qr_code_of_its_table_s_result_page(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    event = console_events[0]
    login(client, event_referee)
    page = client.get(url(event.round, "slips")).content.decode()
    for table in Table.objects.filter(round=event.round, is_bye=False):
        expected = "http://testserver" + reverse("admin:tournaments_table_result", args=[table.pk])
        # the page's SVG is the one segno draws for exactly that absolute address
        assert str(qr_svg(expected)) in page
        code = segno.make(expected, error="m", micro=False)
        assert code.matrix == segno.make(expected, error="m").matrix
        assert f'data-table="{table.number}"' in page
    assert page.count('class="slip"') == Table.objects.filter(round=event.round).count()
    # four to a sheet on request; an unknown count falls back to two
    four = client.get(url(event.round, "slips") + "?per=4").content.decode()
    assert "per-4" in four and four.count('class="sheet"') == 1
    assert "per-2" in client.get(url(event.round, "slips") + "?per=x").content.decode()


def test_a_qr_code_encodes_the_address_and_nothing_else() -> None:
    address = "https://durak.example/admin/tournaments/table/7/result/"
    svg = str(qr_svg(address))
    assert svg.startswith("<svg") and "<script" not in svg
    assert svg != str(qr_svg(address.replace("7", "8")))


def test_the_projector_shows_the_current_round_and_the_standings_live(
    client: Client, event_referee: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    event = console_events[0]
    login(client, event_referee)
    page = client.get(url(event.round, "projector")).content.decode()
    assert f'data-feed="/ws/tournaments/{event.tournament.slug}/"' in page
    assert 'id="projector-round" data-live' in page and 'id="projector-standings"' in page
    assert "js/tournament.js" in page
    assert "Доигран 1 стол из 2" in page  # table 1 has its referee's result
    for line in selectors.standings.stage_standings(event.round.stage):
        assert line.name in page


# --- the result grid ---------------------------------------------------------------------------


def hall_round(owner: User, referees: list[User], *, two_person_rule: bool = False) -> Round:
    """A running event of twelve players at tables of three, round 1 paired: four tables."""
    tournament = make_tournament(
        PlayerFactory.create_batch(12),
        stages=[{"format": "swiss", "table_size": 3, "rounds": 2}],
        name="Зал",
        created_by=owner,
        two_person_rule=two_person_rule,
    )
    tournament.referees.set(referees)
    services.tournament_start(tournament=tournament)
    first = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=first.pk)
    return first


def row(table: Table, places: list[Any], draw: bool = False) -> dict[str, str]:
    data = {f"t{table.pk}-seat_{n}": str(p) for n, p in enumerate(places, 1)}
    if draw:
        data[f"t{table.pk}-draw"] = "on"
    return data


def test_the_grid_saves_the_valid_rows_and_keeps_the_wrong_ones_as_typed(
    client: Client, organiser: User, event_referee: User
) -> None:
    # given four tables of three
    round_ = hall_round(organiser, [event_referee])
    t1, t2, t3, t4 = Table.objects.filter(round=round_).order_by("number")
    login(client, event_referee)
    # when two rows are right (one a draw), one repeats a place, one is out of range, one empty
    data = {
        **row(t1, [2, 1, 3]),
        **row(t2, [1, 3, 2], draw=True),
        **row(t3, [1, 1, 2]),
        **row(t4, [1, 2, 9]),
    }
    response = client.post(url(round_, "results"), data)
    # then the two are saved through the service, the others shown again with their values
    assert response.status_code == 200
    page = response.content.decode()
    assert "Сохранено 2 результата, 2 строки с ошибками" in page
    seats1 = list(t1.seats.order_by("position").values_list("entry_id", flat=True))
    first = selectors.effective_result(t1)
    assert first is not None and first.places == [seats1[1], seats1[0], seats1[2]]
    assert first.fool_entry_id == seats1[2] and first.entered_by == event_referee
    seats2 = list(t2.seats.order_by("position").values_list("entry_id", flat=True))
    second = selectors.effective_result(t2)
    assert second is not None and second.fool_entry_id is None
    assert second.drawn == [seats2[2], seats2[1]]
    assert not TableResult.objects.filter(table__in=[t3, t4]).exists()
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESULT_ENTER).count() == 2
    assert f'name="t{t3.pk}-seat_1" value="1"' in page
    assert f'name="t{t4.pk}-seat_3" value="9"' in page
    assert "Каждый игрок занимает одно место." in page
    # the saved rows are read-only now, with a link to correct them
    assert f'name="t{t1.pk}-seat_1"' not in page
    assert reverse("admin:tournaments_table_result", args=[t1.pk]) in page


def test_an_empty_grid_saves_nothing_and_says_so(
    client: Client, organiser: User, event_referee: User
) -> None:
    round_ = hall_round(organiser, [event_referee])
    login(client, event_referee)
    response = client.post(url(round_, "results"), {}, follow=True)
    assert "Нечего сохранять" in response.content.decode()
    assert not TableResult.objects.filter(table__round=round_).exists()


def test_all_rows_right_redirects_with_the_count(
    client: Client, organiser: User, event_referee: User
) -> None:
    round_ = hall_round(organiser, [event_referee])
    tables = Table.objects.filter(round=round_).order_by("number")
    login(client, event_referee)
    data: dict[str, str] = {}
    for table in tables:
        data |= row(table, [1, 2, 3])
    response = client.post(url(round_, "results"), data)
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Сохранено 4 результата" in page
    assert TableResult.objects.filter(table__round=round_).count() == 4


def test_under_the_two_person_rule_the_grid_s_results_wait_for_a_second_referee(
    client: Client, organiser: User, event_referee: User
) -> None:
    round_ = hall_round(organiser, [event_referee], two_person_rule=True)
    table = Table.objects.filter(round=round_).order_by("number").first()
    assert table is not None
    login(client, event_referee)
    response = client.post(url(round_, "results"), row(table, [3, 2, 1]), follow=True)
    page = response.content.decode()
    assert "ждёт подтверждения второго судьи" in page
    result = TableResult.objects.get(table=table)
    assert result.status == TableResult.Status.PENDING
    assert selectors.effective_result(table) is None
    assert f'name="t{table.pk}-seat_1"' not in page  # read-only while it waits


def test_the_grid_is_for_the_event_s_referees_only(
    client: Client, organiser: User, event_referee: User, other_referee: User
) -> None:
    round_ = hall_round(organiser, [event_referee])
    table = Table.objects.filter(round=round_).order_by("number").first()
    assert table is not None
    login(client, other_referee)
    assert client.post(url(round_, "results"), row(table, [1, 2, 3])).status_code == 404
    assert not TableResult.objects.filter(table=table).exists()
    assert Tournament.objects.get(pk=round_.stage.tournament_id).status == "running"


def test_a_knockout_round_prints_its_seated_tables_and_waits_for_the_rest(
    client: Client, organiser: User, event_referee: User
) -> None:
    # given a knockout of eight at tables of four: two seated tables now, the final to come
    tournament = make_tournament(
        PlayerFactory.create_batch(8),
        stages=[{"format": "knockout", "table_size": 4, "advance_per_table": 2}],
        name="Кубок на выбывание",
        created_by=organiser,
    )
    tournament.referees.set([event_referee])
    services.tournament_start(tournament=tournament)
    first = Round.objects.filter(stage__tournament=tournament).order_by("number").first()
    assert first is not None
    services.round_pair(round_id=first.pk)
    login(client, event_referee)
    # when
    pairings = client.get(url(first, "pairings")).content.decode()
    slips = client.get(url(first, "slips")).content.decode()
    # then every seated player is listed, and each seated table has its slip
    seated = Table.objects.filter(round__stage__tournament=tournament, seats__isnull=False)
    for table in seated.distinct():
        for seat in table.seats.select_related("player"):
            assert seat.player.display_name in pairings and seat.player.display_name in slips
    assert (
        slips.count('class="slip"') == first.tables.filter(seats__isnull=False).distinct().count()
    )
    assert client.get(url(first, "projector")).status_code == 200
    assert client.get(url(first, "results")).status_code == 200
    # the final's table waits for its players: listed as such, no slip yet, no row to fill
    final = Round.objects.get(stage__tournament=tournament, number=2)
    assert "ждёт своих игроков" in client.get(url(final, "pairings")).content.decode()
    assert 'class="slip"' not in client.get(url(final, "slips")).content.decode()
    grid = client.get(url(final, "results")).content.decode()
    assert "ждёт своих игроков" in grid and "-seat_1" not in grid


def test_a_team_table_is_entered_on_its_own_page_not_in_the_grid(
    client: Client, organiser: User, event_referee: User
) -> None:
    # given two pairs at one four-seat table (two seats per entry)
    tournament = services.tournament_create(
        name="Пары",
        team_size=2,
        move_clock_seconds=0,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
        created_by=organiser,
    )
    services.tournament_open_registration(tournament=tournament)
    players = PlayerFactory.create_batch(4)
    for i in (0, 2):
        team = services.team_create(name=f"Пара {i}", players=players[i : i + 2])
        services.entry_register(tournament=tournament, team=team)
    tournament.referees.set([event_referee])
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_.pk)
    table = Table.objects.get(round=round_)
    login(client, event_referee)
    # when
    page = client.get(url(round_, "results")).content.decode()
    posted = client.post(url(round_, "results"), row(table, [1, 2, 3, 4]), follow=True)
    # then the row is a link to the table's page, and a forged row saves nothing
    assert "на странице стола (команды)" in page and f"t{table.pk}-seat_1" not in page
    assert reverse("admin:tournaments_table_result", args=[table.pk]) in page
    assert "Нечего сохранять" in posted.content.decode()
    assert not TableResult.objects.filter(table=table).exists()
    # the paper names the teams with their players
    pairings = client.get(url(round_, "pairings")).content.decode()
    assert "Пара 0" in pairings and players[3].display_name in pairings


def test_the_round_s_page_explains_its_pairing_in_words_not_json(
    client: Client, organiser: User
) -> None:
    # given a paired swiss round, read in Russian by its organiser
    round_ = hall_round(organiser, [])
    round_.refresh_from_db()
    assert round_.explanation  # stored as data
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "ru"
    page = login(client, organiser).get(reverse("admin:tournaments_round_change", args=[round_.pk]))
    text = page.content.decode()
    # then the explanation is a list of labelled lines, with no JSON keys
    assert page.status_code == 200
    assert "Алгоритм" in text and "Швейцарская система" in text
    assert '"algorithm"' not in text and "&quot;algorithm&quot;" not in text


def test_the_door_list_orders_numbers_in_names_by_value() -> None:
    names = ["Игрок 10", "Игрок 2", "анна", "Игрок 1", "Борис 3а"]
    assert sorted(names, key=paper.name_order) == [
        "анна",
        "Борис 3а",
        "Игрок 1",
        "Игрок 2",
        "Игрок 10",
    ]
    assert doctest.testmod(paper).failed == 0
