"""Fixtures of the site's tests that live elsewhere: a production server
(``tests.e2e.production``)."""

from tests.e2e.production import production, static_root

__all__ = ["production", "static_root"]
