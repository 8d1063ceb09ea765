"""The console's progress pages (``tournaments.console.progress``): an event's progress and a
league's table.

The event's organiser and referees (and a superuser) see its stages, rounds and tables by name,
its standings, a knockout stage as a tree and, once it has finished, its final places, payouts and
ranks; a referee or organiser of another event gets a 404, as for a missing event (the same
answer as the admin's own pages), an outsider the login. The league table adds up the league's
finished tournaments by its points scale. The page's queries do not grow with the number of
tables.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape

from games.models import Game
from tests.builders import ConsoleEvent, make_tournament
from tests.factories import BotPlayerFactory, PlayerFactory
from tests.site.test_console_live import running_event
from tests.site.test_console_walk import PERSONAS, SEES, Walk
from tournaments import selectors, services
from tournaments.models import (
    Entry,
    League,
    Payout,
    Player,
    RankRecord,
    Round,
    Stage,
    Table,
    TableResult,
    Tournament,
)
from tournaments.money import money
from tournaments.selectors.standings import standing_rows
from tournaments.wording import compromise_lines

PROGRESS = "admin:tournaments_tournament_progress"
LEAGUE_TABLE = "admin:tournaments_league_table"
ENGLISH = {"Accept-Language": "en"}
KNOCKOUT_OF_8 = [{"format": "knockout", "table_size": 4, "advance_per_table": 2}]


def get(user: User, url: str) -> tuple[int, str]:
    client = Client()
    client.force_login(user)
    response = client.get(url, headers=ENGLISH)
    return response.status_code, response.content.decode()


def progress_url(tournament: Tournament) -> str:
    return reverse(PROGRESS, args=[tournament.pk])


def table_url(league: League) -> str:
    return reverse(LEAGUE_TABLE, args=[league.pk])


def part(page: str, start: str, end: str = "</table>") -> str:
    """The piece of ``page`` from the first ``start`` to the next ``end``."""
    assert start in page, start
    begin = page.index(start)
    return page[begin : page.index(end, begin)]


def in_order(text: str, names: list[str]) -> bool:
    """Whether ``names`` occur in ``text`` in this order, each as the whole text of a cell or
    an item (a tag may follow it: the fool's)."""
    found = [re.search(rf">{re.escape(escape(name))}( <|<)", text) for name in names]
    starts = [match.start() for match in found if match is not None]
    return len(starts) == len(names) and starts == sorted(starts)


def seated_names(table: Table) -> list[str]:
    return [
        s.player.display_name for s in table.seats.select_related("player").order_by("position")
    ]


def result_names(result: TableResult) -> list[str]:
    """The result's entries' names, first out first."""
    names = selectors.entry_names(selectors.result_entry_ids(result))
    return selectors.named_result(result, names).places


def finish_event(
    *, owner: User, referees: list[User], players: int, stages: list[dict[str, object]]
) -> Tournament:
    """A tournament of ``players`` bots in a league of ``owner``'s, played to the end by its jobs
    (run in-process: the test needs ``eager_jobs`` and a transactional database)."""
    league = services.league_create(name="Лига", season="2026", actor=owner)
    tournament = make_tournament(
        BotPlayerFactory.create_batch(players),
        stages=stages,
        name=f"Кубок на {players}",
        league=league,
        created_by=owner,
    )
    tournament.referees.set(referees)
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament


# --- a finished event ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_finished_event_shows_its_places_payouts_ranks_and_knockout_tree(
    request: pytest.FixtureRequest, organiser: User, event_referee: User, eager_jobs: None
) -> None:
    persona = request.getfixturevalue
    # given a swiss then knockout event of 16 bots, played to the end
    tournament = finish_event(
        owner=organiser,
        referees=[event_referee],
        players=16,
        stages=[
            {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": 16}},
            {"format": "knockout", "table_size": 4, "advance_per_table": 2},
        ],
    )
    placed = list(
        Entry.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("final_place", "pk")
    )
    final = Table.objects.get(round__stage__tournament=tournament, score_group="final")
    final_result = selectors.effective_result(final)
    assert final_result is not None  # its fool, or none when the bots' final game was a draw

    for user in (organiser, event_referee, persona("superuser")):
        # when the event's organiser, its referee or a superuser opens its progress
        status, page = get(user, progress_url(tournament))

        # then the final places come in order, with the payouts in the event's currency
        assert status == 200
        places = part(page, 'id="final-places"')
        assert in_order(places, [e.name for e in placed])
        for payout in Payout.objects.filter(tournament=tournament).select_related("entry__player"):
            row = part(places, f">{escape(payout.entry.name)}<", "</tr>")
            assert f"{payout.amount:,.2f}\xa0RUB" in row
        pool = part(page, 'id="prize-pool"', "</div>")
        assert "1,440.00\xa0RUB" in pool  # 16 x 100 less 10 %
        # the ranks earned
        ranks = part(page, 'id="tournament-ranks"')
        for record in RankRecord.objects.filter(tournament=tournament).select_related("player"):
            assert f">{escape(record.player.display_name)}<" in ranks
        # the knockout tree: its rounds as columns, the final's result first out first
        tree = part(page, 'class="ko-tree"', "</section>")
        assert tree.count('class="ko-round"') == 3  # 4 tables, 2 tables, the final
        box = part(tree, f'data-table="{final.pk}"', "</ol>")
        assert in_order(box, result_names(final_result))
        if final_result.fool_entry_id is None:
            assert ">draw</span>" in box and "fool-tag" not in box
        else:
            fool = Entry.objects.select_related("player").get(pk=final_result.fool_entry_id)
            assert re.search(rf">{re.escape(escape(fool.name))} <span class=\"tag fool-tag\">", box)
        # and the swiss stage's standings and tables, by name
        swiss = tournament.stages.get(format=Stage.Format.SWISS)
        standings = part(page, 'class="module standings"')
        names = selectors.entries_by_id(int(r.entry) for r in standing_rows(swiss))
        rows = standing_rows(swiss)
        assert in_order(standings, [names[int(r.entry)].name for r in rows])
        assert "Fewest fools" in standings and "Buchholz" in standings

    # and its league table has the winner on top
    assert tournament.league is not None
    status, page = get(organiser, table_url(tournament.league))
    assert status == 200
    assert in_order(part(page, 'id="league-lines"'), [placed[0].name, placed[1].name])

    # a referee or organiser of another event is refused, staff in no group too, with the 404
    # of a missing event (as the event's change page answers them): nothing tells them it exists
    for name in ("other_referee", "other_organiser", "staff_without_group"):
        user = persona(name)
        assert get(user, progress_url(tournament))[0] == 404
        assert get(user, table_url(tournament.league))[0] == 404
        change = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
        assert get(user, change)[0] == 404
    # an outsider is sent to the login, and a missing event is a 404
    client = Client()
    client.force_login(persona("outsider"))
    response = client.get(progress_url(tournament))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert get(organiser, reverse(PROGRESS, args=[tournament.pk + 1000]))[0] == 404
    assert get(organiser, reverse(LEAGUE_TABLE, args=[tournament.league.pk + 1000]))[0] == 404


# --- a running event ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_running_swiss_round_shows_its_tables_by_name_results_and_explanation(
    organiser: User, event_referee: User
) -> None:
    # given a running swiss event of four players of one club at one table, its result entered
    players = PlayerFactory.create_batch(4, club="Спартак")
    tournament = make_tournament(
        players,
        stages=[{"format": "swiss", "table_size": 4, "rounds": 2}],
        name="Клубный турнир",
        created_by=organiser,
    )
    tournament.referees.set([event_referee])
    services.tournament_start(tournament=tournament)
    round_1 = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_1.pk)
    table = Table.objects.get(round=round_1)
    order = list(table.seats.order_by("position").values_list("entry_id", flat=True))
    places = [order[2], order[0], order[3], order[1]]
    result = services.table_record_result(
        table=table, places=places, fool=places[-1], source=TableResult.Source.BOT
    )
    table.refresh_from_db()

    # when its referee opens the progress page
    status, page = get(event_referee, progress_url(tournament))

    # then the table shows the players by seat, the result first out first, the fool marked
    assert status == 200
    row = part(page, f'data-table="{table.pk}"', "</tr>")
    seats = part(row, 'class="seats"', "</ol>")
    assert in_order(seats, seated_names(table))
    result_cell = part(row, 'class="placings"', "</ol>")
    assert in_order(result_cell, result_names(result))
    assert "fool" in result_cell.split(escape(result_names(result)[-1]))[1]
    # the pairing's compromises (all four share a club) and its explanation, readably
    assert table.compromises
    for compromise in compromise_lines(table.compromises):  # stored as data, worded here
        assert escape(compromise) in row
    assert not re.search(r"\bentr(y|ies) \d", row)  # names, never ids
    explanation = part(page, 'class="explanation"', "</dl>")
    assert "Swiss" in explanation and tournament.seed in explanation
    assert "Score groups" in explanation and "Compromises" in explanation
    # the round's counts
    counts = part(part(page, 'class="rounds"'), f'data-round="{round_1.pk}"', "</tr>")
    assert re.search(r'count-finished">1<', counts) and re.search(r'count-playing">0<', counts)
    # the standings, in order
    rows = standing_rows(round_1.stage)
    names = selectors.entries_by_id(int(r.entry) for r in rows)
    assert in_order(
        part(page, 'class="module standings"'), [names[int(r.entry)].name for r in rows]
    )


