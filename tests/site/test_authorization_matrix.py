"""The authorization matrix: every route, API operation and socket × every role, each cell's
outcome declared in ONE table (:data:`DECLARED`), deny by default.

Who is who, and the objects every path is filled with, are in ``tests/site/authorization.py``:
event X is private and running (a table in play where ``player_a`` sits; ``player_b`` sat at
its finished table), of ``organiser_x``, refereed by ``referee_x``; event Y is public and
finished, of ``organiser_y``, refereed by ``referee_y``. Every path parameter is an object of X,
so the organiser and the referee of Y are out of scope.

The rules the table spells out (``tournaments.permissions``): an object out of the actor's scope
looks missing (404); one in scope that the actor may not change is a 403; a page of the console
sends whoever is not staff to its login page, an API write without credentials is a 401. A
write a role may make is posted empty or harmless: a 400 or 422 (or 200 with the form's errors,
or a 409 from the service) shows that it passed the permission gate; a refused write must have
written no row (``authorization.row_writes``). Each write runs in a savepoint rolled back.

**A new route, operation, admin page, action or socket fails** :func:`test_every_route_is_declared`
("new route X: declare who may use it") until its row is in :data:`DECLARED`: one string of
nine outcomes in the order of :data:`COLUMNS`. The outcomes: an HTTP status, ``login`` (302 to
a login page), ``accept <role>`` / ``accept`` / ``close <code>`` for a socket's handshake.

:data:`KNOWN_OPEN` lists the cells that still differ from their declared outcome until another
branch is merged; they run as ``xfail(strict=True)``, so that each one turns red the day it is
fixed and its line must go.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.db import transaction
from django.test import override_settings
from django.urls import resolve
from pytest_django import DjangoDbBlocker

from tests.site import authorization as az
from tests.site.authorization import ROLES, Cast, Probe
from tournaments.api.common import ApiAnonThrottle, ApiUserThrottle, ApiWriteThrottle
from tournaments.models import League, Tournament

pytestmark = pytest.mark.django_db

COLUMNS = " ".join(ROLES)
#   anonymous player_a player_b referee_x referee_y organiser_x organiser_y staff superuser

# --- rows used by many routes ---------------------------------------------------------------------

L3 = "login login login"  # the console, to whoever is not staff: its login page
CONSOLE_LIST = f"{L3} 200 200 200 200 403 200"  # a list: scoped rows; no console, no list
X_OBJECT = f"{L3} 200 404 200 404 404 200"  # a page of X's object: X's people only
X_REFUSED = f"{L3} 403 404 403 404 404 403"  # X's object, a write nobody may make
X_MANAGED = f"{L3} 403 404 200 404 404 200"  # X's object, changed by its organiser
NOBODY_ADDS = f"{L3} 403 403 403 403 403 403"
ORGANISERS_ADD = f"{L3} 403 403 200 200 403 200"
STAFF_302 = f"{L3} 302 302 302 302 302 302"  # the old address of a change page: a redirect
NO_ACTION = f"{L3} 403 403 403 403 403 403"  # an action no role has (delete_selected)
SUPERUSER_ONLY = f"{L3} 403 403 403 403 403 200"
# An action on X's object: by its referees (a referee of Y: out of scope), by its organiser (a
# referee has no such action at all: 403 whatever the object). 302: done (or refused by the
# service, with a message); 200: it asks for a reason first.
REFEREES_ACT = f"{L3} 302 404 302 404 403 302"
REFEREES_ASK = f"{L3} 200 404 200 404 403 200"
ORGANISER_ACTS = f"{L3} 403 403 302 404 403 302"
ORGANISER_ASKS = f"{L3} 403 403 200 404 403 200"
# Reads of X on the public faces and the API: X's players, referee, organiser and superusers.
X_READERS = "404 200 200 200 404 200 404 404 200"
EVERYONE = " ".join(["200"] * 9)
MISSING = " ".join(["404"] * 9)
# An API write on X: no credentials 401, X's players may not (403), Y's people do not see X.
API_REFEREES_WRITE = "401 403 403 422 404 422 404 404 422"
API_ORGANISER_WRITES = "401 403 403 403 404 422 404 404 422"
API_ORGANISERS_WEBHOOKS = "401 403 403 403 403 {ok} {ok} 403 {ok}"  # organisers' and superusers'
API_X_WEBHOOK = "401 404 404 403 404 {ok} 404 404 {ok}"  # X's webhook: X's organiser's


def console_model(
    name: str,
    *,
    add: str = NOBODY_ADDS,
    view: str = X_OBJECT,
    change: str = X_REFUSED,
    delete: str = X_REFUSED,
    changelist: str = CONSOLE_LIST,
) -> dict[str, str]:
    """The rows of a console model's standard pages (``admin:<app>_<model>_<page>``), its
    object being X's; by default a view-only record of X that nobody adds or deletes."""
    key = f"admin:{name}"
    return {
        f"GET {key}_changelist": changelist,
        f"GET {key}_add": add,
        f"POST {key}_add": add,
        f"GET {key}_change": view,
        f"GET {key}_history": view,
        f"POST {key}_change": change,
        f"GET {key}_delete": delete,
        f"POST {key}_delete": delete,
        f"GET {key}_object_redirect": STAFF_302,
        f"POST {key}_changelist action=delete_selected": NO_ACTION,
    }


