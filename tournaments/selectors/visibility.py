"""Which tournaments and leagues a user sees: the one home of the visibility rules.

Two scopes, one naming scheme (querysets, never one query per object):

- ``<entity>_visible_to(user)``: what ``user`` may read on the public faces (the pages, the
  API, the sockets): the public events out of draft; a private one, or a draft, only for those
  who run it and its own players;
- ``<entity>_managed_by(user)``: what ``user`` sees in the console: all for a superuser, its own
  for an organiser, the assigned ones for a referee, none for anyone else.

Whether one object is in scope: ``tournaments_visible_to(user).filter(pk=...).exists()``. What a
user may *do* to an object stays with the permissions (``tournaments.permissions.can_*``).
"""

from __future__ import annotations

from typing import TypeVar

from django.db.models import Exists, OuterRef, Q, QuerySet

from games.actors import Actor
from tournaments.models import Entry, League, Tournament
from tournaments.roles import active, is_organiser, is_referee

_Managed = TypeVar("_Managed", Tournament, League)


def tournaments_managed_by(user: Actor | None) -> QuerySet[Tournament]:
    """The tournaments ``user`` sees in the console: all for a superuser, its own for an
    organiser, the assigned ones for a referee, none for anyone else."""
    return _managed_by(user, Tournament.objects.all(), refereed="referees")


def leagues_managed_by(user: Actor | None) -> QuerySet[League]:
    """The leagues ``user`` sees in the console: all for a superuser, its own for an organiser,
    those of its assigned tournaments for a referee."""
    return _managed_by(user, League.objects.all(), refereed="tournaments__referees")


def _managed_by(
    user: Actor | None, everything: QuerySet[_Managed], *, refereed: str
) -> QuerySet[_Managed]:
    """``everything`` as ``user`` sees it in the console; ``refereed``: the lookup from a row
    to the referees assigned to it."""
    if user is None or not active(user):
        return everything.none()
    if user.is_superuser:
        return everything
    scope = Q(pk__in=[])
    if is_organiser(user):
        scope |= Q(created_by=user)
    if is_referee(user):
        scope |= Q(**{refereed: user})
    return everything.filter(scope).distinct()


def tournaments_visible_to(user: Actor | None) -> QuerySet[Tournament]:
    """The tournaments ``user`` may read on the public faces (the pages, the API): the public
    ones that are out of draft; a private one, or a draft, only for those who see it in the
    console (its organiser, its referees) and its own players."""
    public = Q(is_public=True) & ~Q(status=Tournament.Status.DRAFT)
    if user is None or not user.is_authenticated:
        return Tournament.objects.filter(public)
    if getattr(user, "is_superuser", False):
        return Tournament.objects.all()
    own = Entry.objects.filter(Q(player__user=user) | Q(team__members__user=user))
    return Tournament.objects.filter(
        public
        | Q(pk__in=tournaments_managed_by(user).values("pk"))
        | Q(pk__in=own.values("tournament_id"))
    )


def leagues_visible_to(user: Actor | None) -> QuerySet[League]:
    """The leagues with at least one tournament ``user`` may read (a league of drafts and
    private events only is nobody else's business)."""
    visible = tournaments_visible_to(user).filter(league=OuterRef("pk"))
    return League.objects.filter(Exists(visible))
