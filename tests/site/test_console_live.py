"""The console's live tables (``tournaments.console.live``): an event's referees see its tables
in play with the players (connected or not), whose move, the clock and the flags, flagged
tables first; a referee of another event sees none of them; an outsider is sent to the login;
the page's queries do not grow with the number of tables."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import presence
from games import services as game_services
from games.engine import legal_actions
from games.engine.bots import acting_seat
from games.engine.state import GameState
from games.models import Game, GameAction
from tests.builders import make_tournament
from tests.factories import BotPlayerFactory, PlayerFactory
from tests.games.test_presence import forget
from tournaments import services
from tournaments.console.live import live_tables
from tournaments.models import Player, Round, Seat, Table, Tournament

pytestmark = pytest.mark.django_db

URL = "admin:tournaments_tournament_live_tables"
ENGLISH = {"Accept-Language": "en"}


def running_event(*, owner: User, referees: Sequence[User], tables: int, name: str) -> Tournament:
    """A running two-seat swiss event of ``owner`` with its round 1 paired: ``tables`` tables,
    each with its first game dealt (no job runs, so nothing moves by itself)."""
    players = PlayerFactory.create_batch(2 * tables)
    tournament = make_tournament(
        players,
        stages=[{"format": "swiss", "table_size": 2, "rounds": 2}],
        name=name,
        created_by=owner,
    )
    tournament.referees.set(referees)
    services.tournament_start(tournament=tournament)
    services.round_pair(round_id=Round.objects.get(stage__tournament=tournament, number=1).pk)
    return tournament


@pytest.fixture(autouse=True)
def _marks_go_with_their_tables(db: None) -> Iterator[None]:
    """A test's presence marks go before its tables are rolled back (SQLite gives their ids to
    the next test's tables)."""
    yield
    forget(*Table.objects.values_list("pk", flat=True))


def connect(tables: Sequence[Table], *, but: Sequence[Player] = ()) -> None:
    """Mark the players seated at ``tables`` connected, as their sockets would
    (``games.presence``), but those in ``but``."""
    for table in tables:
        for seat in table.seats.all():
            if seat.player not in but:
                presence.seat_joined(table.pk, seat.player_id, f"test-{table.pk}-{seat.position}")


def tables_of(tournament: Tournament) -> list[Table]:
    return list(Table.objects.filter(round__stage__tournament=tournament).order_by("number"))


def game_at(tournament: Tournament, number: int) -> Game:
    return Game.objects.get(table__round__stage__tournament=tournament, table__number=number)


def to_move(game: Game) -> str:
    seat = acting_seat(GameState.from_dict(game.state))
    assert seat is not None
    return Player.objects.get(pk=game.players[seat]).display_name


def play_one_move(game: Game) -> None:
    state = GameState.from_dict(game.state)
    seat = acting_seat(state)
    assert seat is not None
    action = {k: v for k, v in legal_actions(state, seat)[0].to_json().items() if k != "seat"}
    game_services.game_apply_action(game_id=game.pk, seat=seat, action=action)


def test_the_events_referees_see_its_tables_with_whose_move_and_the_flags_flagged_first(
    organiser: User, event_referee: User
) -> None:
    # given: three tables in play, everyone connected; table 2 paused by a referee, table 3
    # without a move for an hour
    event = running_event(owner=organiser, referees=[event_referee], tables=3, name="Кубок А")
    connect(tables_of(event))
    paused = game_services.game_pause(
        game_id=game_at(event, 2).pk, reason="a phone rang", referee=organiser
    )
    stalled = game_at(event, 3)
    play_one_move(stalled)
    hour_ago = timezone.now() - dt.timedelta(hours=1)
    GameAction.objects.filter(game=stalled).update(created_at=hour_ago)
    quiet = game_at(event, 1)

    # when
    rows = live_tables(event_referee)

    # then: flagged first (paused, then stalled), the quiet table last
    assert [r.table_number for r in rows] == [2, 3, 1]
    by_number = {r.table_number: r for r in rows}
    assert (by_number[2].paused, by_number[2].stalled, by_number[2].disputed) == (True, False, True)
    assert (by_number[3].paused, by_number[3].stalled, by_number[3].disputed) == (
        False,
        True,
        False,
    )
    assert by_number[3].last_action_at == hour_ago
    assert not by_number[1].flagged
    assert by_number[1].to_move == to_move(quiet)
    assert by_number[3].to_move == to_move(Game.objects.get(pk=stalled.pk))
    assert by_number[1].seconds_left is None  # the event has no move clock
    assert paused.status == Game.Status.PAUSED

    # and the page, for the referee and the organiser alike
    for user in (event_referee, organiser):
        client = Client()
        client.force_login(user)
        response = client.get(reverse(URL), headers=ENGLISH)
        assert response.status_code == 200
        page = response.content.decode()
        for table in Table.objects.filter(round__stage__tournament=event):
            assert reverse("table", args=[table.pk]) in page
            for seat in table.seats.select_related("player"):
                assert seat.player.display_name in page
        assert to_move(quiet) in page
        assert "paused" in page and "stalled" in page and "disputed" in page
        assert page.index(f'data-table="{game_at(event, 2).table_id}"') < page.index(
            f'data-table="{quiet.table_id}"'
        )

    # filters: only flagged, and by tournament
    client = Client()
    client.force_login(event_referee)
    flagged = client.get(reverse(URL), {"flagged": "on"}, headers=ENGLISH).content.decode()
    assert f'data-table="{quiet.table_id}"' not in flagged
    assert f'data-table="{stalled.table_id}"' in flagged
    only = client.get(reverse(URL), {"tournament": event.pk}, headers=ENGLISH)
    assert only.status_code == 200 and f'data-table="{quiet.table_id}"' in only.content.decode()


