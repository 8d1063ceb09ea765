"""The console's game pages: the record, read-only (play goes through the live table, rulings
through the referee services).

These are the pages' fields and columns only; ``tournaments.admin`` registers them, scoped to
the tournaments each console user sees: ``games`` never imports ``tournaments`` (the import
contract), so it cannot say whose a game is. Players are shown by name, asked of the seating
layer (``games.hooks``); a game's seed is never shown here, not even after the game (the
fairness page reveals it when it is over).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from games import hooks
from games.models import Game, GameAction, RefereeEvent


class GameActionInline(admin.TabularInline[GameAction, Game]):
    model = GameAction
    extra = 0
    max_num = 0
    can_delete = False
    fields = readonly_fields = ("seq", "seat", "action", "kind", "client_id", "user", "created_at")

    # Shown on the game's page, whose admin has checked that its user may see the game.
    def has_view_permission(  # type: ignore[override]
        self, request: HttpRequest, obj: Game | None = None
    ) -> bool:
        return True

    def has_add_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False

    def has_change_permission(  # type: ignore[override]
        self, request: HttpRequest, obj: Game | None = None
    ) -> bool:
        return False

    def has_delete_permission(  # type: ignore[override]
        self, request: HttpRequest, obj: Game | None = None
    ) -> bool:
        return False


class GameChangeList(ChangeList):
    """The page's games with all their players' names, asked for once."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        games = list(self.result_list)
        names = hooks.tables().player_names({pid for g in games for pid in g.players if pid})
        for game in games:
            game.names = names


class GameRecordAdmin(admin.ModelAdmin[Game]):
    list_display = ["__str__", "table", "number", "status", "player_names", "version", "created_at"]
    list_filter = ["status"]
    list_select_related = ["table__round__stage"]
    # The seed is secret until the game ends and the state holds every hand: neither is shown;
    # the players are shown by name.
    exclude = ["seed", "state", "players"]
    readonly_fields = [
        "player_names" if f.name == "players" else f.name
        for f in Game._meta.fields
        if f.name not in ("seed", "state")
    ]
    inlines = [GameActionInline]

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return GameChangeList

    @admin.display(description=_("Players"))
    def player_names(self, obj: Game) -> str:
        """The players by seat, by name (``Game.players`` holds Player ids)."""
        names = getattr(obj, "names", None)
        if names is None:
            names = hooks.tables().player_names(p for p in obj.players if p)
        return ", ".join(names.get(pid, f"#{pid}") for pid in obj.players)


class RefereeEventRecordAdmin(admin.ModelAdmin[RefereeEvent]):
    list_display = ["created_at", "game", "kind", "reason", "referee", "at_version"]
    list_filter = ["kind"]
    list_select_related = ["game", "referee"]
    search_fields = ["reason", "referee__username"]
    readonly_fields = [f.name for f in RefereeEvent._meta.fields]
