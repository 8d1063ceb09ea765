"""Who a user is to the console: superuser, organiser, referee (groups), nothing else.

The role predicates that the permissions (``tournaments.permissions``: what a user may do to an
object) and the visibility scopes (``tournaments.selectors.visibility``: which objects a user
sees) both ask; here so that neither imports the other's module for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

from games.actors import Actor

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ORGANISER, REFEREE = "organiser", "referee"


def signed_in(user: Actor | None) -> TypeGuard[User]:
    """A signed-in user (None and the anonymous visitor: no)."""
    return user is not None and bool(user.is_authenticated)


def active(user: Actor | None) -> TypeGuard[User]:
    """A signed-in, active user (None, the anonymous visitor and a deactivated account: no)."""
    return signed_in(user) and bool(user.is_active)


def is_superuser(user: Actor | None) -> bool:
    """An active superuser (the only one who may change which account plays as a player)."""
    return active(user) and bool(user.is_superuser)


def _in_group(user: Actor | None, name: str) -> bool:
    if not active(user):
        return False
    cache: dict[str, bool] = user.__dict__.setdefault("_durak_groups", {})
    if name not in cache:
        cache[name] = user.groups.filter(name=name).exists()
    return cache[name]


def is_organiser(user: Actor | None) -> bool:
    """A user who may create tournaments and leagues (superusers too)."""
    return bool(getattr(user, "is_superuser", False)) or _in_group(user, ORGANISER)


def is_referee(user: Actor | None) -> bool:
    """A user in the referee group (which events it referees is per tournament)."""
    return _in_group(user, REFEREE)


def is_console_user(user: Actor | None) -> bool:
    """Anyone the console is for: superusers, organisers and referees."""
    return bool(getattr(user, "is_superuser", False)) or is_organiser(user) or is_referee(user)
