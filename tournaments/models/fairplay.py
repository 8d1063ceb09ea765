"""Fair play (issue 24): the evidence of each finished game of an event, stored once, and each
pair's score over the event, recomputed from those rows (``tournaments.services.fairplay``).

``GameEvidenceRow`` holds what ``tournaments.fairplay.game_evidence`` counted in one game, so a
round's job replays only the games it has not counted yet (one row per game: the unique game
makes the count idempotent, and two workers racing insert one row). ``PairEvidence`` is one
pair of players (lower player id first) in one tournament: the score and what it rests on, each
number with the games and moves that produced it (``terms``). A season's view is a selector over
a league's tournaments (``tournaments.selectors.fairplay``). Both derive from the action logs
and can be rebuilt from them at any time (``docs/fairplay.md``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from games.models import Game
from tournaments.models.events import Tournament
from tournaments.models.people import Player

#: The version of the evidence's counting (``tournaments.fairplay.evidence``): a row of an
#: older version is counted again (2: the counts keep the chances not taken's moves too; 3: the
#: strata of ``threw_in`` say the cheapest card it could throw, those of ``beat`` and ``took``
#: how many covers the other's cards had).
EVIDENCE_VERSION = 3


class GameEvidenceRow(models.Model):
    """The counts of one finished game: per ordered pair of its players, kind and stratum.

    ``counts`` is a list of ``[mover, other, kind, stratum, opportunities, events, cards,
    [seq, ...], [missed seq, ...]]`` (players as ids; the seqs are the ``GameAction.seq`` of the
    events and of the chances not taken; a version-1 row has no missed seqs)."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, related_name="fairplay_evidence", verbose_name=_("game")
    )
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="fairplay_games",
        verbose_name=_("tournament"),
    )
    version = models.PositiveSmallIntegerField(_("counting version"), default=EVIDENCE_VERSION)
    players = models.JSONField(_("players"), default=list, help_text=_("Player ids by seat."))
    counts = models.JSONField(_("counts"), default=list)
    fool = models.PositiveIntegerField(_("fool (player id)"), null=True, blank=True)
    draw = models.BooleanField(_("draw"), default=False)
    complete = models.BooleanField(
        _("complete"), default=True, help_text=_("Every move replayed and the game ended.")
    )
    moves = models.PositiveIntegerField(_("moves replayed"), default=0)
    created_at = models.DateTimeField(_("counted at"), auto_now_add=True)

    class Meta:
        ordering = ["tournament", "game"]
        verbose_name = _("game's fair-play evidence")
        verbose_name_plural = _("games' fair-play evidence")

    def __str__(self) -> str:
        return f"evidence of game {self.game_id}"


class FairplayState(models.Model):
    """One per tournament whose games were counted: the lock the pairs' recomputation takes
    (not the tournament's row, which the round jobs and the feed need while it writes), and how
    many games its pairs rest on."""

    tournament = models.OneToOneField(
        Tournament,
        on_delete=models.CASCADE,
        related_name="fairplay_state",
        verbose_name=_("tournament"),
    )
    games_counted = models.PositiveIntegerField(_("games counted"), default=0)
    computed_at = models.DateTimeField(_("computed at"), auto_now=True)

    class Meta:
        verbose_name = _("fair-play state")
        verbose_name_plural = _("fair-play states")

    def __str__(self) -> str:
        return f"fair play of tournament {self.tournament_id}"


class PairEvidence(models.Model):
    """Two players' score over one tournament, with what it rests on, and the referee's
    decision on it (``services.fairplay.pair_decide``; the job never changes it).

    ``z`` is the pooled signed departure ``departure / sqrt(variance)`` over the scored terms
    (``tournaments.fairplay.score``); ``terms`` lists every term: ``{"mover", "kind",
    "opportunities", "observed", "expected", "variance", "scored", "moves": [[game, seq],
    ...], "missed": [[game, seq], ...]}`` (the events' moves and the chances not taken; a row
    computed before version 2 has no ``missed``); ``game_ids`` the games they shared."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="fairplay_pairs",
        verbose_name=_("tournament"),
    )
    first = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("first player")
    )
    second = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("second player")
    )
    z = models.FloatField(_("score"), default=0.0)
    departure = models.FloatField(_("signed departure"), default=0.0)
    variance = models.FloatField(_("variance"), default=0.0)
    opportunities = models.PositiveIntegerField(_("opportunities"), default=0)
    games = models.PositiveIntegerField(_("games together"), default=0)
    first_fool = models.PositiveIntegerField(_("first player the fool"), default=0)
    second_fool = models.PositiveIntegerField(_("second player the fool"), default=0)
    other_fool = models.PositiveIntegerField(_("another player the fool"), default=0)
    no_fool = models.PositiveIntegerField(_("no fool"), default=0)
    game_ids = models.JSONField(_("games together"), default=list)
    terms = models.JSONField(_("terms"), default=list)
    games_counted = models.PositiveIntegerField(
        _("games counted"), default=0, help_text=_("The event's games the score was computed from.")
    )
    computed_at = models.DateTimeField(_("computed at"), auto_now=True)

    class Decision(models.TextChoices):
        NONE = "", _("Not reviewed")
        CLEARED = "cleared", _("Cleared")
        WARNED = "warned", _("Warned")
        DISQUALIFIED = "disqualified", _("Disqualified")

    decision = models.CharField(
        _("decision"), max_length=20, choices=Decision.choices, default="", blank=True
    )
    decision_reason = models.CharField(_("reason"), max_length=300, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_on_games = models.PositiveIntegerField(
        _("games counted when decided"), null=True, blank=True
    )

    class Meta:
        ordering = ["tournament", "-z"]
        verbose_name = _("pair's fair-play evidence")
        verbose_name_plural = _("pairs' fair-play evidence")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "first", "second"], name="fairplay_pair_unique"
            ),
            models.CheckConstraint(
                condition=Q(first__lt=F("second")), name="fairplay_pair_ordered"
            ),
        ]
        indexes = [models.Index(fields=["tournament", "z"], name="fairplay_pair_score")]

    def __str__(self) -> str:
        return f"pair {self.first_id}+{self.second_id}: {self.z:.1f}"
