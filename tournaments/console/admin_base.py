"""The console's ``ModelAdmin`` base: every page scoped to the events its user may see, every
write through a service, nothing deleted.

Django's admin checks model permissions only (the groups of ``0003_console_groups`` grant those)
and shows every row of a changelist; here each admin also says which rows its user sees
(:meth:`ConsoleAdmin.scope`, through ``selectors.visibility.tournaments_managed_by``) and which
tournament an object belongs to (:meth:`ConsoleAdmin.tournament_of`), checked with
``tournaments.permissions`` on each object. An object outside the user's scope is a 404 (its
change, delete and history pages, and an action posted with its id); one it sees but may not
change is a 403.

By default an admin is view-only: no add, change or delete, and a save or delete that reached
the model anyway is refused. An admin that writes says so by overriding the permission methods
and ``save_model``, which calls a service (:func:`adopt` gives the admin the service's row). A
service's refusal that gets past the form's validation (a race: the status changed meanwhile)
rolls the page's transaction back and comes back as an error message, never as a 500.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth import get_permission_codename
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from durak_site.errors import ServiceError
from games.actors import Actor
from tournaments.console.naming import counted, page_title
from tournaments.models import Tournament
from tournaments.money import money
from tournaments.permissions import can_view, is_console_user, is_organiser, is_referee
from tournaments.selectors.visibility import tournaments_managed_by

_M = TypeVar("_M", bound=Model)
_C = TypeVar("_C", bound=Model)
_P = TypeVar("_P", bound=Model)


def all_fields(model: type[Model], *, but: Sequence[str] = ("id",)) -> list[str]:
    """The names of ``model``'s fields (for read-only pages), less ``but``."""
    return [f.name for f in model._meta.fields if f.name not in but]


def follow(obj: Any, path: str) -> Any:
    """``obj.a.b.c`` for the lookup path ``a__b__c`` (None as soon as a link is empty)."""
    for name in path.split("__"):
        if obj is None:
            return None
        obj = getattr(obj, name)
    return obj


def adopt(obj: Model, saved: Model) -> None:
    """Make the admin's unsaved ``obj`` the row a service saved, so that the admin's message,
    history entry and redirect after an add name the real row."""
    for field in saved._meta.concrete_fields:
        setattr(obj, field.attname, getattr(saved, field.attname))
    obj._state.adding = False
    obj._state.db = saved._state.db


def choosing(request: HttpRequest) -> bool:
    """The request is the admin's autocomplete (a form's search for a row to choose, e.g. a
    player to register), not a page of the rows themselves."""
    match = getattr(request, "resolver_match", None)
    return match is not None and match.url_name == "autocomplete"


class ConsoleChangeList(ChangeList):
    """A console list, worded for its language (``console.naming``): its title with the model's
    name in the phrase's case ("Выберите участника для изменения"), its count with the noun's
    plural form ("5 турниров", ``templates/admin/pagination.html``; "Выбрать всё: 36
    участников", ``templates/admin/actions.html``) and its add button ("Добавить лигу",
    ``templates/admin/change_list_object_tools.html``)."""

    def __init__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> None:
        super().__init__(request, *args, **kwargs)
        if self.is_popup:
            kind = "select"
        elif self.model_admin.has_change_permission(request):
            kind = "select_to_change"
        else:
            kind = "select_to_view"
        self.title = page_title(self.opts, kind)
        self.add_label = page_title(self.opts, "add")

    @property
    def counted(self) -> str:
        """The number of rows the list's filters leave, in words: "5 турниров"."""
        return counted(self.opts, self.result_count)

    @property
    def select_all_label(self) -> str:
        """The link that selects every row the filters leave: "Выбрать всё: 36 участников"."""
        return gettext("Select all %(things)s") % {"things": self.counted}


_WORDED: dict[type[ChangeList], type[ChangeList]] = {ChangeList: ConsoleChangeList}


def worded(changelist: type[ChangeList]) -> type[ChangeList]:
    """``changelist`` with :class:`ConsoleChangeList`'s words (one class per list)."""
    if issubclass(changelist, ConsoleChangeList):
        return changelist
    if changelist not in _WORDED:
        name = f"Worded{changelist.__name__}"
        _WORDED[changelist] = type(name, (ConsoleChangeList, changelist), {})
    return _WORDED[changelist]