def django_admin(name: str) -> dict[str, str]:
    """A stock Django admin (users, groups, tokens): the superuser's only."""
    rows = dict.fromkeys(console_model(name), SUPERUSER_ONLY)
    rows[f"POST admin:{name}_delete"] = f"{L3} 403 403 403 403 403 302"  # deleted (rolled back)
    rows[f"GET admin:{name}_object_redirect"] = STAFF_302
    return rows


# --- THE TABLE: "<METHOD> <route>" -> the outcome of each role, in the order of COLUMNS ----------

DECLARED: dict[str, str] = {
    # --- the console: Django's own admins ---
    **django_admin("auth_group"),
    **django_admin("auth_user"),
    **django_admin("authtoken_tokenproxy"),
    # --- the console: people, leagues, the event ---
    # players: those of the events one organises or referees (player A plays in X); teams: those
    # of the events one sees and those one made (X's organiser made this pair of X's players)
    **console_model("tournaments_player", add=ORGANISERS_ADD, change=X_MANAGED),
    **console_model(
        "tournaments_team",
        add=ORGANISERS_ADD,
        view=f"{L3} 404 404 200 404 404 200",
        change=f"{L3} 404 404 200 404 404 200",
        delete=f"{L3} 404 404 403 404 404 403",
    ),
    **console_model("tournaments_league", add=ORGANISERS_ADD, change=X_MANAGED),
    **console_model("tournaments_tournament", add=ORGANISERS_ADD, change=X_MANAGED),
    **console_model("tournaments_entry", add=ORGANISERS_ADD),
    **console_model("tournaments_webhook", add=ORGANISERS_ADD, change=X_MANAGED),
    # --- the console: X's records, view-only ---
    **console_model("tournaments_round"),
    **console_model("tournaments_table"),
    **console_model("tournaments_tableresult"),
    **console_model("tournaments_payout"),
    **console_model("tournaments_prizepool"),
    **console_model("tournaments_rankrecord"),
    **console_model("tournaments_ratingchange"),
    **console_model("tournaments_auditevent"),
    **console_model("games_game"),
    **console_model("games_refereeevent"),
    **console_model("tournaments_webhookdelivery"),
    # --- the console's own pages (get_urls) ---
    "GET admin:tournaments_league_table": X_OBJECT,
    "POST admin:tournaments_league_table": f"{L3} 405 405 405 405 405 405",  # a page to read
    "GET admin:tournaments_tournament_progress": X_OBJECT,
    # the dashboard: X's people; a post of no step (X runs a round: none is due) comes back to
    # it with a message, changing nothing
    "GET admin:tournaments_tournament_dashboard": X_OBJECT,
    "POST admin:tournaments_tournament_dashboard": f"{L3} 302 404 302 404 404 302",
    "POST admin:tournaments_tournament_progress": f"{L3} 405 405 405 405 405 405",
    # recompute the end-of-event jobs: X's organiser and referees (X is running: refused, with a
    # message on the progress page it redirects to); a GET is a 405
    "GET admin:tournaments_tournament_recompute": f"{L3} 405 405 405 405 405 405",
    "POST admin:tournaments_tournament_recompute": f"{L3} 302 404 302 404 404 302",
    "GET admin:tournaments_tournament_live_tables": CONSOLE_LIST,
    "POST admin:tournaments_tournament_live_tables": f"{L3} 405 405 405 405 405 405",
    # X is running: no import (409) for whoever may import
    "GET admin:tournaments_tournament_import_players": f"{L3} 403 404 409 404 404 409",
    "POST admin:tournaments_tournament_import_players": f"{L3} 403 404 409 404 404 409",
    # the referees pages: an organiser's own (any organiser), an event's (its organiser; its
    # referee sees X but may not manage it); a POST without an action is a 400
    "GET admin:tournaments_tournament_staff": ORGANISERS_ADD,
    "POST admin:tournaments_tournament_staff": f"{L3} 403 403 400 400 403 400",
    "GET admin:tournaments_tournament_referees": f"{L3} 403 404 200 404 404 200",
    "POST admin:tournaments_tournament_referees": f"{L3} 403 404 400 404 404 400",
    # the fair-play review (issue 24): X's referee and organiser (and superusers); the queues are
    # pages to read; a pair's decision posted empty is the form's errors (nothing decided). The
    # season's queue: who sees X's league in the console, over the events each referees.
    "GET admin:tournaments_tournament_fairplay": X_OBJECT,
    "POST admin:tournaments_tournament_fairplay": f"{L3} 405 405 405 405 405 405",
    "GET admin:tournaments_tournament_fairplay_pair": X_OBJECT,
    "POST admin:tournaments_tournament_fairplay_pair": X_OBJECT,
    "GET admin:tournaments_league_fairplay": X_OBJECT,
    "POST admin:tournaments_league_fairplay": f"{L3} 405 405 405 405 405 405",
    "GET admin:tournaments_round_swap_seats": X_OBJECT,
    "POST admin:tournaments_round_swap_seats": X_OBJECT,  # the form's errors
    # a round's paper for the hall (pairings, result slips, the projector): pages to read and
    # print, for X's people; the result grid: X's referees (an empty grid saves nothing: 302).
    # The projector is the hall's screen, not a public page: spectators at home have the public
    # event page, kept live by the same feed.
    "GET admin:tournaments_round_pairings": X_OBJECT,
    "POST admin:tournaments_round_pairings": f"{L3} 405 405 405 405 405 405",
    "GET admin:tournaments_round_slips": X_OBJECT,
    "POST admin:tournaments_round_slips": f"{L3} 405 405 405 405 405 405",
    "GET admin:tournaments_round_projector": X_OBJECT,
    "POST admin:tournaments_round_projector": f"{L3} 405 405 405 405 405 405",
    "GET admin:tournaments_round_results": X_OBJECT,
    "POST admin:tournaments_round_results": f"{L3} 302 404 302 404 404 302",
    "GET admin:tournaments_table_result": X_OBJECT,
    "POST admin:tournaments_table_result": X_OBJECT,
    # --- the console's actions ---
    "POST admin:tournaments_tournament_changelist action=open_registration": ORGANISER_ACTS,
    "POST admin:tournaments_tournament_changelist action=close_registration": ORGANISER_ACTS,
    "POST admin:tournaments_tournament_changelist action=start": ORGANISER_ACTS,
    "POST admin:tournaments_tournament_changelist action=cancel": ORGANISER_ASKS,
    "POST admin:tournaments_tournament_changelist action=play_to_end": ORGANISER_ASKS,
    "POST admin:tournaments_tournament_changelist action=pair_next_round": REFEREES_ACT,
    "POST admin:tournaments_entry_changelist action=check_in": REFEREES_ACT,
    "POST admin:tournaments_entry_changelist action=withdraw": REFEREES_ASK,
    "POST admin:tournaments_entry_changelist action=disqualify": REFEREES_ASK,
    "POST admin:tournaments_entry_changelist action=reenter": ORGANISER_ACTS,
    "POST admin:tournaments_round_changelist action=request_pairing": REFEREES_ACT,
    "POST admin:tournaments_round_changelist action=hand_round_to_bots": REFEREES_ASK,
    "POST admin:tournaments_table_changelist action=hand_table_to_bots": REFEREES_ASK,
    # --- the admin site's own pages ---
    "GET admin:index": f"{L3} 200 200 200 200 200 200",
    "GET admin:login": "200 200 200 302 302 302 302 302 302",  # players: "not authorised"
    "GET admin:logout": "302 302 302 405 405 405 405 405 405",  # a POST only
    "GET admin:password_change": f"{L3} 200 200 200 200 200 200",
    "GET admin:password_change_done": f"{L3} 200 200 200 200 200 200",
    "GET admin:jsi18n": f"{L3} 200 200 200 200 200 200",
    "GET admin:autocomplete": CONSOLE_LIST,
    "GET admin:app_list tournaments": f"{L3} 200 200 200 200 404 200",
    "GET admin:app_list games": f"{L3} 200 200 200 200 404 200",
    "GET admin:app_list auth": f"{L3} 404 404 404 404 404 200",
    "GET admin:app_list authtoken": f"{L3} 404 404 404 404 404 200",
    "GET admin:<no such page>": f"{L3} 404 404 404 404 404 404",
    "GET admin:view_on_site": f"{L3} 404 404 404 404 404 404",  # no page of its own on the site
    "GET admin:auth_user_password_change": SUPERUSER_ONLY,
    "POST admin:auth_user_password_change": SUPERUSER_ONLY,  # the form's errors
    # --- the API (from its OpenAPI schema) ---
    "GET /api/v1/": EVERYONE,  # the index
    "GET /api/v1/tournaments/": EVERYONE,  # each reader's visible ones
    "GET /api/v1/tournaments/{slug}/": X_READERS,
    "GET /api/v1/tournaments/{slug}/live/": X_READERS,  # the overlay's one call
    "GET /api/v1/tournaments/{slug}/stages/{order}/rounds/": X_READERS,
    "GET /api/v1/tournaments/{slug}/stages/{order}/rounds/{number}/": X_READERS,
    "GET /api/v1/tournaments/{slug}/stages/{order}/standings/": X_READERS,
    "GET /api/v1/tournaments/{slug}/stages/{order}/standings.csv": X_READERS,
    "GET /api/v1/tournaments/{slug}/stages/{order}/standings.json": X_READERS,
    "GET /api/v1/tournaments/{slug}/stages/{order}/bracket/": X_READERS,  # X's knockout, stage 2
    "GET /api/v1/tournaments/{slug}/standings/": X_READERS,
    "GET /api/v1/tournaments/{slug}/standings.csv": X_READERS,
    "GET /api/v1/tournaments/{slug}/standings.json": X_READERS,
    "GET /api/v1/tournaments/{slug}/results/": X_READERS,
    "GET /api/v1/tournaments/{slug}/results.csv": X_READERS,
    "GET /api/v1/tournaments/{slug}/results.json": X_READERS,
    "GET /api/v1/tournaments/{slug}/events/": X_READERS,  # the event log
    "GET /api/v1/tournaments/{slug}/events/stream/": X_READERS,  # its NDJSON stream
    "GET /api/v1/tables/{id}/stream/": X_READERS,  # the in-play table's spectator states
    "GET /api/v1/leagues/": EVERYONE,
    "GET /api/v1/leagues/{slug}/table/": X_READERS,  # X's league has only X in it
    "GET /api/v1/players/": EVERYONE,
    "GET /api/v1/players/{player_id}/": EVERYONE,  # a profile; X's games only to X's readers
    "GET /api/v1/teams/": EVERYONE,
    "GET /api/v1/teams/{team_id}/": EVERYONE,
    "GET /api/v1/games/{game_id}/": X_READERS,  # the spectator's view until it is over
    "GET /api/v1/games/{game_id}/actions/": X_READERS,
    "GET /api/v1/tables/{id}/": X_READERS,  # X's table in play: the spectator's state
    "POST /api/v1/tournaments/{slug}/entries/": API_ORGANISER_WRITES,
    "POST /api/v1/entries/{id}/withdraw/": API_REFEREES_WRITE,
    "POST /api/v1/entries/{id}/check-in/": "401 403 403 200 404 200 404 404 200",  # no body
    "POST /api/v1/tables/{id}/result/": API_REFEREES_WRITE,
    "POST /api/v1/results/{id}/confirm/": "401 403 403 409 404 409 404 404 409",  # not pending
    "POST /api/v1/results/{id}/reject/": API_REFEREES_WRITE,
    "POST /api/v1/tournaments/{slug}/stages/{order}/rounds/{number}/pair/": (
        "401 403 403 409 404 409 404 404 409"  # round 1 is paired already
    ),
    # a plan is checked (and its tournament created) by any organiser: an empty body is a 422
    "POST /api/v1/plans/": "401 403 403 403 403 422 422 403 422",
    "POST /api/v1/socket-tickets/": "401 201 201 201 201 201 201 201 201",
    # webhooks: organisers' own (and a superuser's); X's webhook is a 403 to X's referee, who
    # sees it in the console, and missing to everyone else; an empty body to create: a 422
    "GET /api/v1/webhooks/": API_ORGANISERS_WEBHOOKS.format(ok=200),
    "POST /api/v1/webhooks/": API_ORGANISERS_WEBHOOKS.format(ok=422),
    "GET /api/v1/webhooks/{id}/": API_X_WEBHOOK.format(ok=200),
    "PATCH /api/v1/webhooks/{id}/": API_X_WEBHOOK.format(ok=200),  # nothing sent: unchanged
    "DELETE /api/v1/webhooks/{id}/": API_X_WEBHOOK.format(ok=204),
    "POST /api/v1/webhooks/{id}/rotate-secret/": API_X_WEBHOOK.format(ok=200),
    "POST /api/v1/webhooks/{id}/ping/": API_X_WEBHOOK.format(ok=202),
    "GET /api/v1/webhooks/{id}/deliveries/": API_X_WEBHOOK.format(ok=200),
    "GET api:schema": EVERYONE,
    "GET api:docs": EVERYONE,
    "GET api:redoc": EVERYONE,
    "GET api:<no such endpoint>": MISSING,
    # --- the public pages ---
    "GET home": EVERYONE,
    "GET healthz": EVERYONE,
    "GET set_language": " ".join(["302"] * 9),
    "POST set_language": " ".join(["302"] * 9),
    "GET tournament": X_READERS,
    "GET embed-standings": X_READERS,
    "GET embed-bracket": X_READERS,
    # the table in play: a seat for A, a spectator's view for X's other players
    "GET table": X_READERS,
    "GET game-replay": X_READERS,  # the finished table's game
    "GET game-verify": "404 409 409 409 404 409 404 404 409",  # its seed is still secret
    "GET player": EVERYONE,
    "GET leagues": EVERYONE,
    "GET league-latest": "404 302 302 302 404 302 404 404 302",  # to its latest season
    "GET league": X_READERS,
    "GET login": "200 302 302 302 302 302 302 302 302",
    "GET logout": " ".join(["405"] * 9),  # a POST only
    "GET signup": "200 302 302 302 302 302 302 302 302",
    "GET profile": "login 200 200 200 200 200 200 200 200",
    "GET password_change": "login 200 200 200 200 200 200 200 200",
    "GET password_reset": EVERYONE,
    "GET password_reset_done": EVERYONE,
    "GET password_reset_confirm": EVERYONE,  # the "invalid link" page
    "GET password_reset_complete": EVERYONE,
    "GET my-games": "login 200 200 200 200 200 200 200 200",
    # one's own API tokens: the list and form; an empty form is its errors (nothing made)
    "GET api-tokens": "login 200 200 200 200 200 200 200 200",
    "POST api-tokens": "login 200 200 200 200 200 200 200 200",
    # player A's token: its owner is asked to confirm (the POST revokes it, rolled back);
    # to anyone else it does not exist
    "GET api-token-revoke": "login 200 404 404 404 404 404 404 404",
    "POST api-token-revoke": "login 302 404 404 404 404 404 404 404",
    # an invitation to referee, by its link's token (an unknown one here: the flow has its tests)
    "GET referee-invitation": MISSING,
    "POST referee-invitation": MISSING,
    "GET entry-action": " ".join(["405"] * 9),
    # a player's own check-in; without a player profile, to the profile page
    "POST entry-action": "login 302 302 302 404 302 404 404 302",
    # --- the sockets ---
    "WS ws-table": "close:4404 accept:player accept:spectator accept:referee close:4404 "
    "accept:referee close:4404 close:4404 accept:referee",
    "WS ws-tournament": "close:4404 accept accept accept close:4404 accept close:4404 close:4404 "
    "accept",
    "WS ws:<no such socket>": " ".join(["close:4404"] * 9),
}

