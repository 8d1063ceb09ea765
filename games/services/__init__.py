"""Writes of the games layer, one module per responsibility; this package is their index.

- :mod:`~games.services.play`: deal a game, apply a seat's action, the tail of every change;
- :mod:`~games.services.live`: a live table's action in one statement on the server's event loop
  (the common case; everything else takes ``play``);
- :mod:`~games.services.automation`: bots and the move clock acting for a seat;
- :mod:`~games.services.stand_ins`: bots standing in for absent players until they return;
- :mod:`~games.services.referee`: pause, resume, adjudicate, void;
- :mod:`~games.services.fairness`: the deal check of a finished game;
- :mod:`~games.services.tickets`: single-use tickets that open a socket as a user.

The engine is the only judge; the database is the record. Every service that changes a game
locks its row (``SELECT ... FOR UPDATE``) for the whole check-apply-append, or (``live``) moves
it with one conditional ``UPDATE ... WHERE version = v``, so two actions racing for one version
cannot both win; the unique ``(game, seq)`` and ``(game, client_id)`` constraints are the last
guard. Broadcasts and follow-up jobs go out in ``transaction.on_commit`` (``live``: once its
statement has returned).
"""

from games.services.automation import game_clock_expire, game_hand_seat_to_bot, game_play_bots
from games.services.fairness import game_verify_deal
from games.services.play import (
    Deal,
    Outcome,
    game_apply_action,
    game_create,
    games_create,
    load_state,
    table_act,
)
from games.services.referee import (
    REFEREE_COMMANDS,
    game_adjudicate,
    game_pause,
    game_resume,
    game_void,
    table_referee,
)
from games.services.stand_ins import (
    STAND_IN,
    game_absent_check,
    games_set_absent_after,
    table_seat_return,
)
from games.services.tickets import socket_ticket_issue, socket_ticket_redeem

__all__ = [
    "REFEREE_COMMANDS",
    "STAND_IN",
    "Deal",
    "Outcome",
    "game_absent_check",
    "game_adjudicate",
    "game_apply_action",
    "game_clock_expire",
    "game_create",
    "game_hand_seat_to_bot",
    "game_pause",
    "game_play_bots",
    "game_resume",
    "game_verify_deal",
    "game_void",
    "games_create",
    "games_set_absent_after",
    "load_state",
    "socket_ticket_issue",
    "socket_ticket_redeem",
    "table_act",
    "table_referee",
    "table_seat_return",
]
