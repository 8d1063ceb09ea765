"""Reads of a tournament's event log (``tournaments.models.FeedEvent``, written by
``tournaments.services.feed`` in each change's transaction).

Each logged event reads as the message its socket and its webhooks got
(:func:`logged_message`): ``{"event", "tournament", "version", "at", "data"}``.

The log of a tournament runs without a gap from its first kept version to its current one; a
future retention rule only drops a prefix. So a read after ``since`` that does not start at
``since + 1`` has lost events (:class:`EventsExpired`), and the reader must start over from the
REST answers.
"""

from __future__ import annotations

from typing import Any

from tournaments.models import FeedEvent, Tournament
from tournaments.notifications import time_text


class EventsExpired(LookupError):
    """The events just after the version asked for are no longer kept (or were made before the
    log was): the log cannot fill the caller's gap."""

    def __init__(self, since: int, first: int | None) -> None:
        super().__init__(since, first)
        self.since = since
        self.first = first


class VersionAhead(ValueError):
    """A version the tournament has not reached (versions only grow: a client cannot have seen
    it here)."""


def logged_message(row: FeedEvent, slug: str) -> dict[str, Any]:
    """A logged event of the tournament ``slug`` as its message: what its socket and its
    webhooks' bodies carried when it was announced."""
    return {
        "event": row.event,
        "tournament": slug,
        "version": row.version,
        "at": time_text(row.at),
        "data": row.data,
    }


def events_since(tournament: Tournament, since: int, limit: int) -> list[dict[str, Any]]:
    """The messages of ``tournament``'s events after the version ``since``, oldest first, at
    most ``limit`` of them; one query (none when ``since`` is the current version).

    ``VersionAhead`` for a ``since`` beyond ``tournament.version`` (as read by the caller);
    ``EventsExpired`` when the first event after ``since`` is not kept.
    """
    if since > tournament.version:
        raise VersionAhead(since)
    if since == tournament.version:
        return []
    rows = list(
        FeedEvent.objects.filter(tournament_id=tournament.pk, version__gt=since).order_by(
            "version"
        )[:limit]
    )
    if not rows or rows[0].version != since + 1:
        raise EventsExpired(since, rows[0].version if rows else None)
    return [logged_message(row, tournament.slug) for row in rows]


def events_after(tournament_id: int, slug: str, since: int, limit: int) -> list[dict[str, Any]]:
    """The messages of the events after ``since`` that are logged now (for a stream that has
    already checked its start): oldest first, at most ``limit``; one query."""
    rows = FeedEvent.objects.filter(tournament_id=tournament_id, version__gt=since).order_by(
        "version"
    )[:limit]
    return [logged_message(row, slug) for row in rows]
