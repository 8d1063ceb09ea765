"""Games: ``games/<id>/`` and ``games/<id>/actions/``.

**No card its reader may not see.** The API is for scoreboards: every caller, a seated player
and a referee included, gets what the live table sends a *spectator*: the state message that
``games.selectors.state_message`` builds with the spectator's role from the game's snapshot
(``games.broadcast.game_message``), redacted by the engine (``engine.view(state, None)``: the
table, the trump card, hand sizes, the stock's and the discard's counts). Nothing here redacts
by hand. A player's own hand is for its live table socket only.

While a game is in play the seed is secret (it would reveal every hand): the answer carries its
commitment, and the log is the public tail that every viewer of the live table sees (each card
of it was played face up). Once the game is over (finished, adjudicated, voided) the seed is
revealed, and the answer adds the whole action log and the fairness check
(``games.services.game_verify_deal``: the seed against its commitment, the log replayed from
the seed's deal).

**Who may read a game**: whoever may read its tournament (``visibility.tournaments_visible_to``,
the rule of every read of the API): a game of a private tournament is a 404 to everyone but its
players, referees and organiser, as is a game that belongs to no tournament.

**Caching**: a game that is over never changes: its answers carry an ``ETag`` of the game's id,
version and status and may be kept (``max-age``); a game in play is revalidated each time
(``no-cache``) against the same ``ETag``, which moves with every action. A matching
``If-None-Match`` is answered ``304`` after one query, before any body is built.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.db.models import QuerySet
from django.urls import path
from django.utils.http import quote_etag
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from games import broadcast, services
from games import selectors as game_selectors
from games.hooks import SPECTATOR
from games.models import Game, GameAction
from tournaments.api.common import (
    ApiAnonThrottle,
    ApiCursorPagination,
    ApiUserThrottle,
    etag_matches,
)
from tournaments.api.contract import ContractView, error_responses
from tournaments.selectors import visibility

#: A game that is over is immutable: shared caches may keep its answers this long (seconds).
GAME_OVER_MAX_AGE = 3600


def readable_game(*, game_id: int, user: Any) -> Game:
    """The game ``game_id`` if ``user`` may read its tournament, else ``NotFound`` (one query)."""
    game = (
        Game.objects.filter(
            pk=game_id,
            table__round__stage__tournament__in=visibility.tournaments_visible_to(user),
        )
        .select_related("table__round__stage__tournament")
        .first()
    )
    if game is None:
        # DRF's exception, not Django's ``Http404``: the API's handler gives it the error
        # shape (``not_found``).
        raise NotFound
    return game


def game_etag(request: Request, game: Game) -> str:
    """The weak ETag of ``request``'s answer about ``game`` as it is now: its own version, and
    its tournament's (the answer names the players, and a player's new name moves the versions
    of the tournaments that show it, not the game's)."""
    assert game.table is not None  # readable_game: a game of a tournament's table
    basis = "|".join(
        [
            "game",
            str(game.pk),
            str(game.version),
            str(game.table.round.stage.tournament.version),
            game.status,
            request.get_full_path(),
            str(request.accepted_media_type or ""),
        ]
    )
    return "W/" + quote_etag(hashlib.sha256(basis.encode()).hexdigest()[:24])


def game_cache_headers(response: Response, game: Game, etag: str) -> Response:
    response["ETag"] = etag
    assert game.table is not None  # readable_game: a game of a tournament's table
    public = game.table.round.stage.tournament.is_public
    if game.is_over:
        scope = "public" if public else "private"
        response["Cache-Control"] = f"{scope}, max-age={GAME_OVER_MAX_AGE}"
    else:
        response["Cache-Control"] = "public, no-cache" if public else "private, no-cache"
    response["Vary"] = "Accept, Accept-Language, Authorization, Cookie"
    return response


def not_modified(request: Request, etag: str) -> bool:
    header = request.headers.get("If-None-Match", "")
    return bool(header) and etag_matches(header, etag)


# --- the shapes -------------------------------------------------------------------------------


