"""The console's pages of an event's records: rounds, tables, results, money, ranks, ratings,
the audit log, and the games app's games and rulings. All view-only (``ConsoleAdmin``'s
default): they are written by the services of play, pairing and awards, never here. Players and
entries are shown by name. ``tournaments.admin`` registers them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.actors import Actor
from games.admin import GameRecordAdmin, RefereeEventRecordAdmin
from games.models import Game, RefereeEvent
from tournaments import models, selectors
from tournaments.console.admin_actions import (
    hand_round_to_bots,
    hand_table_to_bots,
    request_pairing,
)
from tournaments.console.admin_base import ConsoleAdmin, ReadOnlyInline, all_fields, worded
from tournaments.console.filters import DistinctRelatedFilter
from tournaments.console.grid import round_results_grid_view
from tournaments.console.paper import round_pairings_view, round_projector_view, round_slips_view
from tournaments.console.results import table_result_view
from tournaments.console.seats import round_swap_view
from tournaments.models import AuditEvent, Round, Tournament
from tournaments.permissions import can_manage_league, can_view, managed_leagues
from tournaments.selectors import entry_names
from tournaments.selectors.audit import audit_change_rows
from tournaments.selectors.events import explanation as round_explanation
from tournaments.selectors.visibility import leagues_managed_by, tournaments_managed_by
from tournaments.wording import explanation_words

SUMMARY_CHARS = 120  # the audit list's "what changed" column


# --- rounds, tables, results --------------------------------------------------------------------


ObjectView = Callable[[Any, HttpRequest, str], HttpResponse]


def _object_url(model_admin: ConsoleAdmin[Any], name: str, view: ObjectView) -> URLPattern:
    """A console page of one object of ``model_admin``'s model at ``<id>/<name>/``."""

    def page(request: HttpRequest, object_id: str) -> HttpResponse:
        return view(model_admin, request, object_id)

    opts = model_admin.opts
    return path(
        f"<path:object_id>/{name}/",
        model_admin.admin_site.admin_view(page),
        name=f"{opts.app_label}_{opts.model_name}_{name.replace('-', '_')}",
    )


class RoundAdmin(ConsoleAdmin[Round]):
    tournament_path = "stage__tournament"
    list_display = ["__str__", "tournament", "status", "paired_at", "finished_at", "swap_link"]
    list_filter = ["status", ("stage__tournament", DistinctRelatedFilter)]
    list_select_related = ["stage__tournament"]
    # the pairing's explanation in words, as the public pages give it, not its JSON
    fields = readonly_fields = tuple(
        "explanation_in_words" if name == "explanation" else name for name in all_fields(Round)
    )
    actions = [request_pairing, hand_round_to_bots]

    @admin.display(description=_("pairing explanation"))
    def explanation_in_words(self, obj: Round) -> SafeString | str:
        lines = explanation_words(round_explanation(obj))
        if not lines:
            return "—"
        return format_html(
            "<dl>{}</dl>",
            format_html_join(
                "",
                "<dt>{}</dt><dd>{}</dd>",
                ((label, "; ".join(values)) for label, values in lines),
            ),
        )

    @admin.display(description=_("Tournament"))
    def tournament(self, obj: Round) -> Tournament:
        return obj.stage.tournament

    @admin.display(description=_("Seats"))
    def swap_link(self, obj: Round) -> str:
        if obj.status != Round.Status.PLAYING:
            return "—"
        url = reverse("admin:tournaments_round_swap_seats", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("Swap seats"))

    object_pages = ("swap_seats", "pairings", "slips", "projector", "results")

    def get_urls(self) -> list[URLPattern]:
        return [
            _object_url(self, "swap-seats", round_swap_view),
            _object_url(self, "pairings", round_pairings_view),
            _object_url(self, "slips", round_slips_view),
            _object_url(self, "projector", round_projector_view),
            _object_url(self, "results", round_results_grid_view),
            *super().get_urls(),
        ]


class SeatInline(ReadOnlyInline[models.Seat, models.Table]):
    model = models.Seat
    fields = readonly_fields = ("position", "entry", "player")