def money_display(model: type[Model], field: str, currency: str) -> Callable[[Any], str]:
    """A column or read-only line of ``model``'s ``field``, an amount, as money in the currency
    at the lookup path ``currency`` (:func:`tournaments.money.money`: "1 000,00 ₽"; "—" for
    none), under the field's name and sorted by it."""

    described = model._meta.get_field(field)
    label = getattr(described, "verbose_name", field)

    @admin.display(description=label, ordering=field)
    def shown(obj: Any) -> str:
        amount, code = getattr(obj, field), follow(obj, currency)
        return "—" if amount is None or not code else money(amount, str(code))

    return shown


class ConsoleAdmin(admin.ModelAdmin[_M]):
    """A console page of a model: scoped, view-only unless it says otherwise, never deleting."""

    #: The lookup path from this model to its tournament, e.g. ``"round__stage__tournament"``.
    tournament_path: ClassVar[str] = "tournament"
    #: The names of the console's own pages of one object (URL ``admin:<app>_<model>_<name>``
    #: with the object's id), for whoever sees the object; the admin walk test opens each.
    object_pages: ClassVar[tuple[str, ...]] = ()
    #: The model's amounts of money, each with the lookup path of its currency code (e.g.
    #: ``{"amount": "tournament__currency"}``): shown to the currency's minor unit, localised,
    #: wherever the list or a read-only page shows them (a field still edited keeps its box).
    money_fields: ClassVar[Mapping[str, str]] = {}

    # --- words -------------------------------------------------------------------------------

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        # A list of its own (the games app's, which reads names in one query) keeps its ways
        # and takes the console's words.
        return worded(super().get_changelist(request, **kwargs))

    def render_change_form(  # noqa: PLR0917 (Django's signature)
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: _M | None = None,
    ) -> HttpResponse:
        # Django's "Add %s" / "Change %s" / "View %s" with the model's name in the accusative.
        kind = "add" if add else "change" if context.get("has_change_permission") else "view"
        if add or obj is not None:
            context = {**context, "title": page_title(self.opts, kind)}
        return super().render_change_form(request, context, add, change, form_url, obj)

    def as_money(self, names: Sequence[Any]) -> list[Any]:
        """``names`` (a list's columns, a page's read-only fields) with each of
        :attr:`money_fields` shown as money."""
        return [f"{name}_money" if name in self.money_fields else name for name in names]

    def get_list_display(self, request: HttpRequest) -> Any:
        return [
            f"{name}_money" if isinstance(name, str) and name in self.money_fields else name
            for name in super().get_list_display(request)
        ]

    def get_readonly_fields(
        self, request: HttpRequest, obj: _M | None = None
    ) -> list[str] | tuple[str, ...]:
        return self.as_money(super().get_readonly_fields(request, obj))

    def _shown_as_money(self, request: HttpRequest, obj: _M | None) -> set[str]:
        readonly = set(self.get_readonly_fields(request, obj))
        return {name for name in self.money_fields if f"{name}_money" in readonly}

    def get_fields(self, request: HttpRequest, obj: _M | None = None) -> Any:
        shown = self._shown_as_money(request, obj)
        fields = [f for f in super().get_fields(request, obj) if f not in shown]
        return list(dict.fromkeys(self.as_money(fields) if shown else fields))

    def get_fieldsets(self, request: HttpRequest, obj: _M | None = None) -> Any:
        shown = self._shown_as_money(request, obj)
        return [
            (name, {**opts, "fields": [f"{f}_money" if f in shown else f for f in opts["fields"]]})
            for name, opts in super().get_fieldsets(request, obj)
        ]

    def get_exclude(self, request: HttpRequest, obj: _M | None = None) -> Any:
        # A money field shown as money is not also a box of the form.
        shown = self._shown_as_money(request, obj)
        return [*(super().get_exclude(request, obj) or ()), *shown] or None

    def __init__(self, model: type[_M], admin_site: admin.AdminSite) -> None:
        super().__init__(model, admin_site)
        for field, currency in self.money_fields.items():
            setattr(self, f"{field}_money", money_display(model, field, currency))

    # --- scope -------------------------------------------------------------------------------

    def scope(self, user: Actor, queryset: QuerySet[_M]) -> QuerySet[_M]:
        """The rows of ``queryset`` a non-superuser console user sees."""
        return queryset.filter(**{f"{self.tournament_path}__in": tournaments_managed_by(user)})

    def tournament_of(self, obj: _M) -> Tournament | None:
        """The tournament ``obj`` belongs to (None: it belongs to none)."""
        tournament = follow(obj, self.tournament_path)
        return tournament if isinstance(tournament, Tournament) else None

    def may_view(self, user: Actor, obj: _M) -> bool:
        """Whether a non-superuser console user may see ``obj``."""
        tournament = self.tournament_of(obj)
        return tournament is not None and can_view(user, tournament)

    def get_queryset(self, request: HttpRequest) -> QuerySet[_M]:
        queryset = super().get_queryset(request)
        user = request.user
        if not is_console_user(user):
            return queryset.none()
        if getattr(user, "is_superuser", False):
            return queryset
        return self.scope(user, queryset)

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> _M | None:
        # Django redirects to the index for a missing object; outside the scope is a 404.
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404(_("There is no such object, or it is not yours to see."))
        return obj

    # --- permissions -------------------------------------------------------------------------

    def model_permission(self, request: HttpRequest, action: str) -> bool:
        """The model permission ``action`` ("add", "change", ...) of the user's groups."""
        codename = get_permission_codename(action, self.opts)
        return is_console_user(request.user) and request.user.has_perm(
            f"{self.opts.app_label}.{codename}"
        )

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_console_user(request.user) and super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        user = request.user
        if not is_console_user(user) or not super().has_view_permission(request, obj):
            return False
        return obj is None or getattr(user, "is_superuser", False) or self.may_view(user, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_manage_permission(self, request: HttpRequest) -> bool:
        """Actions that change an event itself (``permissions.can_manage`` per object)."""
        return is_organiser(request.user)

    def has_referee_permission(self, request: HttpRequest) -> bool:
        """Actions of refereeing (``permissions.can_referee`` per object)."""
        return is_organiser(request.user) or is_referee(request.user)

    # --- actions -----------------------------------------------------------------------------

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # Django answers an action the user may not run (delete_selected, ...) with the list
        # again (200) or "no action selected"; here it is refused.
        name = request.POST.get("action", "") if request.method == "POST" else ""
        if name and name not in self.get_actions(request):
            raise PermissionDenied
        return super().changelist_view(request, extra_context)

    # --- writes ------------------------------------------------------------------------------

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ServiceError as exc:
            # Raised inside the page's transaction, which has rolled back: nothing changed.
            self.message_user(request, exc.message, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def save_model(self, request: HttpRequest, obj: _M, form: Any, change: Any) -> None:
        raise PermissionDenied

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: Any) -> None:
        # The service called by ``save_model`` stored everything the page changes; the inlines
        # are read-only and save nothing (the history message asks what they saved).
        for formset in formsets:
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []

    def delete_model(self, request: HttpRequest, obj: _M) -> None:
        raise PermissionDenied

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[_M]) -> None:
        raise PermissionDenied


