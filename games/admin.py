"""The referee panel's game pages: the record, read-only (play goes through the live table)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from games import models


class ActionInline(admin.TabularInline[models.GameAction, models.Game]):
    model = models.GameAction
    extra = 0
    can_delete = False
    readonly_fields = ["seq", "seat", "action", "kind", "client_id", "user", "created_at"]

    def has_add_permission(self, request: HttpRequest, obj: models.Game | None = None) -> bool:
        return False


@admin.register(models.Game)
class GameAdmin(admin.ModelAdmin[models.Game]):
    list_display = ["__str__", "table", "number", "status", "version", "created_at"]
    list_filter = ["status"]
    # The seed is secret until the game ends: not shown here either.
    exclude = ["seed", "state"]
    readonly_fields = [f.name for f in models.Game._meta.fields if f.name not in ("seed", "state")]
    inlines = [ActionInline]


@admin.register(models.RefereeEvent)
class RefereeEventAdmin(admin.ModelAdmin[models.RefereeEvent]):
    list_display = ["game", "kind", "reason", "referee", "at_version", "created_at"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in models.RefereeEvent._meta.fields]
