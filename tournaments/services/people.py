"""People: players and teams, and a player's own account.

Players and teams belong to no tournament: the console's organisers add and change them, each
change by a person audited (``AuditEvent`` with no tournament). Who may change which is
``tournaments.permissions``' (``can_change_player``, ``can_change_team``), checked here with the
row locked: the organiser of every event the player (team) is in, or, in none, the organiser who
added it; the player themselves; a superuser. Only a superuser changes the account a player
plays as (``user``). A team's members are fixed once
it has played: its results are its members' (ratings, ranks), so a team with an entry in an event
that has started keeps them (a new team is made instead); its name may still change.

A person also makes their own player (:func:`player_sign_up`: a user account and its profile),
edits it (:func:`player_profile_update`), and enters, checks in to and withdraws from open
tournaments themselves (:func:`player_enter`, :func:`player_check_in`, :func:`player_withdraw`:
the registration services, for their own entry only, audited with the player as the actor).
On those self-service faces a display name is one nobody else plays under, so that a table
and a standings line name one person.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext, ngettext

from durak_site.errors import Forbidden, status_name
from games.actors import Actor, person
from tournaments import selectors
from tournaments.errors import (
    NotFound,
    RegistrationError,
    StateError,
)
from tournaments.models import (
    AuditEvent,
    Entry,
    Player,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.permissions import (
    can_change_player,
    can_change_team,
    is_organiser,
    is_superuser,
)
from tournaments.scoring.ratings import mu_from_elo
from tournaments.selectors import visibility
from tournaments.services.audit import audit_record
from tournaments.services.feed import player_changed, team_changed
from tournaments.services.registration import entry_check_in, entry_register, entry_withdraw

#: What ``player_update`` changes: the profile, never the rating nor whether it is a bot.
PLAYER_FIELDS = ("display_name", "club", "city", "language", "user")
#: What a player changes of their own profile (:func:`player_profile_update`).
PROFILE_FIELDS = ("display_name", "club", "city", "language")
#: The length of a player's name, club and city, and of a team's name (the models' max_length).
NAME_MAX = 80
TEAM_SIZES = (2, 3)

#: The seeding strengths an organiser may give (Elo-like, as clubs publish them).
SEED_RATING_MIN, SEED_RATING_MAX = 0.0, 3000.0


def _refuse(field: str, message: str) -> RegistrationError:
    """A refusal naming the field to blame (a console form shows it there)."""
    return RegistrationError(message, fields={field: [message]})


def rating_mu_from_seed(rating: float) -> float:
    """The OpenSkill ``mu`` of a player given an Elo-like seeding strength (0-3000, e.g. from a
    club's list; ``scoring.ratings.mu_from_elo``): ``mu = 25 + (rating - 1500) / 40``, so 1500
    is the default 25, 1900 is 35 and 700 is 5. Sigma keeps its default: the figure says who is
    stronger, not how surely, and seeding (``mu - 3 sigma``) then follows the given order. The
    displayed rating (``scoring.ratings.displayed_rating``) maps it back: the player shows
    ``rating`` until it plays.

    >>> rating_mu_from_seed(1900)
    35.0
    """
    if not math.isfinite(rating) or not SEED_RATING_MIN <= rating <= SEED_RATING_MAX:
        raise RegistrationError(
            gettext("a rating is a number from %(low)g to %(high)g, not %(rating)g")
            % {"low": SEED_RATING_MIN, "high": SEED_RATING_MAX, "rating": rating}
        )
    return mu_from_elo(rating)


def player_create(
    *,
    display_name: str,
    club: str = "",
    city: str = "",
    user: Actor | None = None,
    bot_kind: str = "",
    rating: float | None = None,
    language: str = "",
    actor: Actor | None = None,
) -> Player:
    """A new player; ``rating``, an Elo-like seeding strength, sets its starting ``rating_mu``
    (:func:`rating_mu_from_seed`; None: the defaults). Only a new player takes one: an existing
    player's rating comes from its games. ``language``: one of the site's, or "" for the
    browser's. ``actor``: the console user who adds it (an organiser; recorded as
    ``created_by``); None for a sign-up or a command."""
    _check_adder(actor)
    name = display_name.strip()
    if not name:
        raise _refuse("display_name", gettext("a player needs a display name"))
    extra = {} if rating is None else {"rating_mu": rating_mu_from_seed(rating)}
    return Player.objects.create(
        display_name=name[:NAME_MAX],
        club=club.strip()[:NAME_MAX],
        city=city.strip()[:NAME_MAX],
        user=person(user),
        is_bot=bool(bot_kind),
        bot_kind=bot_kind,
        language=_language(language),
        created_by=person(actor),
        **extra,
    )


def _check_adder(actor: Actor | None) -> None:
    """A person who adds a player or a team is an organiser (or a superuser)."""
    if actor is not None and not is_organiser(actor):
        raise Forbidden(gettext("only an organiser can add players and teams"))


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


def _language(value: Any) -> str:
    """One of the site's languages (``settings.LANGUAGES``), or "" for the browser's."""
    code = value or ""
    if code not in {""} | {lang for lang, _name in settings.LANGUAGES}:
        raise _refuse("language", gettext("not one of the site's languages"))
    return str(code)


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
    if "language" in changes:
        checked["language"] = _language(changes["language"])
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
def player_update(*, player: Player, actor: Actor | None, **changes: Any) -> Player:
    """Change a player's display name, club, city or user account (:data:`PLAYER_FIELDS`),
    validated by :func:`validate_player`, with an audit row of the values before and after
    (nothing is written when nothing changes). Its rating and bot kind are not for changing.

    Refused (``Forbidden``) to an ``actor`` who may not change the player
    (``permissions.can_change_player``), and a change of its user account to anyone but a
    superuser.

    Locks, in the awards' order (``tournaments.services.awards``: scope rows, then players), the
    rows of the tournaments that show the player (their versions move on a change of what they
    show: ``feed.player_changed``), in key order, then the player row. The other way round a
    rename would wait on a ratings job that holds a tournament and waits on the player.
    """
    list(
        selectors.tournaments_showing_player(player.pk)
        .select_for_update(no_key=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    locked = Player.objects.select_for_update(of=("self",)).select_related("user").get(pk=player.pk)
    if not can_change_player(actor, locked):
        raise Forbidden(
            gettext(
                "only a superuser, the player, or the organiser of every event the player is in "
                "can change %(player)s"
            )
            % {"player": locked}
        )
    checked = validate_player(changes, player=locked)
    changed = [field for field, value in checked.items() if _differs(locked, field, value)]
    if not changed:
        return locked
    if "user" in changed and not is_superuser(actor):
        raise Forbidden(
            gettext("only a superuser can change the user account a player plays as"),
            code="account_link",
        )
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
    # Last: every event showing the player moves its version (then its tournament rows).
    player_changed(player_id=locked.pk, fields=changed)
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
def team_create(*, name: str, players: Sequence[Player], actor: Actor | None = None) -> Team:
    """A team of 2 or 3 ``players``, partners in that order (they sit at alternate seats);
    a blank ``name`` is the partners' names. With an ``actor`` (a person, in the console: an
    organiser), an audit row, and the team is theirs to change until it enters an event."""
    _check_adder(actor)
    validate_team_members(players)
    team = Team.objects.create(name=_team_name(name, players), created_by=person(actor))
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
    actor: Actor,
    name: str | None = None,
    players: Sequence[Player] | None = None,
) -> Team:
    """Rename a team or change its members (``players`` in order; None: as they are), with an
    audit row of the values before and after (nothing is written when nothing changes). New
    members are checked by :func:`validate_team_change`: a team that has played keeps its
    members. A blank ``name`` is the partners' names.

    Refused (``Forbidden``) to an ``actor`` who may not change the team
    (``permissions.can_change_team``: the organiser of every event it is in, or who made it).

    Locks the team row, then the rows of the events it has an entry in, so that none of them
    starts, and no team registers there, while its members change.
    """
    locked = Team.objects.select_for_update().get(pk=team.pk)
    entered = Entry.objects.filter(team=locked).values("tournament")
    list(Tournament.objects.select_for_update().filter(pk__in=entered).order_by("pk"))
    if not can_change_team(actor, locked):
        raise Forbidden(
            gettext(
                "only a superuser or the organiser of every event the team is in can change "
                "%(team)s"
            )
            % {"team": locked}
        )
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
    # Last: every event the team is entered in moves its version (rows locked above already).
    team_changed(team_id=locked.pk, fields=after)
    return locked


# --- a player's own account ------------------------------------------------------------------

#: Django's own rule for a username (letters, digits and @ . + - _), and its length.
USERNAME_MAX = 150
_username_rule = UnicodeUsernameValidator()


def same_text(field: str, value: str) -> Q:
    """Rows whose ``field`` is ``value`` in any case. PostgreSQL's ``iexact`` folds every
    alphabet; SQLite's folds only ASCII, so the usual spellings of a Cyrillic name (as typed,
    lower, upper, capitalised) are matched there too."""
    spellings = {value, value.lower(), value.upper(), value.capitalize(), value.title()}
    return Q(**{f"{field}__iexact": value}) | Q(**{f"{field}__in": sorted(spellings)})


def _name_taken(display_name: str, *, other_than: Player | None = None) -> Player | None:
    """Another player already called ``display_name`` (in any case), if there is one."""
    others = Player.objects.filter(same_text("display_name", display_name))
    if other_than is not None:
        others = others.exclude(pk=other_than.pk)
    return others.first()


def _collect(errors: dict[str, list[str]], field: str, test: Any) -> None:
    """Run ``test``; its refusal (ours or a Django validator's) goes to ``errors[field]``."""
    try:
        test()
    except RegistrationError as exc:
        errors.setdefault(field, []).append(exc.message)
    except ValidationError as exc:
        errors.setdefault(field, []).extend(str(m) for m in exc.messages)


def account_errors(
    *, username: str, email: str, password: str | None, email_required: bool = True
) -> dict[str, list[str]]:
    """Every refusal of a new account's login, by field (empty: it is valid): a username that
    is missing, malformed or taken (in any case), an email address that is malformed or taken
    (missing, if ``email_required``), a password the site's validators refuse (None: the
    account gets none yet, and is not checked). A player's sign-up and a referee's account
    (``services.staff``) ask the same."""
    errors: dict[str, list[str]] = {}

    def check_username() -> None:
        if not username:
            raise RegistrationError(gettext("choose a username to log in with"))
        if len(username) > USERNAME_MAX:
            raise RegistrationError(
                gettext("a username has at most %(count)s characters") % {"count": USERNAME_MAX}
            )
        _username_rule(username)
        if get_user_model().objects.filter(same_text("username", username)).exists():
            raise RegistrationError(gettext("this username is taken: choose another one"))

    def check_email() -> None:
        if not email:
            if email_required:
                raise RegistrationError(gettext("an email address is needed to reset the password"))
            return
        validate_email(email)
        if get_user_model().objects.filter(same_text("email", email)).exists():
            raise RegistrationError(
                gettext("an account with this email address exists: log in, or reset its password")
            )

    def check_password(password: str) -> None:
        user_model = get_user_model()
        password_validation.validate_password(
            password, user=user_model(username=username, email=email)
        )

    _collect(errors, "username", check_username)
    _collect(errors, "email", check_email)
    if password is not None:
        _collect(errors, "password", partial(check_password, password))
    return errors


def _validate_sign_up(
    *, username: str, email: str, password: str, display_name: str, club: str, city: str
) -> dict[str, list[str]]:
    """Every refusal of a sign-up, by field (empty: it is valid)."""
    account = account_errors(username=username, email=email, password=password)
    profile: dict[str, list[str]] = {}

    def check_name() -> None:
        name = _text("display_name", display_name, required=True)
        if _name_taken(name) is not None:
            raise RegistrationError(_name_taken_message(name))

    _collect(profile, "display_name", check_name)
    for field, value in (("club", club), ("city", city)):
        _collect(
            profile, field, lambda field=field, value=value: _text(field, value, required=False)
        )
    # in the form's order: the login, the profile, the password
    order = ("username", "email", "display_name", "club", "city", "password")
    both = {**account, **profile}
    return {field: both[field] for field in order if field in both}


def _name_taken_message(name: str) -> str:
    return gettext(
        "a player called %(name)s already exists: add an initial or your city to tell you apart"
    ) % {"name": name}


@transaction.atomic
def player_sign_up(
    *,
    username: str,
    email: str,
    password: str,
    display_name: str,
    club: str = "",
    city: str = "",
    language: str = "",
) -> Player:
    """A person's own account: a user that logs in with ``username`` (or ``email``) and
    ``password``, and the player it plays as, in one transaction.

    Refused (one ``RegistrationError`` naming every field at fault, so that a form shows them
    all at once): a username or an email address that is taken (in any case), a display name
    another player has, a password the site's validators refuse (``AUTH_PASSWORD_VALIDATORS``),
    a language the site does not speak. The username's unique index settles a race between two
    sign-ups with one name.
    """
    username, email = username.strip(), email.strip()
    errors = _validate_sign_up(
        username=username,
        email=email,
        password=password,
        display_name=display_name,
        club=club,
        city=city,
    )
    try:
        chosen = _language(language)
    except RegistrationError as exc:
        errors["language"] = [exc.message]
    if errors:
        first = next(iter(errors.values()))[0]
        raise RegistrationError(first, fields=errors)
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(
                username=username, email=email, password=password
            )
    except IntegrityError:
        raise _refuse("username", gettext("this username is taken: choose another one")) from None
    return player_create(
        display_name=display_name, club=club, city=city, user=user, language=chosen
    )


@transaction.atomic
def player_profile_update(*, player: Player, actor: Actor | None, **changes: Any) -> Player:
    """A player's change of their own profile (:data:`PROFILE_FIELDS`: display name, club,
    city, language): :func:`player_update` (validated, audited), and a display name that no
    other player has. Locks the player row (in :func:`player_update`)."""
    unknown = sorted(set(changes) - set(PROFILE_FIELDS))
    if unknown:
        raise _refuse(unknown[0], gettext("not a player's field"))
    if "display_name" in changes:
        name = _text("display_name", changes["display_name"], required=True)
        if _name_taken(name, other_than=player) is not None:
            raise _refuse("display_name", _name_taken_message(name))
    return player_update(player=player, actor=actor, **changes)


@transaction.atomic
def player_profile_create(*, user: Actor, **profile: Any) -> Player:
    """The player of a user who has none yet (a console user who wants to play): the profile
    fields of :data:`PROFILE_FIELDS`, a display name no other player has. Refused if ``user``
    already plays as a player (the profile is edited instead)."""
    unknown = sorted(set(profile) - set(PROFILE_FIELDS))
    if unknown:
        raise _refuse(unknown[0], gettext("not a player's field"))
    if Player.objects.filter(user=person(user)).exists():  # a signed-in user (the page asks)
        raise RegistrationError(gettext("you have a player profile already"), code="profile_exists")
    name = _text("display_name", profile.get("display_name"), required=True)
    if _name_taken(name) is not None:
        raise _refuse("display_name", _name_taken_message(name))
    club = _text("club", profile.get("club"), required=False)
    city = _text("city", profile.get("city"), required=False)
    language = _language(profile.get("language"))
    try:
        with transaction.atomic():
            return player_create(
                display_name=name, club=club, city=city, user=user, language=language
            )
    except IntegrityError:  # a second request made it meanwhile
        raise RegistrationError(
            gettext("you have a player profile already"), code="profile_exists"
        ) from None


# --- a player's own entries ------------------------------------------------------------------


def _own_tournament(tournament: Tournament, actor: Actor) -> Tournament:
    """``tournament`` locked for update, if ``actor`` may see it (else ``NotFound``, as for a
    tournament that does not exist: a private event's outsider learns nothing). The lock keeps
    it from starting while a player's entry changes (lock order: the tournament, then the
    entry, as in ``entry_register``)."""
    if not visibility.tournaments_visible_to(actor).filter(pk=tournament.pk).exists():
        raise NotFound(gettext("no such tournament"))
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _individual(tournament: Tournament) -> None:
    if tournament.is_team_event:
        raise RegistrationError(
            gettext("this is a team event: its organiser registers the teams"), code="team_event"
        )


def _own_entry(tournament: Tournament, player: Player) -> Entry:
    entry = Entry.objects.filter(tournament=tournament, player=player).first()
    if entry is None:
        raise NotFound(
            gettext("you are not registered for %(tournament)s") % {"tournament": tournament},
            code="not_registered",
        )
    return entry


@transaction.atomic
def player_enter(*, player: Player, tournament: Tournament, actor: Actor) -> Entry:
    """``player`` registers themselves for ``tournament`` (``entry_register``; the entry fee is
    the pay-in, settled with the organiser: the entry counts as paid, as the console's entries
    do by default). Refused besides ``entry_register``'s refusals: a tournament ``actor`` may
    not see, a team event, and a player who withdrew (only the organiser registers them again).
    Audited with ``actor`` (the player's user). Locks the tournament row."""
    locked = _own_tournament(tournament, actor)
    _individual(locked)
    earlier = Entry.objects.filter(tournament=locked, player=player).first()
    if earlier is not None and earlier.status not in Entry.ACTIVE:
        raise RegistrationError(
            gettext("your entry is %(status)s: only the organiser can register you again")
            % {"status": status_name(Entry.Status, earlier.status)},
            code="entry_closed",
        )
    if earlier is not None:
        raise RegistrationError(
            gettext("you are already registered for %(tournament)s") % {"tournament": locked},
            code="already_registered",
        )
    return entry_register(
        tournament=locked, player=player, actor=actor, reason=gettext("by the player")
    )


@transaction.atomic
def player_check_in(*, player: Player, tournament: Tournament, actor: Actor) -> Entry:
    """``player`` checks their own entry in (``entry_check_in``), while registration is open and
    only where the tournament asks for it. Audited with ``actor``. Locks the tournament row."""
    locked = _own_tournament(tournament, actor)
    entry = _own_entry(locked, player)
    if not locked.check_in_required:
        raise StateError(gettext("this tournament needs no check-in"), code="check_in_not_required")
    if locked.status != Tournament.Status.REGISTRATION or locked.registration_closed_at:
        raise StateError(
            gettext("check-in is closed: registration is over"), code="check_in_closed"
        )
    return entry_check_in(entry=entry, actor=actor, reason=gettext("by the player"))


@transaction.atomic
def player_withdraw(
    *, player: Player, tournament: Tournament, actor: Actor, reason: str = ""
) -> Entry:
    """``player`` withdraws their own entry (``entry_withdraw``) before the tournament starts;
    once it runs, only a referee withdraws a player (the dropout rule then applies to their
    games). Audited with ``actor``. Locks the tournament row."""
    locked = _own_tournament(tournament, actor)
    entry = _own_entry(locked, player)
    if locked.status != Tournament.Status.REGISTRATION:
        raise StateError(
            gettext("the tournament is %(status)s: a player withdraws only before it starts")
            % {"status": status_name(Tournament.Status, locked.status)},
            code="tournament_started",
        )
    why = reason.strip() or gettext("withdrawn by the player")
    return entry_withdraw(entry=entry, reason=why, actor=actor)