class ReadOnlyInline(admin.TabularInline[_C, _P]):
    """Rows shown on their parent's page (which has checked the permission), never edited."""

    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False

    def has_view_permission(  # type: ignore[override]
        self, request: HttpRequest, obj: _P | None = None
    ) -> bool:
        return is_console_user(request.user)

    def has_add_permission(self, request: HttpRequest, obj: _P | None = None) -> bool:
        return False

    def has_change_permission(  # type: ignore[override]
        self, request: HttpRequest, obj: _P | None = None
    ) -> bool:
        return False

    def has_delete_permission(  # type: ignore[override]
        self, request: HttpRequest, obj: _P | None = None
    ) -> bool:
        return False


def console_page(
    model_admin: admin.ModelAdmin[Any],
    request: HttpRequest,
    template: str,
    *,
    title: Any,
    **context: Any,
) -> TemplateResponse:
    """A custom console page of ``model_admin``'s model: the admin's frame (site context,
    breadcrumbs' ``opts``, media) around ``template`` with ``context``."""
    site = model_admin.admin_site
    opts = model_admin.model._meta
    request.current_app = site.name
    media = model_admin.media
    form = context.get("form")
    if form is not None:
        media = media + form.media
    return TemplateResponse(
        request,
        template,
        {
            **site.each_context(request),
            "title": title,
            "subtitle": None,
            "opts": opts,
            "app_label": opts.app_label,
            "media": media,
            **context,
        },
    )
