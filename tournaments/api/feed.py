"""The tournament's event log over HTTP, and the NDJSON streams of a tournament and of a table.

- ``GET tournaments/<slug>/events/?since=<version>&limit=``: the logged events after ``since``
  (``tournaments.models.FeedEvent``, read by ``selectors.feed``), each exactly the message its
  socket and its webhooks got: ``{"event", "tournament", "version", "at", "data"}``. A client
  that reconnects fills its gap with it. ``since`` beyond the tournament's version is a 400
  (``invalid_parameters``: a client cannot have seen it); one older than the first event kept
  is a 410 ``events_expired`` (read the REST answers again, then follow from their version).
- ``GET tournaments/<slug>/events/stream/?since=<version>``: the same events as NDJSON
  (``application/x-ndjson``, one JSON object a line), first those logged after ``since``, then
  each new one as it commits.
- ``GET tables/<id>/stream/?game=<id>&since=<version>``: NDJSON of the table's states, as
  a spectator's socket gets them (``games.selectors.state_message`` with the spectator's role:
  no hidden card), from the current one (or the first after the ``game``'s ``since`` version);
  it ends once the table has finished and its last state is sent.

The streams are served by the ASGI server's event loop, not a thread per client: the view
(DRF, in a thread for a moment: visibility, the strict parameters, the throttles) returns a
``StreamingHttpResponse`` over an async iterator. The iterator joins the channel layer group
the sockets use (the feed's, the table's) as a wake-up only, and reads the log by version (or
the table's current state) on the sockets' database threads (``durak_site.dbthreads``: an open
stream holds no connection of its own; the request's goes back to the pool as the stream
starts) on each wake-up and at least every
``DURAK_STREAM_POLL_MS``: nothing is skipped or sent twice, with the in-memory layer of one
process or Redis's, and even when a message of the layer is lost. An empty line is sent after
``DURAK_STREAM_KEEPALIVE_SECONDS`` of silence (lichess's keep-alive); a stream ends when its
client goes, or after ``DURAK_STREAM_SECONDS`` (reconnect with ``since``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django import db
from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from django.urls import path
from django.utils import translation
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response

from durak_site.dbthreads import db_async
from durak_site.errors import ServiceError
from games import selectors as game_selectors
from games.broadcast import game_message, table_group
from games.errors import Forbidden as TableForbidden
from games.errors import NotFound as TableNotFound
from games.hooks import SPECTATOR
from tournaments.api.common import (
    ApiAnonThrottle,
    ApiUserThrottle,
    TournamentReadView,
    current,
    etag_for,
)
from tournaments.api.contract import ContractView, error_responses, invalid_parameters
from tournaments.api.renderers import FastJSONRenderer
from tournaments.models import Table, Tournament
from tournaments.notifications.sockets import feed_group
from tournaments.selectors.feed import EventsExpired, events_after, events_since

TAG = ["events"]
log = logging.getLogger(__name__)
NDJSON = "application/x-ndjson"
LIMIT_DEFAULT = 100
LIMIT_MAX = 500
SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH, description="Tournament")
SINCE = OpenApiParameter(
    "since",
    {"type": "integer", "minimum": 0},
    description="The last version the client has (its ETag's, a socket's `hello`, an event's): "
    "the events after it. 0: from the first. Beyond the tournament's version: 400.",
)
LIMIT = OpenApiParameter(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX},
    description=f"At most this many events (1 to {LIMIT_MAX}; default {LIMIT_DEFAULT}).",
)


class EventsGone(ServiceError):
    """The events after the version asked for are no longer kept."""

    code = "events_expired"
    http_status = status.HTTP_410_GONE


class StreamNegotiation(BaseContentNegotiation):
    """A stream answers NDJSON whatever ``Accept`` says (``application/x-ndjson``, ``*/*``), and
    its refusals JSON: never a 406."""

    def select_parser(self, request: Request, parsers: Any) -> Any:
        return parsers[0] if parsers else None

    def select_renderer(
        self, request: Request, renderers: Any, format_suffix: str | None = None
    ) -> Any:
        return renderers[0], renderers[0].media_type


def line(data: Any) -> bytes:
    """One NDJSON line."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


class FeedEventSerializer(serializers.Serializer[Any]):
    """One event of a tournament: the message its socket and its webhooks got."""

    event = serializers.CharField(help_text="e.g. `table_finished` (the feed's event types).")
    tournament = serializers.CharField(help_text="The tournament's slug.")
    version = serializers.IntegerField(help_text="The tournament's version this change made.")
    at = serializers.DateTimeField(help_text="When it committed (UTC).")
    # (the metaclass takes declared fields out of the class: no shadowing of ``.data``)
    data = serializers.DictField(help_text="What changed (by event).")  # type: ignore[assignment]


class FeedEventPageSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(help_text="The tournament's current version.")
    events = FeedEventSerializer(many=True, help_text="Oldest first.")
    more = serializers.BooleanField(
        help_text="Whether more events follow the last one (ask again with its `version`)."
    )


def _limit(request: Request) -> int:
    return int(request.query_params.get("limit", LIMIT_DEFAULT))


def _since(request: Request, tournament: Tournament) -> int:
    since = int(request.query_params.get("since", 0))
    if since > tournament.version:
        raise invalid_parameters(
            {
                "since": [
                    gettext("at most %(version)d, the tournament's version")
                    % {"version": tournament.version}
                ]
            }
        )
    return since


def _gone(exc: EventsExpired) -> EventsGone:
    return EventsGone(
        gettext(
            "The events after version %(since)d are no longer kept: read the tournament again "
            "and follow its events from its version."
        )
        % {"since": exc.since}
    )


@extend_schema(
    tags=TAG,
    summary="A tournament's events",
    description="The events of the tournament after the version `since`, oldest first: each "
    "exactly the message of its feed socket and its webhooks, so a client that was away "
    "fills its gap. Every version the tournament reached has its event. `since` beyond the "
    "tournament's version is a 400 (`invalid_parameters`); one older than the first event "
    "kept is a 410 `events_expired`. Weak `ETag` from the tournament's version.",
    parameters=[SLUG, SINCE, LIMIT],
    responses={200: FeedEventPageSerializer, **error_responses(404, 410, 429)},
)
class EventLogView(TournamentReadView):
    error_codes = {410: ("events_expired",)}

    def get(self, request: Request, slug: str) -> Response:
        tournament = self.get_tournament()
        since, limit = _since(request, tournament), _limit(request)

        def build() -> dict[str, Any]:  # (not on a 304: the tournament's row only)
            try:
                events = events_since(tournament, since, limit + 1)
            except EventsExpired as exc:
                raise _gone(exc) from None
            return {
                "version": tournament.version,
                "events": events[:limit],
                "more": len(events) > limit,
            }

        return self.respond(tournament, build)


# --- the streams ---------------------------------------------------------------------------------


class _Wakeups:
    """A channel of the layer in ``group`` (none without a layer): ``wait()`` returns after the
    group's next message, or after ``timeout`` seconds.

    One ``receive`` runs at a time and is never cancelled by a timeout (Redis's pub/sub layer
    takes a cancelled ``receive`` for the consumer's end, and drops the channel's
    subscription): only the stream's end cancels it."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.receiving: asyncio.Task[Any] | None = None

    async def __aenter__(self) -> _Wakeups:
        if self.layer is not None:
            try:
                self.channel = await self.layer.new_channel()
                await self.layer.group_add(self.group, self.channel)
            except Exception:
                log.warning("stream %s: the channel layer failed", self.group, exc_info=True)
                self.channel = None  # the poll alone, then
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.receiving is not None:
            self.receiving.cancel()
            with contextlib.suppress(BaseException):
                await self.receiving
        if self.layer is not None and self.channel is not None:
            with contextlib.suppress(Exception):
                await self.layer.group_discard(self.group, self.channel)

    async def wait(self, timeout: float) -> None:
        if self.layer is None or self.channel is None:
            await asyncio.sleep(timeout)
            return
        if self.receiving is None:
            self.receiving = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _ = await asyncio.wait({self.receiving}, timeout=timeout)
        if not done:
            return
        task, self.receiving = self.receiving, None
        failure = task.exception()
        if failure is not None:
            # a layer that fails: the poll still runs
            log.warning("stream %s: the channel layer failed", self.group, exc_info=failure)
            await asyncio.sleep(timeout)


async def _stream(
    group: str, read: Callable[[], Awaitable[tuple[list[bytes], bool]]]
) -> AsyncIterator[bytes]:
    """The lines ``read()`` gives (and whether the stream is over), again on every wake-up of
    ``group`` and every poll, with a keep-alive line after a silence; until the client goes
    (the server cancels the iterator) or the stream's time is up."""
    poll = settings.STREAM_POLL_MS / 1000
    keepalive = float(settings.STREAM_KEEPALIVE_SECONDS)
    ends = time.monotonic() + settings.STREAM_SECONDS
    # The request's thread is done with the database (the view and the middleware ran): its
    # connection goes back to the pool now, not when the stream ends an hour later.
    await sync_to_async(db.connections.close_all, thread_sensitive=True)()
    async with _Wakeups(group) as wakeups:
        lines, over = await read()
        for chunk in lines:
            yield chunk
        silent_since = time.monotonic()
        while not over and time.monotonic() < ends:
            await wakeups.wait(min(poll, max(0.0, ends - time.monotonic())))
            lines, over = await read()
            for chunk in lines:
                yield chunk
            now = time.monotonic()
            if lines:
                silent_since = now
            elif now - silent_since >= keepalive:
                yield b"\n"
                silent_since = now


def ndjson_response(lines: AsyncIterator[bytes], etag: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=NDJSON)
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a buffering proxy (nginx) passes each line at once
    response["ETag"] = etag
    return response


STREAM_TEXT = (
    "NDJSON (`application/x-ndjson`): one JSON object a line, an empty line as a keep-alive "
    "after {keepalive} s of silence (skip empty lines). Served by the ASGI server's event loop; "
    "it ends when the client goes, or after an hour (`DURAK_STREAM_SECONDS`): reconnect with "
    "`since`. The `ETag` names the version it starts at."
)


@extend_schema(
    tags=TAG,
    summary="Stream a tournament's events",
    description="The tournament's events as they happen: first those logged after `since`, "
    "then each new one as it commits, each the message of the event log and the feed socket "
    "(`{event, tournament, version, at, data}`), versions only growing, none skipped. "
    + STREAM_TEXT.format(keepalive=15)
    + " Refusals as the event log's.",
    parameters=[SLUG, SINCE],
    responses={(200, NDJSON): FeedEventSerializer, **error_responses(404, 410, 429)},
)
class EventStreamView(TournamentReadView):
    error_codes = {410: ("events_expired",)}

    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = StreamNegotiation

    def get(self, request: Request, slug: str) -> Any:
        tournament = self.get_tournament()
        since = _since(request, tournament)
        etag = etag_for(request, tournament)
        if current(request, etag, tournament):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
            response["ETag"] = etag
            return response
        try:  # the start must be kept: refused now, not in the stream
            events_since(tournament, since, 1)
        except EventsExpired as exc:
            raise _gone(exc) from None
        pk, slug_now = tournament.pk, tournament.slug
        last = since

        async def read() -> tuple[list[bytes], bool]:
            nonlocal last
            events = await db_async(events_after)(pk, slug_now, last, LIMIT_MAX)
            if events:
                last = events[-1]["version"]
            return [line(event) for event in events], False

        return ndjson_response(_stream(feed_group(pk), read), etag)


TABLE_ID = OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Table")
GAME = OpenApiParameter(
    "game",
    {"type": "integer", "minimum": 1},
    description="With `since`: the game of the last state the client has (its `game`).",
)
GAME_SINCE = OpenApiParameter(
    "since",
    {"type": "integer", "minimum": 0},
    description="The `version` of the last state the client has of `game`: the stream starts "
    "after it (the current state if that game is over, or without `game`).",
)


class TableStateSerializer(serializers.Serializer[Any]):
    """A state of the table's game as a spectator sees it (the table socket's `state` message
    with the spectator's role: no hand, no hidden card)."""

    type = serializers.CharField(help_text="`state`")
    game = serializers.IntegerField(allow_null=True, help_text="The game's id.")
    number = serializers.IntegerField(help_text="The game's number in the table's series.")
    version = serializers.IntegerField(help_text="Grows with every change of the game.")
    status = serializers.CharField()
    view = serializers.DictField(help_text="The engine's public view (no hand).")
    log = serializers.ListField(child=serializers.DictField(), help_text="New log entries.")


#: A game's statuses while it may still change.
PLAYING = ("active", "paused")


def _table_snapshot(table_id: int) -> tuple[dict[str, Any] | None, bool]:
    """The table's current game as a broadcast message (None before its first game), and
    whether the table has finished (no state will follow)."""
    game = game_selectors.table_current_game(table_id)
    finished = Table.objects.filter(pk=table_id, status=Table.Status.FINISHED).exists()
    return (None if game is None else game_message(game, "sync")), finished


def _names_and_ranks(players: list[Any]) -> tuple[dict[int, str], dict[int, str]]:
    return game_selectors.player_names(players), game_selectors.player_ranks(players)


@extend_schema(
    tags=["games"],
    summary="Stream a table's states",
    description="The table's game as a spectator watches it: the state of its current game "
    "now (or, with `game` and `since`, the first one after that version of that game), then "
    "every new state as it happens, across the games of its series; it ends after the last "
    "state of a finished table. Each line is the table socket's `state` message with the "
    "spectator's role: every public fact, never a hand or a hidden card; `log` holds the log "
    "entries since the line before. " + STREAM_TEXT.format(keepalive=15),
    parameters=[TABLE_ID, GAME, GAME_SINCE],
    responses={(200, NDJSON): TableStateSerializer, **error_responses(404, 429)},
)
class TableStreamView(ContractView):
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = StreamNegotiation
    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]

    def get(self, request: Request, pk: int) -> Any:
        table_id = pk
        try:
            game_selectors.table_access(table_id=table_id, user=request.user)
        except (TableNotFound, TableForbidden):
            raise Http404 from None
        game_id = request.query_params.get("game")
        seen = (int(game_id), int(request.query_params.get("since", 0))) if game_id else (0, -1)
        language = translation.get_language()
        state: dict[str, Any] = {"seen": seen, "names": {}, "ranks": {}, "ranks_game": None}

        async def read() -> tuple[list[bytes], bool]:
            snapshot, finished = await db_async(_table_snapshot)(table_id)
            if snapshot is None:
                return [], finished
            order = (snapshot["game_id"], snapshot["version"])
            if order <= state["seen"]:
                return [], finished and snapshot["status"] not in PLAYING
            same_game = order[0] == state["seen"][0]
            log_since = state["seen"][1] if same_game else 0
            if state["ranks_game"] != order[0]:
                names, ranks = await db_async(_with_language(language))(snapshot["players"])
                state.update(names=names, ranks=ranks, ranks_game=order[0])
            message = game_selectors.state_message(
                snapshot,
                role=SPECTATOR,
                seat=None,
                names=state["names"],
                log_since=max(log_since, 0),
                ranks=state["ranks"],
            )
            state["seen"] = order
            return [line(message)], finished and snapshot["status"] not in PLAYING

        etag = f'W/"table-{table_id}-stream"'
        return ndjson_response(_stream(table_group(table_id), read), etag)


def _with_language(language: str | None) -> Callable[[list[Any]], Any]:
    def read(players: list[Any]) -> Any:
        if language is None:
            return _names_and_ranks(players)
        with translation.override(language):
            return _names_and_ranks(players)

    return read


T = "tournaments/<slug:slug>/"
urlpatterns = [
    path(T + "events/", EventLogView.as_view(), name="tournament-events"),
    path(T + "events/stream/", EventStreamView.as_view(), name="tournament-events-stream"),
    path("tables/<int:pk>/stream/", TableStreamView.as_view(), name="table-stream"),
]
