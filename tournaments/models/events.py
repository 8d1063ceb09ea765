"""Events: leagues, tournaments with their stage plans, and the entries."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from tournaments.models.people import Player, Team


class League(models.Model):
    """A season grouping tournaments: league table, ratings and ranks."""

    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(
        _("slug"),
        max_length=120,
        help_text=_("The name in web addresses: Latin letters, digits, hyphens."),
    )
    season = models.CharField(
        _("season"), max_length=40, help_text=_("For example 2026 or 2026/27.")
    )
    # Points from each tournament's final places: index 0 is first place.
    points_scale = models.JSONField(
        _("points scale"),
        default=list,
        blank=True,
        help_text=_(
            "League points for each final place of a tournament, first place first, "
            "e.g. [25, 18, 15]."
        ),
    )
    rank_ladder = models.JSONField(
        _("rank ladder"),
        default=list,
        blank=True,
        help_text=_(
            "The ranks a player receives with each pogony, in order, e.g. "
            '["сержант", "старшина", "прапорщик"]; empty: the default ladder.'
        ),
    )
    # The organiser who owns the league (sees and edits it in the console).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("owner"),
        help_text=_("The organiser who owns the league: sees and edits it in the console."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-season", "name"]
        verbose_name = _("league")
        verbose_name_plural = _("leagues")
        constraints = [
            models.UniqueConstraint(fields=["slug", "season"], name="league_slug_season_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.season}"


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("tournament status", "Draft")
        REGISTRATION = "registration", pgettext_lazy("tournament status", "Registration")
        RUNNING = "running", pgettext_lazy("tournament status", "Running")
        FINISHED = "finished", pgettext_lazy("tournament status", "Finished")
        CANCELLED = "cancelled", pgettext_lazy("tournament status", "Cancelled")

    name = models.CharField(_("name"), max_length=160)
    slug = models.SlugField(
        _("slug"),
        max_length=160,
        unique=True,
        help_text=_("The name in web addresses: Latin letters, digits, hyphens."),
    )
    league = models.ForeignKey(
        League,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournaments",
        verbose_name=_("league"),
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.DRAFT
    )
    is_public = models.BooleanField(
        _("public"),
        default=True,
        help_text=_(
            "Anyone can watch a public tournament; a private one only its players, "
            "organiser and referees."
        ),
    )
    # The engine's rules options that differ from the defaults (validated by the engine).
    rules = models.JSONField(
        _("rules"),
        default=dict,
        blank=True,
        help_text=_(
            'The rules options that differ from the defaults, e.g. {"variant": "transfer"} '
            "for transfer durak; checked by the rules engine, fixed when registration closes."
        ),
    )
    team_size = models.PositiveSmallIntegerField(
        _("team size"),
        default=1,
        help_text=_("1: an individual event; 2 or 3: a team event (partners sit apart)."),
    )
    max_entries = models.PositiveIntegerField(
        _("maximum entries"), null=True, blank=True, help_text=_("Empty: no limit.")
    )
    check_in_required = models.BooleanField(
        _("check-in required"),
        default=False,
        help_text=_("Entries that have not checked in when registration closes are withdrawn."),
    )
    late_registration_rounds = models.PositiveSmallIntegerField(
        _("late registration rounds"),
        default=0,
        help_text=_(
            "When the first stage is swiss: registration stays open after the start until this "
            "many of its rounds have been paired. 0: it closes at the start."
        ),
    )
    # Money: Decimal in a named currency; the pool rules are in tournaments/scoring/prizes.py.
    currency = models.CharField(
        _("currency"), max_length=3, default="RUB", help_text=_("ISO 4217 code, e.g. RUB.")
    )
    entry_fee = models.DecimalField(
        _("entry fee"), max_digits=12, decimal_places=3, default=Decimal("0")
    )
    rake_percent = models.DecimalField(
        _("rake, %"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("0"),
        help_text=_(
            "The organiser's share of the paid fees, in percent (0 to 100); the rest is the "
            "prize pool."
        ),
    )
    guarantee = models.DecimalField(
        _("guarantee"),
        max_digits=14,
        decimal_places=3,
        default=Decimal("0"),
        help_text=_("The guaranteed minimum prize pool; 0: none."),
    )
    reentry_fee = models.DecimalField(
        _("re-entry fee"),
        max_digits=12,
        decimal_places=3,
        default=Decimal("0"),
        help_text=_("0: no re-entries; otherwise each re-entry pays it into the prize pool."),
    )
    # Percentages by place, e.g. ["50", "30", "20"]; empty = the default falling scale.
    payout_structure = models.JSONField(
        _("payout structure"),
        default=list,
        blank=True,
        help_text=_(
            "Percentages of the prize pool by final place, adding up to 100, e.g. "
            '["50", "30", "20"]. Empty: about the top 15 per cent are paid, on a falling scale.'
        ),
    )

    class DropoutRule(models.TextChoices):
        CLOCK = "clock", _("The move clock plays for the player to the end of the table")
        REFEREE = "referee", _("The game is paused for a referee to adjudicate")

    two_person_rule = models.BooleanField(
        _("two-person rule"),
        default=False,
        help_text=_(
            "A result a referee enters or corrects counts only when another referee confirms it."
        ),
    )
    dropout_rule = models.CharField(
        _("when a player drops out mid-game"),
        max_length=20,
        choices=DropoutRule.choices,
        default=DropoutRule.CLOCK,
        help_text=_(
            "What happens to the running game of a player withdrawn during the event; the next "
            "round is paired without them either way. The clock needs a move clock."
        ),
    )
    move_clock_seconds = models.PositiveIntegerField(
        _("move clock, seconds"),
        default=60,
        help_text=_(
            "The time for each move; when it runs out, the server moves for the absent player. "
            "0: no clock."
        ),
    )

    class AbsentBots(models.TextChoices):
        OFF = "off", _("Never: the move clock moves for an absent player")
        ABSENT = "absent", _("For a player absent on their turn for the seconds below")
        EMPTY = "empty", _("For every empty seat, from the first move of each game")
        ALL = "all", _("For every seat, to the end of the event")

    absent_bots = models.CharField(
        _("bots play for absent players"),
        max_length=10,
        choices=AbsentBots.choices,
        default=AbsentBots.OFF,
        help_text=_(
            "For the rest of the event, every table included: a bot plays the seat of a player "
            "who is not connected to their table until they come back."
        ),
    )
    absent_bots_seconds = models.PositiveIntegerField(
        _("absent for, seconds"),
        default=30,
        help_text=_(
            "How long a player's turn waits for them without a connection before a bot plays "
            "for them; shorter than the move clock, or the clock moves first."
        ),
    )
    seed = models.CharField(
        _("draw seed"),
        max_length=64,
        blank=True,
        help_text=_(
            "The seed of the tournament's random choices: the pairings and the draw that "
            "settles the last ties."
        ),
    )
    # The organiser who owns the event; the referees assigned to it (``tournaments.permissions``).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("organiser"),
        help_text=_("The organiser who owns the tournament."),
    )
    referees = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="refereed_tournaments",
        verbose_name=_("referees"),
        help_text=_("The users who referee this tournament's tables."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # Registration closed before the start (new entries refused; the organiser may reopen it).
    registration_closed_at = models.DateTimeField(
        _("registration closed at"), null=True, blank=True
    )
    # When the organiser means to start: what an open event's page counts down to (the start
    # itself stays the organiser's action; ``started_at`` is when it happened).
    starts_at = models.DateTimeField(
        _("planned start"),
        null=True,
        blank=True,
        help_text=_("When the tournament is planned to start: its page counts down to it."),
    )
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    ranks_computed_at = models.DateTimeField(_("ranks computed at"), null=True, blank=True)
    ratings_applied_at = models.DateTimeField(_("ratings applied at"), null=True, blank=True)
    # Bumped in the transaction of every change a reader of the event can see (a round paired,
    # a result, an entry, the finish): the API's ETag and the feed's resync point.
    version = models.PositiveBigIntegerField(
        _("version"), default=0, help_text=_("Counts the changes a reader of the event can see.")
    )
    changed_at = models.DateTimeField(
        _("last changed at"), null=True, blank=True, help_text=_("The time of the last change.")
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        constraints = [
            models.CheckConstraint(condition=Q(team_size__in=[1, 2, 3]), name="team_size_1_2_3"),
            models.CheckConstraint(
                condition=Q(rake_percent__gte=0) & Q(rake_percent__lte=100), name="rake_0_100"
            ),
            models.CheckConstraint(condition=Q(entry_fee__gte=0), name="entry_fee_not_negative"),
            models.CheckConstraint(condition=Q(guarantee__gte=0), name="guarantee_not_negative"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_team_event(self) -> bool:
        return self.team_size > 1


class Entry(models.Model):
    """A registration: one player, or one team in a team event."""

    class Status(models.TextChoices):
        REGISTERED = "registered", pgettext_lazy("entry status", "Registered")
        CHECKED_IN = "checked_in", pgettext_lazy("entry status", "Checked in")
        WITHDRAWN = "withdrawn", pgettext_lazy("entry status", "Withdrawn")
        DISQUALIFIED = "disqualified", pgettext_lazy("entry status", "Disqualified")
        ELIMINATED = "eliminated", pgettext_lazy("entry status", "Eliminated")

    ACTIVE = (Status.REGISTERED, Status.CHECKED_IN)

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", verbose_name=_("tournament")
    )
    player = models.ForeignKey(
        Player,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="entries",
        verbose_name=_("player"),
        help_text=_("In an individual event."),
    )
    team = models.ForeignKey(
        Team,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="entries",
        verbose_name=_("team"),
        help_text=_("In a team event."),
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.REGISTERED
    )
    paid = models.BooleanField(
        _("fee paid"), default=True, help_text=_("Only paid fees count towards the prize pool.")
    )
    reentries = models.PositiveSmallIntegerField(_("re-entries"), default=0)
    seed = models.PositiveIntegerField(
        _("seed"), null=True, blank=True, help_text=_("The seeding number: 1 is the strongest.")
    )
    final_place = models.PositiveIntegerField(_("final place"), null=True, blank=True)
    status_reason = models.CharField(
        _("reason for the status"),
        max_length=300,
        blank=True,
        help_text=_("Why the entry withdrew or was disqualified."),
    )
    registered_at = models.DateTimeField(_("registered at"), auto_now_add=True)

    class Meta:
        ordering = ["tournament", "id"]
        verbose_name = _("entry")
        # A context: the pages' "entries" is a count ("12 участников"), this is a name.
        verbose_name_plural = pgettext_lazy("model name", "entries")
        constraints = [
            models.CheckConstraint(
                condition=(Q(player__isnull=False) & Q(team__isnull=True))
                | (Q(player__isnull=True) & Q(team__isnull=False)),
                name="entry_player_xor_team",
            ),
            models.UniqueConstraint(
                fields=["tournament", "player"],
                name="one_entry_per_player",
                condition=Q(player__isnull=False),
            ),
            models.UniqueConstraint(
                fields=["tournament", "team"],
                name="one_entry_per_team",
                condition=Q(team__isnull=False),
            ),
        ]
        indexes = [models.Index(fields=["tournament", "status"])]

    def __str__(self) -> str:
        return str(self.player or self.team)

    @property
    def name(self) -> str:
        return str(self.player or self.team)


class Stage(models.Model):
    class Format(models.TextChoices):
        SWISS = "swiss", _("Swiss")
        ROUND_ROBIN = "round_robin", _("Round robin")
        KNOCKOUT = "knockout", _("Knockout")

    class SeriesFormat(models.TextChoices):
        SINGLE = "single", _("Single game")
        BEST_OF = "best_of", _("Best of N games")
        FIRST_TO = "first_to", _("First to P points")
        LONG = "long", _("Long durak")

    class AdvanceMode(models.TextChoices):
        NONE = "none", _("None (the last stage)")
        TOP_N = "top_n", _("Top N overall")
        TOP_K_PER_TABLE = "top_k_per_table", _("Top K of each table or group")

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("stage status", "Pending")
        RUNNING = "running", pgettext_lazy("stage status", "Running")
        FINISHED = "finished", pgettext_lazy("stage status", "Finished")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="stages", verbose_name=_("tournament")
    )
    order = models.PositiveSmallIntegerField(
        _("order"), help_text=_("1 for the first stage, then 2, 3, …")
    )
    name = models.CharField(
        _("name"),
        max_length=80,
        blank=True,
        help_text=_("Empty: the format and the order, e.g. “Swiss, stage 1”."),
    )
    format = models.CharField(_("format"), max_length=20, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField(
        _("players per table"), default=4, help_text=_("2 to 6.")
    )
    rounds_planned = models.PositiveSmallIntegerField(
        _("number of rounds"), null=True, blank=True, help_text=_("Swiss: the number of rounds.")
    )
    groups = models.PositiveSmallIntegerField(
        _("number of groups"),
        null=True,
        blank=True,
        help_text=_("Round robin: the number of groups the players are split into."),
    )
    knockout_advance = models.PositiveSmallIntegerField(
        _("advance per table"),
        null=True,
        blank=True,
        help_text=_("Knockout: how many players of each table go on to the next round."),
    )
    series_format = models.CharField(
        _("series"),
        max_length=20,
        choices=SeriesFormat.choices,
        default=SeriesFormat.SINGLE,
        help_text=_("What is played at each table: one game or a series of games."),
    )
    series_target = models.PositiveSmallIntegerField(
        _("series length"),
        default=1,
        help_text=_("N of “best of N games”, P of “first to P points”."),
    )
    # Points by finishing place per table size, pogony penalty, bye points: scoring.points.
    scoring = models.JSONField(
        _("scoring"),
        default=dict,
        blank=True,
        help_text=_(
            "Points by finishing place for each table size, the penalty for the fool with "
            "pogony, the points of a bye. Empty: for k seats, k − 1 points to the first out, "
            "…, 0 to the fool."
        ),
    )
    tiebreaks = models.JSONField(
        _("tie-breaks"),
        default=list,
        blank=True,
        help_text=_(
            "In the order they apply: points, first_places, buchholz, fewest_fools, "
            "head_to_head; a seeded random draw comes last. Empty: that order."
        ),
    )
    advance_mode = models.CharField(
        _("advancement"),
        max_length=20,
        choices=AdvanceMode.choices,
        default=AdvanceMode.NONE,
        help_text=_("Who goes on to the next stage."),
    )
    advance_count = models.PositiveIntegerField(
        _("advance count"),
        default=0,
        help_text=_("N of “top N overall”, K of “top K of each table or group”."),
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )

    class Meta:
        ordering = ["tournament", "order"]
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "order"], name="stage_order_unique"),
            models.CheckConstraint(
                condition=Q(table_size__gte=2) & Q(table_size__lte=6), name="table_size_2_6"
            ),
        ]

    def __str__(self) -> str:
        """The stage's own name, else its format and order: "Swiss, stage 1"."""
        if self.name:
            return self.name
        # One whole phrase per format, so that a language can word each its own way.
        names: dict[str, str] = {
            self.Format.SWISS: gettext("Swiss, stage %(order)s"),
            self.Format.ROUND_ROBIN: gettext("Round robin, stage %(order)s"),
            self.Format.KNOCKOUT: gettext("Knockout, stage %(order)s"),
        }
        template = names.get(self.format) or gettext("%(format)s, stage %(order)s")
        return template % {"format": self.get_format_display(), "order": self.order}


class StageEntry(models.Model):
    """An entry taking part in a stage, with its seed (1 = best) for that stage."""

    stage = models.ForeignKey(
        Stage, on_delete=models.CASCADE, related_name="stage_entries", verbose_name=_("stage")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="stage_entries", verbose_name=_("entry")
    )
    seed = models.PositiveIntegerField(
        _("seed"), help_text=_("The seeding number in this stage: 1 is the strongest.")
    )

    class Meta:
        ordering = ["stage", "seed"]
        verbose_name = _("stage entry")
        verbose_name_plural = _("stage entries")
        constraints = [
            models.UniqueConstraint(fields=["stage", "entry"], name="stage_entry_once"),
            models.UniqueConstraint(fields=["stage", "seed"], name="stage_seed_unique"),
        ]

    def __str__(self) -> str:
        return gettext("entry %(entry)s in stage %(stage)s (seed %(seed)s)") % {
            "entry": self.entry_id,
            "stage": self.stage_id,
            "seed": self.seed,
        }
