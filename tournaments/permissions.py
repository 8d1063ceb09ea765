"""Who may do what in the console and the API: one predicate layer, one queryset scope.

Roles:

- **superuser**: everything;
- **organiser** (group ``organiser``): creates tournaments and leagues and manages the ones it
  owns (``created_by``), including refereeing them;
- **referee** (group ``referee``): referees the tournaments it is assigned to
  (``Tournament.referees``): results, corrections, rulings, dropouts; sees their records.

Players and teams belong to no tournament, so their rule is their events' (``can_change_player``,
``can_change_team``): a player is changed by a superuser, by themselves, or by the organiser of
every event they are in (one organiser may not rename, relink or unlink a player of another's
event); a player in no event by the organiser who added it (``Player.created_by``). A team
alike, by its events' organiser or, in none, by who made it. The account a player plays as
(``Player.user``) is changed by a superuser only: it decides who sits at that player's seats.
"Staff" here means superuser: every console user is ``is_staff`` (the admin asks it of them).

Nobody plays in an event they organise or referee (:func:`plays_in`): registration refuses it,
assigning a referee who has an entry is refused, and a live table never gives a player of the
event the referee's view (``tournaments.tables``).

Every console page and API view asks here, and every queryset it shows goes through
``selectors.visibility.tournaments_managed_by`` (the admin does not filter changelists by object
permission by itself).
A user who may not see an event gets 404 from a view that looks it up, and 403 from an action
on an object it can see but may not change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from durak_site.errors import Forbidden
from games.actors import Actor
from tournaments.models import League, Player, Team, Tournament

# The role predicates live in ``roles`` (the visibility scopes ask them too); asked here as ever.
from tournaments.roles import ORGANISER as ORGANISER  # noqa: PLC0414
from tournaments.roles import REFEREE as REFEREE  # noqa: PLC0414
from tournaments.roles import active as _active
from tournaments.roles import is_console_user as is_console_user  # noqa: PLC0414
from tournaments.roles import is_organiser as is_organiser  # noqa: PLC0414
from tournaments.roles import is_referee as is_referee  # noqa: PLC0414
from tournaments.roles import is_superuser as is_superuser  # noqa: PLC0414
from tournaments.roles import signed_in as _signed_in
from tournaments.selectors.visibility import tournaments_managed_by

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def can_manage(user: Actor | None, tournament: Tournament) -> bool:
    """Change the event itself: its plan, registration, start, cancel, its referees."""
    if not _signed_in(user):
        return False
    if user.is_superuser:
        return True
    return is_organiser(user) and tournament.created_by_id == user.pk


def can_referee(user: Actor | None, tournament: Tournament) -> bool:
    """Results, corrections, rulings at its tables, dropouts: its organiser and its referees."""
    if can_manage(user, tournament):
        return True
    return _signed_in(user) and is_referee(user) and tournament.referees.filter(pk=user.pk).exists()


def can_correct_in_console(user: Actor | None, tournament: Tournament) -> bool:
    """Open the console's result page of its tables (correct, undo a result): one who referees
    it (:func:`can_referee`) and is a console user (``is_staff``: the admin asks it). The live
    table links that page only for them: a referee without console rights would meet a login."""
    return can_referee(user, tournament) and bool(getattr(user, "is_staff", False))


def can_view(user: Actor | None, tournament: Tournament) -> bool:
    """See the event's records in the console (the public pages have their own rule)."""
    return can_referee(user, tournament)


def require_manager(actor: Actor | None, tournament: Tournament) -> None:
    """Refuse (``Forbidden``) a person who may not change ``tournament`` itself
    (:func:`can_manage`); ``actor`` None is the system (a command, a job) and passes."""
    if actor is not None and not can_manage(actor, tournament):
        raise Forbidden(gettext("only the tournament's organiser can change it"))


def require_referee(actor: Actor | None, tournament: Tournament) -> None:
    """Refuse (``Forbidden``) a person who does not referee ``tournament``
    (:func:`can_referee`); ``actor`` None is the system and passes. The refusal is the API's
    answer to the same request (``permission_denied``), whichever face asked."""
    if actor is not None and not can_referee(actor, tournament):
        raise Forbidden(
            gettext("Only a referee of this tournament can do this."), code="permission_denied"
        )


def can_manage_league(user: Actor | None, league: League) -> bool:
    if not _signed_in(user):
        return False
    return bool(user.is_superuser) or (is_organiser(user) and league.created_by_id == user.pk)


