"""The tournament feed's WebSocket: ``/ws/tournaments/<slug>/``.

Read-only. Anyone who may read the tournament (``selectors.tournaments_visible_to``: a public
event out of draft for everyone; a private one for its organiser, referees and players) gets
``{"type": "hello", "version": <current>}`` on connect, then every change as it commits
(``tournaments.services.feed``)::

    {"type": "event", "event": "table_finished", "tournament": "<slug>", "version": 43,
     "at": "...", "data": {...}}

Versions only grow; a client that sees one skip (or reconnects) reads the REST endpoints again.
A message older than what the socket has already sent is dropped.

Close codes at the handshake, as the live table's: 4401 bad token, 4403 a tournament the
viewer may not read, 4404 no such tournament.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext

from tournaments import selectors
from tournaments.models import Tournament
from tournaments.services.feed import feed_group


def _access(slug: str, user: Any) -> tuple[int | None, int]:
    """(the tournament's id, 0) if ``user`` may read the tournament ``slug``, else (None, the
    close code: 4404 none, 4403 not for this user)."""
    found = selectors.tournaments_visible_to(user).filter(slug=slug)
    tournament_id = found.values_list("pk", flat=True).first()
    if tournament_id is not None:
        return int(tournament_id), 0
    return None, 4403 if Tournament.objects.filter(slug=slug).exists() else 4404


def _version(tournament_id: int) -> int:
    return int(Tournament.objects.values_list("version", flat=True).get(pk=tournament_id))


class TournamentFeedConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.group: str | None = None
        self.version = -1
        if self.scope.get("auth_error"):
            await self.close(code=4401)
            return
        slug = str(self.scope["url_route"]["kwargs"]["slug"])
        tournament_id, refusal = await database_sync_to_async(_access)(slug, self.scope.get("user"))
        if tournament_id is None:
            await self.close(code=refusal)
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
        """Group message from ``tournaments.services.feed``."""
        event = message["message"]
        if event["version"] <= self.version:
            return
        self.version = event["version"]
        await self.send_json({"type": "event", **event})

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        await self.send_json(
            {"type": "error", "code": "read_only", "message": gettext("this feed only sends")}
        )
