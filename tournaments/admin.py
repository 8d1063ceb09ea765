"""The referee panel's tournament pages: browse and search everything; changes that have rules
(results, pairing, registration) go through services, so those rows are read-only here."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from tournaments import models


@admin.register(models.Player)
class PlayerAdmin(admin.ModelAdmin[models.Player]):
    list_display = ["display_name", "club", "city", "is_bot", "rating_mu", "rating_sigma"]
    list_filter = ["is_bot"]
    search_fields = ["display_name", "club", "city", "user__username"]
    raw_id_fields = ["user"]


@admin.register(models.League)
class LeagueAdmin(admin.ModelAdmin[models.League]):
    list_display = ["name", "season", "slug"]
    search_fields = ["name", "season"]


class StageInline(admin.TabularInline[models.Stage, models.Tournament]):
    model = models.Stage
    extra = 0
    can_delete = False
    readonly_fields = [f.name for f in models.Stage._meta.fields if f.name != "id"]

    def has_add_permission(
        self, request: HttpRequest, obj: models.Tournament | None = None
    ) -> bool:
        return False


@admin.register(models.Tournament)
class TournamentAdmin(admin.ModelAdmin[models.Tournament]):
    list_display = ["name", "status", "league", "team_size", "entry_fee", "currency", "created_at"]
    list_filter = ["status", "league"]
    search_fields = ["name", "slug"]
    readonly_fields = [
        "status",
        "rules",
        "started_at",
        "finished_at",
        "ranks_computed_at",
        "ratings_applied_at",
    ]
    inlines = [StageInline]


@admin.register(models.Entry)
class EntryAdmin(admin.ModelAdmin[models.Entry]):
    list_display = ["__str__", "tournament", "status", "paid", "final_place"]
    list_filter = ["status", "tournament"]
    search_fields = ["player__display_name", "team__name"]
    raw_id_fields = ["tournament", "player", "team"]
    readonly_fields = ["status", "final_place"]


@admin.register(models.Round)
class RoundAdmin(admin.ModelAdmin[models.Round]):
    list_display = ["__str__", "status", "paired_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in models.Round._meta.fields]


class SeatInline(admin.TabularInline[models.Seat, models.Table]):
    model = models.Seat
    extra = 0
    can_delete = False
    readonly_fields = ["position", "entry", "player"]

    def has_add_permission(self, request: HttpRequest, obj: models.Table | None = None) -> bool:
        return False


@admin.register(models.Table)
class TableAdmin(admin.ModelAdmin[models.Table]):
    list_display = ["__str__", "status", "score_group", "is_bye"]
    list_filter = ["status", "round__stage__tournament"]
    readonly_fields = [f.name for f in models.Table._meta.fields]
    inlines = [SeatInline]


@admin.register(models.TableResult)
class TableResultAdmin(admin.ModelAdmin[models.TableResult]):
    list_display = ["__str__", "source", "places", "reason", "created_at"]
    list_filter = ["source"]
    readonly_fields = [f.name for f in models.TableResult._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(models.RankRecord)
class RankRecordAdmin(admin.ModelAdmin[models.RankRecord]):
    list_display = ["player", "rank", "pogony_received", "pogony_given", "league", "tournament"]
    search_fields = ["player__display_name", "rank"]
    readonly_fields = [f.name for f in models.RankRecord._meta.fields]


@admin.register(models.Payout)
class PayoutAdmin(admin.ModelAdmin[models.Payout]):
    list_display = ["tournament", "place", "entry", "amount", "final"]
    list_filter = ["tournament"]
    readonly_fields = [f.name for f in models.Payout._meta.fields]