def managed_tournaments(user: Actor | None) -> QuerySet[Tournament]:
    """The tournaments ``user`` may manage (:func:`can_manage` as a queryset)."""
    if not _active(user):
        return Tournament.objects.none()
    if user.is_superuser:
        return Tournament.objects.all()
    if is_organiser(user):
        return Tournament.objects.filter(created_by=user)
    return Tournament.objects.none()


def managed_leagues(user: Actor | None) -> QuerySet[League]:
    """The leagues ``user`` may manage (:func:`can_manage_league` as a queryset)."""
    if not _active(user):
        return League.objects.none()
    if user.is_superuser:
        return League.objects.all()
    if is_organiser(user):
        return League.objects.filter(created_by=user)
    return League.objects.none()


# --- players and teams ------------------------------------------------------------------------


def tournaments_of_player(player: Player) -> QuerySet[Tournament]:
    """Every tournament ``player`` has an entry in, alone or in a team, whatever its status."""
    return Tournament.objects.filter(
        Q(entries__player=player) | Q(entries__team__members=player)
    ).distinct()


def tournaments_of_team(team: Team) -> QuerySet[Tournament]:
    """Every tournament ``team`` has an entry in, whatever its status."""
    return Tournament.objects.filter(entries__team=team).distinct()


def _owns_all(user: User, events: QuerySet[Tournament], created_by_id: int | None) -> bool:
    """``user`` organises every one of ``events`` (an event nobody owns counts against), or,
    with none, made the row (``created_by_id``)."""
    owners = set(events.values_list("created_by_id", flat=True))
    if not is_organiser(user):
        return False
    if owners:
        return owners == {user.pk}
    return created_by_id is not None and created_by_id == user.pk


def can_change_player(user: Actor | None, player: Player) -> bool:
    """Change ``player``'s profile: a superuser, the player themselves, or the organiser of
    every event the player is in (a player in none: the organiser who added it)."""
    if not _active(user):
        return False
    if user.is_superuser:
        return True
    if player.user_id is not None and player.user_id == user.pk:
        return True
    return _owns_all(user, tournaments_of_player(player), player.created_by_id)


def can_change_team(user: Actor | None, team: Team) -> bool:
    """Rename ``team`` or change its members: a superuser or the organiser of every event it is
    in (a team in none: the organiser who made it)."""
    if not _active(user):
        return False
    if user.is_superuser:
        return True
    return _owns_all(user, tournaments_of_team(team), team.created_by_id)


def players_for(user: Actor | None) -> QuerySet[Player]:
    """The players ``user`` sees in the console: all for a superuser; for anyone else those of
    the events it sees (alone or in a team), those it added, and its own."""
    everything = Player.objects.all()
    if not _active(user):
        return everything.none()
    if user.is_superuser:
        return everything
    events = tournaments_managed_by(user)
    scope = (
        Q(entries__tournament__in=events)
        | Q(teams__entries__tournament__in=events)
        | Q(created_by=user)
        | Q(user=user)
    )
    return everything.filter(pk__in=Player.objects.filter(scope).values("pk"))


def teams_for(user: Actor | None) -> QuerySet[Team]:
    """The teams ``user`` sees in the console: all for a superuser; for anyone else those of
    the events it sees, those it made, and those it plays in."""
    everything = Team.objects.all()
    if not _active(user):
        return everything.none()
    if user.is_superuser:
        return everything
    scope = (
        Q(entries__tournament__in=tournaments_managed_by(user))
        | Q(created_by=user)
        | Q(members__user=user)
    )
    return everything.filter(pk__in=Team.objects.filter(scope).values("pk"))


# --- nobody plays in an event they run --------------------------------------------------------


def plays_in(user: Actor | None, tournament: Tournament) -> bool:
    """``user``'s player has an entry in ``tournament`` (alone or in a team, any status)."""
    if not _active(user):
        return False
    return tournament.entries.filter(Q(player__user=user) | Q(team__members__user=user)).exists()


def runs(user: Actor | None, tournament: Tournament) -> bool:
    """``user`` organises ``tournament`` (``created_by``) or is one of its referees."""
    if not _active(user):
        return False
    return tournament.created_by_id == user.pk or tournament.referees.filter(pk=user.pk).exists()


def can_see_hands(user: Actor | None, tournament: Tournament) -> bool:
    """The referee's view at ``tournament``'s live tables (every hand, the referee's commands):
    :func:`can_referee`, and no entry of the user's own in it (a player of an event never sees
    its other tables' hands, even one who is also its organiser, referee or a superuser)."""
    return can_referee(user, tournament) and not plays_in(user, tournament)
