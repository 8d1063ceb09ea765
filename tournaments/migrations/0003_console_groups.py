"""The console's two roles as groups with their model permissions (``tournaments.permissions``
adds the object-level rules: an organiser sees the events it owns, a referee those it is assigned
to). Run again, it brings the groups back to exactly these permissions."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

ORGANISER, REFEREE = "organiser", "referee"
VIEW_ALL = [
    ("tournaments", "player"),
    ("tournaments", "team"),
    ("tournaments", "league"),
    ("tournaments", "tournament"),
    ("tournaments", "entry"),
    ("tournaments", "stage"),
    ("tournaments", "round"),
    ("tournaments", "table"),
    ("tournaments", "seat"),
    ("tournaments", "tableresult"),
    ("tournaments", "payout"),
    ("tournaments", "prizepool"),
    ("tournaments", "rankrecord"),
    ("tournaments", "ratingchange"),
    ("tournaments", "auditevent"),
    ("games", "game"),
    ("games", "refereeevent"),
]
# Beyond viewing: what each role may do (always through the services, scoped per event).
ORGANISER_EXTRA = [
    ("add", "tournaments", "tournament"),
    ("change", "tournaments", "tournament"),
    ("add", "tournaments", "league"),
    ("change", "tournaments", "league"),
    ("add", "tournaments", "player"),
    ("change", "tournaments", "player"),
    ("add", "tournaments", "team"),
    ("change", "tournaments", "team"),  # since 0007
    ("add", "tournaments", "entry"),
    ("change", "tournaments", "entry"),
    ("change", "tournaments", "round"),
    ("add", "tournaments", "tableresult"),
    ("change", "games", "game"),
]
REFEREE_EXTRA = [
    ("change", "tournaments", "entry"),
    ("change", "tournaments", "round"),
    ("add", "tournaments", "tableresult"),
    ("change", "games", "game"),
]


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    # Permissions are normally made after all migrations (post_migrate); make them now.
    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    make_groups(apps)


def make_groups(apps):  # type: ignore[no-untyped-def]
    """The two groups with exactly their permissions (which must exist)."""
    set_groups(apps, VIEW_ALL, ORGANISER_EXTRA, REFEREE_EXTRA)


def set_groups(apps, view_all, organiser_extra, referee_extra):  # type: ignore[no-untyped-def]
    """The two groups with exactly these permissions (later migrations extend the lists)."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")

    def perm(action: str, app: str, model: str):  # type: ignore[no-untyped-def]
        return Permission.objects.get(
            content_type__app_label=app, codename=f"{action}_{model}"
        )

    viewing = [perm("view", app, model) for app, model in view_all]
    for name, extra in ((ORGANISER, organiser_extra), (REFEREE, referee_extra)):
        group, _ = Group.objects.get_or_create(name=name)
        group.permissions.set([*viewing, *(perm(*p) for p in extra)])


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.filter(name__in=[ORGANISER, REFEREE]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0002_game_log_tail"),
        ("tournaments", "0002_roles_and_audit"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
