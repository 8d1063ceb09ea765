"""factory_boy factories for the usual rows.

Call them through their typed class methods (``create``, ``create_batch``): they return the
model, where ``Factory()`` goes through factory_boy's unannotated metaclass and returns ``Any``.
factory_boy's declarations (``Sequence``, ``SubFactory``, ``Password``) are unannotated too,
hence the ``no-untyped-call`` ignores on them.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from factory.declarations import Sequence, SubFactory
from factory.django import DjangoModelFactory, Password

from tournaments.models import Player


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = Sequence(lambda n: f"user{n}")  # type: ignore[no-untyped-call]
    password = Password("pw-for-tests-only")  # type: ignore[no-untyped-call]


class RefereeFactory(UserFactory):
    username = Sequence(lambda n: f"referee{n}")  # type: ignore[no-untyped-call]
    is_staff = True
    is_superuser = True


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
