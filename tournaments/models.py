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


class Player(models.Model):
    """A public profile. Bots (for demos and simulations) have no user account."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
    )
    display_name = models.CharField(max_length=80)
    club = models.CharField(max_length=80, blank=True)
    city = models.CharField(max_length=80, blank=True)
    is_bot = models.BooleanField(default=False)
    bot_kind = models.CharField(max_length=20, blank=True)
    # OpenSkill Plackett–Luce; ordinal = mu - 3 sigma is the conservative figure used for seeding.
    rating_mu = models.FloatField(default=25.0)
    rating_sigma = models.FloatField(default=25.0 / 3)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["display_name", "id"]

    def __str__(self) -> str:
        return self.display_name

    @property
    def rating_ordinal(self) -> float:
        return self.rating_mu - 3 * self.rating_sigma


class Team(models.Model):
    """Two or three partners who sit at alternate seats of a team table."""

    name = models.CharField(max_length=80)
    members: models.ManyToManyField[Player, TeamMember] = models.ManyToManyField(
        Player, through="TeamMember", related_name="teams"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships")
    order = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["team", "order"]
        constraints = [
            models.UniqueConstraint(fields=["team", "player"], name="team_member_once"),
            models.UniqueConstraint(fields=["team", "order"], name="team_member_order_unique"),
            models.CheckConstraint(condition=Q(order__lt=3), name="team_at_most_three"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.team_id}"


class League(models.Model):
    """A season grouping tournaments: league table, ratings and ranks."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=120)
    season = models.CharField(max_length=40)
    # Points from each tournament's final places: index 0 is first place.
    points_scale = models.JSONField(default=list, blank=True)
    rank_ladder = models.JSONField(default=list, blank=True)
    # The organiser who owns the league (sees and edits it in the console).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-season", "name"]
        constraints = [
            models.UniqueConstraint(fields=["slug", "season"], name="league_slug_season_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.season}"


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        REGISTRATION = "registration", "Registration"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    name = models.CharField(max_length=160)
    slug = models.SlugField(max_length=160, unique=True)
    league = models.ForeignKey(
        League, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT)
    is_public = models.BooleanField(default=True)
    # The engine's rules options that differ from the defaults (validated by the engine).
    rules = models.JSONField(default=dict, blank=True)
    team_size = models.PositiveSmallIntegerField(default=1)  # 1: individual; 2 or 3: teams
    max_entries = models.PositiveIntegerField(null=True, blank=True)
    check_in_required = models.BooleanField(default=False)
    late_registration_rounds = models.PositiveSmallIntegerField(default=0)
    # Money: Decimal in a named currency; the pool rules are in tournaments/scoring/prizes.py.
    currency = models.CharField(max_length=3, default="RUB")
    entry_fee = models.DecimalField(max_digits=12, decimal_places=3, default=Decimal("0"))
    rake_percent = models.DecimalField(max_digits=5, decimal_places=2, default=Decimal("0"))
    guarantee = models.DecimalField(max_digits=14, decimal_places=3, default=Decimal("0"))
    reentry_fee = models.DecimalField(max_digits=12, decimal_places=3, default=Decimal("0"))
    # Percentages by place, e.g. ["50", "30", "20"]; empty = the default falling scale.
    payout_structure = models.JSONField(default=list, blank=True)
    move_clock_seconds = models.PositiveIntegerField(default=60)
    seed = models.CharField(max_length=64, blank=True)  # the random draw's seed (tie-breaks)
    # The organiser who owns the event; the referees assigned to it (``tournaments.permissions``).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    referees = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="refereed_tournaments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    ranks_computed_at = models.DateTimeField(null=True, blank=True)
    ratings_applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
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
        REGISTERED = "registered", "Registered"
        CHECKED_IN = "checked_in", "Checked in"
        WITHDRAWN = "withdrawn", "Withdrawn"
        DISQUALIFIED = "disqualified", "Disqualified"
        ELIMINATED = "eliminated", "Eliminated"

    ACTIVE = (Status.REGISTERED, Status.CHECKED_IN)

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="entries"
    )
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.PROTECT, related_name="entries"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.REGISTERED)
    paid = models.BooleanField(default=True)
    reentries = models.PositiveSmallIntegerField(default=0)
    seed = models.PositiveIntegerField(null=True, blank=True)
    final_place = models.PositiveIntegerField(null=True, blank=True)
    status_reason = models.CharField(max_length=300, blank=True)
    registered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "id"]
        verbose_name_plural = "entries"
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
        SWISS = "swiss", "Swiss"
        ROUND_ROBIN = "round_robin", "Round robin"
        KNOCKOUT = "knockout", "Knockout"

    class SeriesFormat(models.TextChoices):
        SINGLE = "single", "Single game"
        BEST_OF = "best_of", "Best of N"
        FIRST_TO = "first_to", "First to P points"
        LONG = "long", "Long durak"

    class AdvanceMode(models.TextChoices):
        NONE = "none", "None (last stage)"
        TOP_N = "top_n", "Top N overall"
        TOP_K_PER_TABLE = "top_k_per_table", "Top K per table or group"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    order = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=80, blank=True)
    format = models.CharField(max_length=20, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField(default=4)
    rounds_planned = models.PositiveSmallIntegerField(null=True, blank=True)
    groups = models.PositiveSmallIntegerField(null=True, blank=True)  # round robin
    knockout_advance = models.PositiveSmallIntegerField(null=True, blank=True)  # per table
    series_format = models.CharField(
        max_length=20, choices=SeriesFormat.choices, default=SeriesFormat.SINGLE
    )
    series_target = models.PositiveSmallIntegerField(default=1)  # N of best_of, P of first_to
    # Points by finishing place per table size, pogony penalty, bye points: scoring.points.
    scoring = models.JSONField(default=dict, blank=True)
    tiebreaks = models.JSONField(default=list, blank=True)
    advance_mode = models.CharField(
        max_length=20, choices=AdvanceMode.choices, default=AdvanceMode.NONE
    )
    advance_count = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)

    class Meta:
        ordering = ["tournament", "order"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "order"], name="stage_order_unique"),
            models.CheckConstraint(
                condition=Q(table_size__gte=2) & Q(table_size__lte=6), name="table_size_2_6"
            ),
        ]

    def __str__(self) -> str:
        return self.name or f"{self.get_format_display()} #{self.order}"


