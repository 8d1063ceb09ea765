from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments and leagues")

    def ready(self) -> None:
        # Imported here, not at the top: models load only once the app registry is ready.
        from games import hooks  # noqa: PLC0415
        from tournaments.tables import TournamentTables  # noqa: PLC0415

        hooks.register(TournamentTables())
