"""The tournaments app as the games layer's seating layer (:class:`games.hooks.Tables`).

Registered in ``TournamentsConfig.ready``: a live table asks here who may play or watch, the
players' names and ranks, and announces here that a game of a table is over and that a bot stands
in for an absent player or gave the seat back (each recorded in the audit log).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext

from games.errors import Forbidden, NotFound
from games.hooks import PLAYER, REFEREE, SPECTATOR, GamePlace, TableAccess
from tournaments.models import Entry, Player, Seat, Table
from tournaments.permissions import can_see_hands
from tournaments.selectors.people import current_ranks
from tournaments.selectors.play import table_places
from tournaments.selectors.visibility import tournaments_visible_to
from tournaments.services.automation import seat_returned, seat_stood_in
from tournaments.services.results import table_after_game
from tournaments.wording import game_name, rank_title


class TournamentTables:
    """Tables of tournaments: seats hold players, its referees referee, public events are
    watched."""

    def access(self, *, table_id: int, user: Any) -> TableAccess:
        """A seated player, else a referee (its organiser, a superuser or a referee assigned to
        it: ``tournaments.permissions.can_referee``) who does not play in the event
        (``can_see_hands``), else a spectator: anyone (also anonymous) if the tournament is
        public, else whoever may read it (``selectors.visibility.tournaments_visible_to``: its
        own players at the tables they do not sit at, as its pages and the API's games show
        those to them).
        A player of the event is never its referee at a table, theirs or another."""
        table = Table.objects.select_related("round__stage__tournament").filter(pk=table_id).first()
        if table is None:
            raise NotFound(gettext("there is no table %(table)s") % {"table": table_id})
        player_id = self.player_id(user)
        if player_id is not None and Seat.objects.filter(table=table, player_id=player_id).exists():
            return TableAccess(table_id, PLAYER, player_id)
        if can_see_hands(user, table.round.stage.tournament):
            return TableAccess(table_id, REFEREE)
        tournament = table.round.stage.tournament
        if (
            not tournament.is_public
            and not tournaments_visible_to(user).filter(pk=tournament.pk).exists()
        ):
            raise Forbidden(
                gettext("this tournament is private: only its players and referees can watch")
            )
        return TableAccess(table_id, SPECTATOR)

    def player_id(self, user: Any) -> int | None:
        if user is None or not user.is_authenticated:
            return None
        return Player.objects.filter(user=user).values_list("pk", flat=True).first()

    def player_names(self, player_ids: Iterable[int]) -> dict[int, str]:
        return dict(
            Player.objects.filter(pk__in=list(player_ids)).values_list("pk", "display_name")
        )

    def game_place(self, *, table_id: int, game_number: int) -> GamePlace | None:
        place = table_places([table_id]).get(table_id)
        if place is None:
            return None
        return GamePlace(
            tournament_slug=place.tournament_slug,
            tournament_name=place.tournament_name,
            stage=place.stage,
            round=place.round,
            table=place.table,
            game=game_name(game_number),
            round_id=place.round_id,
            anchor=place.anchor,
            knockout=place.knockout,
            text=place.game_text(game_number),
        )

    def player_ranks(self, player_ids: Iterable[int]) -> dict[int, str]:
        return {pk: rank_title(rank) for pk, rank in current_ranks(player_ids).items()}

    def absent_players(self, *, table_id: int) -> dict[int, str]:
        gone = (Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED)
        return dict(
            Seat.objects.filter(table_id=table_id, entry__status__in=gone).values_list(
                "player_id", "entry__status"
            )
        )

    def seat_stood_in(
        self, *, table_id: int, player_id: int, game_number: int, absent_seconds: int
    ) -> None:
        seat_stood_in(
            table_id=table_id,
            player_id=player_id,
            game_number=game_number,
            absent_seconds=absent_seconds,
        )

    def seat_returned(self, *, table_id: int, player_id: int, game_number: int) -> None:
        seat_returned(table_id=table_id, player_id=player_id, game_number=game_number)

    def game_finished(self, *, game_id: int) -> str:
        return table_after_game(game_id=game_id)
