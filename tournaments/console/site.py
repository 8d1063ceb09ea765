"""The console's admin site: Django's, with its menu in the order an organiser works in.

Django lists the apps and their models alphabetically ("Вебхуки" first in Russian); the
console lists them as an event runs: the tournaments and what they are made of first, then
their records, the audit log and the webhooks last; the games app after the tournaments', and
Django's own (users, groups, tokens) at the end. ``ConsoleAdminConfig`` makes this site
``admin.site`` (INSTALLED_APPS names it instead of ``django.contrib.admin``), so every
``admin.site.register`` and ``@admin.register`` stays as it is. This module is imported while
the apps load: it imports no model.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

#: The menu's order, "<app label>.<model name>"; an app comes where its first model does, and
#: whatever is not listed follows, alphabetically.
MENU = (
    "tournaments.tournament",
    "tournaments.league",
    "tournaments.player",
    "tournaments.team",
    "tournaments.entry",
    "tournaments.round",
    "tournaments.table",
    "tournaments.tableresult",
    "tournaments.payout",
    "tournaments.prizepool",
    "tournaments.rankrecord",
    "tournaments.ratingchange",
    "tournaments.auditevent",
    "tournaments.webhook",
    "tournaments.webhookdelivery",
    "games.game",
    "games.refereeevent",
)
_POSITION = {key: index for index, key in enumerate(MENU)}


def _key(app: dict[str, Any], model: dict[str, Any]) -> str:
    return f"{app['app_label']}.{model['object_name'].lower()}"


def menu_order(app_list: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``app_list`` (the admin's apps with their models) in :data:`MENU`'s order."""
    last = len(MENU)
    for app in app_list:
        app["models"].sort(key=lambda model: (_POSITION.get(_key(app, model), last), model["name"]))
    return sorted(
        app_list,
        key=lambda app: (
            min((_POSITION.get(_key(app, m), last) for m in app["models"]), default=last),
            app["name"].lower(),
        ),
    )


class ConsoleSite(admin.AdminSite):
    site_header = _("Durak tournaments: the console")
    site_title = _("Durak tournaments console")
    index_title = _("Organisers and referees")

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[Any]:
        return menu_order(list(self._build_app_dict(request, app_label).values()))


class ConsoleAdminConfig(AdminConfig):
    default_site = "tournaments.console.site.ConsoleSite"
