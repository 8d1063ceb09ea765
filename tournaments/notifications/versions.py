"""The API's versions (``tournaments.versions``): each tournament's new version published,
after commit, for the front's ETags and its cache of built answers."""

from __future__ import annotations

from tournaments import versions
from tournaments.notifications import Change, Listener


class PublishedVersions(Listener):
    name = "versions"

    def send(self, change: Change) -> None:
        for stamp in change.stamps:
            versions.publish(slug=stamp.slug, pk=stamp.pk, version=stamp.version)
