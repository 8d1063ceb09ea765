"""Who does something: the one type of the person behind a request, a socket or a console
action, for every service, selector and permission that takes one (``actor``, ``user``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

#: A signed-in user, or the anonymous visitor of a public page or socket.
Actor: TypeAlias = "User | AnonymousUser"


def person(actor: Actor | None) -> User | None:
    """The signed-in user behind ``actor``, as a row's user field takes it (None: the anonymous
    visitor, or the system)."""
    if actor is None or not actor.is_authenticated:
        return None
    return actor
