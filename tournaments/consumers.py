"""The tournament feed's WebSocket: ``/ws/tournaments/<slug>/``.

Read-only. Anyone who may read the tournament (``visibility.tournaments_visible_to``: a public
event out of draft for everyone; a private one for its organiser, referees and players) gets
``{"type": "hello", "version": <current>}`` on connect, then every change as it commits
(``tournaments.services.feed``)::

    {"type": "event", "event": "table_finished", "tournament": "<slug>", "version": 43,
     "at": "...", "data": {...}}

Versions only grow, and each has its event in the tournament's log: a client that sees one skip
(or reconnects) reads the events it missed from ``GET /api/v1/tournaments/<slug>/events/?since=``.
A message older than what the socket has already sent is dropped.

Refusals at the handshake, as the live table's (``games.sockets``: accepted, one error frame,
then closed): 4401 credentials that match nobody, 4404 no such tournament or one the viewer may
not read (the same answer, as the API's 404); 4403 a foreign Origin. Whatever a client sends is
answered ``read_only`` without being parsed.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import translation
from django.utils.translation import gettext

from games.auth import refused_credentials
from games.sockets import CLOSE_NOT_FOUND, JsonFrames, refuse, scope_language
from tournaments.models import Tournament
from tournaments.notifications.sockets import feed_group
from tournaments.selectors import visibility


def _visible_id(slug: str, user: Any) -> int | None:
    """The id of the tournament ``slug`` if ``user`` may read it, else None."""
    found = visibility.tournaments_visible_to(user).filter(slug=slug)
    tournament_id = found.values_list("pk", flat=True).first()
    return None if tournament_id is None else int(tournament_id)


def _version(tournament_id: int) -> int:
    return int(Tournament.objects.values_list("version", flat=True).get(pk=tournament_id))


class TournamentFeedConsumer(JsonFrames, AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.group: str | None = None
        self.version = -1
        self.language = scope_language(self.scope)
        with translation.override(self.language):
            await self.admit()

    async def admit(self) -> None:
        if await refused_credentials(self):
            return
        slug = str(self.scope["url_route"]["kwargs"]["slug"])
        tournament_id = await database_sync_to_async(_visible_id)(slug, self.scope.get("user"))
        if tournament_id is None:
            message = gettext("there is no tournament %(slug)s") % {"slug": slug[:100]}
            await refuse(self, close_code=CLOSE_NOT_FOUND, code="not_found", message=message)
            return
        # Join first, then read the version: a change committed in between is either in the
        # hello's version or arrives as a message (dropped if the hello already covers it).
        self.group = feed_group(tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.version = await database_sync_to_async(_version)(tournament_id)
        await self.send_json({"type": "hello", "version": self.version})

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def tournament_event(self, message: dict[str, Any]) -> None:
        """Group message from ``tournaments.notifications.sockets`` (a change announced by
        ``tournaments.services.feed``)."""
        event = message["message"]
        if event["version"] <= self.version:
            return
        self.version = event["version"]
        await self.send_json({"type": "event", **event})

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        """Any frame at all, JSON or not: the feed takes nothing from its clients (so it never
        parses what they send)."""
        if self.group is None:
            return  # a refused handshake, closing
        with translation.override(self.language):
            message = gettext("this feed only sends")
        await self.send_json({"type": "error", "id": None, "code": "read_only", "message": message})
