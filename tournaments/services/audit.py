"""The audit log: one row per change made by a person, in the same transaction as the change.

Rows are append-only (``AuditEvent``): nothing here edits or deletes one. Every write service
takes the person as ``actor`` (``games.actors.Actor``), checks what that person may do to the
object, and writes the row itself, so every face (the console, the API, the players' pages)
records the same row::

    entry_withdraw(entry=entry, reason=reason, actor=request.user)

Faces never write a row: they call the service and render. ``actor`` None is the system (a
command, a job): a row in its name ("system") where the service records one at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db import models, transaction

from games.actors import Actor, person
from tournaments.models import AuditEvent, League, Tournament


def audit_record(
    *,
    actor: Actor | None,
    action: str,
    tournament: Tournament | None = None,
    league: League | None = None,
    target: models.Model | None = None,
    reason: str = "",
    before: Any = None,
    after: Any = None,
) -> AuditEvent:
    """Append one audit row (inside the caller's transaction, so that it commits or rolls back
    with the change it records). ``before``/``after`` are JSON values (the changed fields)."""
    if action not in AuditEvent.Action.values:
        raise ValueError(f"unknown audit action {action!r}")
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("audit_record runs inside the transaction of the change it records")
    user = person(actor)
    return AuditEvent.objects.create(
        tournament=tournament,
        league=league if league is not None else (tournament.league if tournament else None),
        actor=user,
        actor_name=user.get_username() if user is not None else "system",
        action=action,
        target_type=target._meta.model_name or "" if target is not None else "",
        target_id=target.pk if target is not None else None,
        target_repr=str(target)[:200] if target is not None else "",
        reason=reason.strip()[:300],
        before=before,
        after=after,
    )


def audit_changes(
    *,
    row: models.Model,
    changes: Mapping[str, Any],
    actor: Actor | None,
    action: str,
    tournament: Tournament | None = None,
    league: League | None = None,
    shown: Callable[[Any], Any] = lambda value: value,
) -> None:
    """Apply ``changes`` to ``row`` (locked by the caller), save just those fields, and record
    their values before and after (each as ``shown`` makes it a JSON value) in one audit row
    with ``row`` as its target: how every settings change of the services is written."""
    before = {name: shown(getattr(row, name)) for name in changes}
    for name, value in changes.items():
        setattr(row, name, value)
    row.save(update_fields=list(changes))
    audit_record(
        actor=actor,
        action=action,
        tournament=tournament,
        league=league,
        target=row,
        before=before,
        after={name: shown(getattr(row, name)) for name in changes},
    )
