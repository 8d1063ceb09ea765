"""The tournament feed's log: every announced change of a tournament, by version.

``tournaments.services.feed.tournaments_changed`` writes one :class:`FeedEvent` per tournament
of a change, in the change's transaction, with the version it gave it: every version a reader
can see (an ETag, a socket's ``hello``, a webhook's body) has its event here, and a client that
missed some reads them again (``GET /api/v1/tournaments/<slug>/events/?since=<version>``, or
the NDJSON stream).

Retention: the rows are kept for the tournament's lifetime (a few thousand for a long event,
a few hundred bytes each) and go with it (``CASCADE``). A later rule may drop the rows of a
tournament finished long ago below a version; the log's readers then answer ``410``
``events_expired`` for a ``since`` older than the first version kept (minus one), so that no
client mistakes a pruned log for an event without changes.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.models.events import Tournament


class FeedEvent(models.Model):
    """One announced change of a tournament: its event, when, its data, and the version it made."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="feed_events",
        verbose_name=_("tournament"),
    )
    version = models.PositiveBigIntegerField(_("version"))
    event = models.CharField(_("event"), max_length=40)
    at = models.DateTimeField(_("at"))
    data = models.JSONField(_("data"), default=dict, blank=True)

    class Meta:
        ordering = ["tournament", "version"]
        verbose_name = _("feed event")
        verbose_name_plural = _("feed events")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "version"], name="one_feed_event_per_version"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} #{self.version}"
