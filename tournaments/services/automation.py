"""Bots for absent players, as an event's setting (``Tournament.absent_bots``), and "play to the
end".

The setting holds for the rest of the event, every table included, with no action per round:

- **off**: nothing; the move clock (if any) moves for an absent player;
- **absent**: a bot stands in for a player who has no connection to the table once their turn
  has lasted ``absent_bots_seconds`` (games are dealt with that delay:
  :func:`absent_after`, ``games.services.stand_ins``);
- **empty**: likewise with no delay: every seat without a connection is played by a bot from the
  first move of each game;
- **all**: every seat is played by a bot to the end of the event (what "play to the end" sets:
  :func:`tournament_play_to_end`); each table is seated with bots (``seating.table_seat``) and
  the tables in play are handed over (:func:`tournament_bots_apply`).

A stand-in gives the seat back when its player connects again (the seat's next move is theirs);
a seat handed over for **all**, as by a referee, stays a bot's for its table's series. Every
handover and return has an audit row in the system's name (:func:`seat_stood_in`,
:func:`seat_returned`) naming why.

A change of the setting while the event runs reaches the games in play through the job
``tournaments.tournament_bots_apply`` (after commit, so that it locks the tables and games
before anything else and never after the tournament row: ``services.feed``); the reconciler
sends it again while a seat of an **all** event is still a person's (``tournaments.reconcile``).
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext, ngettext

from durak_site.errors import Forbidden
from durak_site.jobs import enqueue_on_commit
from games.actors import Actor
from games.models import Game
from games.services import STAND_IN, games_set_absent_after
from tournaments.errors import StateError
from tournaments.models import AuditEvent, Seat, Table, Tournament
from tournaments.permissions import can_manage
from tournaments.services.audit import audit_record
from tournaments.services.feed import tournament_changed
from tournaments.services.seating import absent_after, every_seat_reason, seats_hand_to_bots

#: The settings of the automation: a change while the event runs is applied to its tables.
SETTINGS = ("absent_bots", "absent_bots_seconds")


def tournament_bots_apply(*, tournament_id: int) -> int:
    """The tables in play of a running tournament follow its setting: their games' delay for
    absent players, and for **all** every seat still a person's handed to a bot (audited, in the
    system's name), one table per transaction. Safe to run twice; returns how many seats were
    handed over. Locks each table row, then its current game's (``seating.seats_hand_to_bots``).
    """
    tournament = Tournament.objects.get(pk=tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return 0
    tables = Table.objects.filter(
        round__stage__tournament=tournament, status=Table.Status.PLAYING, is_bye=False
    )
    with transaction.atomic():
        games = Game.objects.filter(table__in=tables).exclude(status__in=Game.OVER)
        games_set_absent_after(
            game_ids=list(games.values_list("pk", flat=True)), seconds=absent_after(tournament)
        )
    if tournament.absent_bots != Tournament.AbsentBots.ALL:
        return 0
    people = Seat.objects.filter(table__in=tables, bot_kind="", player__is_bot=False)
    by_table: dict[int, list[Seat]] = {}
    for seat in people:
        by_table.setdefault(seat.table_id, []).append(seat)
    handed = 0
    for seats in by_table.values():
        try:
            handed += seats_hand_to_bots(seats=seats, actor=None, reason=every_seat_reason())
        except StateError:
            continue  # the table finished meanwhile: nothing left to hand over there
    return handed


def tournament_bots_changed(tournament: Tournament) -> None:
    """The setting of a running ``tournament`` changed (inside the change's transaction): its
    tables in play follow it once the change commits."""
    if tournament.status == Tournament.Status.RUNNING:
        enqueue_on_commit("tournaments.tournament_bots_apply", tournament.pk)


@transaction.atomic
def tournament_play_to_end(*, tournament: Tournament, actor: Actor | None, reason: str) -> None:
    """Bots play every seat of the running ``tournament`` until it finishes: the setting
    becomes **all** (audited with ``reason``, which is required), the seats of the tables in
    play are handed over by the job that follows the commit, and every later table is seated
    with bots. Only its organiser (``permissions.can_manage``; None: the system). With
    in-process jobs the event has finished when this returns. Locks the tournament row."""
    if not reason.strip():
        raise StateError(gettext("playing the tournament to the end with bots needs a reason"))
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if actor is not None and not can_manage(actor, locked):
        raise Forbidden(gettext("only the tournament's organiser can hand it to bots to the end"))
    if locked.status != Tournament.Status.RUNNING:
        raise StateError(gettext("only a running tournament can be played to the end by bots"))
    if locked.absent_bots == Tournament.AbsentBots.ALL:
        raise StateError(gettext("bots play every seat of this tournament already"))
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOURNAMENT_EDIT,
        tournament=locked,
        target=locked,
        reason=reason,
        before={"absent_bots": locked.absent_bots},
        after={"absent_bots": Tournament.AbsentBots.ALL},
    )
    locked.absent_bots = Tournament.AbsentBots.ALL
    locked.save(update_fields=["absent_bots"])
    tournament_bots_changed(locked)
    tournament_changed(
        tournament_id=locked.pk, event="tournament_updated", data={"fields": ["absent_bots"]}
    )


# --- the stand-ins' records (``games.hooks.Tables``) ---------------------------------------------


def _seat(table_id: int, player_id: int) -> Seat:
    return Seat.objects.select_related("table__round__stage__tournament", "player").get(
        table_id=table_id, player_id=player_id
    )


def seat_stood_in(*, table_id: int, player_id: int, game_number: int, absent_seconds: int) -> None:
    """The audit row of a bot standing in for an absent player (in the system's name)."""
    seat = _seat(table_id, player_id)
    if absent_seconds:
        reason = ngettext(
            "absent %(count)d second on their turn",
            "absent %(count)d seconds on their turn",
            absent_seconds,
        ) % {"count": absent_seconds}
    else:
        reason = gettext("not connected to the table")
    audit_record(
        actor=None,
        action=AuditEvent.Action.SEAT_BOT,
        tournament=seat.table.round.stage.tournament,
        target=seat.table,
        reason=reason,
        before={"seat": seat.position, "player": seat.player.display_name, "game": game_number},
        after={"bot": STAND_IN, "until": "back"},
    )


def seat_returned(*, table_id: int, player_id: int, game_number: int) -> None:
    """The audit row of a player taking their seat back from the stand-in bot."""
    seat = _seat(table_id, player_id)
    audit_record(
        actor=None,
        action=AuditEvent.Action.SEAT_RETURN,
        tournament=seat.table.round.stage.tournament,
        target=seat.table,
        reason=gettext("back at the table"),
        before={"seat": seat.position, "bot": STAND_IN, "game": game_number},
        after={"player": seat.player.display_name},
    )
