"""Awards: the prize pool and payouts, ranks (звания) and rating changes."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.models.events import Entry, League, Tournament
from tournaments.models.people import Player
from tournaments.money import money


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
            "amount": money(self.amount, self.tournament.currency),
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


class AwardsFailure(models.Model):
    """An end-of-event job that failed: computing the final places, the prize pool, the ranks or
    the ratings of a finished tournament (``tournaments.services.failures``). One row per
    tournament and job while it fails; the job's next success deletes it.

    ``code`` and ``params`` make the message again in the reader's language; ``fingerprint``
    hashes the job's inputs when it failed, so the reconciler sends it again only once they
    have changed (not every few seconds for the same failure).
    """

    class Job(models.TextChoices):
        PLACES = "places", _("Final places")
        PRIZE_POOL = "prize_pool", _("Prize pool and payouts")
        RANKS = "ranks", _("Ranks")
        RATINGS = "ratings", _("Ratings")

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="awards_failures",
        verbose_name=_("tournament"),
    )
    job = models.CharField(_("job"), max_length=20, choices=Job.choices)
    code = models.CharField(_("code"), max_length=40)
    params = models.JSONField(_("message parameters"), default=dict, blank=True)
    message = models.TextField(_("message"), blank=True, help_text=_("As it was raised."))
    fingerprint = models.CharField(
        _("inputs"), max_length=64, help_text=_("A hash of the job's inputs when it failed.")
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=1)
    first_failed_at = models.DateTimeField(_("first failed at"))
    last_failed_at = models.DateTimeField(_("last failed at"))

    class Meta:
        ordering = ["tournament", "job"]
        verbose_name = _("awards failure")
        verbose_name_plural = _("awards failures")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "job"], name="awards_failure_once"),
        ]

    def __str__(self) -> str:
        return f"{self.get_job_display()}: {self.code}"
