"""The console groups' permissions on the API's webhooks: everyone in the console sees the
webhooks and deliveries of the events it sees; organisers add and change them (each through
its service). Later migrations that extend the groups build on these lists."""

import importlib

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUPS = importlib.import_module("tournaments.migrations.0003_console_groups")

VIEW_ALL = [*GROUPS.VIEW_ALL, ("tournaments", "webhook"), ("tournaments", "webhookdelivery")]
ORGANISER_EXTRA = [
    *GROUPS.ORGANISER_EXTRA,
    ("add", "tournaments", "webhook"),
    ("change", "tournaments", "webhook"),
]
REFEREE_EXTRA = GROUPS.REFEREE_EXTRA


def make_groups(apps):  # type: ignore[no-untyped-def]
    GROUPS.set_groups(apps, VIEW_ALL, ORGANISER_EXTRA, REFEREE_EXTRA)


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    # The webhook models' permissions are made after all migrations (post_migrate): now.
    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    make_groups(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0008_api_version_webhooks_idempotency"),
        ("tournaments", "0007_organisers_change_teams"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
