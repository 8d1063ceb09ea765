"""Players and teams: ``players/``, ``players/<id>/``, ``teams/``, ``teams/<id>/``.

A player's public profile only (display name, club, city, whether a bot plays): never its user
account. What a profile says about events is limited to the tournaments the caller may read
(``visibility.tournaments_visible_to``): a private tournament's entries, ranks and rating
changes are left out for everyone else, exactly as the tournament itself is a 404 to them.
League ranks are shown to everyone (a league table is public). The profile's data come from
``tournaments.selectors`` (``player_profile``, ``entries_of``), which the public profile page
(``tournaments.site.people``) reads too.

Every answer is a bounded number of queries whatever the size: a page of players is one
query, a page of teams two, a profile five (and the look-up of a logged-in
caller's rights).

Caching: the answers have no version counter of their own (a profile gathers rows of many
tournaments), so they carry ``Cache-Control`` only: an anonymous caller's answer may be kept a
minute by anyone; a logged-in caller's depends on what that caller may read, so it is
``private`` and revalidated.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Prefetch, Q, QuerySet
from django.urls import path
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.common import (
    ApiAnonThrottle,
    ApiCursorPagination,
    ApiUserThrottle,
)
from tournaments.api.contract import ContractView, error_responses
from tournaments.models import (
    Entry,
    Player,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.selectors import visibility
from tournaments.selectors.people import entries_of, player_data, player_profile

#: How long a shared cache may keep an anonymous caller's answer, in seconds.
PEOPLE_MAX_AGE = 60


def people_cache_headers(response: Response, request: Request) -> Response:
    """``Cache-Control`` for an answer about people: public for anonymous callers (the answer
    is the same for all of them), private otherwise (it depends on what the caller may read)."""
    if request.user is not None and request.user.is_authenticated:
        response["Cache-Control"] = "private, no-cache"
    else:
        response["Cache-Control"] = f"public, max-age={PEOPLE_MAX_AGE}"
    response["Vary"] = "Accept, Accept-Language, Authorization, Cookie"
    return response


T = TypeVar("T")


def found(obj: T | None) -> T:
    """``obj``, or DRF's ``NotFound`` (the API's ``not_found`` error) for None."""
    if obj is None:
        raise NotFound
    return obj


class PeopleCursorPagination(ApiCursorPagination):
    """Players and teams in the order they were created (stable: by id)."""

    ordering = "id"


# --- shared shapes ----------------------------------------------------------------------------


class ApiTournamentRefSerializer(serializers.Serializer[Any]):
    """A tournament as other objects name it."""

    slug = serializers.SlugField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)


class ApiRatingSerializer(serializers.Serializer[Any]):
    rating = serializers.IntegerField(
        help_text="The displayed rating: round(1500 + 40 × (μ − 3σ)), the conservative "
        "ordinal on an Elo-like scale. A new player shows 1500; a player imported with an "
        "Elo-like strength shows it until they play (the import sets μ = 25 + (Elo − 1500) / 40 "
        "with the default σ); it rises as σ shrinks with the games played.",
    )
    mu = serializers.FloatField(help_text="OpenSkill (Plackett–Luce) estimate of skill.")
    sigma = serializers.FloatField(help_text="The estimate's uncertainty.")
    ordinal = serializers.FloatField(help_text="μ − 3σ: the conservative figure seeding uses.")


class ApiEntryOfSerializer(serializers.Serializer[Any]):
    """A tournament someone played (or a team entered)."""

    tournament = ApiTournamentRefSerializer()
    entry_status = serializers.ChoiceField(choices=Entry.Status.choices)
    team = serializers.CharField(
        allow_null=True, help_text="The team's name when the player played in one."
    )
    final_place = serializers.IntegerField(
        allow_null=True,
        help_text="Once the tournament has finished; null before, and for an entry withdrawn "
        "before the start. Withdrawn after the start: below every entry that completed the stage "
        "it left; disqualified: the shared last place.",
    )


# --- players ----------------------------------------------------------------------------------


class PlayerFilter(filters.FilterSet):  # type: ignore[misc]  # django-filter is untyped
    search = filters.CharFilter(
        method="filter_search", label="Part of the display name or of the club (any case)."
    )
    club = filters.CharFilter(method="filter_club", label="The club, exactly (any case).")
    is_bot = filters.BooleanFilter(field_name="is_bot", label="Only bots, or only people.")

    class Meta:
        model = Player
        fields = ["search", "club", "is_bot"]

    def filter_search(self, queryset: QuerySet[Player], name: str, value: str) -> QuerySet[Player]:
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(any_case("display_name", value) | any_case("club", value))

    def filter_club(self, queryset: QuerySet[Player], name: str, value: str) -> QuerySet[Player]:
        value = value.strip()
        return queryset.filter(any_case("club", value, "iexact")) if value else queryset


def any_case(field: str, value: str, lookup: str = "icontains") -> Q:
    """``field`` contains (``lookup``) ``value`` in any case. PostgreSQL folds Cyrillic in
    ``icontains``; SQLite folds ASCII only, so the usual spellings (as typed, lower, upper,
    capitalised) are asked for too: «анна» finds «Анна» on both."""
    forms = {value, value.lower(), value.upper(), value.capitalize(), value.title()}
    query = Q()
    for form in sorted(forms):
        query |= Q(**{f"{field}__{lookup}": form})
    return query


class ApiPlayerSerializer(serializers.Serializer[Any]):
    """A player in a list: the public profile and the current rating."""

    id = serializers.IntegerField()
    display_name = serializers.CharField()
    club = serializers.CharField()
    city = serializers.CharField()
    is_bot = serializers.BooleanField()
    rating = ApiRatingSerializer()


class ApiRatingChangeSerializer(serializers.Serializer[Any]):
    """One tournament's effect on the rating."""

    tournament = ApiTournamentRefSerializer()
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()
    ordinal_before = serializers.FloatField()
    ordinal_after = serializers.FloatField()
    rating_before = serializers.IntegerField(help_text="The displayed rating (see `rating`).")
    rating_after = serializers.IntegerField(help_text="The displayed rating (see `rating`).")
    at = serializers.DateTimeField(help_text="When the change was applied.")


