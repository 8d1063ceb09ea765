"""People: players (a public profile; bots too) and teams of partners."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import get_language_info, gettext
from django.utils.translation import gettext_lazy as _

from tournaments.scoring.ratings import displayed_rating


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
    # The player's own choice of the site's language, applied when they log in; empty: the
    # browser's (or the site's default).
    language = models.CharField(
        _("language"),
        max_length=8,
        blank=True,
        # Django's own names of the languages, in the reader's language ("Russian", "Русский").
        choices=[
            (code, get_language_info(code)["name_translated"]) for code, _n in settings.LANGUAGES
        ],
        help_text=_("The language of the site for this player; empty: the browser's."),
    )
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
    # The console user who added the player (None: the player signed up, or a command made
    # it): until the player is in an event, only they (and a superuser) change it.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("added by"),
        help_text=_("The organiser who added the player in the console."),
    )

    class Meta:
        ordering = ["display_name", "id"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return self.display_name

    @property
    def rating_ordinal(self) -> float:
        return self.rating_mu - 3 * self.rating_sigma

    @property
    def rating_displayed(self) -> int:
        """The rating people read (``scoring.ratings.displayed_rating``): 1500 for a new
        player, an imported Elo-like strength as given."""
        return displayed_rating(self.rating_mu, self.rating_sigma)


class Team(models.Model):
    """Two or three partners who sit at alternate seats of a team table."""

    name = models.CharField(_("name"), max_length=80)
    members: models.ManyToManyField[Player, TeamMember] = models.ManyToManyField(
        Player, through="TeamMember", related_name="teams", verbose_name=_("members")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # The console user who made the team (None: made by a command or a test's scene): until the
    # team is in an event, only they (and a superuser) change it.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("added by"),
        help_text=_("The organiser who made the team in the console."),
    )

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
