"""factory_boy factories for the usual rows."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from tournaments.models import Player


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests-only")


class RefereeFactory(UserFactory):
    username = factory.Sequence(lambda n: f"referee{n}")
    is_staff = True
    is_superuser = True


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    user = factory.SubFactory(UserFactory)
    display_name = factory.Sequence(lambda n: f"Игрок {n}")
    club = ""


class BotPlayerFactory(PlayerFactory):
    user = None
    display_name = factory.Sequence(lambda n: f"Бот {n}")
    is_bot = True
    bot_kind = "heuristic"