def test_a_referee_of_another_event_sees_none_of_its_tables(
    organiser: User, event_referee: User, other_referee: User
) -> None:
    event = running_event(owner=organiser, referees=[event_referee], tables=2, name="Кубок А")
    assert live_tables(other_referee) == []
    client = Client()
    client.force_login(other_referee)
    response = client.get(reverse(URL), headers=ENGLISH)
    assert response.status_code == 200
    assert "data-table=" not in response.content.decode()
    # naming the other event in the filter is an error on the form, not its tables nor a 500
    named = client.get(reverse(URL), {"tournament": event.pk}, headers=ENGLISH)
    assert named.status_code == 200
    assert "data-table=" not in named.content.decode()


def test_an_outsider_is_sent_to_the_login(outsider: User) -> None:
    client = Client()
    client.force_login(outsider)
    response = client.get(reverse(URL))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_the_tournament_list_links_to_the_page(organiser: User) -> None:
    client = Client()
    client.force_login(organiser)
    response = client.get(reverse("admin:tournaments_tournament_changelist"))
    assert reverse(URL) in response.content.decode()


@pytest.mark.parametrize("user_name", ["organiser", "superuser"])
def test_the_queries_do_not_grow_with_the_tables(
    user_name: str, organiser: User, superuser: User
) -> None:
    user = {"organiser": organiser, "superuser": superuser}[user_name]
    counts = []
    for tables, name in ((2, "Малый"), (8, "Большой")):
        event = running_event(owner=organiser, referees=[], tables=tables, name=name)
        client = Client()
        client.force_login(user)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse(URL), {"tournament": event.pk})
        assert response.status_code == 200
        assert response.content.decode().count("data-table=") == tables
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_page_speaks_russian_by_default(organiser: User) -> None:
    running_event(owner=organiser, referees=[], tables=1, name="Кубок А")
    client = Client()
    client.force_login(organiser)
    page = client.get(reverse(URL)).content.decode()
    assert "Столы в игре" in page and "Чей ход" in page


def test_a_table_with_a_person_not_connected_is_flagged(
    organiser: User, event_referee: User
) -> None:
    # given two tables in play: at table 1 everyone is connected, at table 2 one player is not
    event = running_event(owner=organiser, referees=[event_referee], tables=2, name="Кубок А")
    first, second = tables_of(event)
    away = second.seats.order_by("position")[0].player
    connect([first, second], but=[away])

    # when
    rows = {row.table_number: row for row in live_tables(event_referee)}

    # then table 2 is flagged, and comes first
    assert not rows[1].disconnected and not rows[1].flagged
    assert rows[2].disconnected and rows[2].flagged
    assert [s.connected for s in rows[2].seats] == [False, True]
    client = Client()
    client.force_login(event_referee)
    page = client.get(reverse(URL), headers=ENGLISH).content.decode()
    assert page.index(f'data-table="{second.pk}"') < page.index(f'data-table="{first.pk}"')
    table_two = page[
        page.index(f'data-table="{second.pk}"') : page.index(f'data-table="{first.pk}"')
    ]
    assert f'{away.display_name} <small class="presence disconnected">○ not connected' in table_two
    assert table_two.count("● connected") == 1 and "<strong>disconnected</strong>" in table_two

    # and when the player's socket joins, the flag goes
    presence.seat_joined(second.pk, away.pk, "their-socket")
    assert not any(row.flagged for row in live_tables(event_referee))
    presence.seat_left(second.pk, "their-socket")
    assert [row.table_number for row in live_tables(event_referee, flagged_only=True)] == [2]


def test_a_bot_is_never_flagged_as_not_connected(organiser: User) -> None:
    bots = BotPlayerFactory.create_batch(2)
    event = make_tournament(
        bots, stages=[{"format": "swiss", "table_size": 2, "rounds": 1}], created_by=organiser
    )
    services.tournament_start(tournament=event)
    services.round_pair(round_id=Round.objects.get(stage__tournament=event).pk)
    (row,) = live_tables(organiser)
    assert [s.is_bot for s in row.seats] == [True, True] and not row.disconnected
    client = Client()
    client.force_login(organiser)
    page = client.get(reverse(URL), headers=ENGLISH).content.decode()
    assert "(bot)" in page and "○ not connected" not in page


def test_a_seat_handed_to_a_bot_is_not_flagged(organiser: User, event_referee: User) -> None:
    event = running_event(owner=organiser, referees=[event_referee], tables=1, name="Кубок А")
    (table,) = tables_of(event)
    gone, *_ = table.seats.order_by("position")
    connect([table], but=[gone.player])
    assert live_tables(event_referee)[0].disconnected
    Seat.objects.filter(pk=gone.pk).update(bot_kind="heuristic")
    (row,) = live_tables(event_referee)
    assert row.seats[0].is_bot and not row.disconnected
