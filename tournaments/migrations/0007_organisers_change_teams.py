"""Organisers change teams (their names; their members until an event of theirs starts): the
console groups are brought back to ``0003_console_groups``'s list, which now has it."""

import importlib

from django.db import migrations

GROUPS = importlib.import_module("tournaments.migrations.0003_console_groups")


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    GROUPS.make_groups(apps)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0006_results_review_seat_bots_dropout")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