# Cells that differ from their declared outcome until the branch named fixes them (xfail strict:
# each turns red once fixed, and its line goes), e.g.
# ``("GET admin:tournaments_player_change", az.ORGANISER_Y): "i18-perm"``. (Merged: i18-perm's
# scoped players and teams, i18-misc's 404 of the progress page and the league table.)
KNOWN_OPEN: dict[tuple[str, str], str] = {}


def declared(key: str) -> dict[str, str]:
    """The row of ``key`` by role."""
    cells = DECLARED[key].split()
    assert len(cells) == len(ROLES), f"{key}: {len(cells)} outcomes, not {len(ROLES)}"
    return dict(zip(ROLES, cells, strict=True))


# --- the cast, once for the module --------------------------------------------------------------


@pytest.fixture(scope="module")
def cast(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[Cast]:
    """The cast, committed (the sockets' database threads read it), and flushed afterwards as
    a transactional test's rows are."""
    # the suite's fast hasher (``fast_password_hashing`` is per test, and this comes first)
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock():
        try:
            with fast:
                built = az.build_cast()
            yield built
        finally:
            call_command("flush", interactive=False, verbosity=0)


@pytest.fixture(autouse=True)
def _quiet_and_unthrottled(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Thousands of requests from one address (the throttles have their own tests), and every
    refusal they log."""
    for throttle in (ApiAnonThrottle, ApiUserThrottle, ApiWriteThrottle):
        monkeypatch.setattr(throttle, "allow_request", lambda self, request, view: True)
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)


# --- the routes -----------------------------------------------------------------------------------


def page_names(cast: Cast) -> set[str]:
    """The URLconf's named pages that are neither the console's nor an API operation."""
    operations = {resolve(p.path).view_name for p in az.api_probes(cast)}
    return {
        name
        for name, _route in az.url_patterns()
        if name and not name.startswith("admin:") and name not in operations
    }


def http_probes(cast: Cast) -> list[Probe]:
    return [
        *az.console_probes(cast),
        *az.admin_site_probes(),
        *az.admin_object_probes(cast),
        *az.api_probes(cast),
        *az.page_probes(cast, page_names(cast)),
        *az.unnamed_page_probes(),
    ]


def key(probe: Probe) -> str:
    return f"{probe.method} {probe.key}"


def refused(result: str) -> bool:
    return result in az.REFUSALS or result.startswith("close:")


def mismatches(cast: Cast, probes: Iterable[Probe]) -> Iterator[str]:
    """Each cell whose outcome is not the declared one (the known open ones left out)."""
    for probe in probes:
        row = declared(key(probe))
        for role in ROLES:
            if (key(probe), role) in KNOWN_OPEN:
                continue
            got = az.ask(cast.clients[role], probe, refused=refused)
            if got != row[role]:
                yield f"{key(probe)} as {role}: declared {row[role]}, got {got}"


# --- the tests ------------------------------------------------------------------------------------


def test_every_route_is_declared(cast: Cast) -> None:
    """Every route found has its row, every row its route, and the routes found cover the whole
    URLconf (a page no probe reaches would escape the matrix)."""
    probes = [*http_probes(cast), *az.socket_probes(cast)]
    found = {key(p) for p in probes}
    problems = [f"new route {k}: declare who may use it" for k in sorted(found - set(DECLARED))]
    problems += [
        f"declared route {k} is gone: remove its row" for k in sorted(set(DECLARED) - found)
    ]
    problems += [
        f"{k}: open cell of a route that is not declared"
        for k, _ in KNOWN_OPEN
        if k not in DECLARED
    ]
    reached = {resolve(p.path.split("?")[0]).route for p in probes if p.method != "WS"}
    for name, route in az.url_patterns():
        if route not in reached:
            problems.append(f"new route {name or route}: no probe reaches it; declare its row")
    assert not problems, "\n".join(problems)


def test_the_console(cast: Cast) -> None:
    probes = [*az.console_probes(cast), *az.admin_site_probes(), *az.admin_object_probes(cast)]
    wrong = list(mismatches(cast, probes))
    assert not wrong, "\n".join(wrong)


def test_the_api(cast: Cast) -> None:
    wrong = list(mismatches(cast, az.api_probes(cast)))
    assert not wrong, "\n".join(wrong)


def test_the_pages(cast: Cast) -> None:
    probes = [*az.page_probes(cast, page_names(cast)), *az.unnamed_page_probes()]
    wrong = list(mismatches(cast, probes))
    assert not wrong, "\n".join(wrong)


async def test_the_sockets(cast: Cast) -> None:
    wrong = []
    for probe in az.socket_probes(cast):
        row = declared(key(probe))
        for role in ROLES:
            cookie = az.session_cookie_of(cast.clients[role])
            got = await az.socket_outcome(probe.path, cookie)
            if got != row[role]:
                wrong.append(f"{key(probe)} as {role}: declared {row[role]}, got {got}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("route", "role"),
    [
        pytest.param(
            k, r, marks=pytest.mark.xfail(strict=True, reason=f"fixed on {b}"), id=f"{k} as {r}"
        )
        for (k, r), b in KNOWN_OPEN.items()
    ],
)
def test_known_open(cast: Cast, route: str, role: str) -> None:
    probe = next(p for p in http_probes(cast) if key(p) == route)
    assert az.ask(cast.clients[role], probe, refused=refused) == declared(route)[role]


def test_the_write_watch_sees_rows_written_and_only_them(cast: Cast) -> None:
    """What tells a refused write that changed nothing from one that did."""
    league = cast.x.league
    with az.row_writes() as written:
        list(Tournament.objects.all())  # a read
        Tournament.objects.filter(pk=-1).update(name="?")  # a write that matched no row
        Session.objects.filter(pk="none").delete()  # the session table: not watched
    assert written == []
    with az.row_writes() as written:
        League.objects.filter(pk=league.pk).update(season="2027")
    assert written == ["UPDATE tournaments_league"]


# --- who may frame what ---------------------------------------------------------------------------


def framing(response: Any) -> str:
    """What a response's headers say about framing it: ``deny`` (X-Frame-Options DENY and CSP
    frame-ancestors 'none'), ``anyone`` (neither header restricts it), or what else it says."""
    options = response.get("X-Frame-Options")
    csp = response.get("Content-Security-Policy", "")
    directives = dict(d.strip().partition(" ")[::2] for d in csp.split(";") if d.strip())
    ancestors = directives.get("frame-ancestors")
    if options == "DENY" and ancestors == "'none'":
        return "deny"
    if options is None and ancestors is None and csp:
        return "anyone"
    return f"X-Frame-Options {options!r}, frame-ancestors {ancestors!r}"


@pytest.mark.parametrize("role", [az.ANON, az.PLAYER_A, az.SUPERUSER])
def test_only_the_embeds_may_be_framed_and_by_anyone(cast: Cast, role: str) -> None:
    """The embeds may be framed by any page, a local file's or a sandboxed one included (no
    frame-ancestors at all: ``*`` would refuse those); every other answer of every route, a page
    or an error, may be framed by nobody."""
    # given every route the matrix knows, read by a visitor and by the superuser
    probes = [p for p in http_probes(cast) if p.method == "GET"]
    embeds = {"embed-standings", "embed-bracket"}
    wrong = []
    for probe in probes:
        # when it is asked for
        with transaction.atomic():
            response = cast.clients[role].get(probe.path, headers={"Accept-Language": "en"})
            transaction.set_rollback(True)
        # then only an embed may be framed
        expected = "anyone" if probe.key in embeds else "deny"
        got = framing(response)
        if got != expected:
            wrong.append(f"{key(probe)} ({response.status_code}): {got}, not {expected}")
    assert {p.key for p in probes} >= embeds
    assert not wrong, "\n".join(wrong)
