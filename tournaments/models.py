"""Tournament domain rows. Fields, constraints and small properties only: writes go through
``tournaments.services``, reads through ``tournaments.selectors``.

Invariants live in the database (unique seats, unique table numbers, one registration per
player per tournament, ...), so that a bug or a race in Python cannot store an impossible event.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _


class Player(models.Model):
    """A public profile. Bots (for demos and simulations) have no user account."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
        verbose_name=_("user account"),
        help_text=_("Empty for a bot."),
    )
    display_name = models.CharField(
        _("display name"),
        max_length=80,
        help_text=_("The name shown at the tables and in the standings."),
    )
    club = models.CharField(_("club"), max_length=80, blank=True)
    city = models.CharField(_("city"), max_length=80, blank=True)
    is_bot = models.BooleanField(
        _("bot"), default=False, help_text=_("A computer player, for demos and simulations.")
    )
    bot_kind = models.CharField(
        _("bot kind"), max_length=20, blank=True, help_text=_("“heuristic” or “random”.")
    )
    # OpenSkill Plackett–Luce; ordinal = mu - 3 sigma is the conservative figure used for seeding.
    rating_mu = models.FloatField(
        _("rating μ"), default=25.0, help_text=_("The rating's estimate of skill (OpenSkill).")
    )
    rating_sigma = models.FloatField(
        _("rating σ"),
        default=25.0 / 3,
        help_text=_("The rating's uncertainty; seeding uses μ − 3σ."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["display_name", "id"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return self.display_name

    @property
    def rating_ordinal(self) -> float:
        return self.rating_mu - 3 * self.rating_sigma


class Team(models.Model):
    """Two or three partners who sit at alternate seats of a team table."""

    name = models.CharField(_("name"), max_length=80)
    members: models.ManyToManyField[Player, TeamMember] = models.ManyToManyField(
        Player, through="TeamMember", related_name="teams", verbose_name=_("members")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("team")
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("player")
    )
    order = models.PositiveSmallIntegerField(
        _("order"),
        help_text=_("0, 1 or 2: the partners' order; partners sit at alternate seats."),
    )

    class Meta:
        ordering = ["team", "order"]
        verbose_name = _("team member")
        verbose_name_plural = _("team members")
        constraints = [
            models.UniqueConstraint(fields=["team", "player"], name="team_member_once"),
            models.UniqueConstraint(fields=["team", "order"], name="team_member_order_unique"),
            models.CheckConstraint(condition=Q(order__lt=3), name="team_at_most_three"),
        ]

    def __str__(self) -> str:
        return gettext("player %(player)s in team %(team)s") % {
            "player": self.player_id,
            "team": self.team_id,
        }


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
    move_clock_seconds = models.PositiveIntegerField(
        _("move clock, seconds"),
        default=60,
        help_text=_(
            "The time for each move; when it runs out, the server moves for the absent player. "
            "0: no clock."
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
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    ranks_computed_at = models.DateTimeField(_("ranks computed at"), null=True, blank=True)
    ratings_applied_at = models.DateTimeField(_("ratings applied at"), null=True, blank=True)

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


class TableResult(models.Model):
    """The outcome of a table's series. A correction is a new row that supersedes the old one,
    with a reason: results are never edited, so the history stays."""

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
    supersedes = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded_by",
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
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["table", "id"]
        verbose_name = _("table result")
        verbose_name_plural = _("table results")
        constraints = [
            # The first result of a table is unique: a job recording it twice stores it once.
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(supersedes__isnull=True),
                name="one_original_result_per_table",
            ),
        ]

    def __str__(self) -> str:
        return gettext("result %(result)s of table %(table)s") % {
            "result": self.pk,
            "table": self.table_id,
        }


class Payout(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="payouts", verbose_name=_("tournament")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.PROTECT, related_name="payouts", verbose_name=_("entry")
    )
    place = models.PositiveIntegerField(_("place"))
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=3)
    final = models.BooleanField(
        _("final"),
        default=False,
        help_text=_("Provisional while registration is open; final when the tournament ends."),
    )
    computed_at = models.DateTimeField(_("computed at"), auto_now=True)

    class Meta:
        ordering = ["tournament", "place", "entry"]
        verbose_name = _("payout")
        verbose_name_plural = _("payouts")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "entry", "final"], name="payout_once_per_entry"
            ),
        ]

    def __str__(self) -> str:
        return gettext("place %(place)s: %(amount)s") % {
            "place": self.place,
            "amount": self.amount,
        }


class PrizePool(models.Model):
    """The last computed pool: provisional while registering, final at the end."""

    tournament = models.OneToOneField(
        Tournament,
        on_delete=models.CASCADE,
        related_name="prize_pool",
        verbose_name=_("tournament"),
    )
    gross = models.DecimalField(
        _("fees paid"),
        max_digits=14,
        decimal_places=3,
        help_text=_("Every paid entry and re-entry fee."),
    )
    rake = models.DecimalField(
        _("rake"), max_digits=14, decimal_places=3, help_text=_("The organiser's share.")
    )
    total = models.DecimalField(
        _("total"),
        max_digits=14,
        decimal_places=3,
        help_text=_("Paid out: the fees less the rake, raised to the guarantee."),
    )
    currency = models.CharField(_("currency"), max_length=3)
    paid_entries = models.PositiveIntegerField(_("paid entries"))
    final = models.BooleanField(
        _("final"),
        default=False,
        help_text=_("Provisional while registration is open; final when the tournament ends."),
    )
    computed_at = models.DateTimeField(_("computed at"), auto_now=True)

    class Meta:
        verbose_name = _("prize pool")
        verbose_name_plural = _("prize pools")

    def __str__(self) -> str:
        return f"{self.total} {self.currency}"


