"""A player's public profile: the API's people answers (``tournaments.api.people``) and the
profile page (``tournaments.site.people``) read the same rows, limited to what the reader may
read (``visibility.tournaments_visible_to``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q, QuerySet

from games.actors import Actor
from tournaments.models import Entry, Player, RankRecord, RatingChange, Tournament
from tournaments.scoring.ratings import displayed_rating
from tournaments.selectors.visibility import tournaments_visible_to


def rating_of(player: Player) -> dict[str, float]:
    return {
        "rating": player.rating_displayed,
        "mu": player.rating_mu,
        "sigma": player.rating_sigma,
        "ordinal": player.rating_ordinal,
    }


def tournament_ref(tournament: Tournament) -> dict[str, Any]:
    return {"slug": tournament.slug, "name": tournament.name, "status": tournament.status}


def player_data(player: Player) -> dict[str, Any]:
    """A player as the API's ``ApiPlayerSerializer`` data: no account field, ever."""
    return {
        "id": player.pk,
        "display_name": player.display_name,
        "club": player.club,
        "city": player.city,
        "is_bot": player.is_bot,
        "rating": rating_of(player),
    }


def entries_of(entries: QuerySet[Entry]) -> list[dict[str, Any]]:
    """Entries as the API's ``ApiEntryOfSerializer`` data, newest tournament first (one
    query)."""
    rows = entries.select_related("tournament", "team").order_by("-tournament__created_at", "-id")
    out = []
    for entry in rows:
        finished = entry.tournament.status == Tournament.Status.FINISHED
        out.append(
            {
                "tournament": tournament_ref(entry.tournament),
                "entry_status": entry.status,
                "team": entry.team.name if entry.team is not None else None,
                "final_place": entry.final_place if finished else None,
            }
        )
    return out


def _ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def rating_change_row(change: RatingChange) -> dict[str, Any]:
    """One tournament's effect on a player's rating, as the profile's ``rating_history`` and the
    feed's ``awards_computed`` (``selectors.facts``) show it (without the tournament)."""
    return {
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "mu_after": change.mu_after,
        "sigma_after": change.sigma_after,
        "ordinal_before": _ordinal(change.mu_before, change.sigma_before),
        "ordinal_after": _ordinal(change.mu_after, change.sigma_after),
        "rating_before": displayed_rating(change.mu_before, change.sigma_before),
        "rating_after": displayed_rating(change.mu_after, change.sigma_after),
        "at": change.created_at,
    }


def player_profile(player: Player, user: Actor | None) -> dict[str, Any]:
    """``player``'s profile as ``user`` may read it (the API's ``ApiPlayerDetailSerializer``): four
    queries, whatever the history's length."""
    visible = tournaments_visible_to(user)
    changes = (
        RatingChange.objects.filter(player=player, tournament__in=visible)
        .select_related("tournament")
        .order_by("created_at", "id")
    )
    ranks = list(
        RankRecord.objects.filter(player=player)
        .filter(Q(league__isnull=False) | Q(tournament__in=visible))
        .select_related("tournament", "league")
        .order_by("-computed_at", "-id")
    )
    hangers = {_player_id(step.get("by")) for rank in ranks for step in rank.history or []}
    names = player_names({i for i in hangers if i is not None})
    entries = Entry.objects.filter(
        Q(player=player) | Q(team__memberships__player=player), tournament__in=visible
    ).distinct()
    return {
        **player_data(player),
        "rating_history": [
            {"tournament": tournament_ref(change.tournament), **rating_change_row(change)}
            for change in changes
        ],
        "ranks": [_rank(rank, names) for rank in ranks],
        "tournaments": entries_of(entries),
    }


def _player_id(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def current_ranks(player_ids: Iterable[int]) -> dict[int, str]:
    """Each player's current rank (звание) as stored, by Player id, for whoever reads (ranks are
    public): its newest rank record with a rank, of a league season or of a tournament anyone
    may read, as the profile's "Rank" (a player without one is left out). One query, however
    many players."""
    ids = {i for i in player_ids if i is not None}
    if not ids:
        return {}
    rows = (
        RankRecord.objects.filter(player_id__in=ids)
        .exclude(rank="")
        .filter(Q(league__isnull=False) | Q(tournament__in=tournaments_visible_to(None)))
        .order_by("player_id", "-computed_at", "-id")
        .values_list("player_id", "rank")
    )
    out: dict[int, str] = {}
    for player_id, rank in rows:
        out.setdefault(player_id, rank)
    return out


def player_names(ids: set[int]) -> dict[int, str]:
    """Display names by player id, in one query (none for no ids)."""
    if not ids:
        return {}
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))


def _rank(rank: RankRecord, names: dict[int, str]) -> dict[str, Any]:
    league = rank.league
    steps = []
    for step in rank.history or []:
        by = _player_id(step.get("by"))
        steps.append(
            {
                "by": by,
                "by_name": names.get(by) if by is not None else None,
                "before": step.get("before"),
                "after": step.get("after"),
            }
        )
    return {
        "scope": "league" if league is not None else "tournament",
        "tournament": tournament_ref(rank.tournament) if rank.tournament is not None else None,
        "league": (
            {"slug": league.slug, "name": league.name, "season": league.season}
            if league is not None
            else None
        ),
        "rank": rank.rank,
        "pogony_received": rank.pogony_received,
        "pogony_given": rank.pogony_given,
        "history": steps,
        "computed_at": rank.computed_at,
    }
