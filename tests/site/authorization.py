"""The authorization matrix's machinery (``tests/site/test_authorization_matrix.py`` has the
table): the cast, the discovery of every route, and the probes that ask each route as each role.

The cast: event X, private and running, of ``organiser_x`` refereed by ``referee_x``, with a
table in play (``player_a`` sits at it), a finished one (``player_b`` sat there, its game over
by a referee's result) and a knockout stage to come after its swiss; event Y, public and
finished, of ``organiser_y`` refereed by ``referee_y``. Every path parameter is filled with an
object of X, so that the organiser and the referee of Y are actors out of scope. Besides them:
the anonymous visitor, ``staff`` (staff, in no console group) and ``superuser``.

Routes are found, never listed: the console from ``admin.site._registry`` (every ModelAdmin's
pages, its ``get_urls()`` and its actions) and the admin site's own URLs, the API from the
OpenAPI schema drf-spectacular generates (every path × method), the sockets from the ASGI
routing modules, everything else from ``get_resolver()``; :func:`unaccounted_patterns` checks
that these together cover the whole URLconf.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection, models, transaction
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import TokenProxy

from durak_site import asgi
from games.models import ApiToken, Game
from tests.builders import ConsoleEvent, console_event
from tests.factories import SuperuserFactory, console_user
from tournaments import services
from tournaments.models import (
    PairEvidence,
    Seat,
    Stage,
    Table,
    Team,
    Tournament,
    Webhook,
    WebhookDelivery,
)
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.services.tokens import api_token_create
from tournaments.services.webhooks.management import webhook_create

ANON, PLAYER_A, PLAYER_B = "anonymous", "player_a", "player_b"
REFEREE_X, REFEREE_Y = "referee_x", "referee_y"
ORGANISER_X, ORGANISER_Y = "organiser_x", "organiser_y"
STAFF, SUPERUSER = "staff", "superuser"
ROLES = (
    ANON,
    PLAYER_A,
    PLAYER_B,
    REFEREE_X,
    REFEREE_Y,
    ORGANISER_X,
    ORGANISER_Y,
    STAFF,
    SUPERUSER,
)

# Outcomes that refuse: a denied write must leave every row as it was.
LOGIN = "login"  # 302 to a login page
REFUSALS = frozenset({LOGIN, "401", "403", "404", "405"})


# --- the cast -------------------------------------------------------------------------------------


@dataclass
class Cast:
    users: dict[str, User | None]
    x: ConsoleEvent
    y: ConsoleEvent
    table_in_play: Table
    team: Team
    admin_objects: dict[type[models.Model], models.Model]  # one object of X per console model
    token_a: ApiToken  # player A's personal API token
    fairplay_pair: PairEvidence  # a pair of X's players with its fair-play evidence
    clients: dict[str, Client] = field(default_factory=dict)

    @property
    def tournament(self) -> Tournament:
        return self.x.tournament


def seated_user(table: Table) -> User:
    seat = Seat.objects.filter(table=table).select_related("player__user").order_by("position")[0]
    user = seat.player.user
    assert user is not None
    return user


def build_cast() -> Cast:
    """The cast, built and committed (the sockets' threads read it): see the module's doc."""
    organiser_x = console_user("matrix-organiser-x", ORGANISER)
    organiser_y = console_user("matrix-organiser-y", ORGANISER)
    referee_x = console_user("matrix-referee-x", REFEREE)
    referee_y = console_user("matrix-referee-y", REFEREE)
    x = console_event(owner=organiser_x, referees=[referee_x], name="Матрица X")
    y = console_event(owner=organiser_y, referees=[referee_y], name="Матрица Y")
    Tournament.objects.filter(pk=x.tournament.pk).update(is_public=False)
    # a knockout after X's swiss (not started): the bracket's routes read X's, not a 404 for all
    Stage.objects.create(
        tournament=x.tournament,
        order=2,
        format=Stage.Format.KNOCKOUT,
        table_size=2,
        knockout_advance=1,
    )
    Tournament.objects.filter(pk=y.tournament.pk).update(status=Tournament.Status.FINISHED)
    x.tournament.refresh_from_db()
    y.tournament.refresh_from_db()
    in_play = Table.objects.filter(round=x.round).exclude(pk=x.table.pk).get()
    assert in_play.status == Table.Status.PLAYING, in_play.status
    users: dict[str, User | None] = {
        ANON: None,
        PLAYER_A: seated_user(in_play),
        PLAYER_B: seated_user(x.table),
        REFEREE_X: referee_x,
        REFEREE_Y: referee_y,
        ORGANISER_X: organiser_x,
        ORGANISER_Y: organiser_y,
        STAFF: console_user("matrix-staff", None),
        SUPERUSER: SuperuserFactory.create(username="matrix-root"),
    }
    players = [e.player for e in x.entries[:2]]
    assert all(p is not None for p in players)
    # a pair of X's players made by X's organiser (an individual event: no team entered in it)
    team = services.team_create(
        name="Пара X",
        players=players,  # type: ignore[arg-type]
        actor=organiser_x,
    )
    webhook = webhook_create(
        tournament=x.tournament, url="https://example.com/hook", actor=organiser_x
    )
    # the fair-play row of two of X's players (what the job writes; no score needed to probe)
    first, second = sorted(p.pk for p in players)  # type: ignore[union-attr]
    pair = PairEvidence.objects.create(tournament=x.tournament, first_id=first, second_id=second)
    delivery = WebhookDelivery.objects.create(
        webhook=webhook, event_id="msg_matrix", event="table_finished", payload={}
    )
    objects: list[models.Model] = [
        users[PLAYER_A].player,  # type: ignore[union-attr]
        team,
        x.league,
        x.tournament,
        x.entries[1],
        x.pending_round,
        x.table,
        x.result,
        x.payout,
        x.prize_pool,
        x.rank,
        x.rating_change,
        x.audit_event,
        x.game,
        x.referee_event,
        webhook,
        delivery,
        console_user("matrix-staff-other", None),  # auth.User
        Group.objects.get(name=ORGANISER),
        TokenProxy.objects.create(user=organiser_x),
    ]
    cast = Cast(
        users=users,
        x=x,
        y=y,
        table_in_play=in_play,
        team=team,
        admin_objects={type(obj): obj for obj in objects},
        token_a=api_token_create(actor=users[PLAYER_A], name="matrix", scope="read").token,
        fairplay_pair=pair,
    )
    for role, user in users.items():
        client = MatrixClient()
        if user is not None:
            client.force_login(user)
        cast.clients[role] = client
    return cast


class MatrixClient(Client):
    """The test client without what the matrix never reads and pays for on every page: a copy
    of every template's context (an admin page renders some fifty templates)."""

    def request(self, **request: Any) -> Any:
        response = self.handler(self._base_environ(**request))  # type: ignore[attr-defined]
        if response.cookies:
            self.cookies.update(response.cookies)
        return response


# --- the probes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """One request, the same for every role: ``key`` names it in the table."""

    key: str
    method: str
    path: str
    data: Any = None
    json: bool = False
    write: bool = False


def outcome(response: Any) -> str:
    code = response.status_code
    if code == 302:
        location = response["Location"]
        logins = (reverse("admin:login"), reverse(settings.LOGIN_URL))
        if location.split("?")[0] in logins:
            return LOGIN
    return str(code)


# Tables a refused request may still write: its session, the login log.
UNWATCHED_TABLES = ("django_session", "axes_")
WRITE = re.compile(r'^\s*(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?', re.IGNORECASE)


@contextlib.contextmanager
def row_writes() -> Iterator[list[str]]:
    """The rows written inside the block (statements that changed at least one row of a table
    other than :data:`UNWATCHED_TABLES`), as "<statement> <table>": a refused write writes none.
    (Cheaper than reading every table before and after, and it sees a write undone as well.)"""
    written: list[str] = []

    def watch(execute: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        result = execute(sql, params, many, context)
        match = WRITE.match(sql)
        if match is None:
            return result
        statement, table = match.group(1).split()[0].upper(), match.group(2)
        if not table.startswith(UNWATCHED_TABLES) and context["cursor"].rowcount:
            written.append(f"{statement} {table}")
        return result

    with connection.execute_wrapper(watch):
        yield written


def ask(client: Client, probe: Probe, *, refused: Callable[[str], bool]) -> str:
    """``probe``'s outcome for ``client``; a write runs in a savepoint rolled back afterwards
    (every role finds the cast as it was built), and one whose outcome ``refused`` says is a
    refusal must have written no row ("<outcome> but wrote <table>" otherwise)."""
    with transaction.atomic(), row_writes() as written:
        kwargs: dict[str, Any] = {}
        if probe.json:
            kwargs = {"content_type": "application/json"}
        call = getattr(client, probe.method.lower())
        response = call(probe.path, probe.data, **kwargs, headers={"Accept-Language": "en"})
        result = outcome(response)
        if refused(result) and written:
            result += f" but wrote {', '.join(sorted(set(written)))}"
        transaction.set_rollback(True)
    return result


# --- the console ----------------------------------------------------------------------------------

STANDARD_PAGES = ("changelist", "add", "change", "delete", "history")


def admin_key(model: type[models.Model], page: str) -> str:
    return f"admin:{model._meta.app_label}_{model._meta.model_name}_{page}"


def console_parameters(cast: Cast) -> dict[str, Any]:
    """The values of the console's own pages' parameters besides the object's id: X's."""
    return {"pair_id": cast.fairplay_pair.pk}


def console_probes(cast: Cast) -> Iterator[Probe]:
    """Every page of every ModelAdmin (GET), its add and change forms posted empty, its own
    pages (``get_urls()``, their other parameters from :func:`console_parameters`), and each of
    its actions (and ``delete_selected``) posted on X's object."""
    others = console_parameters(cast)
    for model, model_admin in admin.site._registry.items():
        obj = cast.admin_objects.get(model)
        if obj is None:
            raise AssertionError(
                f"new console model {model._meta.label}: give the matrix an object"
            )
        pk = obj.pk
        changelist = reverse(admin_key(model, "changelist"))
        yield Probe(admin_key(model, "changelist"), "GET", changelist)
        add = reverse(admin_key(model, "add"))
        yield Probe(admin_key(model, "add"), "GET", add)
        yield Probe(admin_key(model, "add"), "POST", add, data={}, write=True)
        for page in ("change", "delete", "history"):
            yield Probe(admin_key(model, page), "GET", reverse(admin_key(model, page), args=[pk]))
        change = reverse(admin_key(model, "change"), args=[pk])
        yield Probe(admin_key(model, "change"), "POST", change, data={}, write=True)
        delete = reverse(admin_key(model, "delete"), args=[pk])
        yield Probe(admin_key(model, "delete"), "POST", delete, data={"post": "yes"}, write=True)
        # the old address of the change page (``<id>/``): a redirect
        legacy = changelist + f"{pk}/"
        yield Probe(admin_key(model, "object_redirect"), "GET", legacy)
        for pattern in model_admin.get_urls():
            name = pattern.name
            if name is None or any(name.endswith(f"_{page}") for page in STANDARD_PAGES):
                continue
            names = getattr(pattern.pattern, "converters", {})
            kwargs = {n: pk if n == "object_id" else others[n] for n in names}
            address = reverse(f"admin:{name}", kwargs=kwargs)
            yield Probe(f"admin:{name}", "GET", address)
            yield Probe(f"admin:{name}", "POST", address, data={}, write=True)
        actions = [a if isinstance(a, str) else a.__name__ for a in model_admin.actions or []]
        for action in ["delete_selected", *actions]:
            data = {"action": action, helpers.ACTION_CHECKBOX_NAME: [pk], "index": 0}
            yield Probe(
                f"{admin_key(model, 'changelist')} action={action}",
                "POST",
                changelist,
                data=data,
                write=True,
            )


def admin_site_probes() -> Iterator[Probe]:
    """The admin site's own pages (not a model's)."""
    for name in ("index", "login", "password_change", "password_change_done", "jsi18n"):
        yield Probe(f"admin:{name}", "GET", reverse(f"admin:{name}"))
    yield Probe("admin:logout", "GET", reverse("admin:logout"))
    yield Probe(
        "admin:autocomplete",
        "GET",
        reverse("admin:autocomplete")
        + "?app_label=tournaments&model_name=team&field_name=members&term=",
    )
    for app_label in ("tournaments", "games", "auth", "authtoken"):
        address = reverse("admin:app_list", args=[app_label])
        yield Probe(f"admin:app_list {app_label}", "GET", address)
    yield Probe("admin:<no such page>", "GET", "/admin/no/such/page/")


def admin_object_probes(cast: Cast) -> Iterator[Probe]:
    """The admin site's pages of one object that no ModelAdmin lists: "view on site" of X,
    the password form of a user."""
    tournament = ContentType.objects.get_for_model(Tournament).pk
    address = reverse("admin:view_on_site", args=[tournament, cast.tournament.pk])
    yield Probe("admin:view_on_site", "GET", address)
    staff = cast.users[STAFF]
    assert staff is not None
    address = reverse("admin:auth_user_password_change", args=[staff.pk])
    yield Probe("admin:auth_user_password_change", "GET", address)
    yield Probe("admin:auth_user_password_change", "POST", address, data={}, write=True)


# --- the API --------------------------------------------------------------------------------------


@functools.cache
def api_operations() -> list[tuple[str, str]]:
    """(method, path template) of every operation of the OpenAPI schema."""
    schema: dict[str, Any] = SchemaGenerator().get_schema(  # type: ignore[no-untyped-call]
        request=None, public=True
    )
    return [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    ]


def api_parameters(cast: Cast, path: str) -> dict[str, Any]:
    """The values of ``path``'s parameters: X's objects (the in-play table, its finished
    table's result, player A's entry and player)."""
    player_a = cast.users[PLAYER_A].player  # type: ignore[union-attr]
    entry = next(e for e in cast.x.entries if e.player_id == player_a.pk)
    pk = {
        "entries": entry.pk,
        "tables": cast.table_in_play.pk,
        "results": cast.x.result.pk,
        "webhooks": cast.admin_objects[Webhook].pk,  # X's, of organiser_x
    }
    parts = path.strip("/").split("/")
    first = parts[2] if len(parts) > 2 else ""  # (the index, /api/v1/, has none)
    return {
        "slug": cast.tournament.slug if first != "leagues" else cast.x.league.slug,
        "order": 2 if path.endswith("/bracket/") else 1,
        "number": 1,
        "player_id": player_a.pk,
        "team_id": cast.team.pk,
        "game_id": Game.objects.get(table=cast.table_in_play).pk,
        "id": pk.get(first),
    }


def api_probes(cast: Cast) -> Iterator[Probe]:
    """Every operation of the schema; a write posts an empty body (a role that passes the
    permission gate gets a 422 from the validation)."""
    for method, template in api_operations():
        values = api_parameters(cast, template)
        path = template.format_map(values)
        write = method != "GET"
        yield Probe(
            template,
            method,
            path,
            data={} if write else None,
            json=write,
            write=write,
        )


# --- the URLconf ----------------------------------------------------------------------------------


def url_patterns() -> Iterator[tuple[str | None, str]]:
    """Every pattern of the URLconf: its full name (None if it has none) and its route as
    ``resolve()`` reports it."""

    def join(first: str, second: str) -> str:  # as URLResolver joins them
        return second if not first else first + second.removeprefix("^")

    def walk(
        resolver: URLResolver, prefix: str, namespace: str
    ) -> Iterator[tuple[str | None, str]]:
        for pattern in resolver.url_patterns:
            route = join(prefix, str(pattern.pattern))
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                yield from walk(pattern, route, inner)
            else:
                yield (f"{namespace}{pattern.name}" if pattern.name else None), route

    yield from walk(get_resolver(), "", "")


def page_parameters(cast: Cast) -> dict[str, dict[str, Any]]:
    """The arguments of each public page that takes some: X's objects."""
    x = cast.x
    player_a = cast.users[PLAYER_A].player  # type: ignore[union-attr]
    return {
        "game-verify": {"game_id": x.game.pk},
        "game-replay": {"game_id": x.game.pk},
        "table": {"table_id": cast.table_in_play.pk},
        "password_reset_confirm": {"uidb64": "MQ", "token": "set-password"},
        "entry-action": {"slug": x.tournament.slug, "action": "check-in"},
        "tournament": {"slug": x.tournament.slug},
        "embed-standings": {"slug": x.tournament.slug},
        "embed-bracket": {"slug": x.tournament.slug},
        "player": {"player_id": player_a.pk},
        "league-latest": {"slug": x.league.slug},
        "league": {"slug": x.league.slug, "season": x.league.season},
        "referee-invitation": {"token": "no-such-invitation"},
        "api-token-revoke": {"token_id": cast.token_a.pk},
    }


# The pages that take a POST: the body each is posted with (a harmless one), and whether the
# POST writes rows. (Not the logout: it would end the role's session for the next probes.)
PAGE_POSTS: dict[str, tuple[dict[str, str], bool]] = {
    "entry-action": ({}, True),
    "set_language": ({"language": "en"}, False),
    "referee-invitation": ({}, False),
    "api-tokens": ({}, True),
    "api-token-revoke": ({}, True),
}


def page_probes(cast: Cast, names: set[str]) -> Iterator[Probe]:
    """GET each named page of ``names`` (the URLconf's pages that are neither the console's nor
    the API's operations), and POST those of :data:`PAGE_POSTS`."""
    arguments = page_parameters(cast)
    for name in sorted(names):
        path = reverse(name, kwargs=arguments.get(name, {}))
        yield Probe(name, "GET", path)
        if name in PAGE_POSTS:
            data, write = PAGE_POSTS[name]
            yield Probe(name, "POST", path, data=data, write=write)


def unnamed_page_probes() -> Iterator[Probe]:
    yield Probe("api:<no such endpoint>", "GET", "/api/v1/no/such/endpoint/")


# --- the sockets ----------------------------------------------------------------------------------


def socket_probes(cast: Cast) -> Iterator[Probe]:
    """A handshake to each route of the ASGI app's socket router (``durak_site.asgi``), filled
    with X's objects; its last route, unnamed, takes every path no socket serves."""
    paths = {
        "ws-table": f"/ws/tables/{cast.table_in_play.pk}/",
        "ws-tournament": f"/ws/tournaments/{cast.tournament.slug}/",
        None: "/ws/no/such/socket/",
    }
    for pattern in asgi.socket_routes:
        name = pattern.name
        if name not in paths:
            raise AssertionError(f"new socket route {pattern.pattern}: give the matrix a path")
        yield Probe(name or "ws:<no such socket>", "WS", paths[name])


async def socket_outcome(path: str, cookie: str | None) -> str:
    """What a browser of the site's own origin gets: "accept <role>" (the live table's first
    state names the role), "accept" (the tournament feed's hello), or "close <code>"."""
    headers = [(b"host", b"testserver"), (b"origin", b"http://testserver")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(asgi.application, path, headers=headers)
    connected, code = await comm.connect(timeout=10)
    try:
        if not connected:
            return f"close:{code}"
        first = await comm.receive_json_from(timeout=5)
        if first["type"] == "error":
            closed = await comm.receive_output(timeout=5)
            return f"close:{closed.get('code')}"
        if first["type"] == "state":
            return f"accept:{first['role']}"
        return "accept"
    finally:
        await comm.disconnect()


def session_cookie_of(client: Client) -> str | None:
    session = client.cookies.get(settings.SESSION_COOKIE_NAME)
    return f"{settings.SESSION_COOKIE_NAME}={session.value}" if session else None
