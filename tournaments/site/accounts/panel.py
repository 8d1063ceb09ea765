"""The entry panel: a player's own registration for one tournament, shown on its page and on
"my games".

The tournament page (``tournaments.site.events``) adds :func:`entry_panel`'s context and
includes ``accounts/entry_panel.html``::

    context.update(entry_panel(request, tournament))
    {% include "accounts/entry_panel.html" %}

The panel's buttons post to this package's ``entry-action`` view (register, check in,
withdraw), which comes back to the page they were pressed on with a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest

from durak_site.errors import ServiceError
from tournaments.models import Entry, Player, Seat, Table, Tournament
from tournaments.money import money
from tournaments.services.registration import registration_check_open


@dataclass(frozen=True)
class EntryPanel:
    """What the panel shows one reader about one tournament."""

    tournament: Tournament
    #: "anonymous" (log in or sign up), "no_player" (a user without a player: the profile
    #: page makes one), or "player".
    reader: str
    entry: Entry | None
    #: Registration takes entries now; if not, why (``closed_reason``).
    is_open: bool
    closed_reason: str
    fee: str
    reentry_fee: str
    can_register: bool
    can_check_in: bool
    can_withdraw: bool
    #: Where the buttons come back to.
    next: str
    #: The table where the reader sits now in this tournament, if any.
    table: Table | None = None

    @property
    def is_team_event(self) -> bool:
        return self.tournament.is_team_event

    @property
    def has_fee(self) -> bool:
        return bool(self.tournament.entry_fee)

    @property
    def active(self) -> bool:
        """The reader has an entry that still plays (registered or checked in)."""
        return self.entry is not None and self.entry.status in Entry.ACTIVE

    @property
    def check_in_pending(self) -> bool:
        """Registered in an event that needs a check-in, not checked in yet."""
        return (
            self.entry is not None
            and self.tournament.check_in_required
            and self.entry.status == Entry.Status.REGISTERED
        )


def user_player(user: Any) -> Player | None:
    """The player ``user`` plays as, if any (``Player.user``)."""
    if user is None or not user.is_authenticated:
        return None
    return Player.objects.filter(user=user).first()


def build_panel(
    *,
    tournament: Tournament,
    user: Any,
    player: Player | None,
    entry: Entry | None,
    next: str,
    table: Table | None = None,
) -> EntryPanel:
    """The panel of ``tournament`` for ``user`` playing as ``player`` with ``entry`` (their own
    entry there, or None) and the ``table`` where they sit now, already loaded by the caller."""
    try:
        registration_check_open(tournament)
    except ServiceError as exc:
        is_open, closed_reason = False, exc.message
    else:
        is_open, closed_reason = True, ""
    if not user.is_authenticated:
        reader = "anonymous"
    elif player is None:
        reader = "no_player"
    else:
        reader = "player"
    # A team's entry is the team's: its organiser changes it, not one of its members.
    own = entry is not None and entry.team_id is None
    active = own and entry is not None and entry.status in Entry.ACTIVE
    before_start = tournament.status == Tournament.Status.REGISTRATION
    return EntryPanel(
        tournament=tournament,
        reader=reader,
        entry=entry,
        is_open=is_open,
        closed_reason=closed_reason,
        fee=money(tournament.entry_fee, tournament.currency) if tournament.entry_fee else "",
        reentry_fee=(
            money(tournament.reentry_fee, tournament.currency) if tournament.reentry_fee else ""
        ),
        can_register=(
            reader == "player" and entry is None and is_open and not tournament.is_team_event
        ),
        can_check_in=(
            reader == "player"
            and active
            and tournament.check_in_required
            and entry is not None
            and entry.status == Entry.Status.REGISTERED
            and before_start
            and tournament.registration_closed_at is None
        ),
        can_withdraw=reader == "player" and active and before_start,
        next=next,
        table=table,
    )


def playing_seats(player: Player) -> QuerySet[Seat]:
    """The seats ``player`` holds now at tables in play (running tournaments, no byes), the
    newest table first."""
    return (
        Seat.objects.filter(
            player=player,
            table__status=Table.Status.PLAYING,
            table__is_bye=False,
            table__round__stage__tournament__status=Tournament.Status.RUNNING,
        )
        .select_related("table__round__stage__tournament")
        .order_by("-table_id")
    )


def seated_table(player: Player | None, tournament: Tournament) -> Table | None:
    if player is None:
        return None
    seat = playing_seats(player).filter(table__round__stage__tournament=tournament).first()
    return None if seat is None else seat.table


def entry_panel(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """The context ``accounts/entry_panel.html`` needs for ``tournament`` on this request:
    ``{"entry_panel": EntryPanel}``. The caller has checked that the reader may see the
    tournament (``selectors.visibility.tournaments_visible_to``). Two or three queries."""
    player = user_player(request.user)
    entry = None
    if player is not None:
        entry = (
            Entry.objects.filter(tournament=tournament, player=player).first()
            or Entry.objects.filter(tournament=tournament, team__members=player)
            .select_related("team")
            .first()
        )
    table = None
    if entry is not None and tournament.status == Tournament.Status.RUNNING:
        table = seated_table(player, tournament)
    panel = build_panel(
        tournament=tournament,
        user=request.user,
        player=player,
        entry=entry,
        next=request.get_full_path(),
        table=table,
    )
    return {"entry_panel": panel}
