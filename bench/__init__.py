"""Benchmarks: commands that print figures (``python3 dev.py bench`` runs them all)."""

from __future__ import annotations

import secrets


def production_env(allowed_hosts: str = "127.0.0.1,localhost") -> dict[str, str]:
    """The settings a production process runs with (``DJANGO_DEBUG=0``, a fresh secret key),
    for the benchmarks' servers and workers: with Django's DEBUG on, every query goes through
    the debug cursor and is kept in ``connection.queries``, a cost no deployment pays."""
    return {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
        "DJANGO_ALLOWED_HOSTS": allowed_hosts,
        "DJANGO_SECURE_SSL_REDIRECT": "0",
    }
