"""People: players and teams.

Players and teams belong to no tournament: the console's organisers add and change them, each
change by a person audited (``AuditEvent`` with no tournament). A team's members are fixed once
it has played: its results are its members' (ratings, ranks), so a team with an entry in an event
that has started keeps them (a new team is made instead); its name may still change.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext, ngettext

from tournaments.errors import (
    RegistrationError,
)
from tournaments.models import (
    AuditEvent,
    Entry,
    Player,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.services.audit import audit_record

#: What ``player_update`` changes: the profile, never the rating nor whether it is a bot.
PLAYER_FIELDS = ("display_name", "club", "city", "user")
#: The length of a player's name, club and city, and of a team's name (the models' max_length).
NAME_MAX = 80
TEAM_SIZES = (2, 3)

#: The seeding strengths an organiser may give (Elo-like, as clubs publish them).
SEED_RATING_MIN, SEED_RATING_MAX = 0.0, 3000.0
#: An Elo-like 1500 is OpenSkill's default mu (25); 40 Elo points make one point of mu.
SEED_RATING_MIDDLE, SEED_RATING_PER_MU = 1500.0, 40.0


def _refuse(field: str, message: str) -> RegistrationError:
    """A refusal naming the field to blame (a console form shows it there)."""
    return RegistrationError(message, fields={field: [message]})


def rating_mu_from_seed(rating: float) -> float:
    """The OpenSkill ``mu`` of a player given an Elo-like seeding strength (0-3000, e.g. from a
    club's list): ``mu = 25 + (rating - 1500) / 40``, so 1500 is the default 25, 1900 is 35 and
    700 is 5. Sigma keeps its default: the figure says who is stronger, not how surely, and
    seeding (``mu - 3 sigma``) then follows the given order.

    >>> rating_mu_from_seed(1900)
    35.0
    """
    if not math.isfinite(rating) or not SEED_RATING_MIN <= rating <= SEED_RATING_MAX:
        raise RegistrationError(
            gettext("a rating is a number from %(low)g to %(high)g, not %(rating)g")
            % {"low": SEED_RATING_MIN, "high": SEED_RATING_MAX, "rating": rating}
        )
    return 25.0 + (rating - SEED_RATING_MIDDLE) / SEED_RATING_PER_MU


def player_create(
    *,
    display_name: str,
    club: str = "",
    city: str = "",
    user: Any = None,
    bot_kind: str = "",
    rating: float | None = None,
) -> Player:
    """A new player; ``rating``, an Elo-like seeding strength, sets its starting ``rating_mu``
    (:func:`rating_mu_from_seed`; None: the defaults). Only a new player takes one: an existing
    player's rating comes from its games."""
    name = display_name.strip()
    if not name:
        raise _refuse("display_name", gettext("a player needs a display name"))
    extra = {} if rating is None else {"rating_mu": rating_mu_from_seed(rating)}
    return Player.objects.create(
        display_name=name[:NAME_MAX],
        club=club.strip()[:NAME_MAX],
        city=city.strip()[:NAME_MAX],
        user=user,
        is_bot=bool(bot_kind),
        bot_kind=bot_kind,
        **extra,
    )


def _text(field: str, value: Any, *, required: bool) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise _refuse(field, gettext("must be text"))
    text = value.strip()
    if required and not text:
        raise _refuse(field, gettext("a player needs a display name"))
    if len(text) > NAME_MAX:
        raise _refuse(
            field,
            ngettext(
                "must be at most %(count)s character",
                "must be at most %(count)s characters",
                NAME_MAX,
            )
            % {"count": NAME_MAX},
        )
    return text


def validate_player(changes: Mapping[str, Any], *, player: Player) -> dict[str, Any]:
    """The changes of ``player``'s profile as they would be stored; a ``RegistrationError``
    naming its field for the first that is not valid: a blank or too long name, a user account
    for a bot, or one that already plays as another player."""
    unknown = sorted(set(changes) - set(PLAYER_FIELDS))
    if unknown:
        raise _refuse(unknown[0], gettext("not a player's field"))
    checked: dict[str, Any] = {
        field: _text(field, changes[field], required=field == "display_name")
        for field in ("display_name", "club", "city")
        if field in changes
    }
    if "user" in changes:
        user = changes["user"]
        if user is not None and player.is_bot:
            raise _refuse("user", gettext("a bot cannot have a user account"))
        if user is not None:
            other = Player.objects.filter(user=user).exclude(pk=player.pk).first()
            if other is not None:
                raise _refuse(
                    "user",
                    gettext("that user account already plays as %(player)s") % {"player": other},
                )
        checked["user"] = user
    return checked


def _differs(player: Player, field: str, value: Any) -> bool:
    if field == "user":
        return player.user_id != (value.pk if value is not None else None)
    return bool(getattr(player, field) != value)


def _audited(player: Player, field: str) -> Any:
    """A profile field as the audit log shows it: the user account by its username."""
    if field != "user":
        return getattr(player, field)
    return player.user.get_username() if player.user is not None else None


@transaction.atomic
def player_update(*, player: Player, actor: Any, **changes: Any) -> Player:
    """Change a player's display name, club, city or user account (:data:`PLAYER_FIELDS`),
    validated by :func:`validate_player`, with an audit row of the values before and after
    (nothing is written when nothing changes). Its rating and bot kind are not for changing.

    Locks the player row.
    """
    locked = Player.objects.select_for_update(of=("self",)).select_related("user").get(pk=player.pk)
    checked = validate_player(changes, player=locked)
    changed = [field for field, value in checked.items() if _differs(locked, field, value)]
    if not changed:
        return locked
    before = {field: _audited(locked, field) for field in changed}
    for field in changed:
        setattr(locked, field, checked[field])
    try:
        with transaction.atomic():
            locked.save(update_fields=changed)
    except IntegrityError:  # the user account was given to another player meanwhile
        raise _refuse(
            "user", gettext("that user account already plays as another player")
        ) from None
    audit_record(
        actor=actor,
        action=AuditEvent.Action.PLAYER_EDIT,
        target=locked,
        before=before,
        after={field: _audited(locked, field) for field in changed},
    )
    return locked


def validate_team_members(players: Sequence[Player]) -> None:
    """Refuse (``RegistrationError`` on ``members``) anything but 2 or 3 different players."""
    if len(players) not in TEAM_SIZES:
        raise _refuse(
            "members",
            gettext("a team has 2 or 3 players, not %(count)s") % {"count": len(players)},
        )
    if len({p.pk for p in players}) != len(players):
        raise _refuse("members", gettext("a player cannot be twice in one team"))


def _team_name(name: str, players: Sequence[Player]) -> str:
    return (name.strip() or " & ".join(str(p) for p in players))[:NAME_MAX]


def _set_members(team: Team, players: Sequence[Player]) -> None:
    TeamMember.objects.filter(team=team).delete()
    TeamMember.objects.bulk_create(
        TeamMember(team=team, player=p, order=i) for i, p in enumerate(players)
    )


def _started(team: Team) -> Tournament | None:
    """An event that has started (running, over, or cancelled after its start) in which
    ``team`` has an entry, if there is one."""
    started = Q(started_at__isnull=False) | Q(
        status__in=[Tournament.Status.RUNNING, Tournament.Status.FINISHED]
    )
    entered = Entry.objects.filter(team=team).values("tournament")
    return Tournament.objects.filter(started, pk__in=entered).order_by("pk").first()


def validate_team_change(team: Team, players: Sequence[Player]) -> None:
    """Refuse (``RegistrationError`` on ``members``) ``players``, in order, as ``team``'s new
    members when they are not 2 or 3 different players, when the team has an entry in an event
    that has started, when an event it is registered for takes teams of another size, or when
    a new member is registered there in another team. Members as they are pass."""
    validate_team_members(players)
    current = list(team.memberships.values_list("player_id", flat=True))
    wanted = [p.pk for p in players]
    if wanted == current:
        return
    started = _started(team)
    if started is not None:
        raise _refuse(
            "members",
            gettext(
                "%(team)s has an entry in %(event)s, which has started: its members cannot "
                "change (make a new team instead)"
            )
            % {"team": team, "event": started},
        )
    active = Entry.objects.filter(team=team, status__in=Entry.ACTIVE).select_related("tournament")
    for entry in active:
        event = entry.tournament
        if len(players) != event.team_size:
            raise _refuse(
                "members",
                ngettext(
                    "%(team)s is registered for %(event)s, whose teams have %(count)s player",
                    "%(team)s is registered for %(event)s, whose teams have %(count)s players",
                    event.team_size,
                )
                % {"team": team, "event": event, "count": event.team_size},
            )
        clash = (
            Entry.objects.filter(
                tournament=event, team__members__in=wanted, status__in=Entry.ACTIVE
            )
            .exclude(team=team)
            .exists()
        )
        if clash:
            raise _refuse(
                "members",
                gettext("a new member is already registered for %(event)s in another team")
                % {"event": event},
            )


@transaction.atomic
def team_create(*, name: str, players: Sequence[Player], actor: Any = None) -> Team:
    """A team of 2 or 3 ``players``, partners in that order (they sit at alternate seats);
    a blank ``name`` is the partners' names. With an ``actor`` (a person, in the console), an
    audit row."""
    validate_team_members(players)
    team = Team.objects.create(name=_team_name(name, players))
    _set_members(team, players)
    if actor is not None:
        audit_record(
            actor=actor,
            action=AuditEvent.Action.TEAM_CREATE,
            target=team,
            after={"name": team.name, "members": [p.display_name for p in players]},
        )
    return team


@transaction.atomic
def team_update(
    *,
    team: Team,
    actor: Any,
    name: str | None = None,
    players: Sequence[Player] | None = None,
) -> Team:
    """Rename a team or change its members (``players`` in order; None: as they are), with an
    audit row of the values before and after (nothing is written when nothing changes). New
    members are checked by :func:`validate_team_change`: a team that has played keeps its
    members. A blank ``name`` is the partners' names.

    Locks the team row, then the rows of the events it has an entry in, so that none of them
    starts, and no team registers there, while its members change.
    """
    locked = Team.objects.select_for_update().get(pk=team.pk)
    entered = Entry.objects.filter(team=locked).values("tournament")
    list(Tournament.objects.select_for_update().filter(pk__in=entered).order_by("pk"))
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    current = [m.player for m in locked.memberships.select_related("player")]
    if players is not None and [p.pk for p in players] != [p.pk for p in current]:
        validate_team_change(locked, players)
        before["members"] = [p.display_name for p in current]
        _set_members(locked, players)
        after["members"] = [p.display_name for p in players]
        current = list(players)
    new_name = _team_name(name, current) if name is not None else locked.name
    if new_name != locked.name:
        before["name"], after["name"] = locked.name, new_name
        locked.name = new_name
        locked.save(update_fields=["name"])
    if after:
        audit_record(
            actor=actor,
            action=AuditEvent.Action.TEAM_EDIT,
            target=locked,
            before=before,
            after=after,
        )
    return locked
