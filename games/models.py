"""Stored games: rules, seed commitment, the append-only action log, the result.

The engine is the only judge; these rows are the record. ``Game.state`` caches the engine state
after the last logged action so that applying an action does not replay the log; the log plus
the (revealed) seed always reproduce it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _


class Game(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", pgettext_lazy("game status", "In play")
        PAUSED = "paused", pgettext_lazy("game status", "Paused")
        FINISHED = "finished", pgettext_lazy("game status", "Finished")
        ADJUDICATED = "adjudicated", pgettext_lazy("game status", "Adjudicated by a referee")
        VOIDED = "voided", pgettext_lazy("game status", "Voided")

    OVER = (Status.FINISHED, Status.ADJUDICATED, Status.VOIDED)
    LOG_TAIL = 30  # log entries kept in ``log_tail``

    table = models.ForeignKey(
        "tournaments.Table",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="games",
        verbose_name=_("table"),
    )
    # The game's place in its series.
    number = models.PositiveSmallIntegerField(_("number in the series"), default=1)
    rules = models.JSONField(_("rules"), default=dict, blank=True)
    # Per-game setup from the series (first attacker, dealt hand sizes, pogony rank, ...).
    setup = models.JSONField(
        _("setup"),
        default=dict,
        blank=True,
        help_text=_(
            "Set by the series for this game: who attacks first, how many cards are dealt, "
            "the pogony rank, …"
        ),
    )
    # The seed stays secret until the game ends; sha256(seed) is published at the start.
    seed = models.CharField(
        _("deal seed"), max_length=64, help_text=_("Secret until the game ends.")
    )
    seed_commitment = models.CharField(
        _("seed commitment"),
        max_length=64,
        help_text=_("sha256 of the seed, published when the game starts."),
    )
    seed_revealed = models.BooleanField(_("seed revealed"), default=False)
    # Seat -> player id (tournaments.Player), and which seats a server-side bot plays.
    players = models.JSONField(_("players"), default=list, help_text=_("Player ids by seat."))
    bot_seats = models.JSONField(
        _("bot seats"), default=list, blank=True, help_text=_("The seats a bot plays.")
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.ACTIVE
    )
    # = the number of logged actions
    version = models.PositiveIntegerField(
        _("version"), default=0, help_text=_("The number of moves made so far.")
    )
    # The last LOG_TAIL log entries as every viewer sees them (each card of an action is played
    # face up): what a state message shows, kept here so that sending it needs no query. The
    # ``GameAction`` rows are the record.
    log_tail = models.JSONField(
        _("last moves"),
        default=list,
        blank=True,
        help_text=_("The last moves as every viewer sees them; the moves are the record."),
    )
    state = models.JSONField(_("state"))
    result = models.JSONField(_("result"), null=True, blank=True)
    clock_seconds = models.PositiveIntegerField(
        _("move clock, seconds"), default=0, help_text=_("0: no clock.")
    )
    deadline = models.DateTimeField(
        _("move deadline"),
        null=True,
        blank=True,
        help_text=_("When the clock runs out for the move expected now."),
    )
    # Stand-in bots for absent players (``games.services.stand_ins``): the seconds a seated
    # player may go without a connection to the table on their turn before a bot plays for them
    # (0: at once; None: never, the clock alone acts), and the seats of ``bot_seats`` that a bot
    # plays only until its player comes back.
    absent_after = models.PositiveIntegerField(
        _("bots for absent players after, seconds"),
        null=True,
        blank=True,
        help_text=_("A bot plays the turn of a player not connected for this long; empty: never."),
    )
    stand_ins = models.JSONField(
        _("stand-in seats"),
        default=list,
        blank=True,
        help_text=_("The seats a bot plays until their player is back at the table."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("game")
        verbose_name_plural = _("games")
        constraints = [
            models.UniqueConstraint(
                fields=["table", "number"],
                condition=Q(table__isnull=False),
                name="game_number_unique_per_table",
            ),
        ]
        indexes = [models.Index(fields=["status", "deadline"])]

    def __str__(self) -> str:
        return gettext("game %(game)s") % {"game": self.pk}

    @property
    def is_over(self) -> bool:
        return self.status in self.OVER


class GameAction(models.Model):
    """One accepted action: the next entry of the game's log, never changed afterwards."""

    class Kind(models.TextChoices):
        PLAYER = "player", pgettext_lazy("move made by", "Player")
        BOT = "bot", pgettext_lazy("move made by", "Bot")
        CLOCK = "clock", pgettext_lazy("move made by", "Clock (absent player)")

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="actions", verbose_name=_("game")
    )
    seq = models.PositiveIntegerField(
        _("number"), help_text=_("1, 2, …: the game's version after this move.")
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    action = models.JSONField(_("move"))
    kind = models.CharField(_("made by"), max_length=10, choices=Kind.choices, default=Kind.PLAYER)
    client_id = models.CharField(
        _("client's message id"),
        max_length=64,
        blank=True,
        help_text=_("So that a message sent twice makes one move."),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("user"),
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="action_seq_unique"),
            models.UniqueConstraint(
                fields=["game", "client_id"],
                condition=~Q(client_id=""),
                name="action_client_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return gettext("game %(game)s, move %(number)s") % {
            "game": self.game_id,
            "number": self.seq,
        }


class RefereeEvent(models.Model):
    """A referee's pause, resume, adjudication or voiding, with its reason."""

    class Kind(models.TextChoices):
        PAUSE = "pause", pgettext_lazy("referee decision", "Pause")
        RESUME = "resume", pgettext_lazy("referee decision", "Resume")
        ADJUDICATE = "adjudicate", pgettext_lazy("referee decision", "Adjudicate")
        VOID = "void", pgettext_lazy("referee decision", "Void")

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="referee_events", verbose_name=_("game")
    )
    kind = models.CharField(_("decision"), max_length=20, choices=Kind.choices)
    reason = models.CharField(_("reason"), max_length=300)
    ruling = models.JSONField(
        _("ruling"),
        null=True,
        blank=True,
        help_text=_("An adjudication: the places and the fool."),
    )
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("referee"),
    )
    at_version = models.PositiveIntegerField(
        _("at version"), help_text=_("The game's version when the referee acted.")
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["game", "id"]
        verbose_name = _("referee decision")
        verbose_name_plural = _("referee decisions")

    def __str__(self) -> str:
        return gettext("%(decision)s, game %(game)s") % {
            "decision": self.get_kind_display(),
            "game": self.game_id,
        }


class ApiToken(models.Model):
    """A personal API token, made and revoked by its owner on the account's tokens page
    (``tournaments.services.tokens``): sent as ``Authorization: Token|Bearer <key>`` to the REST
    API and the live table's sockets (``games.tokens``). Only the key's SHA-256 is kept, so a
    leaked table opens nothing; ``prefix`` (the key's first characters) tells tokens apart on
    the page. A ``read`` token reads and watches; a ``write`` token may also change what its
    owner may change. Revoked rows stay, as a record."""

    class Scope(models.TextChoices):
        READ = "read", pgettext_lazy("token scope", "Read")
        WRITE = "write", pgettext_lazy("token scope", "Read and write")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    name = models.CharField(_("name"), max_length=100)
    scope = models.CharField(_("scope"), max_length=10, choices=Scope.choices)
    prefix = models.CharField(_("prefix"), max_length=16, editable=False)
    key_hash = models.CharField(_("key digest"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        indexes = [models.Index(fields=["user", "revoked_at"], name="api_token_user_live")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