class RankRecord(models.Model):
    """A player's rank (звание) from pogony, per league season or per tournament."""

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="ranks", verbose_name=_("player")
    )
    league = models.ForeignKey(
        League,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="ranks",
        verbose_name=_("league"),
        help_text=_("A rank is kept for a league season or for one tournament: one of the two."),
    )
    tournament = models.ForeignKey(
        Tournament,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="ranks",
        verbose_name=_("tournament"),
    )
    rank = models.CharField(_("rank"), max_length=40, blank=True)
    pogony_received = models.PositiveIntegerField(_("pogony received"), default=0)
    pogony_given = models.PositiveIntegerField(_("pogony given"), default=0)
    history = models.JSONField(
        _("history"),
        default=list,
        blank=True,
        help_text=_("Each pogony received or given, in order."),
    )
    computed_at = models.DateTimeField(_("computed at"), auto_now=True)

    class Meta:
        verbose_name = _("rank")
        verbose_name_plural = _("ranks")
        constraints = [
            models.CheckConstraint(
                condition=(Q(league__isnull=False) & Q(tournament__isnull=True))
                | (Q(league__isnull=True) & Q(tournament__isnull=False)),
                name="rank_scope_league_xor_tournament",
            ),
            models.UniqueConstraint(
                fields=["player", "league"],
                condition=Q(league__isnull=False),
                name="rank_once_per_league",
            ),
            models.UniqueConstraint(
                fields=["player", "tournament"],
                condition=Q(tournament__isnull=False),
                name="rank_once_per_tournament",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.rank or '-'}"


class RatingChange(models.Model):
    """One tournament's effect on a player's rating; unique, so the job applies it once."""

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="rating_changes", verbose_name=_("player")
    )
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        verbose_name=_("tournament"),
    )
    mu_before = models.FloatField(_("μ before"))
    sigma_before = models.FloatField(_("σ before"))
    mu_after = models.FloatField(_("μ after"))
    sigma_after = models.FloatField(_("σ after"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        constraints = [
            models.UniqueConstraint(fields=["player", "tournament"], name="rating_once_per_event"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.mu_before:.1f} -> {self.mu_after:.1f}"


class AuditEvent(models.Model):
    """One change made in the console or the API: who, when, what, why, before and after.

    Written by ``tournaments.services.audit.audit_record`` in the same transaction as the change
    it records, and never changed or deleted afterwards: the rows it points to are kept
    (``PROTECT``), and a deleted user leaves its name behind (``actor_name``).
    """

    class Action(models.TextChoices):
        # Stable codes: the API and the console filter on them.
        TOURNAMENT_CREATE = "tournament.create", _("Tournament created")
        TOURNAMENT_OPEN = "tournament.open_registration", _("Registration opened")
        TOURNAMENT_CLOSE = "tournament.close_registration", _("Registration closed")
        TOURNAMENT_START = "tournament.start", _("Tournament started")
        TOURNAMENT_CANCEL = "tournament.cancel", _("Tournament cancelled")
        TOURNAMENT_REFEREES = "tournament.referees", _("Referees changed")
        TOURNAMENT_EDIT = "tournament.edit", _("Tournament settings changed")
        ENTRY_REGISTER = "entry.register", _("Entry registered")
        ENTRY_CHECK_IN = "entry.check_in", _("Entry checked in")
        ENTRY_WITHDRAW = "entry.withdraw", _("Entry withdrawn")
        ENTRY_DISQUALIFY = "entry.disqualify", _("Entry disqualified")
        ENTRY_REENTER = "entry.reenter", _("Re-entry")
        ROUND_PAIR = "round.request_pairing", _("Pairing requested")
        RESULT_ENTER = "result.enter", _("Result entered")
        RESULT_CORRECT = "result.correct", _("Result corrected")
        GAME_REFEREE = "game.referee", _("Referee ruling on a game")
        LEAGUE_CREATE = "league.create", _("League created")
        LEAGUE_EDIT = "league.edit", _("League changed")

    tournament = models.ForeignKey(
        Tournament,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_events",
        verbose_name=_("tournament"),
    )
    league = models.ForeignKey(
        League,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_events",
        verbose_name=_("league"),
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("user"),
    )
    actor_name = models.CharField(
        _("user name"),
        max_length=150,
        blank=True,
        help_text=_("Kept when the user account is deleted."),
    )
    action = models.CharField(_("action"), max_length=40, choices=Action.choices)
    # What was changed: "entry", "table", "round", ... with its id and its name at the time.
    target_type = models.CharField(
        _("object type"), max_length=40, blank=True, help_text=_("entry, table, round, …")
    )
    target_id = models.BigIntegerField(_("object id"), null=True, blank=True)
    target_repr = models.CharField(
        _("object"),
        max_length=200,
        blank=True,
        help_text=_("The changed object's name at the time of the change."),
    )
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log")
        indexes = [models.Index(fields=["tournament", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.target_repr or self.target_type}"
