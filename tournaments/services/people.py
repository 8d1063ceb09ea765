"""People: players and teams."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from tournaments.errors import (
    RegistrationError,
)
from tournaments.models import (
    Player,
    Team,
    TeamMember,
)

#: The seeding strengths an organiser may give (Elo-like, as clubs publish them).
SEED_RATING_MIN, SEED_RATING_MAX = 0.0, 3000.0
#: An Elo-like 1500 is OpenSkill's default mu (25); 40 Elo points make one point of mu.
SEED_RATING_MIDDLE, SEED_RATING_PER_MU = 1500.0, 40.0


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
            f"a rating is a number from {SEED_RATING_MIN:g} to {SEED_RATING_MAX:g}, not {rating:g}"
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
        raise RegistrationError("a player needs a display name")
    extra = {} if rating is None else {"rating_mu": rating_mu_from_seed(rating)}
    return Player.objects.create(
        display_name=name[:80],
        club=club.strip()[:80],
        city=city.strip()[:80],
        user=user,
        is_bot=bool(bot_kind),
        bot_kind=bot_kind,
        **extra,
    )


@transaction.atomic
def team_create(*, name: str, players: Sequence[Player]) -> Team:
    if len(players) not in (2, 3):
        raise RegistrationError(f"a team has 2 or 3 players, not {len(players)}")
    if len({p.pk for p in players}) != len(players):
        raise RegistrationError("a player cannot be twice in one team")
    team = Team.objects.create(name=name.strip()[:80] or " & ".join(str(p) for p in players))
    TeamMember.objects.bulk_create(
        TeamMember(team=team, player=p, order=i) for i, p in enumerate(players)
    )
    return team
