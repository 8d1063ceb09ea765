"""The walk: every admin page and action, as every persona, on an object of event A and of event B.

Never a 5xx; 200/302 where the persona may, 403/404 where it may not, the login for the
outsider. Who may what (``tournaments.permissions``): a superuser everything; an organiser its
own event (A: ``organiser``, B: ``other_organiser``); a referee the event it is assigned to
(A: ``event_referee``, B: ``other_referee``); staff without a group nothing. A player is seen like
its event's records (it plays in A or B); a team that has entered no event by the organiser who
made it. Nothing is ever deleted; append-only records are view-only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.db import models, transaction
from django.test import Client
from django.urls import reverse

from tests.builders import ConsoleEvent
from tournaments import services
from tournaments.console.admin_base import ConsoleAdmin
from tournaments.models import (
    Entry,
    League,
    Player,
    Round,
    Table,
    Team,
    Tournament,
    Webhook,
    WebhookDelivery,
)
from tournaments.services.webhooks.management import webhook_create

pytestmark = pytest.mark.django_db

PERSONAS = [
    "superuser",
    "organiser",
    "other_organiser",
    "event_referee",
    "other_referee",
    "staff_without_group",
    "outsider",
]
SEES = {
    "superuser": {"A", "B"},
    "organiser": {"A"},
    "other_organiser": {"B"},
    "event_referee": {"A"},
    "other_referee": {"B"},
}
MANAGES = {"superuser": {"A", "B"}, "organiser": {"A"}, "other_organiser": {"B"}}
ORGANISERS = {"superuser", "organiser", "other_organiser"}
# What an organiser (or a superuser) adds in the console, each through its service.
ADDABLE = {Player, League, Tournament, Entry, Team, Webhook}
# A team of two of an event's players, made by its organiser, in no event: only its maker sees it.
MAKER_SEES = {Team}


def records(event: ConsoleEvent) -> dict[type[models.Model], models.Model]:
    """One object of each registered model in ``event`` (a team of two of its players too)."""
    player, partner = (entry.player for entry in event.entries[:2])
    assert player is not None and partner is not None
    webhook = webhook_create(
        tournament=event.tournament,
        url="https://example.com/hook",
        actor=event.tournament.created_by,
    )
    delivery = WebhookDelivery.objects.create(
        webhook=webhook, event_id="msg_walk", event="table_finished", payload={}
    )
    objects: list[models.Model] = [
        player,
        services.team_create(
            name=f"Пара {event.tournament.name}",
            players=[player, partner],
            actor=event.tournament.created_by,
        ),
        event.league,
        event.tournament,
        event.entries[1],
        event.pending_round,
        event.table,
        event.result,
        event.payout,
        event.prize_pool,
        event.rank,
        event.rating_change,
        event.audit_event,
        event.game,
        event.referee_event,
        webhook,
        delivery,
    ]
    return {type(obj): obj for obj in objects}


def url(model: type[models.Model], page: str, *args: Any) -> str:
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{page}", args=args)


class Walk:
    """Requests as one persona, with every unexpected answer collected."""

    def __init__(self, client: Client, persona: str) -> None:
        self.client, self.persona = client, persona
        self.wrong: list[str] = []

    def check(self, what: str, response: Any, allowed: bool, *, hidden: bool = False) -> None:
        """``hidden``: refused because the object is outside the persona's scope, which must be
        the 404 of a missing object (a 403 would tell that it exists)."""
        code = response.status_code
        if self.persona == "outsider":
            ok = code == 302 and response["Location"].startswith(reverse("admin:login"))
        elif allowed:
            ok = code in (200, 302)
        elif hidden:
            ok = code == 404
        else:
            ok = code in (403, 404)
        if code >= 500 or not ok:
            self.wrong.append(f"{what}: {code} ({'allowed' if allowed else 'refused'})")

    def get(self, what: str, address: str, allowed: bool, *, hidden: bool = False) -> None:
        self.check(f"GET {what}", self.client.get(address), allowed, hidden=hidden)

    def post(self, what: str, address: str, data: dict[str, Any], allowed: bool) -> Any:
        # Each action runs in a savepoint rolled back afterwards: every persona finds the events
        # as they were built.
        with transaction.atomic():
            response = self.client.post(address, data)
            transaction.set_rollback(True)
        self.check(f"POST {what}", response, allowed)
        return response


def console_models() -> Iterator[tuple[type[models.Model], admin.ModelAdmin[Any]]]:
    yield from admin.site._registry.items()


def walk_as(client: Client, persona: str, events: dict[str, dict[type[models.Model], Any]]) -> Walk:
    sees, manages = SEES.get(persona, set()), MANAGES.get(persona, set())
    in_console = persona in SEES
    walk = Walk(client, persona)
    for model, model_admin in console_models():
        name = f"{persona}: {model._meta.label}"
        ours = isinstance(model_admin, ConsoleAdmin)
        # the changelist and the add page
        listable = in_console if ours else persona == "superuser"
        walk.get(f"{name} list", url(model, "changelist"), listable)
        addable = persona in ORGANISERS and model in ADDABLE if ours else persona == "superuser"
        walk.get(f"{name} add", url(model, "add"), addable)
        for event, objects in events.items():
            obj = objects.get(model)
            if obj is None:
                continue
            visible = event in (manages if model in MAKER_SEES else sees)
            # the change page (view-only or not) and the delete page, never allowed
            # (an object outside the persona's scope is a 404 on every page, as a missing one)
            hidden = ours and not visible
            walk.get(f"{name} {event} change", url(model, "change", obj.pk), visible, hidden=hidden)
            walk.get(f"{name} {event} delete", url(model, "delete", obj.pk), False, hidden=hidden)
            # the console's own pages of the object
            for page in getattr(model_admin, "object_pages", ()):
                walk.get(f"{name} {event} {page}", url(model, page, obj.pk), visible, hidden=hidden)
            walk.post(
                f"{name} {event} delete_selected",
                url(model, "changelist"),
                {"action": "delete_selected", helpers.ACTION_CHECKBOX_NAME: [obj.pk], "index": 0},
                False,
            )
            # and every admin action on the object
            for action in getattr(model_admin, "actions", None) or []:
                needs = getattr(action, "allowed_permissions", ())
                allowed = event in (manages if "manage" in needs else sees)
                data = {"action": action.__name__, helpers.ACTION_CHECKBOX_NAME: [obj.pk]}
                what = f"{name} {event} {action.__name__}"
                response = walk.post(what, url(model, "changelist"), {**data, "index": 0}, allowed)
                if allowed and response.status_code == 200:  # it asks for a reason first
                    walk.post(
                        f"{what} with its reason",
                        url(model, "changelist"),
                        {**data, "post": "yes", "reason": "walk"},
                        allowed,
                    )
    return walk


def test_every_page_and_action_as_every_persona(
    client: Client,
    request: pytest.FixtureRequest,
    console_events: tuple[ConsoleEvent, ConsoleEvent],
) -> None:
    # given events A and B with one of every record
    events = dict(zip("AB", (records(e) for e in console_events), strict=True))
    wrong: list[str] = []
    for persona in PERSONAS:
        # when each persona, logged in, opens every page and posts every action
        user: User = request.getfixturevalue(persona)
        client.force_login(user)
        wrong += walk_as(client, persona, events).wrong
        client.logout()
    # then nothing answered out of turn
    assert not wrong, "\n".join(wrong)


def test_the_walk_covers_the_console(console_events: tuple[ConsoleEvent, ConsoleEvent]) -> None:
    """Every console page has an object in the walk's events, and every action is walked on one
    of the models that have it (a new admin or action cannot slip past the walk)."""
    objects = records(console_events[0])
    console = {m for m, a in console_models() if isinstance(a, ConsoleAdmin)}
    assert console == set(objects)
    with_actions = {m for m in console if admin.site._registry[m].actions}
    assert with_actions == {Tournament, Entry, Round, Table}
    assert objects[Round] == console_events[0].pending_round
    assert console_events[0].pending_round.status == Round.Status.PENDING