class ApiRankStepSerializer(serializers.Serializer[Any]):
    """One pogony that moved the rank (received or given)."""

    by = serializers.IntegerField(allow_null=True, help_text="The player who hung the pogony.")
    by_name = serializers.CharField(allow_null=True)
    before = serializers.CharField(allow_blank=True, allow_null=True)
    after = serializers.CharField(allow_blank=True, allow_null=True)


class ApiLeagueRefSerializer(serializers.Serializer[Any]):
    slug = serializers.SlugField()
    name = serializers.CharField()
    season = serializers.CharField()


class ApiRankSerializer(serializers.Serializer[Any]):
    """A rank (звание) kept for one tournament or for one league season."""

    scope = serializers.ChoiceField(choices=["tournament", "league"])
    tournament = ApiTournamentRefSerializer(allow_null=True)
    league = ApiLeagueRefSerializer(allow_null=True)
    rank = serializers.CharField(allow_blank=True, help_text="Empty: no rank yet.")
    pogony_received = serializers.IntegerField()
    pogony_given = serializers.IntegerField()
    history = ApiRankStepSerializer(many=True, help_text="Each pogony, in order.")
    computed_at = serializers.DateTimeField()


class ApiPlayerDetailSerializer(serializers.Serializer[Any]):
    """A player's public profile: rating and its history, ranks, tournaments played."""

    id = serializers.IntegerField()
    display_name = serializers.CharField()
    club = serializers.CharField()
    city = serializers.CharField()
    is_bot = serializers.BooleanField()
    rating = ApiRatingSerializer()
    rating_history = ApiRatingChangeSerializer(many=True, help_text="Oldest first.")
    ranks = ApiRankSerializer(many=True)
    tournaments = ApiEntryOfSerializer(
        many=True, help_text="Newest first; alone or in a team; only tournaments you may read."
    )


