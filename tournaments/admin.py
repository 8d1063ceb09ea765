"""The console: the admin pages of organisers and referees.

Every page is scoped to the events its user may see and checks each object with
``tournaments.permissions`` (``console.admin_base.ConsoleAdmin``); every change goes through a
service, and an admin action runs one service per object and records it in the audit log
(``console.admin_actions``); nothing is deleted here (an event is cancelled, an entry withdrawn,
a result corrected by a new one).

This module has the pages that change something: players, teams (``console.teams``) and leagues
(added and changed through their services), tournaments (created on the plan page,
``console.plan``; settings and referees changed through ``tournament_update`` and
``tournament_set_referees``; their progress, ``console.progress``) and entries (registered on
``console.registration``'s page). The records of an event (rounds, tables, results, money,
ranks, the audit log, games and rulings) are view-only: ``console.records``, with the pages
that act on them: a table's result (``console.results``), a round's seat swap
(``console.seats``). The games app's pages are registered here too, scoped like the rest:
``games`` cannot ask whose a game is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from durak_site.errors import ServiceError
from games.actors import Actor
from games.models import Game, RefereeEvent
from tournaments import models
from tournaments.console import records, teams, webhooks
from tournaments.console.admin_actions import (
    cancel,
    check_in,
    close_registration,
    disqualify,
    open_registration,
    pair_next_round,
    play_to_end,
    reenter,
    start,
    withdraw,
)
from tournaments.console.admin_base import (
    ConsoleAdmin,
    ReadOnlyInline,
    adopt,
    all_fields,
    choosing,
)
from tournaments.console.dashboard import tournament_dashboard_view
from tournaments.console.fairplay import (
    league_fairplay_view,
    pair_fairplay_view,
    tournament_fairplay_view,
)
from tournaments.console.filters import DistinctRelatedFilter
from tournaments.console.live import live_tables_view
from tournaments.console.plan import tournament_add_view
from tournaments.console.progress import (
    AwardsStateFilter,
    awards_state_label,
    league_table_view,
    tournament_progress_view,
    tournament_recompute_view,
)
from tournaments.console.registration import (
    entry_register_view,
    open_for_registration,
    registration_closed,
    tournament_import_players_view,
)
from tournaments.console.staff import staff_view, tournament_referees_view
from tournaments.console.tournament_change import TournamentChangeForm, locked_for
from tournaments.form_errors import form_error
from tournaments.models import AuditEvent, Entry, League, Round, Tournament
from tournaments.permissions import (
    REFEREE,
    can_change_player,
    can_manage,
    can_manage_league,
    can_referee,
    is_console_user,
    is_organiser,
    is_superuser,
    players_for,
)
from tournaments.selectors import with_awards_state
from tournaments.selectors.visibility import leagues_managed_by, tournaments_managed_by
from tournaments.services.leagues import (
    LEAGUE_SETTINGS,
    league_create,
    league_update,
    validate_league,
)
from tournaments.services.people import player_create, player_update
from tournaments.services.plans import tournament_set_referees, tournament_update

OVER = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
PLAYER_FIELDS = ("display_name", "club", "city", "user")

# --- people and leagues ------------------------------------------------------------------------


@admin.register(models.Player)
class PlayerAdmin(ConsoleAdmin[models.Player]):
    """The players of its user's events, those it added and its own
    (``permissions.players_for``; any other is a 404); organisers add them (``player_create``)
    and change those of their own events only (``player_update``, audited,
    ``permissions.can_change_player``). Which account plays as a player is shown read-only but
    to a superuser; a bot never gets one. A form's search for a player to register or to team
    up (the autocomplete) finds every player: names are public, their pages are not."""

    list_display = ["display_name", "club", "city", "is_bot", "rating_mu", "rating_sigma"]
    list_filter = ["is_bot"]
    search_fields = ["display_name", "club", "city", "user__username"]
    raw_id_fields = ["user"]
    fields = PLAYER_FIELDS
    readonly_after = ("is_bot", "bot_kind", "rating_mu", "rating_sigma", "created_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[models.Player]:
        if choosing(request) and is_console_user(request.user):
            return admin.ModelAdmin.get_queryset(self, request)
        return super().get_queryset(request)

    def get_search_fields(self, request: HttpRequest) -> list[str]:
        if choosing(request) and not is_superuser(request.user):
            # Whoever chooses a player finds it by its name, not by who logs in as it.
            return ["display_name", "club", "city"]
        return list(self.search_fields)

    def scope(self, user: Actor, queryset: QuerySet[models.Player]) -> QuerySet[models.Player]:
        return queryset.filter(pk__in=players_for(user))

    def may_view(self, user: Actor, obj: models.Player) -> bool:
        return players_for(user).filter(pk=obj.pk).exists()

    def get_fields(self, request: HttpRequest, obj: models.Player | None = None) -> tuple[str, ...]:
        return PLAYER_FIELDS if obj is None else (*PLAYER_FIELDS, *self.readonly_after)

    def get_readonly_fields(
        self, request: HttpRequest, obj: models.Player | None = None
    ) -> tuple[str, ...]:
        if obj is None:
            return ()
        if obj.is_bot or not is_superuser(request.user):
            return ("user", *self.readonly_after)
        return self.readonly_after

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_organiser(request.user) and self.model_permission(request, "add")

    def has_change_permission(self, request: HttpRequest, obj: models.Player | None = None) -> bool:
        if not self.model_permission(request, "change"):
            return False
        if obj is None:
            return is_organiser(request.user)
        return can_change_player(request.user, obj)

    def save_model(self, request: HttpRequest, obj: models.Player, form: Any, change: Any) -> None:
        data = form.cleaned_data
        if change:
            changes = {name: data[name] for name in form.changed_data if name in PLAYER_FIELDS}
            if changes:
                adopt(obj, player_update(player=obj, actor=request.user, **changes))
            return
        adopt(
            obj,
            player_create(
                display_name=data["display_name"],
                club=data.get("club", ""),
                city=data.get("city", ""),
                user=data.get("user"),
                actor=request.user,
            ),
        )


class LeagueForm(forms.ModelForm[League]):
    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name in ("points_scale", "rank_ladder"):  # an emptied box is an empty list
            if name in cleaned and cleaned[name] is None:
                cleaned[name] = []
        changes = {
            name: cleaned[name]
            for name in LEAGUE_SETTINGS
            if name in cleaned and name in self.fields
        }
        if changes and not self.errors:
            try:
                validate_league(changes)
            except ServiceError as exc:
                form_error(self, exc)
        return cleaned


@admin.register(League)
class LeagueAdmin(ConsoleAdmin[League]):
    """Leagues: organisers add theirs and change them (``league_create``, ``league_update``)."""

    form = LeagueForm
    list_display = ["name", "season", "slug", "created_by", "tournament_names"]
    list_select_related = ["created_by"]
    search_fields = ["name", "season"]
    readonly_after = ("slug", "created_by", "created_at", "tournament_names")

    def scope(self, user: Actor, queryset: QuerySet[League]) -> QuerySet[League]:
        return queryset.filter(pk__in=leagues_managed_by(user))

    def may_view(self, user: Actor, obj: League) -> bool:
        return leagues_managed_by(user).filter(pk=obj.pk).exists()

    def get_queryset(self, request: HttpRequest) -> QuerySet[League]:
        visible = tournaments_managed_by(request.user).order_by("-created_at")
        return (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("tournaments", visible, to_attr="visible_tournaments"))
        )

    def get_fields(self, request: HttpRequest, obj: League | None = None) -> tuple[str, ...]:
        return LEAGUE_SETTINGS if obj is None else (*LEAGUE_SETTINGS, *self.readonly_after)

    def get_readonly_fields(
        self, request: HttpRequest, obj: League | None = None
    ) -> tuple[str, ...]:
        return () if obj is None else self.readonly_after

    @admin.display(description=_("Tournaments"))
    def tournament_names(self, obj: League) -> str:
        return ", ".join(str(t) for t in getattr(obj, "visible_tournaments", [])) or "—"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_organiser(request.user) and self.model_permission(request, "add")

    def has_change_permission(self, request: HttpRequest, obj: League | None = None) -> bool:
        if not self.model_permission(request, "change"):
            return False
        return obj is None or can_manage_league(request.user, obj)

    def get_urls(self) -> list[URLPattern]:
        @require_safe  # a page to read: a POST is a 405, not the page again
        def table(request: HttpRequest, object_id: str) -> HttpResponse:
            return league_table_view(self, request, object_id)

        @require_safe
        def fairplay(request: HttpRequest, object_id: str) -> HttpResponse:
            return league_fairplay_view(self, request, object_id)

        return [
            path(
                "<path:object_id>/table/",
                self.admin_site.admin_view(table),
                name=f"{self.opts.app_label}_{self.opts.model_name}_table",
            ),
            path(
                "<path:object_id>/fairplay/",
                self.admin_site.admin_view(fairplay),
                name=f"{self.opts.app_label}_{self.opts.model_name}_fairplay",
            ),
            *super().get_urls(),
        ]

    def save_model(self, request: HttpRequest, obj: League, form: Any, change: Any) -> None:
        data = form.cleaned_data
        if not change:
            adopt(obj, league_create(actor=request.user, **{k: data[k] for k in LEAGUE_SETTINGS}))
            return
        changes = {name: data[name] for name in form.changed_data if name in LEAGUE_SETTINGS}
        if changes:
            league_update(league=League.objects.get(pk=obj.pk), actor=request.user, **changes)


# --- tournaments -----------------------------------------------------------------------------


class StageInline(ReadOnlyInline[models.Stage, Tournament]):
    # One stage a block, its settings one under another: a row of all of them is wider than
    # any screen (the change page was 1,600 px wide on a desktop).
    template = "admin/edit_inline/stacked.html"
    model = models.Stage
    fields = readonly_fields = tuple(all_fields(models.Stage, but=("id", "tournament")))


@admin.register(Tournament)
class TournamentAdmin(ConsoleAdmin[Tournament]):
    """An organiser's events: created on the plan page (``console.plan``); changed on the same
    forms (``console.tournament_change``: each setting while its status allows), its referees
    until it ends; the rest by actions."""

    form = TournamentChangeForm
    list_display = [
        "dashboard_link",
        "status",
        "league",
        "team_size",
        "entry_fee",
        "currency",
        "created_by",
        "created_at",
        "awards",
    ]
    # The name opens the event's dashboard, its console home (whose "Settings" opens this
    # admin's change page).
    list_display_links = None
    list_filter = ["status", AwardsStateFilter, ("league", DistinctRelatedFilter)]
    list_select_related = ["league", "created_by"]
    search_fields = ["name", "slug"]
    filter_horizontal = ["referees"]
    money_fields = {"entry_fee": "currency", "reentry_fee": "currency", "guarantee": "currency"}
    inlines = [StageInline]
    actions = [open_registration, close_registration, start, cancel, pair_next_round, play_to_end]
    # The settings and the rules are the plan's forms (``TournamentChangeForm.plan``), shown
    # after the first of these; the referees and the record after them.
    fieldsets = [
        (None, {"fields": ["slug", "status", "created_by"]}),
        (_("Referees of the tournament"), {"fields": ["referees"]}),
        (
            _("Record"),
            {
                "fields": [
                    "created_at",
                    "started_at",
                    "finished_at",
                    "ranks_computed_at",
                    "ratings_applied_at",
                ]
            },
        ),
    ]

    def scope(self, user: Actor, queryset: QuerySet[Tournament]) -> QuerySet[Tournament]:
        return queryset.filter(pk__in=tournaments_managed_by(user))

    def tournament_of(self, obj: Tournament) -> Tournament:
        return obj

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        return with_awards_state(super().get_queryset(request))

    @admin.display(description=_("name"), ordering="name")
    def dashboard_link(self, obj: Tournament) -> str:
        url = reverse("admin:tournaments_tournament_dashboard", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, obj.name)

    @admin.display(description=_("Awards"), ordering="awards_state")
    def awards(self, obj: Tournament) -> str:
        """A finished event's places, prize pool, ranks and ratings: failed, missing or
        complete (``selectors.with_awards_state``); empty before the end."""
        return awards_state_label(getattr(obj, "awards_state", ""))

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None) -> list[str]:
        shown = flatten_fieldsets(self.fieldsets)
        if obj is None or obj.status in OVER:
            return self.as_money(shown)
        return self.as_money([name for name in shown if name != "referees"])

    def get_form(
        self,
        request: HttpRequest,
        obj: Tournament | None = None,
        change: bool = False,
        **kwargs: Any,
    ) -> type[forms.ModelForm[Tournament]]:
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None:
            return form
        # Its manager is told why a setting is locked (an event over: each setting's reason);
        # anyone else that the settings are the organiser's.
        locked = locked_for(obj, may_change=can_manage(request.user, obj))
        return form.for_request(  # type: ignore[attr-defined,no-any-return]
            user=request.user, locked=locked, model_admin=self
        )

    def formfield_for_manytomany(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelMultipleChoiceField[Any] | None:
        if db_field.name == "referees":
            kwargs["queryset"] = (
                get_user_model()
                .objects.filter(groups__name=REFEREE, is_active=True)
                .distinct()
                .order_by("username")
            )
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_organiser(request.user) and self.model_permission(request, "add")

    def has_change_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        if not self.model_permission(request, "change"):
            return False
        return obj is None or (can_manage(request.user, obj) and obj.status not in OVER)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        return tournament_add_view(self, request)

    def get_urls(self) -> list[URLPattern]:
        def import_players(request: HttpRequest, object_id: str) -> HttpResponse:
            return tournament_import_players_view(self, request, object_id)

        # Pages to read: a POST is a 405, not the page again.
        @require_safe
        def live_tables(request: HttpRequest) -> HttpResponse:
            return live_tables_view(self, request)

        @require_safe
        def progress(request: HttpRequest, object_id: str) -> HttpResponse:
            return tournament_progress_view(self, request, object_id)

        @require_http_methods(["GET", "HEAD", "POST"])
        def dashboard(request: HttpRequest, object_id: str) -> HttpResponse:
            return tournament_dashboard_view(self, request, object_id)

        @require_POST
        def recompute(request: HttpRequest, object_id: str) -> HttpResponse:
            return tournament_recompute_view(self, request, object_id)

        @require_safe
        def fairplay(request: HttpRequest, object_id: str) -> HttpResponse:
            return tournament_fairplay_view(self, request, object_id)

        @require_http_methods(["GET", "HEAD", "POST"])
        def fairplay_pair(request: HttpRequest, object_id: str, pair_id: int) -> HttpResponse:
            return pair_fairplay_view(self, request, object_id, pair_id)

        def staff(request: HttpRequest) -> HttpResponse:
            return staff_view(self, request)

        def referees(request: HttpRequest, object_id: str) -> HttpResponse:
            return tournament_referees_view(self, request, object_id)

        def page(route: str, view: Callable[..., HttpResponse], name: str) -> URLPattern:
            return path(
                route,
                self.admin_site.admin_view(view),
                name=f"{self.opts.app_label}_{self.opts.model_name}_{name}",
            )

        return [
            page("live-tables/", live_tables, "live_tables"),
            page("<path:object_id>/dashboard/", dashboard, "dashboard"),
            page("<path:object_id>/progress/", progress, "progress"),
            page("<path:object_id>/progress/recompute/", recompute, "recompute"),
            page("<path:object_id>/import-players/", import_players, "import_players"),
            page("staff/", staff, "staff"),
            page("<path:object_id>/referees/", referees, "referees"),
            page("<path:object_id>/fairplay/", fairplay, "fairplay"),
            page("<path:object_id>/fairplay/pairs/<int:pair_id>/", fairplay_pair, "fairplay_pair"),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # The "Import players from CSV" button, for an event its user manages that takes entries.
        managed = open_for_registration(request.user)
        tournament = managed.filter(pk=int(object_id)).first() if object_id.isdigit() else None
        importable = tournament is not None and registration_closed(tournament) is None
        shown = (
            Tournament.objects.filter(pk=int(object_id)).first() if object_id.isdigit() else None
        )
        extra = {
            **(extra_context or {}),
            "can_import": importable,
            "can_manage_referees": shown is not None and can_manage(request.user, shown),
            "can_review_fairplay": shown is not None and can_referee(request.user, shown),
        }
        return super().change_view(request, object_id, form_url, extra)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        extra = {**(extra_context or {}), "can_manage_referees": is_organiser(request.user)}
        return super().changelist_view(request, extra)

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: Any) -> None:
        if not change:
            raise PermissionDenied  # created on the plan page (add_view)
        current = Tournament.objects.get(pk=obj.pk)
        changes = form.changes()
        if changes:
            current = tournament_update(tournament=current, actor=request.user, **changes)
        if "referees" in form.changed_data:
            tournament_set_referees(
                tournament=current, actor=request.user, referees=form.cleaned_data["referees"]
            )


@admin.register(Entry)
class EntryAdmin(ConsoleAdmin[Entry]):
    """Entries: registered on the add page (``entry_register``), then changed by actions."""

    list_display = ["__str__", "tournament", "status", "status_reason", "paid", "final_place"]
    list_filter = ["status", ("tournament", DistinctRelatedFilter)]
    list_select_related = ["tournament", "player", "team"]
    search_fields = ["player__display_name", "team__name"]
    readonly_fields = all_fields(Entry)
    actions = [check_in, withdraw, disqualify, reenter]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_organiser(request.user) and self.model_permission(request, "add")

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        return entry_register_view(self, request)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # "Import players from CSV" for each event its user manages that takes entries (only
        # the one the list is filtered by, if it is).
        importable = open_for_registration(request.user).order_by("-created_at")
        shown = request.GET.get("tournament__id__exact", "")
        if shown.isdigit():
            importable = importable.filter(pk=int(shown))
        extra = {**(extra_context or {}), "import_tournaments": list(importable[:5])}
        return super().changelist_view(request, extra)


# --- the records of an event: view-only ---------------------------------------------------------

admin.site.register(Round, records.RoundAdmin)
admin.site.register(models.Table, records.TableAdmin)
admin.site.register(models.TableResult, records.TableResultAdmin)
admin.site.register(models.Payout, records.PayoutAdmin)
admin.site.register(models.PrizePool, records.PrizePoolAdmin)
admin.site.register(models.RankRecord, records.RankRecordAdmin)
admin.site.register(models.RatingChange, records.RatingChangeAdmin)
admin.site.register(AuditEvent, records.AuditEventAdmin)
admin.site.register(Game, records.GameAdmin)
admin.site.register(RefereeEvent, records.RefereeEventAdmin)

# --- teams (their own module) -------------------------------------------------------------------

admin.site.register(models.Team, teams.TeamAdmin)

# --- webhooks and their delivery log (their own module) -----------------------------------------

admin.site.register(models.Webhook, webhooks.WebhookAdmin)
admin.site.register(models.WebhookDelivery, webhooks.WebhookDeliveryAdmin)
