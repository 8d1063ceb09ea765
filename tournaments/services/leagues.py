"""Leagues: a season of tournaments, owned by the organiser who creates it; each change audited."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext, ngettext
from rest_framework import serializers

from durak_site.errors import Forbidden
from games.actors import Actor, person
from tournaments.errors import ConfigurationError
from tournaments.models import AuditEvent, League
from tournaments.permissions import can_manage_league, is_organiser
from tournaments.plan_schema import ExactNumberField
from tournaments.services.audit import audit_changes, audit_record
from tournaments.services.feed import league_changed
from tournaments.services.plans import _transliterate

LEAGUE_SETTINGS = ("name", "season", "points_scale", "rank_ladder")
_LIMITS = {"name": 120, "season": 40}
RANK_MAX = 40  # a rank name, as RankRecord.rank stores it


def _refuse(field: str, message: str) -> ConfigurationError:
    # The message leads with the setting's key, as the API names it.
    return ConfigurationError(f"{field}: {message}", fields={field: [message]})


def _at_most_characters(count: int) -> str:
    return ngettext(
        "must be at most %(count)s character", "must be at most %(count)s characters", count
    ) % {"count": count}


def _text(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _refuse(field, gettext("must not be blank"))
    text = value.strip()
    if len(text) > _LIMITS[field]:
        raise _refuse(field, _at_most_characters(_LIMITS[field]))
    return text


def _points_scale(value: Any) -> list[int | str]:
    if not isinstance(value, (list, tuple)):
        raise _refuse("points_scale", gettext("must be a list of points, first place first"))
    points = []
    for place, item in enumerate(value, start=1):
        try:
            points.append(ExactNumberField().run_validation(item))
        except serializers.ValidationError as exc:
            detail = exc.detail[0] if isinstance(exc.detail, list) else exc.detail
            raise _refuse(
                "points_scale",
                gettext("place %(place)s: %(problem)s") % {"place": place, "problem": detail},
            ) from None
    if any(_as_number(a) < _as_number(b) for a, b in itertools.pairwise(points)):
        raise _refuse("points_scale", gettext("a better place never gets fewer points"))
    return points


def _as_number(value: int | str) -> Fraction:
    return Fraction(str(value))


def _rank_ladder(value: Any) -> list[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(r, str) for r in value):
        raise _refuse("rank_ladder", gettext("must be a list of rank names, lowest first"))
    ranks = [rank.strip() for rank in value]
    if any(not rank for rank in ranks):
        raise _refuse("rank_ladder", gettext("a rank needs a name"))
    if any(len(rank) > RANK_MAX for rank in ranks):
        raise _refuse(
            "rank_ladder",
            ngettext(
                "a rank name has at most %(count)s character",
                "a rank name has at most %(count)s characters",
                RANK_MAX,
            )
            % {"count": RANK_MAX},
        )
    twice = sorted({rank for rank in ranks if ranks.count(rank) > 1})
    if twice:
        raise _refuse(
            "rank_ladder", gettext("listed twice: %(ranks)s") % {"ranks": ", ".join(twice)}
        )
    return ranks


def validate_league(changes: dict[str, Any]) -> dict[str, Any]:
    """League settings as they would be stored; a ``ConfigurationError`` naming its field for
    the first one that is not valid (a form calls this in ``clean()``, the services again)."""
    unknown = sorted(set(changes) - set(LEAGUE_SETTINGS))
    if unknown:
        raise _refuse(unknown[0], gettext("not a league setting"))
    checked: dict[str, Any] = {}
    for field in ("name", "season"):
        if field in changes:
            checked[field] = _text(field, changes[field])
    if "points_scale" in changes:
        checked["points_scale"] = _points_scale(changes["points_scale"] or [])
    if "rank_ladder" in changes:
        checked["rank_ladder"] = _rank_ladder(changes["rank_ladder"] or [])
    return checked


def _free_slug(name: str, season: str) -> str:
    base = slugify(_transliterate(name))[:110] or "league"
    taken = League.objects.filter(season=season)
    slug, n = base, 1
    while taken.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _audit_fields(league: League, fields: Sequence[str]) -> dict[str, Any]:
    return {field: getattr(league, field) for field in fields}


@transaction.atomic
def league_create(
    *,
    name: str,
    season: str,
    actor: Actor | None,
    points_scale: Sequence[Any] = (),
    rank_ladder: Sequence[str] = (),
) -> League:
    """Create a league owned by ``actor`` (an organiser; anyone else is refused), with an audit
    row. Its slug comes from the name (unique within the season)."""
    checked = validate_league(
        {
            "name": name,
            "season": season,
            "points_scale": list(points_scale),
            "rank_ladder": list(rank_ladder),
        }
    )
    # A person (anonymous too) is an organiser; None is the system (a command, a test).
    if actor is not None and not is_organiser(actor):
        raise Forbidden(gettext("only an organiser can create a league"))
    league = League.objects.create(
        slug=_free_slug(checked["name"], checked["season"]), created_by=person(actor), **checked
    )
    audit_record(
        actor=actor,
        action=AuditEvent.Action.LEAGUE_CREATE,
        league=league,
        target=league,
        after=_audit_fields(league, ["slug", *LEAGUE_SETTINGS]),
    )
    return league


@transaction.atomic
def league_update(*, league: League, actor: Actor | None, **changes: Any) -> League:
    """Change a league's name, season, points scale or rank ladder, with an audit row of the
    values before and after (nothing is written when nothing changes). The slug stays, so that
    its addresses do; a season that already has a league of that slug is refused.

    Locks the league row.
    """
    locked = League.objects.select_for_update().get(pk=league.pk)
    if actor is not None and not can_manage_league(actor, locked):
        raise Forbidden(gettext("only the league's organiser can change it"))
    checked = validate_league(changes)
    changed = {key: value for key, value in checked.items() if getattr(locked, key) != value}
    if not changed:
        return locked
    if "season" in changed:
        clash = League.objects.filter(slug=locked.slug, season=changed["season"])
        if clash.exclude(pk=locked.pk).exists():
            raise _refuse(
                "season",
                gettext("that season already has a league '%(slug)s'") % {"slug": locked.slug},
            )
    audit_changes(
        row=locked,
        changes=changed,
        actor=actor,
        action=AuditEvent.Action.LEAGUE_EDIT,
        league=locked,
    )
    # Last: its tournaments show its name and season (then their rows are locked).
    league_changed(league_id=locked.pk, fields=changed)
    return locked
