"""The tournament feed: every change a reader of an event can see, announced once.

A service that changes what a reader of the event sees calls :func:`tournament_changed` as the
last statement of its transaction. It bumps the tournament's ``version`` (the API's ETag and the
feed's resync point) and ``changed_at``, and publishes one ``tournaments.notifications.Change``
to the channels registered there at start-up: the organisers' webhooks write their outbox rows
in the transaction, and after commit only the feed's sockets get the message, the API's front
its new version, and each delivery its job. This module knows none of the channels.

The message, the same on the socket and in a webhook's body::

    {"event": "table_finished", "tournament": "kubok-kluba", "version": 42,
     "at": "2026-05-01T12:00:00.123456Z", "data": {"table": 7, "round": 2}}

(``at`` in the API's one form of times, ``notifications.time_text``: UTC, ``Z``.)

**The log.** Each change is also written, in its transaction, to the tournament's event log
(``tournaments.models.FeedEvent``, one row per tournament and version), so every version a
client can see has its event, and a client that missed some reads them again
(``GET /api/v1/tournaments/<slug>/events/?since=<version>`` or its NDJSON stream); the row is
the message (``selectors.feed``).

A change made outside any one tournament that their answers show (a player's new name, a
team's, a league's) is announced to each tournament that shows it at once
(:func:`player_changed`, :func:`team_changed`, :func:`league_changed`, through
:func:`tournaments_changed`): every ETag of the old answers, the front's and a game's included,
stops matching.

Each event's ``data`` carries the facts that changed, in the REST API's rows
(``tournaments.selectors.facts``; ``docs/feed.md`` lists them): a table's result and the
standings rows it moved, a round's seats, a stage's or the event's standings, the awards. The
last event of a finished tournament is ``tournament_completed``, once its prize pool, ranks and
ratings are all computed.

A client that sees a version skip (a message lost) reads the missing events from the log; versions
only grow, and each has its event.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments import notifications, selectors
from tournaments.models import FeedEvent, Tournament

#: The events, with their names for the console (a webhook subscribes to some or all).
EVENTS: Final[dict[str, Any]] = {
    "registration_opened": _("Registration opened"),
    "registration_closed": _("Registration closed"),
    "tournament_started": _("Tournament started"),
    "tournament_cancelled": _("Tournament cancelled"),
    "tournament_updated": _("Tournament settings changed"),
    "entries_changed": _("Entries changed"),
    "round_paired": _("Round paired"),
    "seats_swapped": _("Seats swapped"),
    "table_finished": _("Table finished (standings changed)"),
    "game_finished": _("A game of a table's series finished (its score changed, the next dealt)"),
    "result_corrected": _("Result corrected (standings changed)"),
    "round_finished": _("Round finished"),
    "stage_finished": _("Stage finished"),
    "tournament_finished": _("Tournament finished"),
    "awards_computed": _("Prize pool, ranks or ratings computed"),
    "awards_failed": _("Final places, prize pool, ranks or ratings failed"),
    "tournament_completed": _("Tournament completed (final standings with prizes, ranks, ratings)"),
    "people_changed": _("A player's or team's name, club, city or members changed"),
}

#: What of a player the answers about a tournament show (standings, rounds, brackets, final
#: places, results): a change of anything else (its language, its user account) announces
#: nothing.
PLAYER_SHOWN: Final = frozenset({"display_name", "club", "city"})
#: What of a league a tournament's answers show (its reference in the tournament's detail).
LEAGUE_SHOWN: Final = frozenset({"name", "season"})


class UnknownEvent(ValueError):
    """An announcement of an event that is not one of :data:`EVENTS` (a programming error: no
    webhook could have chosen it)."""


def tournament_changed(
    *, tournament_id: int, event: str, data: dict[str, Any] | None = None
) -> int:
    """Announce a change of the tournament a reader can see; returns the new version.

    Call it inside the service's transaction as its **last statement**. Lock order: it updates
    the tournament row (``FOR NO KEY UPDATE``, the lock an ``UPDATE`` of non-key columns takes),
    so it comes after every other lock the service takes: a service that locks a round or a
    table and then the tournament meets another one that does the same in the same order, and
    a transaction that holds the tournament row only from here on asks for no further row lock
    before its commit. A service that locked the tournament first (registration, the start, the
    awards jobs) already holds it, and this takes nothing new.

    Queries: the ``UPDATE``, one ``SELECT`` of the new version and slug, one ``INSERT`` of the
    event log's row, then the channels' (``tournaments.notifications``; the webhooks': one
    ``SELECT``, and one ``INSERT`` of the deliveries when a webhook wants the event).
    ``UnknownEvent`` for an event not in :data:`EVENTS`; ``notifications.OutsideTransaction``
    outside a transaction.
    """
    return tournaments_changed(tournament_ids=[tournament_id], event=event, data=data)[
        tournament_id
    ]


def tournaments_changed(
    *, tournament_ids: Iterable[int], event: str, data: dict[str, Any] | None = None
) -> dict[int, int]:
    """:func:`tournament_changed` for one change that several tournaments show (a player's new
    name, in every event it played): each gets its new version, its message and its webhooks'
    deliveries, in a fixed number of queries however many they are (one ``INSERT`` of all
    their event log rows; one ``SELECT ... FOR UPDATE`` more when there are several). Returns
    the new versions by tournament id (none for an empty ``tournament_ids``).

    Locks the tournament rows in primary-key order (a ``SELECT ... FOR NO KEY UPDATE`` first
    when there are several, so that two such announcements cannot deadlock each other), as the
    last statement of the transaction, as for one.
    """
    ids = sorted(set(tournament_ids))
    if not ids:
        return {}
    if event not in EVENTS:
        raise UnknownEvent(f"unknown feed event {event!r}")
    notifications.require_transaction()
    now = timezone.now()
    changed = Tournament.objects.filter(pk__in=ids)
    if len(ids) > 1:
        list(changed.select_for_update(no_key=True).order_by("pk").values_list("pk", flat=True))
    changed.update(version=F("version") + 1, changed_at=now)
    stamps = tuple(
        notifications.Stamp(pk=pk, slug=slug, version=version)
        for pk, slug, version in changed.order_by("pk").values_list("pk", "slug", "version")
    )
    change = notifications.Change(event=event, at=now, stamps=stamps, data=data or {})
    FeedEvent.objects.bulk_create(
        FeedEvent(tournament_id=s.pk, version=s.version, event=event, at=now, data=change.data)
        for s in stamps
    )
    notifications.publish(change)
    return {stamp.pk: stamp.version for stamp in stamps}


def player_changed(*, player_id: int, fields: Iterable[str]) -> dict[int, int]:
    """Announce (``people_changed``) a change of the player ``player_id``'s ``fields`` to every
    tournament that shows the player (``selectors.tournaments_showing_player``), so that no
    answer with its old name outlives the change (the ETags, the API's front and its cache of
    built answers all follow the versions). Nothing when none of ``fields`` is shown
    (:data:`PLAYER_SHOWN`). The last statement of the change's transaction, as
    :func:`tournament_changed`; queries: one for the tournaments, then
    :func:`tournaments_changed`'s."""
    shown = sorted(PLAYER_SHOWN.intersection(fields))
    if not shown:
        return {}
    ids = selectors.tournaments_showing_player(player_id).values_list("pk", flat=True)
    return tournaments_changed(
        tournament_ids=list(ids),
        event="people_changed",
        data={"player": player_id, "fields": shown},
    )


def team_changed(*, team_id: int, fields: Iterable[str]) -> dict[int, int]:
    """Announce (``people_changed``) a change of the team ``team_id`` (its name, its members)
    to every tournament it has an entry in; as :func:`player_changed`."""
    changed = sorted(set(fields))
    if not changed:
        return {}
    ids = selectors.tournaments_showing_team(team_id).values_list("pk", flat=True)
    return tournaments_changed(
        tournament_ids=list(ids),
        event="people_changed",
        data={"team": team_id, "fields": changed},
    )


def league_changed(*, league_id: int, fields: Iterable[str]) -> dict[int, int]:
    """Announce (``tournament_updated``, ``{"fields": ["league"]}``) a change of the league
    ``league_id``'s name or season to each of its tournaments (their details show it)."""
    if not LEAGUE_SHOWN.intersection(fields):
        return {}
    ids = Tournament.objects.filter(league_id=league_id).values_list("pk", flat=True)
    return tournaments_changed(
        tournament_ids=list(ids), event="tournament_updated", data={"fields": ["league"]}
    )
