"""What the games layer asks of the layer that seats people at tables.

``games`` never imports ``tournaments`` (the import contract in ``.importlinter`` says so): the
tournaments app implements :class:`Tables` and registers it once, in its ``AppConfig.ready``.
Through it a live table learns who may watch or play and as what, the players' names and ranks,
it announces that a game of a table is over (the job ``games.game_finished``), and that a bot
stands in for an absent player or gave the seat back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from games.actors import Actor

PLAYER, SPECTATOR, REFEREE = "player", "spectator", "referee"


@dataclass(frozen=True)
class TableAccess:
    """What a connection is at a table: its role and, for a seated player, its Player id.

    The game seat is not stored here: it changes from game to game of a series (``Game.players``
    lists the player of each game seat), so it is looked up per game
    (``games.selectors.seat_of``).
    """

    table_id: int
    role: str
    player_id: int | None = None


@dataclass(frozen=True)
class GamePlace:
    """Where a game of a table was played, in the seating layer's words ("Knockout", "Final",
    "Table 1", "game 2"), and where its event's page shows the table (``anchor`` on the page of
    the event ``tournament_slug``; ``round_id``: the round to open there)."""

    tournament_slug: str
    tournament_name: str
    stage: str
    round: str
    table: str
    game: str
    round_id: int
    anchor: str
    knockout: bool
    text: str  # the four in one line, as a player's profile lists the game


class Tables(Protocol):
    """The seating layer as the games layer sees it."""

    def access(self, *, table_id: int, user: Actor | None) -> TableAccess:
        """The role of ``user`` at the table: a seated player, a referee, or a spectator.

        Raises ``games.errors.NotFound`` for no such table and ``games.errors.Forbidden`` for
        an outsider of a private event.
        """
        ...

    def player_id(self, user: Actor | None) -> int | None:
        """The Player id of ``user`` (None for anonymous users and users without a player)."""
        ...

    def player_names(self, player_ids: Iterable[int]) -> dict[int, str]:
        """Display names by Player id (unknown ids are left out)."""
        ...

    def game_place(self, *, table_id: int, game_number: int) -> GamePlace | None:
        """Game ``game_number`` of the table named (None: no such table)."""
        ...

    def player_ranks(self, player_ids: Iterable[int]) -> dict[int, str]:
        """Each player's current rank (звание) by Player id, in the active language (players
        without one are left out). Ranks are public: anyone at the table may see them."""
        ...

    def absent_players(self, *, table_id: int) -> dict[int, str]:
        """The players of the table whose entry has left the event, by Player id: "withdrawn"
        or "disqualified" (those still in are left out). For the referee's ruling choices."""
        ...

    def seat_stood_in(
        self, *, table_id: int, player_id: int, game_number: int, absent_seconds: int
    ) -> None:
        """A bot stands in for ``player_id``, absent from the table (``absent_seconds`` into
        their turn; 0: from the start of the game), in game ``game_number``: recorded with the
        change, inside its transaction (``games.services.stand_ins``)."""
        ...

    def seat_returned(self, *, table_id: int, player_id: int, game_number: int) -> None:
        """``player_id`` is back at the table and takes their seat from the stand-in bot:
        recorded likewise."""
        ...

    def game_finished(self, *, game_id: int) -> str:
        """A game of a table is over (finished, adjudicated or voided): deal the next game of
        the table's series or record the table's result. Safe to run twice; returns a word
        saying what it did."""
        ...


_tables: Tables | None = None


def register(tables: Tables) -> None:
    """Install the seating layer (once per process, from an ``AppConfig.ready``)."""
    global _tables  # noqa: PLW0603 (one registration per process, by design)
    _tables = tables


def tables() -> Tables:
    """The registered seating layer; ``RuntimeError`` when no app registered one."""
    if _tables is None:
        raise RuntimeError("no seating layer is registered: is 'tournaments' in INSTALLED_APPS?")
    return _tables
