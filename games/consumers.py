"""The live table's WebSocket: ``/ws/tables/<table_id>/``.

Thin, as every entry point: parse the message, call one service or selector, send. The role and
the seat come from the connection (session cookie, ``Authorization`` header or ticket:
``games.auth``), never from the client; every state message is redacted for its viewer by the
engine (``games.selectors.state_message``).

Refusals at the handshake (``games.sockets``: accepted, one error frame, then closed): 4401
credentials that match nobody, 4404 no such table or a private tournament's table to an
outsider (to whom it does not exist, as on its page); 4403 a foreign Origin comes from
``games.sockets.OriginCheck`` in front. A message is parsed within a size and a nesting limit;
every bad one is answered with an error frame and the socket goes on.

A seated player's socket marks the player present at the table while it lives
(``games.presence``: on connect, again every ``presence.REFRESH_SECONDS``, removed on
disconnect), for the referees' live tables page and the bots that stand in for absent players
(``services.stand_ins``: its connect takes the seat back from one). The mark is advice: a cache
that fails is logged, never the socket's problem.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, cast

import psycopg
from asgiref.typing import WebSocketSendEvent
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import translation
from django.utils.translation import gettext

from durak_site import jobs
from durak_site.dbthreads import db_async
from durak_site.errors import DATABASE_DOWN, ServiceError, Unavailable
from games import broadcast, fanout, presence, selectors, services, timing
from games.actors import Actor, person
from games.auth import refused_credentials
from games.broadcast import game_message, table_group
from games.errors import Forbidden, NotFound
from games.hooks import PLAYER, REFEREE
from games.services import live
from games.sockets import (
    CLOSE_NOT_FOUND,
    CLOSE_TRY_AGAIN,
    MAX_DEPTH,
    BadText,
    JsonFrames,
    TooDeep,
    frame_text,
    parse_json,
    refuse,
    scope_language,
)
from games.tokens import READ

log = logging.getLogger(__name__)
P = ParamSpec("P")

MAX_MESSAGE_BYTES = 4096
RATE_PER_SECOND = 20.0  # sustained messages per second per socket
BURST = 20  # messages a socket may send at once
MAX_CLIENT_ID = 64


class TokenBucket:
    """``rate`` tokens a second up to ``burst``; each message takes one."""

    def __init__(self, rate: float, burst: int, clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, float(burst), clock
        self.tokens, self.stamp = float(burst), clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class BadRequest(Exception):
    pass


# --- a frame from the client -------------------------------------------------------------------

ClientId = str | int | None


@dataclass(frozen=True)
class Frame:
    """A frame as received: its size in bytes; the JSON it holds (None: binary, too large to
    read, or not JSON); why a text that parses is still no message (``refused``); and the
    client's id of the message, if it names one (to answer a refusal under it)."""

    size: int
    text: bool
    message: Any = None
    refused: str | None = None
    client_id: ClientId = None


def frame_size(text_data: str | None, bytes_data: bytes | None) -> int:
    """A frame's size in bytes (a text's as UTF-8, a lone surrogate included)."""
    if text_data is not None:
        return len(text_data.encode("utf-8", "surrogatepass"))
    return len(bytes_data or b"")


def read_frame(text_data: str | None, bytes_data: bytes | None) -> Frame:
    """Measure a frame and, when it is text within the size, parse it within the nesting limit."""
    size = frame_size(text_data, bytes_data)
    if size > MAX_MESSAGE_BYTES or text_data is None:
        return Frame(size, text=text_data is not None)
    message: Any = None
    refused: str | None = None
    try:
        message = parse_json(text_data)
    except TooDeep:
        refused = gettext("a message nests at most %(depth)s levels") % {"depth": MAX_DEPTH}
    except BadText:
        refused = gettext("a message's text holds no NUL and no half surrogate pair")
    except ValueError:
        message = None
    return Frame(size, text=True, message=message, refused=refused, client_id=client_id_of(message))