class StageEntry(models.Model):
    """An entry taking part in a stage, with its seed (1 = best) for that stage."""

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="stage_entries")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="stage_entries")
    seed = models.PositiveIntegerField()

    class Meta:
        ordering = ["stage", "seed"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "entry"], name="stage_entry_once"),
            models.UniqueConstraint(fields=["stage", "seed"], name="stage_seed_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.entry_id} in stage {self.stage_id} (seed {self.seed})"


class Round(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"  # created; the pairing job seats it
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    # Why the round is as it is: the algorithm, its seed, and every compromise it made.
    explanation = models.JSONField(default=dict, blank=True)
    paired_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="round_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.stage} round {self.number}"


class Table(models.Model):
    """A table of a round: seats in order, a series, and the tables that feed it (knockout)."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for its feeders"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PLAYING)
    score_group = models.CharField(max_length=40, blank=True)
    compromises = models.JSONField(default=list, blank=True)
    # Knockout tree: [{"table": <table id>, "places": [1, 2]}, ...] feeding this table.
    feeds_from = models.JSONField(default=list, blank=True)
    is_bye = models.BooleanField(default=False)
    # The series at this table (games, points, ranks so far), kept by games/services.
    series_state = models.JSONField(default=dict, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_number_unique"),
        ]
        indexes = [models.Index(fields=["round", "status"])]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="seats")
    # For a team table: which member of the entry sits here.
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")

    class Meta:
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_position_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="seat_player_once"),
            models.CheckConstraint(condition=Q(position__lt=8), name="seat_position_lt_8"),
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} seat {self.position}"


class TableResult(models.Model):
    """The outcome of a table's series. A correction is a new row that supersedes the old one,
    with a reason: results are never edited, so the history stays."""

    class Source(models.TextChoices):
        LIVE = "live", "Live table"
        BOT = "bot", "Bots"
        REFEREE = "referee", "Referee"
        BYE = "bye", "Bye"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="results")
    # Entry ids from first out to last; on a draw the drawn entries come last.
    places = models.JSONField()
    fool_entry = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    drawn = models.JSONField(default=list, blank=True)  # entries sharing the last places
    team_lost = models.JSONField(default=list, blank=True)  # team play with individual entries
    # [{"by": entry id, "on": [entry ids], "rank": "6", "by_player": id, "on_players": [...]}]
    pogony = models.JSONField(default=list, blank=True)
    games = models.JSONField(default=list, blank=True)  # per game: places, fool, pogony
    source = models.CharField(max_length=20, choices=Source.choices)
    reason = models.CharField(max_length=300, blank=True)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "id"]
        constraints = [
            # The first result of a table is unique: a job recording it twice stores it once.
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(supersedes__isnull=True),
                name="one_original_result_per_table",
            ),
        ]

    def __str__(self) -> str:
        return f"result {self.pk} of table {self.table_id}"


class Payout(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="payouts")
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="payouts")
    place = models.PositiveIntegerField()
    amount = models.DecimalField(max_digits=14, decimal_places=3)
    final = models.BooleanField(default=False)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["tournament", "place", "entry"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "entry", "final"], name="payout_once_per_entry"
            ),
        ]

    def __str__(self) -> str:
        return f"place {self.place}: {self.amount}"


class PrizePool(models.Model):
    """The last computed pool: provisional while registering, final at the end."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="prize_pool"
    )
    gross = models.DecimalField(max_digits=14, decimal_places=3)
    rake = models.DecimalField(max_digits=14, decimal_places=3)
    total = models.DecimalField(max_digits=14, decimal_places=3)
    currency = models.CharField(max_length=3)
    paid_entries = models.PositiveIntegerField()
    final = models.BooleanField(default=False)
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.total} {self.currency}"


