"""The audit log: one append-only row per change made by a person."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.models.events import League, Tournament


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
        RESULT_CONFIRM = "result.confirm", _("Result confirmed")
        RESULT_REJECT = "result.reject", _("Result rejected")
        ROUND_REPAIR = "round.repair", _("Round paired again")
        SEAT_SWAP = "seat.swap", _("Seats swapped")
        SEAT_BOT = "seat.bot", _("Seat handed to a bot")
        SEAT_RETURN = "seat.return", _("Seat taken back from a bot")
        GAME_REFEREE = "game.referee", _("Referee ruling on a game")
        PLAYER_EDIT = "player.edit", _("Player changed")
        TEAM_CREATE = "team.create", _("Team created")
        TEAM_EDIT = "team.edit", _("Team changed")
        LEAGUE_CREATE = "league.create", _("League created")
        LEAGUE_EDIT = "league.edit", _("League changed")
        AWARDS_RECOMPUTE = "tournament.recompute_awards", _("Places and awards recomputed")
        REFEREE_INVITE = "referee.invite", _("Referee invited")
        REFEREE_INVITE_REVOKE = "referee.invite_revoke", _("Referee invitation revoked")
        REFEREE_INVITE_ACCEPT = "referee.invite_accept", _("Referee invitation accepted")
        REFEREE_CREATE = "referee.create", _("Referee account created")
        TOKEN_CREATE = "token.create", _("API token created")
        TOKEN_REVOKE = "token.revoke", _("API token revoked")
        FAIRPLAY_DECIDE = "fairplay.decide", _("Fair-play decision on a pair")

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
