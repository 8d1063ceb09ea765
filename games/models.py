"""Stored games: rules, seed commitment, the append-only action log, the result.

The engine is the only judge; these rows are the record. ``Game.state`` caches the engine state
after the last logged action so that applying an action does not replay the log; the log plus
the (revealed) seed always reproduce it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Game(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PAUSED = "paused", "Paused"
        FINISHED = "finished", "Finished"
        ADJUDICATED = "adjudicated", "Adjudicated by a referee"
        VOIDED = "voided", "Voided"

    OVER = (Status.FINISHED, Status.ADJUDICATED, Status.VOIDED)
    LOG_TAIL = 30  # log entries kept in ``log_tail``

    table = models.ForeignKey(
        "tournaments.Table", null=True, blank=True, on_delete=models.CASCADE, related_name="games"
    )
    number = models.PositiveSmallIntegerField(default=1)  # the game's place in its series
    rules = models.JSONField(default=dict, blank=True)
    # Per-game setup from the series (first attacker, dealt hand sizes, pogony rank, ...).
    setup = models.JSONField(default=dict, blank=True)
    # The seed stays secret until the game ends; sha256(seed) is published at the start.
    seed = models.CharField(max_length=64)
    seed_commitment = models.CharField(max_length=64)
    seed_revealed = models.BooleanField(default=False)
    # Seat -> player id (tournaments.Player), and which seats a server-side bot plays.
    players = models.JSONField(default=list)
    bot_seats = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    version = models.PositiveIntegerField(default=0)  # = number of logged actions
    # The last LOG_TAIL log entries as every viewer sees them (each card of an action is played
    # face up): what a state message shows, kept here so that sending it needs no query. The
    # ``GameAction`` rows are the record.
    log_tail = models.JSONField(default=list, blank=True)
    state = models.JSONField()
    result = models.JSONField(null=True, blank=True)
    clock_seconds = models.PositiveIntegerField(default=0)  # 0: no clock
    deadline = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "number"],
                condition=Q(table__isnull=False),
                name="game_number_unique_per_table",
            ),
        ]
        indexes = [models.Index(fields=["status", "deadline"])]

    def __str__(self) -> str:
        return f"game {self.pk}"

    @property
    def is_over(self) -> bool:
        return self.status in self.OVER


class GameAction(models.Model):
    """One accepted action: the next entry of the game's log, never changed afterwards."""

    class Kind(models.TextChoices):
        PLAYER = "player", "Player"
        BOT = "bot", "Bot"
        CLOCK = "clock", "Clock (absent player)"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField()  # 1, 2, ...: the game's version after this action
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.PLAYER)
    client_id = models.CharField(max_length=64, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="action_seq_unique"),
            models.UniqueConstraint(
                fields=["game", "client_id"],
                condition=~Q(client_id=""),
                name="action_client_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} #{self.seq}"


class RefereeEvent(models.Model):
    """A referee's pause, resume, adjudication or voiding, with its reason."""

    class Kind(models.TextChoices):
        PAUSE = "pause", "Pause"
        RESUME = "resume", "Resume"
        ADJUDICATE = "adjudicate", "Adjudicate"
        VOID = "void", "Void"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="referee_events")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reason = models.CharField(max_length=300)
    ruling = models.JSONField(null=True, blank=True)
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at_version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "id"]

    def __str__(self) -> str:
        return f"{self.kind} of game {self.game_id}"