def client_id_of(message: Any) -> ClientId:
    """The ``id`` a message names, if it is a string or a number (not a boolean)."""
    client_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(client_id, str | int) or isinstance(client_id, bool):
        return None
    return client_id


def message_of(frame: Frame) -> dict[str, Any]:
    """The message a frame holds, or ``BadRequest`` saying why it holds none."""
    if not frame.text:
        raise BadRequest(gettext("messages are JSON text"))
    if frame.refused is not None:
        raise BadRequest(frame.refused)
    if not isinstance(frame.message, dict):
        raise BadRequest(gettext("a message is a JSON object"))
    return frame.message


def _table_act(**kwargs: Any) -> tuple[Any, Exception | None, broadcast.Pending]:
    """``services.table_act`` on a database thread with its broadcasts collected (sent by the
    consumer from the event loop): (outcome, error, broadcasts)."""
    started = time.perf_counter()
    with broadcast.collected() as pending:
        try:
            outcome, error = services.table_act(**kwargs), None
        except Exception as exc:
            outcome, error = None, exc
    timing.record("act.db", time.perf_counter() - started)
    return outcome, error, pending


#: Watchers' frames kept per process (:func:`watcher_frame`).
WATCHER_FRAMES = 256
_watcher_frames: OrderedDict[tuple[Any, ...], str] = OrderedDict()


def watcher_frame(
    snapshot: dict[str, Any],
    *,
    role: str,
    names: dict[int, str],
    ranks: dict[int, str],
    log_since: int,
    language: str,
) -> str:
    """The JSON text of a state for a socket without a seat in the game (a spectator, a player of
    another table), which holds no hand: made once per process for all such sockets that are
    at the same point of the log, and kept for the next (a final table's thousands of
    spectators cost one redaction and one encoding per state, not one each)."""
    players = snapshot["players"]
    key = (
        snapshot["game_id"],
        snapshot["version"],
        snapshot["status"],
        snapshot.get("event"),
        snapshot["deadline"],
        role,
        log_since,
        language,
        tuple(names.get(p) for p in players),
        tuple(ranks.get(p) for p in players),
    )
    text = _watcher_frames.get(key)
    if text is None:
        message = selectors.state_message(
            snapshot, role=role, seat=None, names=names, log_since=log_since, ranks=ranks
        )
        text = frame_text(message)
        _watcher_frames[key] = text
        if len(_watcher_frames) > WATCHER_FRAMES:
            _watcher_frames.popitem(last=False)
    return text


def _current_snapshot(table_id: int) -> dict[str, Any] | None:
    game = selectors.table_current_game(table_id)
    return None if game is None else game_message(game, "sync")


