"""A referee's results: over the board, corrections and what was built on them, the two-person
rule; seat swaps, seats handed to bots, dropouts (``tournaments.services.corrections``,
``rounds.seats_swap``, ``seating.seats_hand_to_bots``, ``registration.entry_withdraw``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.utils import translation

from durak_site.errors import Forbidden
from games.engine import legal_actions
from games.models import Game, GameAction
from games.services import game_apply_action, load_state
from tests.builders import make_tournament
from tests.conftest import jobs_in_process
from tests.factories import PlayerFactory, console_user
from tournaments import selectors, services
from tournaments.errors import ResultError, StateError
from tournaments.models import AuditEvent, Entry, Round, Seat, Table, TableResult, Tournament
from tournaments.permissions import REFEREE
from tournaments.selectors.standings import standing_rows
from tournaments.services.corrections import RepairNeeded, ResultFinal, RoundStarted

# Jobs run in-process after each commit, as in the service: the round goes on by itself.
pytestmark = pytest.mark.django_db(transaction=True)

SWISS_2 = [{"format": "swiss", "table_size": 2, "rounds": 2}]


def started(
    stages: list[dict[str, Any]] = SWISS_2,
    players: int = 4,
    *,
    referees: Sequence[User] = (),
    **kw: Any,
) -> Tournament:
    """A started event of human players refereed by ``referees``, its first round paired (jobs
    run in-process)."""
    tournament = make_tournament(PlayerFactory.create_batch(players), stages=stages, **kw)
    tournament.referees.set(referees)
    services.tournament_start(tournament=tournament)
    return Tournament.objects.get(pk=tournament.pk)


def tables(tournament: Tournament, number: int = 1) -> list[Table]:
    return list(
        Table.objects.filter(round__stage__tournament=tournament, round__number=number)
        .exclude(is_bye=True)
        .order_by("round__stage__order", "number")
    )


def seated(table: Table) -> list[int]:
    return list(table.seats.order_by("position").values_list("entry_id", flat=True))


def enter(table: Table, actor: User, order: list[int], **kw: Any) -> TableResult:
    return services.table_result_enter(table=table, actor=actor, places=order, fool=order[-1], **kw)


def finish_round(tournament: Tournament, actor: User, number: int = 1) -> None:
    for table in tables(tournament, number):
        enter(table, actor, seated(table))


def points(tournament: Tournament) -> dict[int, str]:
    stage = tournament.stages.order_by("order")[0]
    return {int(row.entry): str(row.points) for row in standing_rows(stage)}


def make_a_move(table: Table) -> None:
    game = Game.objects.get(table=table, status=Game.Status.ACTIVE)
    state = load_state(game)
    seat = next(s for s in range(state.setup.n) if legal_actions(state, s))
    action = legal_actions(state, seat)[0]
    game_apply_action(game_id=game.pk, seat=seat, action=action.to_json())


@pytest.fixture
def second_referee(db: None) -> User:
    return console_user("second-referee", REFEREE)


# --- over the board and corrections ---------------------------------------------------------------


def test_a_result_over_the_board_ends_the_live_game_and_the_round_goes_on(
    eager_jobs: None, referee: User
) -> None:
    tournament = started(referees=[referee])
    first, second = tables(tournament)
    game = Game.objects.get(table=first)
    result = enter(first, referee, seated(first)[::-1], reason="")
    assert result.status == TableResult.Status.CONFIRMED and result.entered_by == referee
    game.refresh_from_db()
    first.refresh_from_db()
    assert game.status == Game.Status.VOIDED and first.status == Table.Status.FINISHED
    assert Game.objects.filter(table=first).count() == 1  # no new game dealt after the void
    enter(second, referee, seated(second))
    assert Round.objects.get(stage__tournament=tournament, number=2).status == "playing"
    row = AuditEvent.objects.get(action=AuditEvent.Action.RESULT_ENTER, target_id=first.pk)
    after = row.after or {}
    assert after["places"][0] == Entry.objects.get(pk=seated(first)[-1]).name


def test_a_correction_changes_the_standings_and_is_refused_once_the_next_round_is_paired(
    eager_jobs: None, referee: User
) -> None:
    tournament = started(
        stages=[{"format": "swiss", "table_size": 2, "rounds": 2}], players=6, referees=[referee]
    )
    first, second, third = tables(tournament)
    enter(first, referee, seated(first))
    enter(second, referee, seated(second))
    a, b = seated(first)
    assert points(tournament)[a] > points(tournament)[b]
    with pytest.raises(ResultError, match="reason"):
        enter(first, referee, [b, a])
    fix = enter(first, referee, [b, a], reason="места перепутаны")
    assert fix.supersedes_id is not None and selectors.effective_result(first) == fix
    assert points(tournament)[b] > points(tournament)[a]
    correction = AuditEvent.objects.get(action=AuditEvent.Action.RESULT_CORRECT)
    before, after = correction.before or {}, correction.after or {}
    assert before["places"] == [Entry.objects.get(pk=e).name for e in (a, b)]
    assert after["places"] == [Entry.objects.get(pk=e).name for e in (b, a)]
    assert correction.reason == "места перепутаны"
    enter(third, referee, seated(third))  # round 1 over: round 2 is paired
    round_2 = Round.objects.get(stage__tournament=tournament, number=2)
    assert round_2.status == Round.Status.PLAYING
    with pytest.raises(RepairNeeded, match="pair it again"):
        enter(first, referee, [a, b], reason="видео")
    assert selectors.effective_result(first) == fix  # nothing changed


def test_a_correction_may_pair_the_next_round_again_until_it_has_started(
    eager_jobs: None, referee: User
) -> None:
    tournament = started(players=4, referees=[referee])
    finish_round(tournament, referee)
    before = {tuple(seated(t)) for t in tables(tournament, 2)}
    old_tables = {t.pk for t in tables(tournament, 2)}
    first = tables(tournament)[0]
    a, b = seated(first)
    enter(first, referee, [b, a], reason="видео", repair=True)
    round_2 = Round.objects.get(stage__tournament=tournament, number=2)
    assert round_2.status == Round.Status.PLAYING  # paired again at once (jobs in-process)
    assert not old_tables & {t.pk for t in tables(tournament, 2)}
    assert AuditEvent.objects.filter(action=AuditEvent.Action.ROUND_REPAIR).count() == 1
    assert before  # the new seating may or may not differ; it comes from the new standings
    make_a_move(tables(tournament, 2)[0])
    with pytest.raises(RoundStarted, match="has started"):
        enter(first, referee, [a, b], reason="снова", repair=True)


def test_a_knockout_correction_seats_the_next_table_again(eager_jobs: None, referee: User) -> None:
    knockout = [{"format": "knockout", "table_size": 2, "advance_per_table": 1}]
    tournament = started(stages=knockout, players=4, referees=[referee])
    semis = tables(tournament, 1)
    for table in semis:
        enter(table, referee, seated(table))
    final = tables(tournament, 2)[0]
    winners = {seated(t)[0] for t in semis}
    assert set(seated(final)) == winners
    a, b = seated(semis[0])
    with pytest.raises(RepairNeeded):
        enter(semis[0], referee, [b, a], reason="протест")
    enter(semis[0], referee, [b, a], reason="протест", repair=True)
    assert b in seated(Table.objects.get(pk=final.pk)) and a not in seated(final)
    enter(final, referee, seated(final))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    with pytest.raises(ResultFinal):
        enter(final, referee, seated(final)[::-1], reason="поздно")


# --- the two-person rule --------------------------------------------------------------------------


def test_under_the_two_person_rule_a_result_counts_only_when_another_referee_confirms_it(
    eager_jobs: None, referee: User, second_referee: User
) -> None:
    tournament = started(two_person_rule=True, referees=[referee])
    tournament.referees.add(second_referee)
    first = tables(tournament)[0]
    a, b = seated(first)
    pending = enter(first, referee, [a, b])
    assert pending.status == TableResult.Status.PENDING
    assert selectors.effective_result(first) is None
    assert Game.objects.get(table=first).status == Game.Status.ACTIVE  # play goes on meanwhile
    with pytest.raises(StateError, match="waiting for a second referee"):
        enter(first, second_referee, [b, a])
    with pytest.raises(Forbidden, match="another referee"):
        services.table_result_confirm(result=pending, actor=referee)
    confirmed = services.table_result_confirm(result=pending, actor=second_referee)
    assert confirmed.status == TableResult.Status.CONFIRMED
    assert confirmed.reviewed_by == second_referee
    assert selectors.effective_result(first) == confirmed
    assert Game.objects.get(table=first).status == Game.Status.VOIDED
    # a correction waits too; rejected, it never counts and the result stays
    fix = enter(first, second_referee, [b, a], reason="перепутали")
    with pytest.raises(ResultError, match="reason"):
        services.table_result_reject(result=fix, actor=referee, note=" ")
    services.table_result_reject(result=fix, actor=referee, note="видео: всё верно")
    assert selectors.effective_result(first) == confirmed
    assert points(tournament)[a] > points(tournament)[b]
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {AuditEvent.Action.RESULT_CONFIRM, AuditEvent.Action.RESULT_REJECT} <= actions


def test_the_database_refuses_a_result_confirmed_by_its_own_enterer(
    eager_jobs: None, referee: User
) -> None:
    tournament = started(two_person_rule=True, referees=[referee])
    first = tables(tournament)[0]
    pending = enter(first, referee, seated(first))
    with pytest.raises(IntegrityError), transaction.atomic():
        TableResult.objects.filter(pk=pending.pk).update(status="confirmed", reviewed_by=referee)
    with pytest.raises(IntegrityError), transaction.atomic():
        TableResult.objects.create(table=first, places=seated(first), status="pending")


def test_the_tables_own_result_wins_over_a_pending_entry(eager_jobs: None, referee: User) -> None:
    tournament = started(two_person_rule=True, referees=[referee])
    first = tables(tournament)[0]
    pending = enter(first, referee, seated(first))
    order = seated(first)[::-1]
    services.table_record_result(table=first, places=order, fool=order[-1])
    pending.refresh_from_db()
    assert pending.status == TableResult.Status.REJECTED
    effective = selectors.effective_result(first)
    assert effective is not None and effective.places == order


def test_only_a_referee_of_the_event_enters_results(eager_jobs: None, outsider: User) -> None:
    tournament = started()
    first = tables(tournament)[0]
    with pytest.raises(Forbidden):
        enter(first, outsider, seated(first))


# --- seats: swaps, bots, dropouts ----------------------------------------------------------------


def test_two_seats_swap_before_play_begins_and_the_tables_are_dealt_again(
    eager_jobs: None, referee: User
) -> None:
    tournament = started(referees=[referee])
    first, second = tables(tournament)
    seat_a = Seat.objects.get(table=first, position=0)
    seat_b = Seat.objects.get(table=second, position=1)
    a, b = seat_a.entry_id, seat_b.entry_id
    old_games = set(Game.objects.filter(table__in=[first, second]).values_list("pk", flat=True))
    with pytest.raises(StateError, match="reason"):
        services.seats_swap(first=seat_a, second=seat_b, actor=referee, reason="")
    services.seats_swap(first=seat_a, second=seat_b, actor=referee, reason="просьба судьи")
    assert seated(first)[0] == b and seated(second)[1] == a
    games = Game.objects.filter(table__in=[first, second])
    assert not old_games & set(games.values_list("pk", flat=True))
    for table in (first, second):
        players = set(table.seats.values_list("player_id", flat=True))
        assert set(Game.objects.get(table=table).players) == players
    assert AuditEvent.objects.filter(action=AuditEvent.Action.SEAT_SWAP).count() == 1
    make_a_move(first)
    seat = Seat.objects.get(table=first, position=0)
    other = Seat.objects.get(table=second, position=1)
    with pytest.raises(StateError, match="play has begun"):
        services.seats_swap(first=seat, second=other, actor=referee, reason="ещё раз")


@pytest.mark.skipif(not settings.USES_POSTGRES, reason="row locks between two sessions: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_swap_racing_a_move_being_written_waits_for_it_and_refuses(referee: User) -> None:
    # given a move at one of the two tables, written (its game row locked) but not committed
    with jobs_in_process():
        tournament = started(referees=[referee])
    first, second = tables(tournament)
    seat_a = Seat.objects.get(table=first, position=0)
    seat_b = Seat.objects.get(table=second, position=1)
    locked, go_on = threading.Event(), threading.Event()

    def move() -> None:
        try:
            with transaction.atomic():
                make_a_move(first)
                locked.set()
                go_on.wait(10)
        finally:
            connection.close()

    mover = threading.Thread(target=move)
    mover.start()
    assert locked.wait(10)
    # when a referee swaps the two seats meanwhile
    swapped: list[BaseException | None] = []

    def swap() -> None:
        try:
            with translation.override("en"):
                services.seats_swap(first=seat_a, second=seat_b, actor=referee, reason="просьба")
            swapped.append(None)
        except BaseException as refusal:
            swapped.append(refusal)
        finally:
            connection.close()

    swapper = threading.Thread(target=swap)
    swapper.start()
    swapper.join(1)
    # then the swap waits for the move (the games are locked) ...
    assert swapper.is_alive() and swapped == []
    go_on.set()
    mover.join(10)
    swapper.join(10)
    # ... and, play having begun, refuses: no game deleted under the move (no broken key)
    (refusal,) = swapped
    assert isinstance(refusal, StateError) and "play has begun" in str(refusal)
    assert GameAction.objects.filter(game__table=first).count() == 1
    assert seated(first)[0] == seat_a.entry_id


def test_a_swap_is_re_validated_against_earlier_meetings(eager_jobs: None, referee: User) -> None:
    tournament = started(players=4, referees=[referee])
    round_1 = {frozenset(seated(t)) for t in tables(tournament)}
    finish_round(tournament, referee)
    first, second = tables(tournament, 2)
    # Swap so that two entries who met in round 1 meet again: the swap reports it.
    for seat in Seat.objects.filter(table=second):
        met = next(pair for pair in round_1 if seat.entry_id in pair)
        partner = next(iter(met - {seat.entry_id}))
        if partner in seated(first):
            # the other seat of the first table goes: the partner stays and meets ``seat`` again
            leaving = Seat.objects.exclude(entry_id=partner).get(table=first)
            found = services.seats_swap(first=leaving, second=seat, actor=referee, reason="тест")
            assert any(found_one["kind"] == "repeat" for found_one in found)
            assert Table.objects.get(pk=first.pk).compromises
            return
    pytest.fail("round 2 of four players always meets a round-1 opponent at some seat")


def test_seats_handed_to_bots_play_the_series_to_its_result(
    eager_jobs: None, referee: User
) -> None:
    tournament = started(
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}], referees=[referee]
    )
    first = tables(tournament)[0]
    with pytest.raises(StateError, match="reason"):
        services.seats_hand_to_bots(seats=list(first.seats.all()), actor=referee, reason="")
    handed = services.seats_hand_to_bots(
        seats=list(first.seats.all()), actor=referee, reason="игроки ушли"
    )
    assert handed == 2
    first.refresh_from_db()
    assert first.status == Table.Status.FINISHED
    result = selectors.effective_result(first)
    assert result is not None and result.source == TableResult.Source.BOT
    assert GameAction.objects.filter(game__table=first, kind=GameAction.Kind.BOT).exists()
    assert AuditEvent.objects.filter(action=AuditEvent.Action.SEAT_BOT).count() == 2


@pytest.mark.parametrize(
    ("rule", "clock", "paused"),
    [("referee", 60, True), ("clock", 60, False), ("clock", 0, True)],
)
def test_a_dropout_s_running_game_follows_the_dropout_rule(
    eager_jobs: None, referee: User, rule: str, clock: int, paused: bool
) -> None:
    tournament = started(dropout_rule=rule, referees=[referee])
    Tournament.objects.filter(pk=tournament.pk).update(move_clock_seconds=clock)
    first = tables(tournament)[0]
    entry = Entry.objects.get(pk=seated(first)[0])
    services.entry_withdraw(entry=entry, reason="заболел", actor=referee)
    game = Game.objects.get(table=first)
    assert (game.status == Game.Status.PAUSED) is paused
    # the rest play on; the next round is paired without the dropout
    finish_round(tournament, referee)
    round_2 = [e for t in tables(tournament, 2) for e in seated(t)]
    byes = Table.objects.filter(round__number=2, is_bye=True, round__stage__tournament=tournament)
    assert entry.pk not in round_2 and not byes.filter(seats__entry=entry).exists()