class PlayerListView(ContractView, generics.ListAPIView[Player]):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]
    pagination_class = PeopleCursorPagination
    serializer_class = ApiPlayerSerializer
    filterset_class = PlayerFilter
    queryset = Player.objects.all()

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        assert page is not None  # the view always paginates
        data = ApiPlayerSerializer([player_data(p) for p in page], many=True).data
        return self.get_paginated_response(data)

    @extend_schema(
        operation_id="players_list",
        summary="Players",
        description=(
            "Every player's public profile and current rating (bots too), oldest first, "
            "with cursor pagination. `search` matches part of the name or the club."
        ),
        tags=["people"],
        responses={200: ApiPlayerSerializer(many=True), **error_responses(400, 404, 429)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return people_cache_headers(super().get(request, *args, **kwargs), request)


class PlayerDetailView(ContractView, generics.GenericAPIView[Player]):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]
    serializer_class = ApiPlayerDetailSerializer
    queryset = Player.objects.all()

    @extend_schema(
        operation_id="players_retrieve",
        summary="A player",
        description=(
            "The public profile (no account data), the rating (the displayed `rating`, "
            "1500 + 40 × (μ − 3σ) rounded; μ, σ and the ordinal μ − 3σ) and its history, "
            "the ranks (звания) per tournament and per league with their history, "
            "and the tournaments played with the final place once finished. Tournaments you "
            "may not read (private ones) are left out of every part."
        ),
        tags=["people"],
        responses={200: ApiPlayerDetailSerializer, **error_responses(404, 429)},
    )
    def get(self, request: Request, player_id: int) -> Response:
        player = found(self.get_queryset().filter(pk=player_id).first())
        data = ApiPlayerDetailSerializer(player_profile(player, request.user)).data
        return people_cache_headers(Response(data), request)


# --- teams ------------------------------------------------------------------------------------


class TeamFilter(filters.FilterSet):  # type: ignore[misc]  # django-filter is untyped
    search = filters.CharFilter(method="filter_search", label="Part of the team's name (any case).")

    class Meta:
        model = Team
        fields = ["search"]

    def filter_search(self, queryset: QuerySet[Team], name: str, value: str) -> QuerySet[Team]:
        value = value.strip()
        return queryset.filter(any_case("name", value)) if value else queryset


class ApiTeamMemberSerializer(serializers.Serializer[Any]):
    """A partner, in the partners' order (they sit at alternate seats)."""

    id = serializers.IntegerField()
    display_name = serializers.CharField()


class ApiTeamSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    members = ApiTeamMemberSerializer(many=True, help_text="In the partners' order.")


class ApiTeamDetailSerializer(ApiTeamSerializer):
    tournaments = ApiEntryOfSerializer(
        many=True, help_text="Newest first; only tournaments you may read."
    )


def teams_with_members() -> QuerySet[Team]:
    """Teams with their partners in order (one more query per page, not per team)."""
    return Team.objects.prefetch_related(
        Prefetch(
            "memberships",
            queryset=TeamMember.objects.select_related("player").order_by("order"),
            to_attr="ordered_members",
        )
    )


def team_data(team: Team) -> dict[str, Any]:
    return {
        "id": team.pk,
        "name": team.name,
        "members": [
            {"id": m.player_id, "display_name": m.player.display_name}
            for m in getattr(team, "ordered_members", [])
        ],
    }


class TeamListView(ContractView, generics.ListAPIView[Team]):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]
    pagination_class = PeopleCursorPagination
    serializer_class = ApiTeamSerializer
    filterset_class = TeamFilter

    def get_queryset(self) -> QuerySet[Team]:
        return teams_with_members()

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        assert page is not None  # the view always paginates
        data = ApiTeamSerializer([team_data(team) for team in page], many=True).data
        return self.get_paginated_response(data)

    @extend_schema(
        operation_id="teams_list",
        summary="Teams",
        description="Every team with its partners in order, oldest first, cursor pagination.",
        tags=["people"],
        responses={200: ApiTeamSerializer(many=True), **error_responses(400, 404, 429)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return people_cache_headers(super().get(request, *args, **kwargs), request)


class TeamDetailView(ContractView, generics.GenericAPIView[Team]):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]
    serializer_class = ApiTeamDetailSerializer

    def get_queryset(self) -> QuerySet[Team]:
        return teams_with_members()

    @extend_schema(
        operation_id="teams_retrieve",
        summary="A team",
        description=(
            "The team's name, its partners in order, and the tournaments it entered (only "
            "those you may read), with the final place once finished."
        ),
        tags=["people"],
        responses={200: ApiTeamDetailSerializer, **error_responses(404, 429)},
    )
    def get(self, request: Request, team_id: int) -> Response:
        team = found(self.get_queryset().filter(pk=team_id).first())
        visible = visibility.tournaments_visible_to(request.user)
        data = {
            **team_data(team),
            "tournaments": entries_of(Entry.objects.filter(team=team, tournament__in=visible)),
        }
        return people_cache_headers(Response(ApiTeamDetailSerializer(data).data), request)


urlpatterns = [
    path("players/", PlayerListView.as_view(), name="player-list"),
    path("players/<int:player_id>/", PlayerDetailView.as_view(), name="player-detail"),
    path("teams/", TeamListView.as_view(), name="team-list"),
    path("teams/<int:team_id>/", TeamDetailView.as_view(), name="team-detail"),
]
