from django.db import migrations, models

TAIL = 30  # Game.LOG_TAIL when this migration was written


def fill_log_tails(apps, schema_editor):  # type: ignore[no-untyped-def]
    """The tail of every existing game's log, from its action rows."""
    Game = apps.get_model("games", "Game")
    GameAction = apps.get_model("games", "GameAction")
    for game in Game.objects.filter(version__gt=0).only("pk").iterator():
        entries = GameAction.objects.filter(game_id=game.pk).order_by("-seq")[:TAIL]
        tail = [
            {"seq": seq, "kind": kind, **action}
            for seq, kind, action in reversed(entries.values_list("seq", "kind", "action"))
        ]
        Game.objects.filter(pk=game.pk).update(log_tail=tail)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="log_tail",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(fill_log_tails, migrations.RunPython.noop),
    ]