class TableConsumer(JsonFrames, AsyncJsonWebsocketConsumer):
    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its per-message ``close_old_connections`` hop.

        Channels runs ``close_old_connections`` in the process's one sync thread before every
        handler, so every frame and every group message waited behind all the database work of
        the process. This consumer reaches the database only through ``database_sync_to_async``,
        which closes old connections around each call itself.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        # channels' lazy object stands for the request's user (or the anonymous visitor)
        self.user = cast("Actor | None", self.scope.get("user"))
        self.group: str | None = None
        self.presence: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()
        self.language = scope_language(self.scope)
        with translation.override(self.language):
            try:
                await self.admit()
            except DATABASE_DOWN as exc:
                log.warning("table %s: the database is unavailable (%s)", self.table_id, exc)
                unavailable = Unavailable()
                await refuse(
                    self,
                    close_code=CLOSE_TRY_AGAIN,
                    code=unavailable.code,
                    message=unavailable.message,
                )

    async def admit(self) -> None:
        """The handshake: refused with a code (``games.sockets.refuse``), or joined to the
        table's group and sent the current state."""
        if await refused_credentials(self):
            return
        try:
            self.access = await db_async(selectors.table_access)(
                table_id=self.table_id, user=self.user
            )
        except (NotFound, Forbidden):
            # A private tournament's table does not exist for an outsider: the same answer as
            # a missing one, so that the code tells nothing about which it is.
            message = gettext("there is no table %(table)s") % {"table": self.table_id}
            await refuse(self, close_code=CLOSE_NOT_FOUND, code="not_found", message=message)
            return
        self.bucket = TokenBucket(RATE_PER_SECOND, BURST)
        self.names: dict[int, str] = {}
        # The players' ranks, read once per game (they change only as a tournament's games are
        # scored, so a game's own state changes never ask again).
        self.ranks: dict[int, str] = {}
        self.ranks_game: int | None = None
        self.game_id: int | None = None
        self.version = -1
        # The last state delivered, the full truth: a seated player's action at its version is
        # applied on the event loop (``services.live``).
        self.latest: dict[str, Any] | None = None
        # A socket without a seat at the table (a spectator, a player of another table) is one
        # of the process's watchers of it (``games.fanout``): its states come from the table's
        # one reader in the process, in order, through :meth:`watch`.
        self.watcher = self.access.role not in (PLAYER, REFEREE)
        self.backlog: deque[dict[str, Any]] = deque(maxlen=fanout.BACKLOG)
        self.backlog_task: asyncio.Task[None] | None = None
        self.admitted = False
        self.group = table_group(self.table_id)
        if self.watcher:
            await fanout.WATCHERS.join(self.channel_layer, self.group, self)
        else:
            await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        # A read-only token watches: its player is not "at the table" (no seat taken back).
        self.read_only = self.scope.get("token_scope") == READ
        if self.access.role == PLAYER and self.access.player_id is not None and not self.read_only:
            await self.mark_present(self.access.player_id)
            self.presence = asyncio.create_task(self.keep_present(self.access.player_id))
            # Back at the table: a bot standing in for the seat gives it back.
            await db_async(services.table_seat_return)(
                table_id=self.table_id, player_id=self.access.player_id
            )
        await self.send_current()
        self.admitted = True
        if self.backlog:
            self.backlog_task = asyncio.create_task(self.drain())

    async def disconnect(self, code: int) -> None:
        if self.group is not None and self.watcher:
            await fanout.WATCHERS.leave(self.channel_layer, self.group, self)
            self.backlog.clear()
            if self.backlog_task is not None:
                self.backlog_task.cancel()
        elif self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.presence is not None:
            # Not cancelled: a renewal under way finishes first, so none lands after the leave.
            self.closed.set()
            await self.presence
            self.presence = None
            await self.off_loop(presence.seat_left, self.table_id, self.channel_name)

    # --- presence -----------------------------------------------------------------------------

    async def off_loop(self, call: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> None:
        """A presence call (a cache round trip) on a worker thread, its failure logged: not on
        the event loop, which serves every socket of the process, nor on the database threads."""
        try:
            await asyncio.to_thread(call, *args, **kwargs)
        except Exception:
            log.warning("table %s: presence %s failed", self.table_id, call.__name__, exc_info=True)

    async def mark_present(self, player_id: int) -> None:
        await self.off_loop(presence.seat_joined, self.table_id, player_id, self.channel_name)

    async def keep_present(self, player_id: int) -> None:
        """Renew this socket's mark until it closes (:meth:`disconnect` sets ``closed``)."""
        while not self.closed.is_set():
            try:
                await asyncio.wait_for(self.closed.wait(), presence.REFRESH_SECONDS)
            except TimeoutError:
                await self.mark_present(player_id)

    # --- server -> client ---------------------------------------------------------------------

    async def send_error(self, client_id: Any, code: str, message: str) -> None:
        await self.send_json({"type": "error", "id": client_id, "code": code, "message": message})

    async def send_current(self) -> None:
        """The current state of the table's current game (connect, ``sync``, after a refusal)."""
        snapshot = await db_async(_current_snapshot)(self.table_id)
        if snapshot is None:
            await self.send_json(
                {"type": "state", "game": None, "status": "waiting", "role": self.access.role}
            )
            return
        await self.deliver(snapshot, force=True)

    def overtaken(self, game_id: int, version: int) -> bool:
        """Whether a state is older than the one this socket was sent last."""
        if self.game_id is None:
            return False
        if game_id < self.game_id:
            return True  # late news of an earlier game of the series
        return game_id == self.game_id and version < self.version

    async def deliver(self, snapshot: dict[str, Any], *, force: bool = False) -> None:
        game_id, version = snapshot["game_id"], snapshot["version"]
        if not force and self.overtaken(game_id, version):
            return
        # The log entries this socket has not had yet: all of the tail on connect, sync and a new
        # game, else those after the last state sent (the page skips any it already shows).
        log_since = self.version if not force and game_id == self.game_id else 0
        self.game_id, self.version = game_id, version
        self.latest = snapshot
        missing = [p for p in snapshot["players"] if p not in self.names]
        if missing:
            self.names.update(await db_async(selectors.player_names)(missing))
        if self.ranks_game != game_id:
            with translation.override(self.language):  # the titles in the viewer's language
                self.ranks = await db_async(selectors.player_ranks)(snapshot["players"])
            self.ranks_game = game_id
        # Who has left the event, for the referee's ruling choices: asked at every state, as
        # an entry may withdraw mid-game (the referee's sockets are few).
        absent: dict[int, str] = {}
        if self.access.role == REFEREE:
            absent = await db_async(selectors.absent_players)(self.table_id)
        seat = selectors.seat_of(snapshot["players"], self.access.player_id)
        started = time.perf_counter()
        if seat is None and self.access.role != REFEREE:
            # A watcher's frame: the same for every watcher of the state, made once per process.
            text = watcher_frame(
                snapshot,
                role=self.access.role,
                names=self.names,
                ranks=self.ranks,
                log_since=log_since,
                language=self.language,
            )
            redacted = time.perf_counter()
            await self.send(text_data=text)
        else:
            message = selectors.state_message(
                snapshot,
                role=self.access.role,
                seat=seat,
                names=self.names,
                log_since=log_since,
                ranks=self.ranks,
                absent=absent,
            )
            redacted = time.perf_counter()
            await self.send_json(message)
        if timing.ENABLED:
            timing.record("redact", redacted - started)
            timing.record("send", time.perf_counter() - redacted)

    def watch(self, snapshot: dict[str, Any]) -> None:
        """A state for this watcher from the process's reader of the table (``games.fanout``):
        the shared frame written now, without waiting; else (before the socket's first state,
        while states wait, for a game whose names or ranks it has not read, a seat in it, a
        socket that cannot take a frame at once) queued for :meth:`drain`, which keeps their
        order."""
        if not self.admitted or self.backlog or self.draining():
            self.queue(snapshot)
            return
        game_id, version = snapshot["game_id"], snapshot["version"]
        if self.overtaken(game_id, version) or (game_id, version) == (self.game_id, self.version):
            return
        if (
            game_id != self.game_id
            or self.ranks_game != game_id
            or any(p not in self.names for p in snapshot["players"])
            or selectors.seat_of(snapshot["players"], self.access.player_id) is not None
        ):
            self.queue(snapshot)
            return
        started = time.perf_counter()
        text = watcher_frame(
            snapshot,
            role=self.access.role,
            names=self.names,
            ranks=self.ranks,
            log_since=self.version,
            language=self.language,
        )
        redacted = time.perf_counter()
        # (text only: ASGI wants exactly one of text and bytes, whatever the typed dict says)
        event = cast("WebSocketSendEvent", {"type": "websocket.send", "text": text})
        if not fanout.sent_at_once(self.base_send(event)):
            self.queue(snapshot)
            return
        self.version, self.latest = version, snapshot
        if timing.ENABLED:  # as :meth:`deliver` and :meth:`game_changed` record them
            if "sent_at" in snapshot:
                timing.record("layer", time.time() - snapshot["sent_at"])
            timing.record("redact", redacted - started)
            timing.record("send", time.perf_counter() - redacted)

    def draining(self) -> bool:
        return self.backlog_task is not None and not self.backlog_task.done()

    def queue(self, snapshot: dict[str, Any]) -> None:
        """Keep a state for :meth:`drain` (the newest :data:`fanout.BACKLOG`), started once the
        socket has had its first state."""
        self.backlog.append(snapshot)
        if self.admitted and not self.draining():
            self.backlog_task = asyncio.create_task(self.drain())

    async def drain(self) -> None:
        """Deliver the queued states one by one, the oldest first."""
        while self.backlog:
            try:
                await self.deliver(self.backlog.popleft())
            except Exception:
                log.info("table %s: a watcher's state was not sent", self.table_id, exc_info=True)
                self.backlog.clear()

    async def game_changed(self, message: dict[str, Any]) -> None:
        """Group message from ``games.broadcast``: the full truth, redacted here per viewer."""
        if timing.ENABLED and "sent_at" in message:
            timing.record("layer", time.time() - message["sent_at"])
        await self.deliver(message)

    # --- client -> server ---------------------------------------------------------------------

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        if self.group is None:
            return  # a refused handshake, closing: nothing it sends is read
        # Refusals in the viewer's language, the services' too (their database threads run in
        # a copy of this context).
        with translation.override(self.language):
            await self.on_frame(text_data, bytes_data)

    async def on_frame(self, text_data: str | None, bytes_data: bytes | None) -> None:
        """One frame from the client: counted against the rate, measured, parsed, then done;
        whatever goes wrong is answered with an error frame and the socket goes on."""
        allowed = self.bucket.take()
        frame = read_frame(text_data, bytes_data)
        if await self.refuse_frame(frame, allowed=allowed):
            return
        try:
            await self.on_message(message_of(frame))
        except Exception as exc:
            await self.answer_failure(frame.client_id, exc)

    async def refuse_frame(self, frame: Frame, *, allowed: bool) -> bool:
        """Refuse a frame over the rate (answered under its id, when it has one) or over the
        size (never parsed, so no id): whether it was refused."""
        if not allowed:
            await self.send_error(
                frame.client_id, "rate_limited", gettext("too many messages: slow down")
            )
            return True
        if frame.size > MAX_MESSAGE_BYTES:
            await self.send_error(
                None,
                "too_large",
                gettext("a message is at most %(size)s bytes") % {"size": MAX_MESSAGE_BYTES},
            )
            return True
        return False

    async def on_message(self, message: dict[str, Any]) -> None:
        """Do what a message asks, by its ``type``."""
        kind = message.get("type")
        if kind in ("action", "referee") and self.read_only:
            await self.send_error(
                message.get("id"),
                "token_scope",
                gettext("this token may only watch: make a token with the write scope to play"),
            )
            return
        if kind == "action":
            await self.on_action(message)
        elif kind == "sync":
            await self.send_current()
        elif kind == "referee":
            await self.on_referee(message)
        else:
            raise BadRequest(
                gettext("unknown message type '%(type)s' (action, sync, referee)") % {"type": kind}
            )

    async def answer_failure(self, client_id: ClientId, exc: Exception) -> None:
        """A message that failed, answered with the error frame of its kind (``exc``)."""
        if isinstance(exc, BadRequest):
            await self.send_error(client_id, "bad_request", str(exc))
        elif isinstance(exc, ServiceError):
            await self.send_error(client_id, exc.code, exc.message)
            if exc.code == "stale_version":
                await self.send_current()
        elif isinstance(exc, DATABASE_DOWN):
            # Nothing was done (the transaction did not commit, or the action is in the log
            # under its client id): the same message sent again is safe, and works once the
            # database is back.
            log.warning("table %s: the database is unavailable (%s)", self.table_id, exc)
            unavailable = Unavailable()
            await self.send_error(client_id, unavailable.code, unavailable.message)
        else:
            log.error("table %s: a message failed", self.table_id, exc_info=exc)
            await self.send_error(
                client_id, "internal", gettext("the server could not handle that")
            )

    async def on_action(self, message: dict[str, Any]) -> None:
        client_id, version, action = (message.get(k) for k in ("id", "version", "action"))
        game_id = message.get("game")
        if not isinstance(client_id, str) or not 0 < len(client_id) <= MAX_CLIENT_ID:
            raise BadRequest(
                gettext("id: a string of 1-%(max)s characters") % {"max": MAX_CLIENT_ID}
            )
        if type(version) is not int:
            raise BadRequest(gettext("version: the game version the action was chosen at"))
        if game_id is not None and type(game_id) is not int:
            raise BadRequest(gettext("game: the id of the game the action is for"))
        if not isinstance(action, dict):
            raise BadRequest(gettext("action: an object such as {'type': 'take'}"))
        if "seat" in action:
            raise BadRequest(gettext("action: no 'seat' (the seat is the connection's)"))
        if self.access.role != PLAYER:
            await self.send_error(
                client_id, "not_seated", gettext("spectators and referees cannot play")
            )
            return
        started = time.perf_counter()
        ambiguous = False
        try:
            applied = await live.table_act_on_loop(
                self.latest,
                player_id=self.access.player_id,
                user_id=getattr(person(self.user), "pk", None),
                action=action,
                version=version,
                client_id=client_id,
                game_id=game_id,
            )
        except (psycopg.Error, OSError, TimeoutError) as exc:
            # Sent, perhaps committed: the locked path finds it by its client id if it was.
            log.info(
                "table %s: the action on the loop failed (%s); taking the locked path",
                self.table_id,
                exc,
            )
            applied, ambiguous = None, True
        if applied is not None:
            await self.publish([(table_group(self.table_id), applied.message)], started)
            await self.send_ack(client_id, applied.game_id, applied.version, duplicate=False)
            if applied.jobs:
                # After the ack: a publish to the broker, or (eager) the job run in-process, on a
                # database thread that closes what the job opened.
                await db_async(jobs.dispatch_all)(applied.jobs)
            return
        outcome, error, pending = await db_async(_table_act)(
            table_id=self.table_id,
            user=self.user,
            player_id=self.access.player_id,
            action=action,
            version=version,
            client_id=client_id,
            game_id=game_id,
        )
        if ambiguous and outcome is not None and outcome.duplicate:
            # Written on the loop after all, and never broadcast: the table gets it now.
            pending.append((table_group(self.table_id), game_message(outcome.game)))
        await self.publish(pending, started)
        if error is not None:
            raise error
        await self.send_ack(
            client_id, outcome.game.pk, outcome.game.version, duplicate=outcome.duplicate
        )

    async def publish(self, pending: broadcast.Pending, started: float) -> None:
        """Send an action's broadcasts before its ack, as if on commit."""
        called = time.perf_counter()
        failed = await broadcast.send_collected(pending)
        for group, change in failed:
            # The channel layer is down: this socket still gets the state it brought about (the
            # others get it from the resender: ``games.broadcast``).
            if group == self.group:
                await self.deliver(change)
        if timing.ENABLED:
            timing.record("act.total", called - started)
            timing.record("act.broadcast", time.perf_counter() - called)

    async def send_ack(
        self, client_id: str, game_id: int, version: int, *, duplicate: bool
    ) -> None:
        await self.send_json(
            {
                "type": "ack",
                "id": client_id,
                "game": game_id,
                "version": version,
                "duplicate": duplicate,
            }
        )

    async def on_referee(self, message: dict[str, Any]) -> None:
        client_id = message.get("id")
        if self.access.role != REFEREE:
            await self.send_error(client_id, "forbidden", gettext("only a referee can do that"))
            return
        command, reason = message.get("command"), message.get("reason")
        if command not in services.REFEREE_COMMANDS:
            raise BadRequest(
                gettext("command: one of %(commands)s")
                % {"commands": ", ".join(services.REFEREE_COMMANDS)}
            )
        if not isinstance(reason, str):
            raise BadRequest(gettext("reason: every referee command needs one"))
        game = await db_async(services.table_referee)(
            table_id=self.table_id,
            referee=self.user,
            command=command,
            reason=reason,
            places=message.get("places"),
            fool=message.get("fool"),
        )
        await self.send_json(
            {"type": "ack", "id": client_id, "game": game.pk, "version": game.version}
        )
