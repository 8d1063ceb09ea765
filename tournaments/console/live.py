"""The console's "live tables" page: every table in play at the running events its user
referees, with whose move it is, the clock, the last move, whether each seated player is
connected, and the flags a referee acts on (paused, stalled, disputed, a player disconnected).
A row links to the table's live page, where the referee panel pauses, resumes, adjudicates or
voids the game.

:func:`live_tables` assembles the rows in a fixed number of queries, however many tables are
in play: the games with their last move's and last ruling's times as subqueries, and the seats
prefetched; and one cache call for who is connected (``games.presence``, marked by the table's
WebSocket). Whose move it is comes from the engine's state (only the acting seat: no card ever
leaves it here)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import presence
from games.actors import Actor
from games.engine.bots import acting_seat
from games.engine.state import GameState
from games.models import Game
from tournaments.console.filters import distinct_labels
from tournaments.models import Tournament
from tournaments.permissions import is_console_user
from tournaments.selectors.live import DISPUTE_WINDOW, STALL_WITHOUT_CLOCK, is_stalled, live_games
from tournaments.selectors.play import place_of
from tournaments.selectors.visibility import tournaments_managed_by

TEMPLATE = "admin/tournaments/tournament/live_tables.html"


@dataclass(frozen=True)
class SeatView:
    """A seated player as the page shows it: a bot (or a seat a referee handed to one) plays on
    the server, a person through the table's WebSocket (``connected``: at least one of their
    sockets is open)."""

    name: str
    is_bot: bool
    connected: bool

    @property
    def away(self) -> bool:
        return not self.is_bot and not self.connected


@dataclass(frozen=True)
class LiveTableRow:
    """A table in play and its current game, as the page shows it."""

    tournament: Tournament
    round_number: int
    round_name: str  # "Round 2", a knockout's "Semi-final" (``selectors.play``)
    table_id: int
    table_number: int
    seats: list[SeatView]  # by seat
    game_number: int
    game_status: str  # the game status's label (in play, paused)
    to_move: str | None  # the name of the player whose move it is
    deadline: dt.datetime | None
    seconds_left: int | None  # None: no clock running; negative: overdue
    last_action_at: dt.datetime | None
    paused: bool
    stalled: bool
    disputed: bool

    @property
    def disconnected(self) -> bool:
        """A seated person has no connection to the table."""
        return any(seat.away for seat in self.seats)

    @property
    def flagged(self) -> bool:
        return self.paused or self.stalled or self.disputed or self.disconnected

    @property
    def overdue(self) -> bool:
        return self.seconds_left is not None and self.seconds_left < 0


def live_tables(
    user: Actor,
    *,
    tournament: Tournament | None = None,
    flagged_only: bool = False,
    now: dt.datetime | None = None,
) -> list[LiveTableRow]:
    """The rows of the page: flagged first, then by tournament, round and table."""
    now = now or timezone.now()
    games = list(live_games(user, tournament))
    present = presence.present_players(game.table_id for game in games if game.table_id)
    rows = []
    for game in games:
        table = game.table
        assert table is not None  # the query asks for a table
        seated = list(table.seats.all())
        connected = present.get(table.pk, set())
        names = {seat.player_id: seat.player.display_name for seat in seated}
        seat = acting_seat(GameState.from_dict(game.state))
        player_id = game.players[seat] if seat is not None and seat < len(game.players) else None
        paused = game.status == Game.Status.PAUSED
        left = None
        if game.deadline is not None and not paused:
            left = int((game.deadline - now).total_seconds())
        row = LiveTableRow(
            tournament=table.round.stage.tournament,
            round_number=table.round.number,
            round_name=place_of(table, game).round,
            table_id=table.pk,
            table_number=table.number,
            seats=[
                SeatView(
                    name=seat.player.display_name,
                    is_bot=seat.player.is_bot or bool(seat.bot_kind),  # or handed to one
                    connected=seat.player_id in connected,
                )
                for seat in seated
            ],
            game_number=game.number,
            game_status=game.get_status_display(),
            to_move=names.get(player_id) if player_id is not None else None,
            deadline=game.deadline,
            seconds_left=left,
            last_action_at=game.last_action_at,
            paused=paused,
            stalled=is_stalled(game, game.last_action_at, now),
            disputed=game.last_ruling_at is not None and now - game.last_ruling_at < DISPUTE_WINDOW,
        )
        if row.flagged or not flagged_only:
            rows.append(row)
    rows.sort(
        key=lambda r: (
            not r.flagged,
            r.tournament.name,
            r.tournament.pk,
            r.round_number,
            r.table_number,
        )
    )
    return rows


class LiveTablesFilter(forms.Form):
    tournament = forms.ModelChoiceField(
        queryset=Tournament.objects.none(),
        label=_("Tournament"),
        required=False,
        empty_label=_("All tournaments"),
    )
    flagged = forms.BooleanField(label=_("Only flagged tables"), required=False)

    def __init__(self, *args: Any, user: Actor, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["tournament"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = tournaments_managed_by(user).filter(status=Tournament.Status.RUNNING)
        # two running events of the same name told apart, as in the lists' filters
        labels = distinct_labels(field.queryset)
        field.label_from_instance = lambda obj: labels.get(obj.pk, str(obj))  # type: ignore[method-assign]


def live_tables_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest
) -> HttpResponse:
    """GET: the tables in play, filtered by the query string (a tournament, only flagged)."""
    if not is_console_user(request.user) or not model_admin.has_view_permission(request):
        raise PermissionDenied
    form = LiveTablesFilter(request.GET or None, user=request.user)
    tournament, flagged_only = None, False
    if form.is_bound and form.is_valid():
        tournament = form.cleaned_data["tournament"]
        flagged_only = form.cleaned_data["flagged"]
    rows = live_tables(request.user, tournament=tournament, flagged_only=flagged_only)
    site = model_admin.admin_site
    opts = model_admin.model._meta
    context = {
        **site.each_context(request),
        "title": gettext("Live tables"),
        "subtitle": None,
        "form": form,
        "rows": rows,
        "stall_minutes": int(STALL_WITHOUT_CLOCK.total_seconds() // 60),
        "dispute_minutes": int(DISPUTE_WINDOW.total_seconds() // 60),
        "opts": opts,
        "app_label": opts.app_label,
    }
    request.current_app = site.name
    return TemplateResponse(request, TEMPLATE, context)
