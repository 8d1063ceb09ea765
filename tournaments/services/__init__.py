"""Writes of the tournament domain, one module per responsibility; this package is their index.

- :mod:`~tournaments.services.people`: players and teams (their changes audited);
- :mod:`~tournaments.services.plans`: a tournament with its stage plan, validated whole; its
  settings and referees changed later (audited);
- :mod:`~tournaments.services.leagues`: leagues, owned by their organiser (audited);
- :mod:`~tournaments.services.staff`: an organiser's referees: invited by e-mail, given an
  account, removed; only for its own events (audited);
- :mod:`~tournaments.services.registration`: opening, closing, entries and their status;
- :mod:`~tournaments.services.imports`: entries from a list of players (a CSV file), all or none;
- :mod:`~tournaments.services.rounds`: pairing a round (swiss, round robin, knockout bracket);
- :mod:`~tournaments.services.seating`: seating a table and dealing its series' games;
- :mod:`~tournaments.services.automation`: bots for absent players (the event's setting) and
  "play to the end";
- :mod:`~tournaments.services.results`: the results tables produce, the knockout feed;
- :mod:`~tournaments.services.corrections`: a referee's results and corrections, the two-person
  rule, pairing a round again after a correction;
- :mod:`~tournaments.services.progression`: start, round completion, advancing, finishing;
- :mod:`~tournaments.services.awards`: prize pool, ranks and ratings.

Services are keyword-only, typed ``<entity>_<verb>()`` functions. A write takes the person
behind it as ``actor`` (``games.actors.Actor``; None: the system), checks what that person may
do to the object (``tournaments.permissions``) and writes its own audit row; the faces call it
and render. Each validates before it writes and raises a :mod:`tournaments.errors` refusal
with a clear message; nothing is half-changed (each runs in one transaction). Services that
lock rows say which. Jobs are requested with ``durak_site.jobs.enqueue_on_commit`` by task
name, so that a worker never sees a row the caller has not committed yet (the tasks in
``tournaments.tasks`` call these services, never the other way round).
"""

from tournaments.services.automation import tournament_bots_apply, tournament_play_to_end
from tournaments.services.awards import (
    league_ranks_compute,
    prize_pool_compute,
    ratings_update,
    tournament_ranks_compute,
)
from tournaments.services.corrections import (
    table_result_confirm,
    table_result_enter,
    table_result_reject,
)
from tournaments.services.imports import entries_import
from tournaments.services.leagues import league_create, league_update
from tournaments.services.people import player_create, player_update, team_create, team_update
from tournaments.services.plans import (
    tournament_create,
    tournament_set_referees,
    tournament_update,
)
from tournaments.services.progression import round_complete, tournament_start
from tournaments.services.registration import (
    entry_check_in,
    entry_disqualify,
    entry_reenter,
    entry_register,
    entry_withdraw,
    tournament_cancel,
    tournament_close_registration,
    tournament_open_registration,
)
from tournaments.services.results import table_after_game, table_record_result
from tournaments.services.rounds import round_pair, round_request_pairing, seats_swap
from tournaments.services.seating import seats_hand_to_bots

__all__ = [
    "entries_import",
    "entry_check_in",
    "entry_disqualify",
    "entry_reenter",
    "entry_register",
    "entry_withdraw",
    "league_create",
    "league_ranks_compute",
    "league_update",
    "player_create",
    "player_update",
    "prize_pool_compute",
    "ratings_update",
    "round_complete",
    "round_pair",
    "round_request_pairing",
    "seats_hand_to_bots",
    "seats_swap",
    "table_after_game",
    "table_record_result",
    "table_result_confirm",
    "table_result_enter",
    "table_result_reject",
    "team_create",
    "team_update",
    "tournament_bots_apply",
    "tournament_cancel",
    "tournament_close_registration",
    "tournament_create",
    "tournament_open_registration",
    "tournament_play_to_end",
    "tournament_ranks_compute",
    "tournament_set_referees",
    "tournament_start",
    "tournament_update",
]