@pytest.mark.django_db
def test_a_running_knockout_shows_waiting_tables_fed_by_places_and_stalled_tables(
    organiser: User,
) -> None:
    # given a knockout of eight players: table 1 finished, table 2 with no move for an hour
    tournament = make_tournament(
        PlayerFactory.create_batch(8), stages=KNOCKOUT_OF_8, name="Плей-офф", created_by=organiser
    )
    services.tournament_start(tournament=tournament)
    services.round_pair(round_id=Round.objects.get(stage__tournament=tournament, number=1).pk)
    first, second = Table.objects.filter(
        round__number=1, round__stage__tournament=tournament
    ).order_by("number")
    entries = list(first.seats.order_by("position").values_list("entry_id", flat=True))
    services.table_record_result(
        table=first, places=entries, fool=entries[-1], source=TableResult.Source.BOT
    )
    Game.objects.filter(table=second).update(created_at=timezone.now() - dt.timedelta(hours=1))
    final = Table.objects.get(round__stage__tournament=tournament, score_group="final")
    assert final.status == Table.Status.WAITING

    # when its organiser opens the progress page
    status, page = get(organiser, progress_url(tournament))

    # then the tree shows the waiting final fed by the places of the first round's tables
    assert status == 200
    tree = part(page, 'class="ko-tree"', "</section>")
    box = part(tree, f'data-table="{final.pk}"', "</ul>")
    for number in (first.number, second.number):
        for place in (1, 2):
            assert f"Table {number}, place {place}" in box
    # table 1's result with the first two going on, table 2 playing and flagged as stalled
    done = part(tree, f'data-table="{first.pk}"', "</ol>")
    names = selectors.entry_names(entries)
    assert in_order(done, [names[e] for e in entries])  # first out first
    assert done.count('class="advances') == 2
    assert "stalled" in part(tree, f'data-table="{second.pk}"', "</ol>")
    assert re.search(r'count-stalled"><span class="tag stalled">1<', page)
    assert re.search(r'count-waiting">1<', page)


