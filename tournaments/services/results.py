"""Table results: recording, corrections, the knockout feed, and what follows a game at a table."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.dbretry import atomic_retry
from durak_site.jobs import enqueue_on_commit
from games import engine
from games.actors import Actor, person
from games.engine import GameState
from games.engine.series import Series
from games.models import Game, RefereeEvent
from tournaments import selectors
from tournaments.errors import (
    ResultConflict,
    ResultError,
)
from tournaments.models import (
    Entry,
    Round,
    Seat,
    Stage,
    Table,
    TableResult,
)
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.results import TableResult as PureResult
from tournaments.selectors import facts
from tournaments.services.feed import tournament_changed
from tournaments.services.seating import seat_alone, seat_bot, series_deal, table_seat


def check_result(
    table: Table,
    *,
    places: Sequence[int],
    fool: int | None,
    drawn: Sequence[int],
    pogony: Sequence[dict[str, Any]],
    team_lost: Sequence[int],
    seated: Collection[int] | None = None,
) -> None:
    """Refuse a result that does not fit ``table`` (``seated``: its seats' entries, when the
    caller holds them; read otherwise)."""
    seated = set(table.seats.values_list("entry_id", flat=True) if seated is None else seated)
    if not seated:
        raise ResultConflict(
            gettext("table %(table)s has nobody seated yet") % {"table": table.number}
        )
    if len(places) != len(set(places)) or set(places) != seated:
        raise ResultError(
            gettext("the places must list each entry of table %(table)s once: %(entries)s")
            % {"table": table.number, "entries": sorted(seated)}
        )
    for hung in pogony:
        if not isinstance(hung, dict) or not {"by", "on"} <= set(hung):
            raise ResultError(gettext("each pogony is {'by': entry, 'on': [entries], 'rank': '6'}"))
    try:  # the scoring code's own checks: the fool last, drawn entries last, pogony on the fool
        PureResult(
            id="new",
            places=tuple(map(str, places)),
            fool=None if fool is None else str(fool),
            drawn=tuple(map(str, drawn)),
            team_lost=tuple(map(str, team_lost)),
        )
    except ScoringError as exc:
        raise ResultError(str(exc)) from None


def table_record_result(
    *,
    table: Table,
    places: Sequence[int],
    fool: int | None,
    drawn: Sequence[int] = (),
    pogony: Sequence[dict[str, Any]] = (),
    team_lost: Sequence[int] = (),
    games: Sequence[dict[str, Any]] = (),
    source: str = TableResult.Source.LIVE,
    reason: str = "",
    entered_by: Actor | None = None,
) -> TableResult:
    """Record the result a table's series produced (played live, by bots, or adjudicated game
    by game): its first result. A referee's entry or correction is
    :mod:`tournaments.services.corrections`'.

    ``places`` are entry ids from first out to last. Recording the same result twice (a job run
    again) stores it once. Locks the table row (and, in a knockout, the tables it feeds), asks
    the round-completion job to look at the round, and announces the result on the feed last
    (``table_finished``: the standings changed).
    """
    with transaction.atomic():
        # The table's row only (``of``): with the joined rows locked too, every table finishing
        # in a round queued on the one round row, and waited on the round-completion job. The
        # tournament joined: the feed's standings read its seed (a query per result otherwise).
        table = (
            Table.objects.select_for_update(of=("self",))
            .select_related("round__stage__tournament")
            .get(pk=table.pk)
        )
        return _record_locked(
            table,
            places=places,
            fool=fool,
            drawn=drawn,
            pogony=pogony,
            team_lost=team_lost,
            games=games,
            source=source,
            reason=reason,
            entered_by=entered_by,
        )


def _record_locked(
    table: Table,
    *,
    places: Sequence[int],
    fool: int | None,
    drawn: Sequence[int],
    pogony: Sequence[dict[str, Any]],
    team_lost: Sequence[int],
    games: Sequence[dict[str, Any]],
    source: str,
    reason: str,
    entered_by: Actor | None,
    seats: Sequence[Seat] | None = None,
    save_also: Sequence[str] = (),
) -> TableResult:
    """:func:`table_record_result`'s work, ``table`` locked by the caller in its transaction,
    with its round, stage and tournament joined. ``seats`` (with their entries and players, by
    position): the table's, held by the caller (``table_after_game``), so that neither the
    check nor the feed's table row reads them again. ``save_also``: fields of ``table`` the
    caller changed and has not saved (saved with the table's finish, one UPDATE)."""
    if table.is_bye:
        raise ResultError(gettext("a bye has no result to record"))
    check_result(
        table,
        places=places,
        fool=fool,
        drawn=drawn,
        pogony=pogony,
        team_lost=team_lost,
        seated=None if seats is None else [seat.entry_id for seat in seats],
    )
    current = selectors.effective_result(table)
    if current is not None:
        if list(current.places) == list(places):
            if save_also:
                table.save(update_fields=list(save_also))
            return current  # the same result delivered twice
        raise ResultConflict(
            gettext(
                "the table has a result: a correction is a referee's "
                "(tournaments.services.corrections)"
            )
        )
    # A referee's entry still waiting for its second referee loses to the table's own result.
    TableResult.objects.filter(table=table, status=TableResult.Status.PENDING).update(
        status=TableResult.Status.REJECTED,
        reviewed_at=timezone.now(),
        review_note="the table's own result came first",
    )
    result = TableResult.objects.create(
        table=table,
        places=list(places),
        fool_entry_id=fool,
        drawn=list(drawn),
        pogony=list(pogony),
        team_lost=list(team_lost),
        games=list(games),
        source=source,
        reason=reason.strip()[:300],
        entered_by=person(entered_by),
    )
    if table.status != Table.Status.FINISHED:
        table.status = Table.Status.FINISHED
        table.finished_at = timezone.now()
        table.save(update_fields=["status", "finished_at", *save_also])
    elif save_also:
        table.save(update_fields=list(save_also))
    if table.round.stage.format == Stage.Format.KNOCKOUT:
        feed_knockout(table)
    enqueue_on_commit("tournaments.round_complete", table.round_id)
    # The only result in force now (there was none: ``current`` above): the feed's table row
    # is built from the rows in hand when the caller gave the seats.
    announce_result(table, "table_finished", result, seats=seats)
    return result


def announce_result(
    table: Table, event: str, result: TableResult, *, seats: Sequence[Seat] | None = None
) -> None:
    """Announce ``result``, now in force at ``table`` (its first, or a correction), on the feed
    with its facts (``selectors.facts.result_facts``: the table's result with its places, the
    standings rows that moved): the last statement of the result's transaction (lock order:
    ``tournaments.services.feed``). ``seats``: the table's (entries and players joined, by
    position), held by the caller of a table whose series just ended (no game in play, the
    result the only one in force): its row is then built from them and ``table`` as they are."""
    stage = table.round.stage
    tournament_changed(
        tournament_id=stage.tournament_id,
        event=event,
        data=facts.result_facts(table, result.pk, seats=seats, result=result),
    )


def tables_fed_by(table: Table) -> list[Table]:
    later = Table.objects.filter(
        round__stage_id=table.round.stage_id, round__number__gt=table.round.number
    )
    return [t for t in later if any(f.get("table") == table.pk for f in t.feeds_from)]


def _finishing_order(table: Table) -> list[int] | None:
    """The table's finishing order as its places feed the next round
    (``selectors.feed_order``: an entry that left is not seated again); None while it plays. A
    void table (everyone it was to seat had left) finished with nobody: it feeds nobody."""
    result = selectors.effective_result(table)
    if result is None:
        return [] if table.is_bye and table.status == Table.Status.FINISHED else None
    still_in = Entry.objects.filter(pk__in=result.places, status__in=Entry.ACTIVE)
    return selectors.feed_order(result.places, set(still_in.values_list("pk", flat=True)))


def feed_knockout(table: Table) -> None:
    """Seat every waiting table whose feeders have all finished (locks those tables), with the
    entries still in (:func:`knockout_table_seat`)."""
    for candidate in tables_fed_by(table):
        waiting = Table.objects.select_for_update().get(pk=candidate.pk)
        if waiting.status != Table.Status.WAITING:
            continue
        seats: list[int] = []
        for feed in waiting.feeds_from:
            if "entry" in feed:
                seats.append(feed["entry"])
                continue
            order = _finishing_order(Table.objects.get(pk=feed["table"]))
            if order is None:
                break
            if feed["place"] <= len(order):
                seats.append(order[feed["place"] - 1])
        else:
            knockout_table_seat(waiting, seats)


def knockout_table_seat(table: Table, entry_ids: Sequence[int]) -> None:
    """Seat a knockout table with those of ``entry_ids`` still in (``docs/leaving.md``: an entry
    that left is not seated again). Two or more play, at a smaller table if some left; one left
    alone takes the table by a **walkover** (a bye table: no game, its result names it first,
    ``TableResult.Source.BYE``) and goes on; none leaves the table **void** (a bye table with
    no seat and no result) that feeds nobody. A walkover or a void table feeds the tables after
    it at once and asks the round-completion job to look at its round. Called holding the
    table's row, inside the transaction of what seats it."""
    still_in = set(
        Entry.objects.filter(pk__in=entry_ids, status__in=Entry.ACTIVE).values_list("pk", flat=True)
    )
    seats = [e for e in entry_ids if e in still_in]
    Round.objects.filter(pk=table.round_id, status=Round.Status.PENDING).update(
        status=Round.Status.PLAYING, paired_at=timezone.now()
    )
    if len(seats) >= 2:
        table_seat(table, seats)
        return
    table.is_bye = True
    table.status = Table.Status.FINISHED
    table.finished_at = timezone.now()
    table.save(update_fields=["is_bye", "status", "finished_at"])
    if seats:
        seat_alone(table, seats[0])
        TableResult.objects.create(
            table=table,
            places=seats,
            source=TableResult.Source.BYE,
            reason="walkover: the other entries of the table left the event",
        )
    feed_knockout(table)
    enqueue_on_commit("tournaments.round_complete", table.round_id)
    # Not announced here: the caller's transaction announces last (the lock order of
    # ``tournaments.services.feed``): the feeder's result, the round paired or the correction.


@atomic_retry
def table_after_game(*, game_id: int) -> str:
    """A game of a table ended: record it in the series, then deal the next game or record the
    table's result. Safe to run twice (the table remembers which games it has recorded); a voided
    game is replaced by a new deal. Locks the table row (its round's and stage's with the result),
    then the tournament's to announce: run again after a deadlock with a job that takes them in
    another order (CI's real-worker incidents run met one with a round's completion)."""
    # No savepoint: ``atomic_retry``'s transaction (or savepoint) is this one's.
    with transaction.atomic(savepoint=False):
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            return "the game was removed"  # its table was dealt again (a re-pair)
        if game.table_id is None or not game.is_over:
            return "ignored"
        # The table's row only (``of``), its round, stage and tournament joined: the next deal's
        # announcement and the result read them (three queries a result otherwise).
        table = (
            Table.objects.select_for_update(of=("self",))
            .select_related("round__stage__tournament")
            .get(pk=game.table_id)
        )
        if table.status == Table.Status.FINISHED:
            return "the table has its result"  # a referee entered it (its games were voided)
        state = dict(table.series_state)
        game_ids: list[int] = list(state.pop("game_ids", []))
        if game.pk in game_ids or table.games.filter(pk__gt=game.pk).exists():
            return "already recorded"
        series = Series.from_dict(state)
        if game.status != Game.Status.VOIDED:
            assert game.result is not None  # a game that is over and not voided has one
            result = engine.Result.from_json(game.result)
            # Seed 004's three-player double: both hangings of the game, in order.
            series = series.record(
                result,
                trump=GameState.from_dict(game.state).trump,
                hangings=result.hangings if result.double is not None else None,
            )
            game_ids.append(game.pk)
            table.series_state = {**series.to_dict(), "game_ids": game_ids}
            if not series.finished:  # else saved with the table's finish (one UPDATE)
                table.save(update_fields=["series_state"])
        if not series.finished:
            series_deal(table, series)
            # The table's series score and its game in play changed: what its round, its
            # bracket and the overlay (``/live/``) show, under the tournament's version.
            stage = table.round.stage
            tournament_changed(
                tournament_id=stage.tournament_id,
                event="game_finished",
                data={
                    "stage": stage.order,
                    "round": table.round.number,
                    "table": table.number,
                    "game": game.pk,
                },
            )
            return "next game"
        _record_table_result(table, series, game, game_ids)
        return "table finished"


def _record_table_result(table: Table, series: Series, game: Game, game_ids: list[int]) -> None:
    result = series.result
    assert result is not None
    # With the entries' names: the feed's table row is built from them (``announce_result``).
    held = list(
        Seat.objects.filter(table=table)
        .select_related("entry__player", "entry__team", "player")
        .order_by("position")
    )
    seats = {s.position: s for s in held}
    entry = {pos: seat.entry_id for pos, seat in seats.items()}
    if table.round.stage.tournament.is_team_event:
        loser = None if result.fool is None else entry[result.fool]
        order = list(dict.fromkeys(entry[s] for s in result.places))
        if loser is not None:
            order = [e for e in order if e != loser] + [loser]
        places, fool, drawn = order, loser, (order if result.draw else [])
    else:
        places = [entry[s] for s in result.places]
        fool = None if result.fool is None else entry[result.fool]
        drawn = places[-2:] if result.draw else []
    # Each hanging names its game (the Game id, as in ``games``), so that seed 004's double and
    # the pogony after it rank as one game (``tournaments.services.awards._pogony_games``).
    pogony = [
        {
            "by": entry[p.by],
            "on": list(dict.fromkeys(entry[s] for s in p.on)),
            "rank": p.rank,
            "by_player": seats[p.by].player_id,
            "on_players": [seats[s].player_id for s in p.on],
            "game": game_ids[index] if index < len(game_ids) else None,
        }
        for p, index in zip(result.pogony, result.hanging_games, strict=True)
    ]
    all_bots = all(seat_bot(seat) for seat in seats.values())
    source = TableResult.Source.BOT if all_bots else TableResult.Source.LIVE
    reason, entered_by = "", None
    # A game a referee adjudicated makes the table's result the referee's: its source, the
    # rulings' reasons and who ruled (the last of them).
    # (A series of one game that ended by play, the game in hand, has none to read.)
    rulings = (
        []
        if game_ids == [game.pk] and game.status == Game.Status.FINISHED
        else list(
            RefereeEvent.objects.filter(game_id__in=game_ids, kind=RefereeEvent.Kind.ADJUDICATE)
            .select_related("referee")
            .order_by("id")
        )
    )
    if rulings:
        source = TableResult.Source.REFEREE
        reason = "; ".join(f"game {r.game_id} adjudicated: {r.reason}" for r in rulings)
        entered_by = rulings[-1].referee
    _record_locked(
        table,
        places=places,
        fool=fool,
        drawn=drawn,
        pogony=pogony,
        team_lost=(),
        games=[
            {"game": gid, **g.to_json()} for gid, g in zip(game_ids, result.games, strict=False)
        ],
        source=source,
        reason=reason,
        entered_by=entered_by,
        seats=held,
        save_also=["series_state"],
    )
