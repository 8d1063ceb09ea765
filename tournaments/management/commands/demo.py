"""Prepare the demo: an admin login (printed) and, when available, demo events."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_ADMIN = "admin"


class Command(BaseCommand):
    help = "Create (or reset) the demo admin account and print its login."

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        password = secrets.token_urlsafe(9)
        user, created = user_model.objects.get_or_create(
            username=DEMO_ADMIN, defaults={"is_staff": True, "is_superuser": True}
        )
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        verb = "created" if created else "reset"
        self.stdout.write(
            self.style.SUCCESS(
                f"Admin login {verb}: http://127.0.0.1:8000/admin/  "
                f"user {DEMO_ADMIN!r}  password {password!r}"
            )
        )
