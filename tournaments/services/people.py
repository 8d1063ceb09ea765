"""People: players and teams."""

from __future__ import annotations

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


def player_create(
    *, display_name: str, club: str = "", city: str = "", user: Any = None, bot_kind: str = ""
) -> Player:
    name = display_name.strip()
    if not name:
        raise RegistrationError("a player needs a display name")
    return Player.objects.create(
        display_name=name[:80],
        club=club.strip()[:80],
        city=city.strip()[:80],
        user=user,
        is_bot=bool(bot_kind),
        bot_kind=bot_kind,
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
