"""What a production server process checks before it serves (``durak_site.server``): the checks
that would otherwise show up as a 500 on every page."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage


def static_files_problem(storage: Any = staticfiles_storage) -> str | None:
    """Why production could not name its static files, or None: no manifest in ``STATIC_ROOT``
    or static files that are not in it (collected before they were added)."""
    manifest = getattr(storage, "hashed_files", None)
    if manifest is None:
        return None  # not a manifest storage: development serves the files as they are
    again = "run `python manage.py collectstatic --noinput` (python -m durak_site.serve does)"
    if not manifest:
        return f"no static files manifest in {settings.STATIC_ROOT}: {again}"
    ignore = apps.get_app_config("staticfiles").ignore_patterns  # type: ignore[attr-defined]
    missing = sorted(
        {path for finder in finders.get_finders() for path, _ in finder.list(ignore)}
        - set(manifest)
    )
    if missing:
        return (
            f"{len(missing)} static files are not in the manifest of {settings.STATIC_ROOT} "
            f"(such as {missing[0]}): {again}"
        )
    return None
