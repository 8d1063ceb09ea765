from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments and leagues")

    def ready(self) -> None:
        # Imported here, not at the top: models load only once the app registry is ready.
        from games import hooks  # noqa: PLC0415
        from tournaments import notifications  # noqa: PLC0415
        from tournaments.notifications import sockets, versions, webhooks  # noqa: PLC0415
        from tournaments.tables import TournamentTables  # noqa: PLC0415

        hooks.register(TournamentTables())
        # The channels of every announced change, in this order at the commit: the feed's
        # sockets, the API's versions, then the webhooks' delivery jobs.
        notifications.register(sockets.FeedSockets())
        notifications.register(versions.PublishedVersions())
        notifications.register(webhooks.WebhookDeliveries())