class RankRecord(models.Model):
    """A player's rank (звание) from pogony, per league season or per tournament."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ranks")
    league = models.ForeignKey(
        League, null=True, blank=True, on_delete=models.CASCADE, related_name="ranks"
    )
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="ranks"
    )
    rank = models.CharField(max_length=40, blank=True)
    pogony_received = models.PositiveIntegerField(default=0)
    pogony_given = models.PositiveIntegerField(default=0)
    history = models.JSONField(default=list, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
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

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="rating_changes"
    )
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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
        TOURNAMENT_CREATE = "tournament.create", "Tournament created"
        TOURNAMENT_OPEN = "tournament.open_registration", "Registration opened"
        TOURNAMENT_CLOSE = "tournament.close_registration", "Registration closed"
        TOURNAMENT_START = "tournament.start", "Tournament started"
        TOURNAMENT_CANCEL = "tournament.cancel", "Tournament cancelled"
        TOURNAMENT_REFEREES = "tournament.referees", "Referees changed"
        TOURNAMENT_EDIT = "tournament.edit", "Tournament settings changed"
        ENTRY_REGISTER = "entry.register", "Entry registered"
        ENTRY_CHECK_IN = "entry.check_in", "Entry checked in"
        ENTRY_WITHDRAW = "entry.withdraw", "Entry withdrawn"
        ENTRY_DISQUALIFY = "entry.disqualify", "Entry disqualified"
        ENTRY_REENTER = "entry.reenter", "Re-entry"
        ROUND_PAIR = "round.request_pairing", "Pairing requested"
        RESULT_ENTER = "result.enter", "Result entered"
        RESULT_CORRECT = "result.correct", "Result corrected"
        GAME_REFEREE = "game.referee", "Referee ruling on a game"
        LEAGUE_CREATE = "league.create", "League created"
        LEAGUE_EDIT = "league.edit", "League changed"

    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.PROTECT, related_name="audit_events"
    )
    league = models.ForeignKey(
        League, null=True, blank=True, on_delete=models.PROTECT, related_name="audit_events"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=40, choices=Action.choices)
    # What was changed: "entry", "table", "round", ... with its id and its name at the time.
    target_type = models.CharField(max_length=40, blank=True)
    target_id = models.BigIntegerField(null=True, blank=True)
    target_repr = models.CharField(max_length=200, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["tournament", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.target_repr or self.target_type}"
