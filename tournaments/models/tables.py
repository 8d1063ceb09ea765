"""Play: rounds, tables, seats and table results (corrections are new rows)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from tournaments.models.events import Entry, Stage
from tournaments.models.people import Player


class Round(models.Model):
    class Status(models.TextChoices):
        # created; the pairing job seats it
        PENDING = "pending", pgettext_lazy("round status", "Waiting for the pairing")
        PLAYING = "playing", pgettext_lazy("round status", "Playing")
        FINISHED = "finished", pgettext_lazy("round status", "Finished")

    stage = models.ForeignKey(
        Stage, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("stage")
    )
    number = models.PositiveSmallIntegerField(_("number"))
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    # Why the round is as it is: the algorithm, its seed, and every compromise it made.
    explanation = models.JSONField(
        _("pairing explanation"),
        default=dict,
        blank=True,
        help_text=_(
            "Why the round is paired as it is: the algorithm, its seed and every compromise "
            "it made."
        ),
    )
    paired_at = models.DateTimeField(_("paired at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["stage", "number"]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="round_number_unique"),
        ]

    def __str__(self) -> str:
        return gettext("%(stage)s, round %(number)s") % {
            "stage": self.stage,
            "number": self.number,
        }


class Table(models.Model):
    """A table of a round: seats in order, a series, and the tables that feed it (knockout)."""

    class Status(models.TextChoices):
        WAITING = "waiting", pgettext_lazy("table status", "Waiting for its feeders")
        PLAYING = "playing", pgettext_lazy("table status", "Playing")
        FINISHED = "finished", pgettext_lazy("table status", "Finished")

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="tables", verbose_name=_("round")
    )
    number = models.PositiveIntegerField(_("number"))
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PLAYING
    )
    score_group = models.CharField(
        _("score group"),
        max_length=40,
        blank=True,
        help_text=_("Swiss: the score group the table was paired in; knockout: its round."),
    )
    compromises = models.JSONField(
        _("pairing compromises"),
        default=list,
        blank=True,
        help_text=_("What the pairing could not avoid here: a repeat meeting, a club, a seat."),
    )
    # Knockout tree: [{"table": <table id>, "places": [1, 2]}, ...] feeding this table.
    feeds_from = models.JSONField(
        _("fed from"),
        default=list,
        blank=True,
        help_text=_("Knockout: the tables, and their places, whose players come to this table."),
    )
    is_bye = models.BooleanField(
        _("bye table"),
        default=False,
        help_text=_("A single entry left without opponents this round: it scores the bye points."),
    )
    # The series at this table (games, points, ranks so far), kept by games/services.
    series_state = models.JSONField(
        _("series state"),
        default=dict,
        blank=True,
        help_text=_("The series so far: games, points, ranks."),
    )
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_number_unique"),
        ]
        indexes = [models.Index(fields=["round", "status"])]

    def __str__(self) -> str:
        return gettext("%(round)s, table %(number)s") % {
            "round": self.round,
            "number": self.number,
        }


class Seat(models.Model):
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("table")
    )
    position = models.PositiveSmallIntegerField(
        _("position"), help_text=_("0, 1, …: clockwise; each seat attacks the next one.")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.PROTECT, related_name="seats", verbose_name=_("entry")
    )
    # For a team table: which member of the entry sits here.
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="seats",
        verbose_name=_("player"),
        help_text=_("In a team event: the member of the team who sits here."),
    )
    bot_kind = models.CharField(
        _("played by a bot"),
        max_length=20,
        blank=True,
        help_text=_(
            "Empty: the player plays. Otherwise the kind of bot that plays this seat for the "
            "rest of the table's series (a referee handed it over)."
        ),
    )

    class Meta:
        ordering = ["table", "position"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_position_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="seat_player_once"),
            models.CheckConstraint(condition=Q(position__lt=8), name="seat_position_lt_8"),
        ]

    def __str__(self) -> str:
        return gettext("table %(table)s, seat %(position)s") % {
            "table": self.table_id,
            "position": self.position,
        }


class TableResultQuerySet(models.QuerySet["TableResult"]):
    def counted(self) -> TableResultQuerySet:
        """The confirmed results: those that count (a pending or rejected one does not)."""
        return self.filter(status=TableResult.Status.CONFIRMED)

    def effective(self) -> TableResultQuerySet:
        """The results in force: confirmed, and not corrected by a confirmed correction."""
        corrected = self.model.objects.counted().filter(supersedes__isnull=False)
        return self.counted().exclude(pk__in=corrected.values("supersedes"))


class TableResult(models.Model):
    """The outcome of a table's series. A correction is a new row that supersedes the old one,
    with a reason: results are never edited, so the history stays.

    Under the tournament's two-person rule a result a referee enters is *pending* until another
    referee confirms it (or rejects it); only confirmed results count. The database holds the
    rule's core: the confirmer is never the enterer, a table has at most one pending result, and
    a result is corrected at most once by a result that still stands.
    """

    class Source(models.TextChoices):
        LIVE = "live", _("Live table")
        BOT = "bot", _("Bots")
        REFEREE = "referee", pgettext_lazy("result source", "Referee")
        BYE = "bye", pgettext_lazy("result source", "Bye")

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="results", verbose_name=_("table")
    )
    # Entry ids from first out to last; on a draw the drawn entries come last.
    places = models.JSONField(
        _("places"),
        help_text=_("Entry ids from the first out to the last; on a draw the drawn entries last."),
    )
    fool_entry = models.ForeignKey(
        Entry,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("fool"),
        help_text=_("Empty on a draw."),
    )
    drawn = models.JSONField(
        _("drawn"),
        default=list,
        blank=True,
        help_text=_("The entries that drew: they share the last places."),
    )
    team_lost = models.JSONField(
        _("losing team"),
        default=list,
        blank=True,
        help_text=_("Team play with individual entries: the entries of the losing team."),
    )
    # [{"by": entry id, "on": [entry ids], "rank": "6", "by_player": id, "on_players": [...]}]
    pogony = models.JSONField(
        _("pogony"),
        default=list,
        blank=True,
        help_text=_("Who hung pogony on whom, and of which rank."),
    )
    games = models.JSONField(
        _("games"),
        default=list,
        blank=True,
        help_text=_("For each game of the series: the places, the fool, pogony."),
    )
    source = models.CharField(_("source"), max_length=20, choices=Source.choices)
    reason = models.CharField(
        _("reason"),
        max_length=300,
        blank=True,
        help_text=_("Why a referee entered or corrected the result."),
    )

    class Status(models.TextChoices):
        CONFIRMED = "confirmed", pgettext_lazy("result status", "Counts")
        PENDING = "pending", pgettext_lazy("result status", "Waiting for a second referee")
        REJECTED = "rejected", pgettext_lazy("result status", "Rejected by a second referee")

    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.CONFIRMED
    )
    supersedes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="corrections",
        verbose_name=_("corrects"),
        help_text=_("The earlier result that this one replaces."),
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("entered by"),
    )
    repairs = models.BooleanField(
        _("pairs the next round again"),
        default=False,
        help_text=_(
            "A correction whose referee chose to pair the next round again, seated from the old "
            "result (only while none of its games has a move)."
        ),
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("confirmed or rejected by"),
        help_text=_("Two-person rule: the second referee."),
    )
    reviewed_at = models.DateTimeField(_("confirmed or rejected at"), null=True, blank=True)
    review_note = models.CharField(
        _("review note"),
        max_length=300,
        blank=True,
        help_text=_("Why the second referee rejected the result."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    objects = TableResultQuerySet.as_manager()

    class Meta:
        ordering = ["table", "id"]
        verbose_name = _("table result")
        verbose_name_plural = _("table results")
        constraints = [
            # The first result of a table is unique: a job recording it twice stores it once.
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(supersedes__isnull=True) & ~Q(status="rejected"),
                name="one_original_result_per_table",
            ),
            # A result is corrected once (a rejected correction does not count).
            models.UniqueConstraint(
                fields=["supersedes"],
                condition=Q(supersedes__isnull=False) & ~Q(status="rejected"),
                name="one_correction_per_result",
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(status="pending"), name="one_pending_result_per_table"
            ),
            # The two-person rule: whoever entered a result cannot confirm or reject it.
            models.CheckConstraint(
                condition=~Q(reviewed_by=models.F("entered_by")),
                name="result_reviewer_is_not_enterer",
            ),
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(reviewed_by__isnull=True),
                name="pending_result_not_reviewed",
            ),
        ]

    def __str__(self) -> str:
        return gettext("result %(result)s of table %(table)s") % {
            "result": self.pk,
            "table": self.table_id,
        }