class ApiGameActionSerializer(serializers.Serializer[Any]):
    """One entry of a game's action log: a move as the protocol writes it."""

    seq = serializers.IntegerField(help_text="1, 2, …: the game's version after this move.")
    seat = serializers.IntegerField()
    action = serializers.DictField(
        help_text=(
            "The protocol's action object, e.g. "
            '`{"seat": 0, "type": "attack", "cards": ["6S"]}`: every card in it was played '
            "face up."
        )
    )
    kind = serializers.ChoiceField(
        choices=GameAction.Kind.choices, help_text="Who made it: the player, a bot, the clock."
    )
    time = serializers.DateTimeField(
        allow_null=True, help_text="When it was made (null in the live tail of a game in play)."
    )


class ApiFairnessSerializer(serializers.Serializer[Any]):
    """The fairness check of a game that is over: anyone can redo it with the engine alone."""

    seed = serializers.CharField(help_text="The deal's seed, revealed when the game ended.")
    seed_commitment = serializers.CharField(help_text="sha256(seed), published at the start.")
    commitment_ok = serializers.BooleanField(help_text="sha256(seed) equals the commitment.")
    replay_ok = serializers.BooleanField(
        help_text=(
            "The action log replays legally on the deal recomputed from the seed, and (for a "
            "game played to the end) gives the stored final state, so the stored result."
        )
    )
    deal = serializers.DictField(
        help_text="The deal recomputed from the seed (the engine protocol's fixed-deal form)."
    )


class ApiGameSerializer(serializers.Serializer[Any]):
    """A game as a spectator of its live table sees it, plus its record once over."""

    id = serializers.IntegerField()
    tournament = serializers.SlugField(help_text="The tournament's slug.")
    table = serializers.IntegerField(help_text="The table's id.")
    number = serializers.IntegerField(help_text="The game's number in the table's series.")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    over = serializers.BooleanField(help_text="Finished, adjudicated or voided.")
    version = serializers.IntegerField(help_text="The number of moves made so far.")
    players = serializers.ListField(
        child=serializers.CharField(), help_text="The players' names by game seat."
    )
    ranks = serializers.ListField(
        child=serializers.CharField(allow_blank=True),
        help_text=(
            "Each player's current rank (звание) by game seat, in the request's language "
            '(Accept-Language); "" for none.'
        ),
    )
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the move clock runs out for the move expected now."
    )
    view = serializers.DictField(
        help_text=(
            "The spectator's view of the live table (the protocol's view with `seat` null): "
            "the table, the trump and its face-up card, hand sizes, stock and discard counts. "
            "Never a card of a hand or of the stock: a seated player or a referee gets this "
            "same view here (a player's own hand is for its live table socket only)."
        )
    )
    log = ApiGameActionSerializer(
        many=True, help_text="The last moves, as every viewer of the live table sees them."
    )
    seed_commitment = serializers.CharField(help_text="sha256(seed), published at the start.")
    seed = serializers.CharField(
        allow_null=True, help_text="Revealed once the game is over; null while it is in play."
    )
    result = serializers.DictField(
        allow_null=True,
        help_text=(
            "Once over: `places` (seats, first out first), `fool`, `draw`, `pogony` (as the "
            "engine protocol's result); null before, and for a voided game."
        ),
    )
    actions = ApiGameActionSerializer(
        many=True,
        allow_null=True,
        help_text="Once over: the whole action log, in order; null while the game is in play.",
    )
    fairness = ApiFairnessSerializer(
        allow_null=True, help_text="Once over: the fairness check; null while in play."
    )


FAIRNESS_KEYS = ("seed", "seed_commitment", "commitment_ok", "replay_ok", "deal")


def _logged(entry: dict[str, Any]) -> dict[str, Any]:
    """A live log tail entry (``Game.log_tail``) in the shape of a log row."""
    action = {k: v for k, v in entry.items() if k not in ("seq", "kind")}
    return {
        "seq": entry["seq"],
        "seat": action.get("seat"),
        "action": action,
        "kind": entry.get("kind", GameAction.Kind.PLAYER),
        "time": None,
    }


def _row(action: GameAction) -> dict[str, Any]:
    return {
        "seq": action.seq,
        "seat": action.seat,
        "action": action.action,
        "kind": action.kind,
        "time": action.created_at,
    }