class TableAdmin(ConsoleAdmin[models.Table]):
    tournament_path = "round__stage__tournament"
    list_display = ["__str__", "status", "seated", "score_group", "is_bye", "result_link"]
    list_filter = ["status", ("round__stage__tournament", DistinctRelatedFilter)]
    list_select_related = ["round__stage"]
    readonly_fields = ["seated", *all_fields(models.Table)]
    inlines = [SeatInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[models.Table]:
        return super().get_queryset(request).prefetch_related("seats__player")

    actions = [hand_table_to_bots]

    @admin.display(description=_("Seated"))
    def seated(self, obj: models.Table) -> str:
        return ", ".join(seat.player.display_name for seat in obj.seats.all())

    @admin.display(description=_("Result"))
    def result_link(self, obj: models.Table) -> str:
        if obj.is_bye:
            return "—"
        url = reverse("admin:tournaments_table_result", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("Result"))

    object_pages = ("result",)

    def get_urls(self) -> list[URLPattern]:
        return [_object_url(self, "result", table_result_view), *super().get_urls()]


class ResultChangeList(ChangeList):
    """The page's results with the names of all their entries, read in one query."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        results = list(self.result_list)
        names = entry_names(i for r in results for i in selectors.result_entry_ids(r))
        for result in results:
            result.entry_names = names


class TableResultAdmin(ConsoleAdmin[models.TableResult]):
    """Results are rows, never edits: a correction is a new result with a reason."""

    tournament_path = "table__round__stage__tournament"
    list_display = [
        "__str__",
        "table",
        "places_named",
        "fool_named",
        "status",
        "source",
        "reason",
        "entered_by",
        "reviewed_by",
        "created_at",
    ]
    list_filter = [
        "status",
        "source",
        ("table__round__stage__tournament", DistinctRelatedFilter),
    ]
    list_select_related = ["table__round__stage", "entered_by", "reviewed_by"]
    search_fields = ["reason"]
    fields = readonly_fields = (
        "table",
        "places_named",
        "fool_named",
        "drawn_named",
        "pogony_named",
        "team_lost_named",
        "games",
        "status",
        "source",
        "reason",
        "entered_by",
        "reviewed_by",
        "reviewed_at",
        "review_note",
        "supersedes",
        "repairs",
        "created_at",
    )

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return worded(ResultChangeList)

    def _named(self, result: models.TableResult) -> selectors.NamedResult:
        names = getattr(result, "entry_names", None)
        if names is None:
            names = entry_names(selectors.result_entry_ids(result))
        return selectors.named_result(result, names)

    @admin.display(description=_("Places (first out first)"))
    def places_named(self, obj: models.TableResult) -> str:
        places = self._named(obj).places
        return ", ".join(f"{n}. {name}" for n, name in enumerate(places, 1))

    @admin.display(description=_("Fool"))
    def fool_named(self, obj: models.TableResult) -> str:
        return self._named(obj).fool or "—"

    @admin.display(description=_("Drawn"))
    def drawn_named(self, obj: models.TableResult) -> str:
        return ", ".join(self._named(obj).drawn) or "—"

    @admin.display(description=_("Losing team"))
    def team_lost_named(self, obj: models.TableResult) -> str:
        return ", ".join(self._named(obj).team_lost) or "—"

    @admin.display(description=_("Pogony"))
    def pogony_named(self, obj: models.TableResult) -> str:
        return "; ".join(self._named(obj).pogony) or "—"


# --- money, ranks, ratings ------------------------------------------------------------------------


class PayoutAdmin(ConsoleAdmin[models.Payout]):
    list_display = ["tournament", "place", "entry", "amount", "final", "computed_at"]
    list_filter = ["final", ("tournament", DistinctRelatedFilter)]
    list_select_related = ["tournament", "entry__player", "entry__team"]
    readonly_fields = all_fields(models.Payout)
    money_fields = {"amount": "tournament__currency"}


class PrizePoolAdmin(ConsoleAdmin[models.PrizePool]):
    list_display = ["tournament", "total", "currency", "gross", "rake", "paid_entries", "final"]
    list_filter = ["final"]
    list_select_related = ["tournament"]
    readonly_fields = all_fields(models.PrizePool)
    money_fields = {"gross": "currency", "rake": "currency", "total": "currency"}


class RankRecordAdmin(ConsoleAdmin[models.RankRecord]):
    list_display = ["player", "rank", "pogony_received", "pogony_given", "league", "tournament"]
    list_select_related = ["player", "league", "tournament"]
    search_fields = ["player__display_name", "rank"]
    readonly_fields = all_fields(models.RankRecord)

    def scope(
        self, user: Actor, queryset: QuerySet[models.RankRecord]
    ) -> QuerySet[models.RankRecord]:
        return queryset.filter(
            Q(tournament__in=tournaments_managed_by(user)) | Q(league__in=leagues_managed_by(user))
        )

    def may_view(self, user: Actor, obj: models.RankRecord) -> bool:
        if obj.tournament is not None:
            return can_view(user, obj.tournament)
        return obj.league is not None and leagues_managed_by(user).filter(pk=obj.league.pk).exists()


class RatingChangeAdmin(ConsoleAdmin[models.RatingChange]):
    list_display = ["player", "tournament", "mu_before", "mu_after", "sigma_after", "created_at"]
    list_select_related = ["player", "tournament"]
    search_fields = ["player__display_name"]
    readonly_fields = all_fields(models.RatingChange)


# --- the audit log ------------------------------------------------------------------------------


class AuditEventAdmin(ConsoleAdmin[AuditEvent]):
    """Who changed what, when and why: seen by the event's organiser and referees (a league's
    by its owner); never changed or deleted."""

    list_display = [
        "created_at",
        "action",
        "tournament",
        "target_repr",
        "actor_name",
        "reason",
        "change_summary",
    ]
    list_filter = [
        "action",
        ("tournament", DistinctRelatedFilter),
        ("actor", admin.RelatedOnlyFieldListFilter),
        "created_at",
    ]
    list_select_related = ["tournament"]
    search_fields = ["target_repr", "reason", "actor_name", "tournament__name"]
    date_hierarchy = "created_at"
    fields = readonly_fields = (
        "created_at",
        "action",
        "tournament",
        "league",
        "actor_name",
        "target_type",
        "target_id",
        "target_repr",
        "reason",
        "change_table",
    )

    def scope(self, user: Actor, queryset: QuerySet[AuditEvent]) -> QuerySet[AuditEvent]:
        return queryset.filter(
            Q(tournament__in=tournaments_managed_by(user))
            | Q(tournament__isnull=True, league__in=managed_leagues(user))
        )

    def may_view(self, user: Actor, obj: AuditEvent) -> bool:
        if obj.tournament is not None:
            return can_view(user, obj.tournament)
        return obj.league is not None and can_manage_league(user, obj.league)

    @admin.display(description=_("What changed"))
    def change_summary(self, obj: AuditEvent) -> str:
        """One line for the list, in words (the whole before and after are on the record's
        page)."""
        summary = "; ".join(
            f"{row.label}: {row.before} → {row.after}"
            if row.label
            else f"{row.before} → {row.after}"
            for row in audit_change_rows(obj)
        )
        return Truncator(summary).chars(SUMMARY_CHARS)

    @admin.display(description=_("Before and after"))
    def change_table(self, obj: AuditEvent) -> SafeString | str:
        rows = audit_change_rows(obj)
        if not rows:
            return "—"
        return format_html(
            '<table class="audit-changes"><thead><tr><th></th><th>{}</th><th>{}</th></tr></thead>'
            "<tbody>{}</tbody></table>",
            gettext("Before"),
            gettext("After"),
            format_html_join(
                "",
                "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
                ((row.label, row.before, row.after) for row in rows),
            ),
        )


# --- games (the games app's pages, scoped here) ---------------------------------------------------


class GameAdmin(ConsoleAdmin[Game], GameRecordAdmin):
    tournament_path = "table__round__stage__tournament"


class RefereeEventAdmin(ConsoleAdmin[RefereeEvent], RefereeEventRecordAdmin):
    tournament_path = "game__table__round__stage__tournament"