# --- the league table ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_league_table_adds_up_the_finished_tournaments_by_the_points_scale(
    organiser: User, event_referee: User, other_referee: User, outsider: User
) -> None:
    # given a league scoring 10, 6, 3, 1 and two finished tournaments of the same four players
    ann, bob, cid, dan = (
        PlayerFactory.create(display_name=name, rating_mu=mu, rating_sigma=2.0)
        for name, mu in (("Аня", 30.0), ("Боря", 28.0), ("Сид", 20.0), ("Даня", 25.0))
    )
    league = services.league_create(
        name="Лига клуба", season="2026", actor=organiser, points_scale=[10, 6, 3, 1]
    )

    def tournament(name: str, places: dict[Player, int], finished: bool = True) -> Tournament:
        event = make_tournament(
            list(places),
            stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
            name=name,
            league=league,
            created_by=organiser,
        )
        for player, place in places.items():
            Entry.objects.filter(tournament=event, player=player).update(final_place=place)
        if finished:
            Tournament.objects.filter(pk=event.pk).update(
                status=Tournament.Status.FINISHED, finished_at=timezone.now()
            )
        return event

    spring = tournament("Весна", {ann: 1, bob: 2, cid: 3, dan: 4})  # 10, 6, 3, 1
    summer = tournament("Лето", {bob: 1, cid: 2, ann: 3, dan: 4})  # 10, 6, 3, 1
    # one still open: not counted, though its places would put Даня first
    autumn = tournament("Осень", {dan: 1, cid: 2, bob: 3, ann: 4}, finished=False)
    summer.referees.set([event_referee])
    RankRecord.objects.create(player=ann, league=league, rank="сержант", pogony_given=2)

    # when the league's owner opens its table
    status, page = get(organiser, table_url(league))

    # then Боря (16) leads Аня (13), Сид (9) and Даня (2)
    assert status == 200
    lines = part(page, 'id="league-lines"')
    assert in_order(lines, ["Боря", "Аня", "Сид", "Даня"])
    points = re.findall(r'class="num points">([^<]*)<', lines)
    assert points == ["16", "13", "9", "2"]
    # with Аня's rank in the league (сержант, in the console's English) and everyone's current
    # rating as displayed: 1500 + 40 (mu - 3 sigma) = 1500 + 40 * 24
    ann_row = part(lines, ">Аня<", "</tr>")
    assert "sergeant" in ann_row and ">2460<" in ann_row
    assert "sergeant" in part(page, 'id="league-ranks"')
    # and the league's tournaments, each linked to its progress
    listed = part(page, 'id="league-tournaments"')
    for event in (spring, summer, autumn):
        assert progress_url(event) in listed

    # a referee of one of its tournaments sees the table and only that tournament
    status, page = get(event_referee, table_url(league))
    assert status == 200
    assert in_order(part(page, 'id="league-lines"'), ["Боря", "Аня", "Сид", "Даня"])
    listed = part(page, 'id="league-tournaments"')
    assert progress_url(summer) in listed and progress_url(spring) not in listed
    # a referee of none is refused with a 404, as for a missing league; an outsider is sent to
    # the login
    assert get(other_referee, table_url(league))[0] == 404
    client = Client()
    client.force_login(outsider)
    assert client.get(table_url(league))["Location"].startswith(reverse("admin:login"))


