"""``python manage.py verify_game <id>``: the fairness check of a finished game, as JSON."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from durak_site.errors import ServiceError
from games import services
from games.models import Game


class Command(BaseCommand):
    help = "Reveal a finished game's seed, check it against the commitment and replay the deal."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("game_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        game = Game.objects.filter(pk=options["game_id"]).first()
        if game is None:
            raise CommandError(f"there is no game {options['game_id']}")
        try:
            report = services.game_verify_deal(game=game)
        except ServiceError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from None
        self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        if not (report["commitment_ok"] and report["replay_ok"]):
            raise CommandError("the game does NOT verify")
