"""Who may do what in the console and the API: one predicate layer, one queryset scope.

Roles:

- **superuser**: everything;
- **organiser** (group ``organiser``): creates tournaments and leagues and manages the ones it
  owns (``created_by``), including refereeing them;
- **referee** (group ``referee``): referees the tournaments it is assigned to
  (``Tournament.referees``): results, corrections, rulings, dropouts; sees their records.

Every console page and API view asks here, and every queryset it shows goes through
:func:`tournaments_for` (the admin does not filter changelists by object permission by itself).
A user who may not see an event gets 404 from a view that looks it up, and 403 from an action
on an object it can see but may not change.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from tournaments.models import League, Tournament

ORGANISER, REFEREE = "organiser", "referee"


def _in_group(user: Any, name: str) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    cache: dict[str, bool] = user.__dict__.setdefault("_durak_groups", {})
    if name not in cache:
        cache[name] = user.groups.filter(name=name).exists()
    return cache[name]


def is_organiser(user: Any) -> bool:
    """A user who may create tournaments and leagues (superusers too)."""
    return bool(getattr(user, "is_superuser", False)) or _in_group(user, ORGANISER)


def is_referee(user: Any) -> bool:
    """A user in the referee group (which events it referees is per tournament)."""
    return _in_group(user, REFEREE)


def is_console_user(user: Any) -> bool:
    """Anyone the console is for: superusers, organisers and referees."""
    return bool(getattr(user, "is_superuser", False)) or is_organiser(user) or is_referee(user)


def can_manage(user: Any, tournament: Tournament) -> bool:
    """Change the event itself: its plan, registration, start, cancel, its referees."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return is_organiser(user) and tournament.created_by_id == user.pk


def can_referee(user: Any, tournament: Tournament) -> bool:
    """Results, corrections, rulings at its tables, dropouts: its organiser and its referees."""
    if can_manage(user, tournament):
        return True
    return is_referee(user) and tournament.referees.filter(pk=user.pk).exists()


def can_view(user: Any, tournament: Tournament) -> bool:
    """See the event's records in the console (the public pages have their own rule)."""
    return can_referee(user, tournament)


def tournaments_for(user: Any) -> QuerySet[Tournament]:
    """The tournaments ``user`` sees in the console: all for a superuser, its own for an
    organiser, the assigned ones for a referee, none for anyone else."""
    everything = Tournament.objects.all()
    if user is None or not user.is_authenticated or not user.is_active:
        return everything.none()
    if user.is_superuser:
        return everything
    scope = Q(pk__in=[])
    if is_organiser(user):
        scope |= Q(created_by=user)
    if is_referee(user):
        scope |= Q(referees=user)
    return everything.filter(scope).distinct()


def leagues_for(user: Any) -> QuerySet[League]:
    """The leagues ``user`` sees in the console: all for a superuser, its own for an organiser,
    those of its assigned tournaments for a referee."""
    everything = League.objects.all()
    if user is None or not user.is_authenticated or not user.is_active:
        return everything.none()
    if user.is_superuser:
        return everything
    scope = Q(pk__in=[])
    if is_organiser(user):
        scope |= Q(created_by=user)
    if is_referee(user):
        scope |= Q(tournaments__referees=user)
    return everything.filter(scope).distinct()


def can_manage_league(user: Any, league: League) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_superuser) or (is_organiser(user) and league.created_by_id == user.pk)


def managed_tournaments(user: Any) -> QuerySet[Tournament]:
    """The tournaments ``user`` may manage (:func:`can_manage` as a queryset)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return Tournament.objects.none()
    if user.is_superuser:
        return Tournament.objects.all()
    if is_organiser(user):
        return Tournament.objects.filter(created_by=user)
    return Tournament.objects.none()


def managed_leagues(user: Any) -> QuerySet[League]:
    """The leagues ``user`` may manage (:func:`can_manage_league` as a queryset)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return League.objects.none()
    if user.is_superuser:
        return League.objects.all()
    if is_organiser(user):
        return League.objects.filter(created_by=user)
    return League.objects.none()
