"""factory_boy factories for the usual rows.

Call them through their typed class methods (``create``, ``create_batch``): they return the
model, where ``Factory()`` goes through factory_boy's unannotated metaclass and returns ``Any``.
factory_boy's declarations (``Sequence``, ``SubFactory``, ``Password``) are unannotated too,
hence the ``no-untyped-call`` ignores on them.
"""

from __future__ import annotations

import importlib

from django.apps import apps as django_apps
from django.contrib.auth.management import create_permissions
from django.contrib.auth.models import Group, User
from factory.declarations import Sequence, SubFactory
from factory.django import DjangoModelFactory, Password

from tournaments.models import Player

# The groups as the latest migration that sets them has them.
_GROUPS_MIGRATION = importlib.import_module("tournaments.migrations.0009_webhook_permissions")


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = Sequence(lambda n: f"user{n}")  # type: ignore[no-untyped-call]
    password = Password("pw-for-tests-only")  # type: ignore[no-untyped-call]


class SuperuserFactory(UserFactory):
    """Staff with every right (``is_superuser``): only where a test means exactly that."""

    username = Sequence(lambda n: f"root{n}")  # type: ignore[no-untyped-call]
    is_staff = True
    is_superuser = True


class StaffFactory(UserFactory):
    """Staff, as the admin requires of a console user; ``console_user`` gives it its group."""

    username = Sequence(lambda n: f"staff{n}")  # type: ignore[no-untyped-call]
    is_staff = True


def console_group(name: str) -> Group:
    """The console group ``name`` from its data migration, made again (with its permissions)
    when a transactional test before this one flushed the database."""
    group = Group.objects.filter(name=name).first()
    if group is None:
        for config in django_apps.get_app_configs():
            create_permissions(config, verbosity=0)
        _GROUPS_MIGRATION.make_groups(django_apps)
        group = Group.objects.get(name=name)
    return group


def console_user(username: str, group: str | None) -> User:
    """A staff user in the console group ``group`` (``organiser``, ``referee``; None: none)."""
    user = StaffFactory.create(username=username)
    if group is not None:
        user.groups.add(console_group(group))
    return user


def referee_user(username: str = "referee") -> User:
    """An ordinary user of the ``referee`` group (no staff rights): it referees the events it is
    assigned to (``Tournament.referees``), nothing else."""
    user = UserFactory.create(username=username)
    user.groups.add(console_group("referee"))
    return user


class PlayerFactory(DjangoModelFactory[Player]):
    """A human player, with a user to log in as."""

    class Meta:
        model = Player

    user = SubFactory(UserFactory)  # type: ignore[no-untyped-call]
    display_name = Sequence(lambda n: f"Игрок {n}")  # type: ignore[no-untyped-call]
    club = ""


class BotPlayerFactory(DjangoModelFactory[Player]):
    """A bot: no user, played by the engine's heuristic bot."""

    class Meta:
        model = Player

    display_name = Sequence(lambda n: f"Бот {n}")  # type: ignore[no-untyped-call]
    is_bot = True
    bot_kind = "heuristic"