def game_data(game: Game) -> dict[str, Any]:
    """``game`` as :class:`ApiGameSerializer` data: the live table's spectator message (never
    another viewer's), and once over the log and the fairness check."""
    assert game.table is not None
    message = game_selectors.state_message(
        broadcast.game_message(game, "sync"),
        role=SPECTATOR,
        seat=None,
        names=game_selectors.player_names(game.players),
        ranks=game_selectors.player_ranks(game.players),
    )
    over = game.is_over and game.seed_revealed
    fairness = None
    actions = None
    if over:
        check = services.game_verify_deal(game=game)
        fairness = {key: check[key] for key in FAIRNESS_KEYS}
        actions = [_row(a) for a in game.actions.order_by("seq")]
    return {
        "id": game.pk,
        "tournament": game.table.round.stage.tournament.slug,
        "table": game.table_id,
        "number": game.number,
        "status": message["status"],
        "over": over,
        "version": message["version"],
        "players": message["players"],
        "ranks": message["ranks"],
        "deadline": message["deadline"],
        "view": message["view"],
        "log": [_logged(entry) for entry in message["log"]],
        "seed_commitment": message["seed_commitment"],
        "seed": message["seed"] if over else None,
        "result": message["result"] if over else None,
        "actions": actions,
        "fairness": fairness,
    }


# --- the views --------------------------------------------------------------------------------


class GameDetailView(ContractView, generics.GenericAPIView[Game]):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]
    serializer_class = ApiGameSerializer

    @extend_schema(
        operation_id="games_retrieve",
        summary="A game",
        description=(
            "While in play: the spectator's view of the live table (no hand, no stock "
            "order, for every caller: the API is for scoreboards), the status, the players' "
            "names by seat, the version, the last moves and the seed's commitment. Once over "
            "(finished, adjudicated, voided): also the result, the whole action log, the "
            "revealed seed and the fairness check. A game of a private tournament is a 404 "
            "to everyone but its players, referees and organiser. `ETag` from the game's "
            "version: `If-None-Match` gives 304; a game that is over may be cached."
        ),
        tags=["games"],
        responses={200: ApiGameSerializer, **error_responses(404, 429)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = readable_game(game_id=game_id, user=request.user)
        etag = game_etag(request, game)
        if not_modified(request, etag):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:
            response = Response(ApiGameSerializer(game_data(game)).data)
        return game_cache_headers(response, game, etag)


class GameActionsPagination(ApiCursorPagination):
    """A game's log in order of play (``seq`` is unique per game, indexed with it)."""

    page_size = 100
    max_page_size = 500
    page_size_query_param = "page_size"
    ordering = "seq"


class GameActionListView(ContractView, generics.ListAPIView[GameAction]):
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]
    serializer_class = ApiGameActionSerializer
    pagination_class = GameActionsPagination
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[GameAction]:
        return GameAction.objects.filter(game_id=self.kwargs["game_id"])

    @extend_schema(
        operation_id="games_actions_list",
        summary="A game's action log",
        description=(
            "Once the game is over: the whole log in order of play (`seq`, seat, the "
            "protocol's action, who made it, when), with cursor pagination. While it is in "
            "play: only the last moves every viewer of the live table sees (each card in them "
            "was played face up), as one page. Same visibility and caching as the game."
        ),
        tags=["games"],
        responses={200: ApiGameActionSerializer(many=True), **error_responses(400, 404, 429)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        game = readable_game(game_id=self.kwargs["game_id"], user=request.user)
        etag = game_etag(request, game)
        if not_modified(request, etag):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        elif game.is_over and game.seed_revealed:
            response = self.list(request, *args, **kwargs)
        else:
            # The live tail is at most ``Game.LOG_TAIL`` entries: one page, no cursor.
            tail = [_logged(entry) for entry in game.log_tail]
            data = ApiGameActionSerializer(tail, many=True).data
            response = Response({"next": None, "previous": None, "results": data})
        return game_cache_headers(response, game, etag)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None  # the view always paginates
        data = ApiGameActionSerializer([_row(a) for a in page], many=True).data
        return self.get_paginated_response(data)


urlpatterns = [
    path("games/<int:game_id>/", GameDetailView.as_view(), name="game-detail"),
    path("games/<int:game_id>/actions/", GameActionListView.as_view(), name="game-action-list"),
]
