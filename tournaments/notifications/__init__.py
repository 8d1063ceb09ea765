"""Notifications: the one registry every channel of a change joins.

A service announces a change of what a reader of a tournament sees through
``tournaments.services.feed`` (``tournament_changed`` and its kin), which bumps the versions and
:func:`publish` es one :class:`Change`. Each registered :class:`Listener` (a channel) then gets
it twice:

- :meth:`Listener.stage`, at once, inside the change's transaction: what must commit or roll
  back with the change (the webhooks' outbox rows, their jobs asked for on commit);
- :meth:`Listener.send`, after the commit only (Zulip's ``send_event_on_commit``): what the
  world may see once the change is durable (the feed's sockets, the API's published versions).
  A channel that fails there is logged; the change has committed, and the other channels still
  get it.

A listener hears of the events it :meth:`Listener.wants` (all, unless it says otherwise), in the
order the listeners were registered, in both steps. ``TournamentsConfig.ready()``
registers the channels at start-up (``tournaments.notifications.sockets``, ``.versions``,
``.webhooks``); a new channel (e-mail, push, a messenger bot) is one more listener module and one
more line there, never an edit of the feed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any, ClassVar

from django.db import transaction
from rest_framework.fields import DateTimeField

log = logging.getLogger(__name__)


class OutsideTransaction(RuntimeError):
    """A change was published outside the transaction that makes it (a programming error: its
    outbox rows would commit apart from it, and its messages could announce a rolled-back
    change)."""


@dataclass(frozen=True)
class Stamp:
    """A tournament's new version after a change: the API's ETag and the feed's resync point."""

    pk: int
    slug: str
    version: int


@dataclass(frozen=True)
class Change:
    """One announced change: its event, when, its data, and the new version of each tournament
    that shows it (in primary-key order)."""

    event: str
    at: datetime
    stamps: tuple[Stamp, ...]
    data: Mapping[str, Any] = field(default_factory=dict)

    def message(self, stamp: Stamp) -> dict[str, Any]:
        """The message about ``stamp``'s tournament, the same on every channel::

        {"event": "table_finished", "tournament": "kubok-kluba", "version": 42,
         "at": "2026-05-01T12:00:00.123456Z", "data": {"table": 7, "round": 2}}
        """
        return {
            "event": self.event,
            "tournament": stamp.slug,
            "version": stamp.version,
            "at": time_text(self.at),
            "data": dict(self.data),
        }


def time_text(at: datetime) -> str:
    """``at`` as every answer of the API writes a time (DRF's ``DateTimeField``: ISO 8601 in
    UTC, ``Z``), so that an event's ``at`` reads as the REST answers' times."""
    return str(_TIMES.to_representation(at))


_TIMES = DateTimeField(default_timezone=UTC)


class Listener:
    """A channel of the changes. Override :meth:`stage`, :meth:`send` or both."""

    #: The channel's name (the log's; :func:`register` keeps one listener of a name).
    name: ClassVar[str] = ""

    def wants(self, event: str) -> bool:
        """Whether this channel hears of ``event`` at all (every event, unless overridden: an
        e-mail channel might want only ``tournament_finished``)."""
        return True

    def stage(self, change: Change) -> None:
        """Inside the change's transaction: write what commits or rolls back with it."""

    def send(self, change: Change) -> None:
        """After the commit: announce the change to the world."""


_listeners: list[Listener] = []


def register(listener: Listener) -> Listener:
    """Add ``listener`` (after those already registered); a listener of the same name replaces
    the one registered before (an app's ``ready()`` that runs twice adds nothing twice)."""
    if not listener.name:
        raise ValueError(f"{type(listener).__name__} has no name")
    for index, known in enumerate(_listeners):
        if known.name == listener.name:
            _listeners[index] = listener
            return listener
    _listeners.append(listener)
    return listener


def unregister(name: str) -> None:
    """Remove the listener called ``name``, if any (a test's own channel)."""
    _listeners[:] = [known for known in _listeners if known.name != name]


def listeners() -> tuple[Listener, ...]:
    """The registered listeners, in their order."""
    return tuple(_listeners)


def require_transaction() -> None:
    """Refuse (``OutsideTransaction``) to announce a change outside the transaction that makes
    it: the feed calls it before its first write, :func:`publish` again."""
    if not transaction.get_connection().in_atomic_block:
        raise OutsideTransaction("announce a change inside the transaction that makes it")


def publish(change: Change) -> None:
    """Hand ``change`` to every listener: :meth:`Listener.stage` now, :meth:`Listener.send` once
    the current transaction commits (never if it rolls back). Call it inside the change's
    transaction (``OutsideTransaction`` otherwise).

    The sends are asked for before the stages run, so they come first at the commit, in the
    listeners' order, before whatever a stage asks for on commit (the webhooks' delivery jobs):
    a reader sees the change on its socket before a receiver is called about it."""
    require_transaction()
    chosen = tuple(listener for listener in _listeners if listener.wants(change.event))
    if not chosen:
        return
    transaction.on_commit(partial(_send, chosen, change))
    for listener in chosen:
        listener.stage(change)


def _send(chosen: tuple[Listener, ...], change: Change) -> None:
    for listener in chosen:
        try:
            listener.send(change)
        except Exception:
            log.warning(
                "notifications: the %s channel failed to send %s",
                listener.name,
                change.event,
                exc_info=True,
            )
