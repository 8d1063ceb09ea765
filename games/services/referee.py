"""Referee rulings on a game: pause, resume, adjudicate, void; each needs a reason."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from durak_site.errors import status_name
from games import hooks
from games.actors import Actor, person
from games.broadcast import broadcast_on_commit
from games.errors import (
    Forbidden,
    GameError,
    GameNotActive,
)
from games.hooks import REFEREE
from games.models import Game, RefereeEvent
from games.services.play import after_change, arm_clock, current_game, locked_game

REFEREE_COMMANDS = ("pause", "resume", "adjudicate", "void")


def table_referee(
    *,
    table_id: int,
    referee: Actor | None,
    command: str,
    reason: str,
    places: list[int] | None = None,
    fool: int | None = None,
) -> Game:
    """A referee's ruling on the table's current game (only for a referee of the table, as the
    seating layer says; each needs a reason)."""
    if hooks.tables().access(table_id=table_id, user=referee).role != REFEREE:
        raise Forbidden(gettext("only a referee of this table can do that"))
    game = current_game(table_id)
    if command == "pause":
        return game_pause(game_id=game.pk, reason=reason, referee=referee)
    if command == "resume":
        return game_resume(game_id=game.pk, reason=reason, referee=referee)
    if command == "void":
        return game_void(game_id=game.pk, reason=reason, referee=referee)
    if command == "adjudicate":
        if not isinstance(places, list) or not all(type(p) is int for p in places):
            raise GameError(gettext("places: a list of seats, first out first"), code="bad_request")
        if fool is not None and type(fool) is not int:
            raise GameError(gettext("fool: a seat or null"), code="bad_request")
        return game_adjudicate(
            game_id=game.pk, places=places, fool=fool, reason=reason, referee=referee
        )
    raise GameError(
        gettext("unknown referee command '%(command)s' (one of %(commands)s)")
        % {"command": command, "commands": ", ".join(REFEREE_COMMANDS)},
        code="bad_request",
    )


def _referee_event(
    game: Game, kind: str, reason: str, referee: Actor | None, ruling: Any = None
) -> None:
    if not reason or not reason.strip():
        raise GameError(gettext("a referee action needs a reason"), code="reason_required")
    longest = RefereeEvent._meta.get_field("reason").max_length or 0
    if len(reason) > longest:
        # Refused here, not by the database (PostgreSQL would fail the whole ruling).
        raise GameError(
            gettext("a reason is at most %(max)s characters") % {"max": longest},
            code="bad_request",
        )
    RefereeEvent.objects.create(
        game=game,
        kind=kind,
        reason=reason.strip()[:300],
        referee=person(referee),
        ruling=ruling,
        at_version=game.version,
    )


def game_pause(*, game_id: int, reason: str, referee: Actor | None) -> Game:
    with transaction.atomic():
        game = locked_game(game_id)
        if game.status != Game.Status.ACTIVE:
            raise GameNotActive(
                gettext("only an active game can be paused; it is %(status)s")
                % {"status": status_name(Game.Status, game.status)}
            )
        _referee_event(game, RefereeEvent.Kind.PAUSE, reason, referee)
        game.status, game.deadline = Game.Status.PAUSED, None
        game.save(update_fields=["status", "deadline"])
        broadcast_on_commit(game, "paused")
        return game


def game_resume(*, game_id: int, reason: str, referee: Actor | None) -> Game:
    with transaction.atomic():
        game = locked_game(game_id)
        if game.status != Game.Status.PAUSED:
            raise GameNotActive(
                gettext("only a paused game can be resumed; it is %(status)s")
                % {"status": status_name(Game.Status, game.status)}
            )
        _referee_event(game, RefereeEvent.Kind.RESUME, reason, referee)
        game.status = Game.Status.ACTIVE
        arm_clock(game)
        game.save(update_fields=["status", "deadline"])
        after_change(game, event="resumed")
        return game


def game_adjudicate(
    *, game_id: int, places: list[int], fool: int | None, reason: str, referee: Actor | None
) -> Game:
    """End the game with a referee's ruling: the finishing order of every seat and the fool."""
    with transaction.atomic():
        game = locked_game(game_id)
        if game.is_over:
            raise GameNotActive(
                gettext("the game is already %(status)s")
                % {"status": status_name(Game.Status, game.status)}
            )
        n = len(game.players)
        if sorted(places) != list(range(n)):
            raise GameError(
                gettext("places must list every seat 0-%(last)s once") % {"last": n - 1},
                code="bad_ruling",
            )
        if fool is not None and fool != places[-1]:
            raise GameError(gettext("the fool is the last of the places"), code="bad_ruling")
        _refuse_left_above_present(game, places)
        ruling = {"places": places, "fool": fool, "draw": fool is None, "pogony": None}
        _referee_event(game, RefereeEvent.Kind.ADJUDICATE, reason, referee, ruling)
        game.status, game.result = Game.Status.ADJUDICATED, ruling
        game.seed_revealed, game.finished_at, game.deadline = True, timezone.now(), None
        game.save(update_fields=["status", "result", "seed_revealed", "finished_at", "deadline"])
        after_change(game, event="adjudicated")
        return game


def _refuse_left_above_present(game: Game, places: list[int]) -> None:
    """A ruling places a seat whose entry left the event (withdrawn, disqualified) below every
    seat still in it: one who left cannot finish ahead of one who stayed and played on."""
    if game.table_id is None:
        return
    left = hooks.tables().absent_players(table_id=game.table_id)
    if not left:
        return
    gone = [seat for seat in places if game.players[seat] in left]
    if places[len(places) - len(gone) :] != gone:
        names = hooks.tables().player_names(game.players[seat] for seat in gone)
        raise GameError(
            gettext("%(names)s left the event: place them below every player still in it")
            % {"names": ", ".join(names.get(game.players[seat], "?") for seat in gone)},
            code="left_above_present",
        )


def game_void(*, game_id: int, reason: str, referee: Actor | None) -> Game:
    """Void the game: it counts for nothing and its table deals a new one."""
    with transaction.atomic():
        game = locked_game(game_id)
        if game.is_over:
            raise GameNotActive(
                gettext("the game is already %(status)s")
                % {"status": status_name(Game.Status, game.status)}
            )
        _referee_event(game, RefereeEvent.Kind.VOID, reason, referee)
        game.status, game.seed_revealed = Game.Status.VOIDED, True
        game.finished_at, game.deadline = timezone.now(), None
        game.save(update_fields=["status", "seed_revealed", "finished_at", "deadline"])
        after_change(game, event="voided")
        return game