# --- links, walk and queries --------------------------------------------------------------------


def test_the_console_links_to_both_pages(
    organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    event = console_events[0]
    change = reverse("admin:tournaments_tournament_change", args=[event.tournament.pk])
    assert progress_url(event.tournament) in get(organiser, change)[1]
    league_change = reverse("admin:tournaments_league_change", args=[event.league.pk])
    assert table_url(event.league) in get(organiser, league_change)[1]
    # the live tables name each event with a link to its progress, and the progress its league
    assert (
        progress_url(event.tournament)
        in get(organiser, reverse("admin:tournaments_tournament_live_tables"))[1]
    )
    assert table_url(event.league) in get(organiser, progress_url(event.tournament))[1]


def test_every_persona_walks_both_pages_of_both_events(
    client: Client,
    request: pytest.FixtureRequest,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
) -> None:
    """The admin walk (``test_console_walk``) covers the ModelAdmin pages; these are views of
    their own: 200 where the persona sees the event, 404 where not, the login outside."""
    wrong: list[str] = []
    for persona in PERSONAS:
        user: User = request.getfixturevalue(persona)
        client.force_login(user)
        walk = Walk(client, persona)
        for name, event in zip("AB", console_events, strict=True):
            sees = name in SEES.get(persona, set())
            walk.get(
                f"{persona}: progress of {name}", progress_url(event.tournament), sees, hidden=True
            )
            walk.get(
                f"{persona}: league table of {name}", table_url(event.league), sees, hidden=True
            )
        wrong += walk.wrong
        client.logout()
    assert not wrong, "\n".join(wrong)


@pytest.mark.django_db
def test_the_queries_of_a_running_event_do_not_grow_with_its_tables(organiser: User) -> None:
    counts = []
    for tables, name in ((2, "Малый"), (6, "Большой")):
        # given a running event: a result at table 1, table 2's game stalled
        event = running_event(owner=organiser, referees=[], tables=tables, name=name)
        first, second = Table.objects.filter(round__stage__tournament=event).order_by("number")[:2]
        entries = list(first.seats.order_by("position").values_list("entry_id", flat=True))
        services.table_record_result(
            table=first, places=entries, fool=entries[-1], source=TableResult.Source.BOT
        )
        Game.objects.filter(table=second).update(created_at=timezone.now() - dt.timedelta(hours=1))
        # when its organiser opens its progress
        client = Client()
        client.force_login(organiser)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(progress_url(event))
        # then every table is there, and the page took as many queries as the smaller one
        assert response.status_code == 200
        page = response.content.decode()
        assert page.count("data-table=") == tables
        assert re.search(r'count-stalled"><span class="tag stalled">1<', page)
        counts.append(len(queries))
    assert counts[0] == counts[1]


@pytest.mark.django_db(transaction=True)
def test_the_queries_of_a_finished_event_do_not_grow_with_its_tables_or_rounds(
    organiser: User, eager_jobs: None
) -> None:
    counts = []
    # 8 bots: a knockout of 2 tables then the final; 16: 4 tables, 2, then the final
    for players in (8, 16):
        event = finish_event(
            owner=organiser,
            referees=[],
            players=players,
            stages=[
                {"format": "swiss", "table_size": 4, "rounds": 2, "advance": {"top": players}},
                {"format": "knockout", "table_size": 4, "advance_per_table": 2},
            ],
        )
        client = Client()
        client.force_login(organiser)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(progress_url(event))
        assert response.status_code == 200
        assert response.content.decode().count('class="ko-round"') == (2 if players == 8 else 3)
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_money_is_shown_to_the_currencys_minor_unit() -> None:
    with translation.override("en"):
        assert money(Decimal("1261.340"), "RUB") == "1,261.34\xa0RUB"
        assert money(Decimal("500.000"), "JPY") == "500\xa0JPY"
        assert money(Decimal("12.500"), "XXZ") == "12.5\xa0XXZ"  # unknown: as stored
