from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and leagues"

    def ready(self) -> None:
        # Imported here, not at the top: models load only once the app registry is ready.
        from games import hooks  # noqa: PLC0415
        from tournaments.tables import TournamentTables  # noqa: PLC0415

        hooks.register(TournamentTables())
